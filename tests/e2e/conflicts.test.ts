// Conflicts in real Chromium against `cairn serve` on a temp home, with the agent as its own
// process (`cairn tool` str_replace): the person edits line 8 while the agent edits line 9, the
// save shows the merge of both before writing anything, and "Save merged" writes both lines; edits
// of the same line are resolved piece by piece in Compare; Reload can be undone from its toast,
// which covers none of the editor's actions. The waits are for what the page shows; nothing
// depends on timing. Screenshots go to test-results/ (conflicts-*.png).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { contentOf, editorOf, openPage, row, shot, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';
const LINES = ['---', 'description: How we release', '---', '# Releasing', '', 'Install the tools.', 'Run make.', 'Run the tests.', 'Ship it.', 'Tag the release.', ''];
const RELEASE = LINES.join('\n');
const withLine = (text: string, n: number, to: string) => text.split('\n').map((l, i) => (i === n - 1 ? to : l)).join('\n');

let sb: Sandbox;
let served: Served;
let browser: Browser;

/** The agent, as its own process. */
const agent = async (command: object) => {
  const r = await runCairn(['tool', JSON.stringify(command), '--home', sb.home, '--cwd', sb.checkout]);
  expect(r.status, r.stderr).toBe(0);
};
const onDisk = (name: string) => fs.readFile(path.join(sb.roots.project, name), 'utf8');

/** Opens `file` and, as a person types, puts " twice" before the full stop of line 8. */
async function editLine8(page: Page, file: string): Promise<Locator> {
  await row(page, file).click();
  await contentOf(page, file).click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < 8; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(' twice');
  const editor = editorOf(page, file);
  await editor.getByLabel('Unsaved changes').waitFor();
  return editor;
}

/** Saves with the keyboard once the editor has heard the agent's change; the banner. */
async function saveOverAgent(page: Page, editor: Locator): Promise<Locator> {
  await editor.getByText(/Changed by an agent while you edit/).waitFor({ timeout: 15_000 });
  await page.keyboard.press('Control+s');
  const banner = editor.getByRole('alert');
  await banner.getByText('changed by an agent since you opened it').waitFor();
  return banner;
}

/** The boxes of the toast and of every action the page keeps clear, as the page lays them out. */
const layout = (page: Page) =>
  page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    const toast = document.querySelector('.toast');
    return { toast: toast ? box(toast) : null, actions: [...document.querySelectorAll('[data-keep-clear] button')].map(box) };
  });
