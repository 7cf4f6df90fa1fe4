// Keyboard-only flows in real Chromium against `cairn serve`: quick open (Ctrl+P) opens a file with
// the focus in its editor, an edit saved with Ctrl+S, Escape back to the file's row in the tree; the
// command palette (Ctrl+Shift+P) from inside the editor; the focus after a dialog, a closed file, an
// Escape with the focus nowhere; a rename under a filter that says where the file went (Show,
// Undo); the splitter resized from the keyboard; and an agent's edit, from a second process,
// announced politely and in the row's description. Screenshots: test-results/keyboard-*.png.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runJsonl } from '../support/cli';
import { contentOf, editorOf, openPage, row, shot } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import { rpc, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';

let sb: Sandbox;
let served: Served;
let browser: Browser;

const agent = (...commands: object[]) => runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
// deploy.md: a row every test leaves in place (build.md is renamed by one of them).
const open = () => openPage(browser.context, served.address, { row: `${P}/deploy.md` });
const hasFocus = (l: Locator) => l.evaluate((el) => el === document.activeElement || el.contains(document.activeElement));
/** Waits until `l` holds the keyboard focus. */
const focused = async (l: Locator) => {
  await l.waitFor();
  await expect.poll(() => hasFocus(l)).toBe(true);
};

/** What a screen reader hears for a tree row: its accessible name and description, from Chromium's accessibility tree. */
async function spoken(page: Page, name: string): Promise<{ name: string; description: string }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const doc = (await cdp.send('Runtime.evaluate', { expression: 'document' })) as { result: { objectId: string } };
    const { nodes } = (await cdp.send('Accessibility.queryAXTree', { objectId: doc.result.objectId, accessibleName: name, role: 'treeitem' })) as {
      nodes: { name?: { value: string }; description?: { value: string } }[];
    };
    return { name: nodes[0]?.name?.value ?? '', description: nodes[0]?.description?.value ?? '' };
  } finally {
    await cdp.detach();
  }
}

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await agent(
      { command: 'create', path: `${P}/build.md`, file_text: '---\ndescription: How to build and test\n---\nmake test\n' },
      { command: 'create', path: `${P}/deploy.md`, file_text: '---\ndescription: Deploying to staging\n---\nmake deploy\n' },
      { command: 'create', path: `${P}/notes/testing.md`, file_text: '---\ndescription: How the tests are laid out\n---\nvitest\n' },
      { command: 'view', path: `${P}/deploy.md` },
      { command: 'create', path: `${P}/lint.md`, file_text: '---\ndescription: Lint rules the agents follow\n---\nnpm run lint\n' },
      { command: 'view', path: `${P}/lint.md` },
    );
  }));
  const [workspace] = (await rpc(served, 'workspaces/list', {})) as { id: string }[];
  await rpc(served, 'memory/setPinned', { workspaceId: workspace!.id, path: `${P}/deploy.md`, pinned: true });
  await rpc(served, 'memory/setPinned', { workspaceId: workspace!.id, path: `${P}/lint.md`, pinned: true });
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the keyboard alone', () => {
  it('Ctrl+P opens a file into its editor, Ctrl+S saves the edit, Escape goes back to its row', async () => {
    const page = await open();
    await page.keyboard.press('Control+P');
    const field = page.getByRole('combobox', { name: /^Memory file/ });
    await focused(field);
    await page.keyboard.type('notes test');
    await expect.poll(() => page.getByRole('listbox', { name: 'Memory files' }).getByRole('option').first().textContent()).toMatch(/^testing\.mdproject\/notes\//);
    await shot(page, 'keyboard-quick-open');
    await page.keyboard.press('Enter');
    const content = contentOf(page, `${P}/notes/testing.md`);
    await focused(content);
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nvitest --run');
    await editorOf(page, `${P}/notes/testing.md`).getByLabel('Unsaved changes').waitFor();
    await page.keyboard.press('Control+S');
    await editorOf(page, `${P}/notes/testing.md`).getByText('Saved.').waitFor();
    await expect(fs.readFile(path.join(sb.roots.project, 'notes', 'testing.md'), 'utf8')).resolves.toContain('vitest --run');
    // The way out is said under the editor, and works.
    await page.getByText('back to the tree').waitFor();
    await page.keyboard.press('Escape');
    await focused(row(page, `${P}/notes/testing.md`));
    await shot(page, 'keyboard-escape-to-tree');
    // The tree's keys work from there: Down moves to the next row.
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => hasFocus(row(page, `${P}/notes/testing.md`))).toBe(false);
    await page.close();
  });

  it('the command palette opens from inside the editor, runs a command, and Escape gives the focus back to the editor', async () => {
    const page = await open();
    await row(page, `${P}/build.md`).click();
    const content = contentOf(page, `${P}/build.md`);
    await content.click();
    await page.keyboard.press('Control+Shift+P');
    const field = page.getByRole('combobox', { name: 'Command' });
    await focused(field);
    await page.getByRole('option', { name: 'Close the open file' }).waitFor();
    await shot(page, 'keyboard-palette');
    await page.keyboard.press('Escape');
    await focused(content);
    // Now run one: typing filters, Enter runs the first.
    await page.keyboard.press('Control+Shift+P');
    await focused(field);
    await page.keyboard.type('inbox');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Inbox' }).waitFor();
    await page.close();
  });

  it('closing a file, or a dialog, gives the focus to the row it came from; Escape with the focus nowhere goes to the tree', async () => {
    const page = await open();
    await row(page, `${P}/deploy.md`).click();
    await editorOf(page, `${P}/deploy.md`).getByRole('button', { name: 'Close file' }).click();
    await focused(row(page, `${P}/deploy.md`));
    // A dialog opened from a row and cancelled with Escape.
    await page.keyboard.press('F2');
    await focused(page.getByRole('dialog', { name: `Rename ${P}/deploy.md` }).getByRole('textbox', { name: 'New path' }));
    await page.keyboard.press('Escape');
    await focused(row(page, `${P}/deploy.md`));
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: `Delete ${P}/deploy.md?` }).waitFor();
    await page.keyboard.press('Escape');
    await focused(row(page, `${P}/deploy.md`));
    // The focus dropped to <body> (a click on nothing): Escape brings it back to the tree.
    await page.locator('body').evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await expect.poll(() => page.evaluate(() => document.activeElement === document.body)).toBe(true);
    await page.keyboard.press('Escape');
    await focused(page.getByRole('tree'));
    await page.close();
  });

  it('a rename the filter hides says where the file went; Show reveals it, Undo takes it back', async () => {
    const page = await open();
    await page.keyboard.press('/');
    // By name (the description says "build" too, and would keep the renamed file in view).
    await page.keyboard.type('build.md');
    await page.keyboard.press('ArrowDown');
    await focused(row(page, `${P}/build.md`));
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: `Rename ${P}/build.md` });
    await focused(dialog.getByRole('textbox', { name: 'New path' }));
    await page.keyboard.type('compile');
    await page.keyboard.press('Enter');
    const toast = page.getByRole('status').filter({ hasText: `Renamed to ${P}/compile.md — hidden by the filter` });
    await toast.waitFor();
    await shot(page, 'keyboard-rename-hidden');
    // The toast holds the focus (the row it came from is gone): Show is its first button.
    await focused(toast.getByRole('button', { name: 'Show' }));
    await page.keyboard.press('Enter');
    await focused(row(page, `${P}/compile.md`));
    await expect(page.getByRole('searchbox', { name: 'Filter memories' }).inputValue()).resolves.toBe('');
    await shot(page, 'keyboard-rename-shown');

    // Again, and Undo this time.
    await page.keyboard.press('/');
    await page.keyboard.type('compile.md');
    await page.keyboard.press('ArrowDown');
    await focused(row(page, `${P}/compile.md`));
    await page.keyboard.press('F2');
    await focused(page.getByRole('dialog', { name: `Rename ${P}/compile.md` }).getByRole('textbox', { name: 'New path' }));
    await page.keyboard.type('make');
    await page.keyboard.press('Enter');
    const again = page.getByRole('status').filter({ hasText: `Renamed to ${P}/make.md — hidden by the filter` });
    await focused(again.getByRole('button', { name: 'Show' }));
    await page.keyboard.press('Tab');
    await focused(again.getByRole('button', { name: 'Undo' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => fs.readdir(sb.roots.project)).toContain('compile.md');
    await expect(fs.readdir(sb.roots.project)).resolves.not.toContain('make.md');
    await focused(row(page, `${P}/compile.md`));
    await page.close();
  });

  it('the splitter is a separator with its value, resized with the arrow keys', async () => {
    const page = await open();
    const splitter = page.getByRole('separator', { name: 'Resize the memory tree' });
    await expect.poll(() => splitter.getAttribute('aria-valuenow')).toMatch(/^\d+$/);
    const before = Number(await splitter.getAttribute('aria-valuenow'));
    expect(Number(await splitter.getAttribute('aria-valuemax'))).toBeGreaterThan(before);
    await splitter.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => Number(await splitter.getAttribute('aria-valuenow'))).toBe(before + 16);
    await page.keyboard.press('Home');
    await expect.poll(() => splitter.getAttribute('aria-valuenow')).toBe(await splitter.getAttribute('aria-valuemin'));
    await page.evaluate(() => localStorage.removeItem('cairn.treeWidth'));
    await page.close();
  });

  it("a row says more than its path (pinned, the agent's edit, description, usage), and an agent's edit is announced", async () => {
    const page = await open();
    // lint.md: written by an agent, never opened by the person, pinned, used. The badges come in
    // an answer of their own, which may follow the list's: waited for.
    await expect.poll(async () => (await spoken(page, `${P}/lint.md`)).description).toMatch(/agent edited/);
    const lint = await spoken(page, `${P}/lint.md`);
    expect(lint.name).toBe(`${P}/lint.md`);
    expect(lint.description).toMatch(/Pinned/);
    expect(lint.description).toMatch(/agent edited/);
    expect(lint.description).toMatch(/Lint rules the agents follow/);
    expect(lint.description).toMatch(/Used \d+×/);
    await agent({ command: 'str_replace', path: `${P}/lint.md`, old_str: 'npm run lint', new_str: 'npm run lint -- --fix' });
    await expect.poll(() => page.getByTestId('announcer').textContent(), { timeout: 15_000 }).toBe(`An agent changed ${P}/lint.md.`);
    await page.close();
  });
});
