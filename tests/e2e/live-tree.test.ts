// The tree while agents work, in real Chromium against a real `cairn serve`, the agent a separate
// process (`cairn tool`): with 200 files and a file open halfway down with a draft, 20 agent edits
// (5 of them new files sorting above the view) leave the open row where it was on screen, the pill
// counts the 5 new files above and scrolls to them, the draft is untouched, and the 20 changes are
// new (set apart from the older badges) until "Mark all seen", which a reload keeps. An open file
// without a draft follows the disk with its changed lines marked and said. Recently deleted is at
// the foot of the tree. At 800 px the tree and the open file both show. Waits are for what the page
// shows; nothing depends on timing. Screenshots: test-results/live-tree-*.png.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { contentOf, editorOf, openPage, row, shot } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';
const OPEN = `${P}/react.md`;
const pad = (n: number) => String(n).padStart(3, '0');
/** 99 files sort above react.md and 100 below it: it sits halfway down. */
const ABOVE = Array.from({ length: 99 }, (_, i) => `m-${pad(i)}.md`);
const BELOW = Array.from({ length: 100 }, (_, i) => `s-${pad(i)}.md`);
const body = (name: string) => `---\ndescription: About ${name}\n---\nLine one of ${name}.\nLine two.\nLine three.\n`;

let sb: Sandbox;
let served: Served;
let browser: Browser;

const agent = async (command: unknown) => {
  const r = await runCairn(['tool', JSON.stringify(command), '--home', sb.home, '--cwd', sb.checkout]);
  expect(r.status, r.stderr).toBe(0);
};
const newMarks = (page: Page) => page.locator('.badge.new');
const newCount = (page: Page) => page.locator('.new-changes-count');