const overlaps = (a: { left: number; top: number; right: number; bottom: number }, b: typeof a) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await fs.mkdir(sb.roots.project, { recursive: true });
    for (const name of ['release.md', 'overlap.md', 'reload.md']) await fs.writeFile(path.join(sb.roots.project, name), RELEASE);
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('conflicts in Chromium', () => {
  it('edits of lines 8 and 9 merge: the merge is shown first, and "Save merged" writes both lines', async () => {
    const page = await openPage(browser.context, served.address, { row: `${P}/release.md` });
    const editor = await editLine8(page, `${P}/release.md`);
    await agent({ command: 'str_replace', path: `${P}/release.md`, old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });
    const banner = await saveOverAgent(page, editor);
    await banner.getByText('Your edits and these changes do not overlap').waitFor();
    const preview = editor.getByRole('group', { name: 'Differences between the file on disk and the merge' });
    await preview.getByText('Run the tests twice.').waitFor();
    await preview.getByText('Ship it on Fridays.').waitFor();
    // Shown, not saved: the disk has the agent's line only.
    expect(await onDisk('release.md')).toBe(withLine(RELEASE, 9, 'Ship it on Fridays.'));
    await shots(page, 'conflicts-merge-preview', { ready: () => preview.getByText('Ship it on Fridays.').waitFor() });

    await banner.getByRole('button', { name: 'Save merged' }).click();
    await editor.getByRole('status').getByText('Saved the merge.').waitFor();
    expect(await onDisk('release.md')).toBe(withLine(withLine(RELEASE, 8, 'Run the tests twice.'), 9, 'Ship it on Fridays.'));
    await editor.getByLabel('Unsaved changes').waitFor({ state: 'detached' });
    await expect(contentOf(page, `${P}/release.md`).textContent()).resolves.toContain('Ship it on Fridays.');
    await page.close();
  });

  it('edits of the same line are resolved piece by piece in Compare; the rest is merged', async () => {
    const page = await openPage(browser.context, served.address, { row: `${P}/overlap.md` });
    const editor = await editLine8(page, `${P}/overlap.md`);
    await agent({ command: 'str_replace', path: `${P}/overlap.md`, old_str: 'Run the tests.', new_str: 'Run the tests in CI.' });
    await agent({ command: 'str_replace', path: `${P}/overlap.md`, old_str: 'Install the tools.', new_str: 'Install the tools with mise.' });
    const banner = await saveOverAgent(page, editor);
    await banner.getByText('You both changed the same lines in one place').waitFor();
    await banner.getByRole('button', { name: 'Compare' }).click();
    const piece = editor.getByRole('region', { name: 'Conflict 1 of 1' });
    await piece.getByLabel('Your lines').getByText('Run the tests twice.').waitFor();
    await piece.getByLabel('The lines on disk').getByText('Run the tests in CI.').waitFor();
    const saveMerged = banner.getByRole('button', { name: 'Save merged' });
    expect(await saveMerged.isDisabled()).toBe(true);
    await shots(page, 'conflicts-compare', { ready: () => piece.waitFor() });

    await piece.getByRole('button', { name: 'Take mine' }).click();
    await piece.getByLabel('What conflict 1 becomes').getByText('Run the tests twice.').waitFor();
    await editor.getByText('1 of 1 conflict resolved').waitFor();
    await shot(page, 'conflicts-compare-resolved');
    await saveMerged.click();
    await editor.getByRole('status').getByText('Saved the merge.').waitFor();
    expect(await onDisk('overlap.md')).toBe(withLine(withLine(RELEASE, 6, 'Install the tools with mise.'), 8, 'Run the tests twice.'));
    await page.close();
  });

  it('Reload can be undone: the toast covers none of the editor\'s actions, and Undo brings the draft back', async () => {
    // A short window, where the foot of the page is close to the conflict's buttons.
    const page = await openPage(browser.context, served.address, { row: `${P}/reload.md`, width: 800, height: 420 });
    const editor = await editLine8(page, `${P}/reload.md`);
    await agent({ command: 'str_replace', path: `${P}/reload.md`, old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });
    const banner = await saveOverAgent(page, editor);
    await banner.getByRole('button', { name: 'Reload (discard mine)' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Reloaded: your unsaved text was discarded.' });
    await toast.waitFor();
    await editor.getByLabel('Unsaved changes').waitFor({ state: 'detached' });
    await expect(contentOf(page, `${P}/reload.md`).textContent()).resolves.toContain('Ship it on Fridays.');
    await expect(contentOf(page, `${P}/reload.md`).textContent()).resolves.not.toContain('twice');
    // Placed clear of every action the editor shows (its head's buttons).
    await expect.poll(async () => {
      const { toast: t, actions } = await layout(page);
      return t !== null && actions.length > 0 && actions.every((a) => !overlaps(t, a));
    }).toBe(true);
    await shot(page, 'conflicts-reload-undo');

    await toast.getByRole('button', { name: 'Undo' }).click();
    await toast.waitFor({ state: 'detached' });
    await editor.getByLabel('Unsaved changes').waitFor();
    await expect(contentOf(page, `${P}/reload.md`).textContent()).resolves.toContain('Run the tests twice.');
    await editor.getByText('Your text is back, not saved.', { exact: false }).waitFor();
    // Its base is where it was: saving it finds the agent's line and merges.
    await page.keyboard.press('Control+s');
    await editor.getByRole('alert').getByRole('button', { name: 'Save merged' }).click();
    await editor.getByRole('status').getByText('Saved the merge.').waitFor();
    expect(await onDisk('reload.md')).toBe(withLine(withLine(RELEASE, 8, 'Run the tests twice.'), 9, 'Ship it on Fridays.'));
    await page.close();
  });

  it('a toast never covers the conflict\'s Compare: a delete\'s Undo toast moves up above the banner\'s actions', async () => {
    await fs.writeFile(path.join(sb.roots.project, 'doomed.md'), 'to delete\n');
    await fs.writeFile(path.join(sb.roots.project, 'covered.md'), RELEASE);
    const page = await openPage(browser.context, served.address, { row: `${P}/doomed.md` });
    const editor = await editLine8(page, `${P}/covered.md`);
    await agent({ command: 'str_replace', path: `${P}/covered.md`, old_str: 'Run make.', new_str: 'Run make -j8.' });
    const banner = await saveOverAgent(page, editor);
    const compare = banner.getByRole('button', { name: 'Compare' });
    // A window just tall enough for the banner: its buttons are where a toast sits, at the foot.
    const actions = (await banner.locator('.conflict-actions').boundingBox())!;
    await page.setViewportSize({ width: 1400, height: Math.round(actions.y + actions.height + 36) });

    const doomed = row(page, `${P}/doomed.md`);
    await doomed.hover();
    await doomed.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: `Delete ${P}/doomed.md?` }).getByRole('button', { name: 'Delete' }).click();
    const toast = page.locator('.toast').filter({ hasText: 'doomed.md' });
    await toast.getByRole('button', { name: 'Undo' }).waitFor();
    await expect.poll(async () => {
      const { toast: t, actions: boxes } = await layout(page);
      return t !== null && boxes.length >= 4 && boxes.every((a) => !overlaps(t, a));
    }).toBe(true);
    // Both can be used: Compare opens the comparison, Undo brings the file back.
    await compare.click();
    await banner.getByRole('button', { name: 'Hide comparison' }).waitFor();
    await shot(page, 'conflicts-toast-clear');
    await toast.getByRole('button', { name: 'Undo' }).click();
    await doomed.waitFor();
    await page.close();
  });
});
