// The tree and the editor in real Chromium against `cairn serve` with a temp home (defects
// 2, 4 and 9): the rename dialog's verdict before renaming, a file an agent deletes under unsaved
// edits, tooltips on cut names, the draggable split (kept across reloads), Collapse all / Expand
// all on a 1000-file tree, the diff's gutters in dark mode, and the favicon. Each state is saved at
// 1400 and 800 px wide, light and dark, under test-results/ (tree-editor-*.png) for a person to look at.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runJsonl, stopProcess } from '../support/cli';
import { openPage, row, shots, theme, typeAtEnd } from '../support/page';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { rpc, serve, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';
const LONG_NAME = `${P}/decisions-about-the-storage-layer-and-why-sqlite-won-over-postgres-for-local-use.md`;
const LONG_DESC = 'Why the local store is SQLite: one file, no server, WAL for concurrent readers, and what would make us reconsider';

let sb: Sandbox;
let served: Served;
let browser: Browser;

const agent = (...commands: object[]) => runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
const open = (server = served, first = `${P}/build.md`) => openPage(browser.context, server.address, { row: first });

/** The background colour an element has, as `rgb(r, g, b)`. */
const background = (page: Page, selector: string) => page.locator(selector).first().evaluate((el) => getComputedStyle(el).backgroundColor);

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await agent(
      { command: 'create', path: `${P}/build.md`, file_text: '---\ndescription: How to build and test\n---\nmake test\n' },
      { command: 'create', path: LONG_NAME, file_text: `---\ndescription: ${LONG_DESC}\n---\nSQLite.\n` },
      { command: 'create', path: '/memories/global/languages/rust.md', file_text: '---\ndescription: Rust habits\n---\ncargo clippy\n' },
    );
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the tree and the editor in Chromium', () => {
  it('has a favicon, and no request of the page fails', async () => {
    const failed: string[] = [];
    const page = await browser.context.newPage();
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(served.address);
    await row(page, `${P}/build.md`).waitFor();
    const icon = await page.locator('link[rel="icon"]').evaluate(async (el: HTMLLinkElement) => {
      const res = await fetch(el.href);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    });
    expect(icon).toMatchObject({ status: 200, type: 'image/svg+xml' });
    expect(icon.body).toMatch(/^<svg /);
    expect(failed).toEqual([]);
    await page.close();
  });

  it('rename: the base name is selected, the dialog says where the file lands, and refuses another scope before sending', async () => {
    const page = await open();
    await row(page, '/memories/global/languages/rust.md').focus();
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Rename /memories/global/languages/rust.md' });
    const field = dialog.getByRole('textbox', { name: 'New path' });
    await expect(field.evaluate((el: HTMLInputElement) => el.value.slice(el.selectionStart!, el.selectionEnd!))).resolves.toBe('rust');
    await page.keyboard.type('go');
    await dialog.getByText('Will be: /memories/global/languages/go.md').waitFor();
    await shots(page, 'tree-editor-rename-will-be', { ready: () => dialog.getByText('Will be:').waitFor() });
    await field.fill('/memories/project/shell.md');
    const refusal = dialog.getByText(/^A memory moves within its scope/);
    await refusal.waitFor();
    await expect(dialog.getByRole('button', { name: 'Rename' }).isDisabled()).resolves.toBe(true);
    await shots(page, 'tree-editor-rename-other-scope', { ready: () => refusal.waitFor() });
    await field.fill('/memories/global/languages/go.md');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await row(page, '/memories/global/languages/go.md').waitFor();
    expect(await fs.readFile(path.join(sb.home, 'memory', 'global', 'languages', 'go.md'), 'utf8')).toContain('cargo clippy');
    await page.close();
  });

  it('a file an agent deletes under unsaved edits: "deleted by an agent", the text kept, then kept as a new file', async () => {
    await agent({ command: 'create', path: `${P}/doomed.md`, file_text: 'line one\n' });
    const page = await open();
    const editor = await typeAtEnd(page, `${P}/doomed.md`, 'my unsaved line');
    await agent({ command: 'delete', path: `${P}/doomed.md` });
    const banner = editor.getByRole('alert');
    await banner.getByText('This file was deleted by an agent since you opened it. Your text is still here, not saved.').waitFor({ timeout: 15_000 });
    await expect(editor.getByText(/Could not open|Changed by an agent/).count()).resolves.toBe(0);
    await shots(page, 'tree-editor-deleted-under-edits', { ready: () => banner.waitFor() });
    await banner.getByRole('button', { name: 'Keep my text as a new file' }).click();
    await editor.getByText('Kept your text: the file exists again.').waitFor();
    expect(await fs.readFile(path.join(sb.roots.project, 'doomed.md'), 'utf8')).toBe('line one\nmy unsaved line');
    await page.close();
  });

  it('compare in dark mode: the gutters and change marks are the dark ones', async () => {
    await agent({ command: 'create', path: `${P}/compare.md`, file_text: 'line one\nline two\n' });
    const page = await open();
    const editor = await typeAtEnd(page, `${P}/compare.md`, 'mine');
    await agent({ command: 'str_replace', path: `${P}/compare.md`, old_str: 'line one', new_str: 'agent line' });
    await editor.getByText(/Changed by an agent while you edit/).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Control+s');
    await editor.getByRole('alert').getByRole('button', { name: 'Compare' }).click();
    await editor.getByText('On disk now').waitFor();
    await theme(page, 'dark');
    // The stylesheet's dark --bg (#16191d), not CodeMirror's light gutter (#f5f5f5); the merge view's dark marks.
    await expect(background(page, '.diff-body .cm-gutters')).resolves.toBe('rgb(22, 25, 29)');
    await expect(background(page, '.diff-body .cm-merge-a .cm-changedLineGutter')).resolves.toBe('rgb(255, 170, 153)');
    await theme(page, 'light');
    await expect(background(page, '.diff-body .cm-gutters')).resolves.toBe('rgb(247, 248, 250)');
    await expect(background(page, '.diff-body .cm-merge-a .cm-changedLineGutter')).resolves.toBe('rgb(238, 68, 51)');
    await shots(page, 'tree-editor-compare', { ready: () => editor.getByText('On disk now').waitFor() });
    await page.close();
  });

  it('a cut name or description gets its full text as a tooltip on hover; one that fits gets none', async () => {
    const page = await open();
    const long = row(page, LONG_NAME);
    await long.hover();
    await expect(long.locator('.name').getAttribute('title')).resolves.toBe(LONG_NAME);
    await expect(long.locator('.desc').getAttribute('title')).resolves.toBe(LONG_DESC);
    const short = row(page, `${P}/build.md`);
    await short.hover();
    await expect(short.locator('.name').getAttribute('title')).resolves.toBeNull();
    await expect(short.locator('.desc').getAttribute('title')).resolves.toBeNull();
    await page.close();
  });

  it('after a delete the next row has the focus, and ArrowDown from the filter enters the results', async () => {
    await agent({ command: 'create', path: `${P}/aaa-first.md`, file_text: 'a\n' }, { command: 'create', path: `${P}/aab-second.md`, file_text: 'b\n' });
    const page = await open();
    await row(page, `${P}/aaa-first.md`).focus();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: `Delete ${P}/aaa-first.md?` }).getByRole('button', { name: 'Delete' }).click();
    await row(page, `${P}/aaa-first.md`).waitFor({ state: 'detached' });
    const focusedRow = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null);
    await expect.poll(focusedRow).toBe(`${P}/aab-second.md`);
    await shots(page, 'tree-editor-after-delete', { ready: () => row(page, `${P}/aab-second.md`).waitFor() });
    // The keyboard goes on from the focused row.
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedRow).toBe(`${P}/build.md`);
    await page.keyboard.press('/');
    await page.keyboard.type('build');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focusedRow).toBe(`${P}/build.md`);
    await page.close();
  });

  it('the split drags and moves from the keyboard, is kept across a reload, and a double click restores it', async () => {
    const page = await open();
    const tree = page.locator('.pane-left');
    const width = async () => Math.round((await tree.boundingBox())!.width);
    const before = await width();
    const grip = page.getByRole('separator', { name: 'Resize the memory tree' });
    const box = (await grip.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 200);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 75, box.y + 200);
    await page.mouse.move(box.x + box.width / 2 + 150, box.y + 200);
    await page.mouse.up();
    expect(Math.abs((await width()) - (before + 150))).toBeLessThanOrEqual(2);
    await grip.focus();
    const dragged = await width();
    await page.keyboard.press('ArrowLeft');
    expect(await width()).toBe(dragged - 16);
    await page.keyboard.press('Shift+ArrowRight');
    expect(await width()).toBe(dragged - 16 + 64);
    await page.keyboard.press('Home');
    expect(await width()).toBe(300);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.reload();
    await row(page, `${P}/build.md`).waitFor();
    expect(await width()).toBe(332);
    await grip.hover();
    await shots(page, 'tree-editor-split', { ready: () => row(page, `${P}/build.md`).waitFor() });
    // At 800 px the split still holds both; below 640 px the tree and the file take turns: no split to drag.
    await page.setViewportSize({ width: 800, height: 800 });
    await expect(grip.isVisible()).resolves.toBe(true);
    await page.setViewportSize({ width: 600, height: 800 });
    await expect.poll(() => grip.isVisible()).toBe(false);
    await page.setViewportSize({ width: 1400, height: 800 });
    await grip.dblclick();
    expect(Math.abs((await width()) - before)).toBeLessThanOrEqual(1);
    await page.close();
  });

  it('1000 files start with their directories closed; Expand all and Collapse all', async () => {
    // A home of its own: a thousand global files left by earlier sessions, on disk before the server starts.
    const big = await makeSandbox();
    for (let d = 0; d < 10; d++) {
      const dir = path.join(big.roots.global, `session-${d}`);
      await fs.mkdir(dir, { recursive: true });
      await Promise.all(Array.from({ length: 100 }, (_, i) => fs.writeFile(path.join(dir, `note-${i}.md`), `---\ndescription: Note ${i} of session ${d}\n---\n`)));
    }
    const bigServer = await serve(big.home);
    try {
      await rpc(bigServer, 'workspaces/add', { name: 'widgets', path: big.checkout });
      const page = await open(bigServer, '/memories/global/session-0');
      await expect(row(page, '/memories/global/session-0').getAttribute('aria-expanded')).resolves.toBe('false');
      await expect(row(page, '/memories/global/session-0/note-0.md').count()).resolves.toBe(0);
      await expect(page.getByRole('treeitem', { name: 'WORKSPACE memory, 0 files' }).isVisible()).resolves.toBe(true);
      await shots(page, 'tree-editor-large-tree-start', { ready: () => row(page, '/memories/global/session-9').waitFor() });
      await page.getByRole('button', { name: 'Expand all' }).click();
      await row(page, '/memories/global/session-0/note-0.md').waitFor();
      await shots(page, 'tree-editor-large-tree-expanded', { ready: () => row(page, '/memories/global/session-0/note-0.md').waitFor() });
      await page.getByRole('button', { name: 'Collapse all' }).click();
      await row(page, '/memories/global/session-0/note-0.md').waitFor({ state: 'detached' });
      await page.close();
    } finally {
      await stopProcess(bigServer.server);
      await big.cleanup();
    }
  });
});