/** Scrolls the tree until `p`'s row is drawn, near the middle of the view. */
async function scrollTo(page: Page, index: number, p: string): Promise<void> {
  await page.locator('.tree-scroll').evaluate((el, top) => (el.scrollTop = top), index * 46 - 250);
  await row(page, p).waitFor();
}

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await fs.mkdir(sb.roots.project, { recursive: true });
    for (const name of [...ABOVE, 'react.md', ...BELOW]) await fs.writeFile(path.join(sb.roots.project, name), body(name));
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the tree while agents work', () => {
  it('holds the open row still through 20 live edits, counts the new files above, keeps the draft, and sets new changes apart until Mark all seen', async () => {
    // Older work: three files an agent changed before the page opened.
    for (const name of ['m-001.md', 's-050.md', 's-090.md']) await agent({ command: 'str_replace', path: `${P}/${name}`, old_str: 'Line two.', new_str: 'Line two, older.' });

    const page = await openPage(browser.context, served.address, { row: `${P}/m-000.md` });
    // Never marked: the older badges are new; marking all seen makes them ordinary "agent edited".
    await newCount(page).getByText('3 new').waitFor();
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    await newCount(page).waitFor({ state: 'detached' });

    // react.md, halfway down, open with a draft.
    await scrollTo(page, 100, OPEN);
    await row(page, OPEN).click();
    await contentOf(page, OPEN).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('My draft line.');
    await editorOf(page, OPEN).getByLabel('Unsaved changes').waitFor();
    const before = await row(page, OPEN).boundingBox();
    expect(before).not.toBeNull();
    await shot(page, 'live-tree-before');

    // 20 edits by an agent in another process: 5 new files sorting first, 15 edits above and below.
    for (let i = 1; i <= 5; i++) await agent({ command: 'create', path: `${P}/a-new-${i}.md`, file_text: body(`a-new-${i}`) });
    const edited = [...ABOVE.filter((_, i) => i % 12 === 5).slice(0, 8), ...BELOW.filter((_, i) => i % 13 === 3).slice(0, 7)];
    expect(edited).toHaveLength(15);
    for (const name of edited) await agent({ command: 'str_replace', path: `${P}/${name}`, old_str: 'Line three.', new_str: 'Line three, changed live.' });

    // The page has all 20: the 5 new files counted above the view, 20 new changes.
    await page.getByRole('button', { name: '5 new files above' }).waitFor();
    await newCount(page).getByText('20 new').waitFor();
    const after = await row(page, OPEN).boundingBox();
    expect(after).toEqual(before);
    // The draft is untouched.
    await editorOf(page, OPEN).getByLabel('Unsaved changes').waitFor();
    expect(await contentOf(page, OPEN).textContent()).toContain('My draft line.');
    await shot(page, 'live-tree-after-edits');

    // The pill scrolls to the new files; once shown they are no longer counted.
    await page.getByRole('button', { name: '5 new files above' }).click();
    await row(page, `${P}/a-new-1.md`).waitFor();
    await page.getByRole('button', { name: /new files? above/ }).waitFor({ state: 'detached' });
    // The older badges stay ordinary, the live ones are new.
    await row(page, `${P}/a-new-1.md`).locator('.badge.new').waitFor();
    await row(page, `${P}/m-001.md`).getByText('agent edited').waitFor();
    expect(await row(page, `${P}/m-001.md`).locator('.badge.new').count()).toBe(0);
    await shot(page, 'live-tree-new-files');

    // Mark all seen: no new marks, the badges stay; a reload agrees.
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    await newCount(page).waitFor({ state: 'detached' });
    expect(await newMarks(page).count()).toBe(0);
    await row(page, `${P}/a-new-1.md`).getByText('agent edited').waitFor();
    await page.reload();
    await row(page, `${P}/a-new-1.md`).getByText('agent edited').waitFor();
    expect(await newMarks(page).count()).toBe(0);
    expect(await newCount(page).count()).toBe(0);
    await page.close();
    // 23 writes by separate processes: a few seconds each on a loaded machine.
  }, 300_000);

  it('marks the lines an agent changed in an open file without a draft, until the person edits', async () => {
    const page = await openPage(browser.context, served.address, { row: `${P}/a-new-1.md` });
    await row(page, `${P}/a-new-2.md`).click();
    const editor = editorOf(page, `${P}/a-new-2.md`);
    await editor.getByText('Line two.').waitFor();
    await agent({ command: 'str_replace', path: `${P}/a-new-2.md`, old_str: 'Line two.\nLine three.', new_str: 'Line two, by the agent.\nLine three, by the agent.' });
    await editor.getByText('Updated by an agent: lines 5-6 changed.').waitFor();
    const marked = editor.locator('.cm-agent-changed');
    await marked.first().waitFor();
    expect(await marked.allTextContents()).toEqual(['Line two, by the agent.', 'Line three, by the agent.']);
    await shot(page, 'live-tree-changed-lines');

    // The person's first edit clears the marks.
    await contentOf(page, `${P}/a-new-2.md`).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('x');
    await marked.first().waitFor({ state: 'detached' });
    await editor.getByText('Updated by an agent').waitFor({ state: 'detached' });
    await page.close();
  });

  it('shows Recently deleted at the foot of the tree, and at 800 px the tree beside the open file', async () => {
    await agent({ command: 'delete', path: `${P}/s-099.md` });
    const page = await openPage(browser.context, served.address, { row: `${P}/a-new-1.md`, width: 800, height: 700 });
    // At the foot, without scrolling the 200 rows.
    await page.getByRole('button', { name: 'Recently deleted from PROJECT, 1 file' }).click();
    await page.getByRole('dialog').getByText('s-099.md').first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await row(page, `${P}/a-new-1.md`).click();
    await editorOf(page, `${P}/a-new-1.md`).getByText('Line one of a-new-1.').waitFor();
    // Both shown, side by side.
    const tree = await page.getByRole('tree').boundingBox();
    const editor = await editorOf(page, `${P}/a-new-1.md`).boundingBox();
    expect(tree && tree.width).toBeGreaterThan(200);
    expect(editor && editor.width).toBeGreaterThan(300);
    expect(tree!.x + tree!.width).toBeLessThanOrEqual(editor!.x + 1);
    await row(page, `${P}/a-new-1.md`).waitFor({ state: 'visible' });
    await shot(page, 'live-tree-800');
    await page.close();
  });
});
