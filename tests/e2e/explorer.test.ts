// The explorer in real Chromium against `cairn serve` with a temp home ("what users of VS
// Code's explorer and Obsidian expect"): the right-click menu (mouse and Shift+F10), multi-select
// with one confirmed bulk delete, and drag and drop (a move within a scope; another scope refused
// in the rename dialog's words). Also content search, the sort control and "What agents receive",
// for their screenshots. Each state is saved at 1400 and 800 px wide, light and dark, under
// test-results/ (explorer-*.png) for a person to look at.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runJsonl } from '../support/cli';
import { openPage, row, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';

let sb: Sandbox;
let served: Served;
let browser: Browser;

const agent = (...commands: object[]) => runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
const exists = (p: string) =>
  fs.stat(path.join(sb.roots.project, p)).then(
    () => true,
    () => false,
  );

const open = (first = `${P}/build.md`) => openPage(browser.context, served.address, { row: first });

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await agent(
      { command: 'create', path: `${P}/build.md`, file_text: '---\ndescription: How to build and test\n---\nmake test; the webpack step is flaky\n' },
      { command: 'create', path: `${P}/deploy.md`, file_text: '---\ndescription: Shipping\n---\nwebpack bundles, fly deploys\n' },
      { command: 'create', path: `${P}/notes/ideas.md`, file_text: 'ideas\n' },
      { command: 'create', path: `${P}/scratch-1.md`, file_text: 'one\n' },
      { command: 'create', path: `${P}/scratch-2.md`, file_text: 'two\n' },
      { command: 'create', path: `${P}/scratch-3.md`, file_text: 'three\n' },
      { command: 'create', path: '/memories/global/prefs.md', file_text: '---\ndescription: How I like things\n---\nTabs.\n' },
    );
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the explorer in Chromium', () => {
  it('right-click menu: its actions on a row, and Shift+F10 opens it from the keyboard', async () => {
    const page = await open();
    await row(page, `${P}/deploy.md`).click({ button: 'right' });
    const menu = page.getByRole('menu', { name: `Actions for ${P}/deploy.md` });
    await menu.waitFor();
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['OpenEnter', 'Rename or move…F2', 'Pin', 'Copy virtual path', 'Delete…Del']);
    await shots(page, 'explorer-row-menu', { ready: () => menu.waitFor() });
    await menu.getByRole('menuitem', { name: 'Pin' }).click();
    await row(page, `${P}/deploy.md`).getByLabel('Pinned').waitFor();
    // Kept by the server: a new page shows it pinned.
    await page.reload();
    await row(page, `${P}/deploy.md`).getByLabel('Pinned').waitFor();

    await row(page, `${P}/build.md`).focus();
    await page.keyboard.press('Shift+F10');
    const keyed = page.getByRole('menu', { name: `Actions for ${P}/build.md` });
    await keyed.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Rename ${P}/build.md` });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? null)).toBe(`${P}/build.md`);
    await page.close();
  });

  it('multi-select: Ctrl+click and Shift+click pick files; one confirmation lists them; all are deleted', async () => {
    const page = await open();
    // No file is opened (at 800 px an open file takes the tree's place).
    await row(page, `${P}/scratch-1.md`).click({ modifiers: ['Control'] });
    await row(page, `${P}/scratch-3.md`).click({ modifiers: ['Shift'] });
    const bar = page.getByRole('toolbar', { name: 'Selected files' });
    await bar.getByText('3 selected').waitFor();
    await row(page, `${P}/scratch-2.md`).click({ modifiers: ['Control'] });
    await bar.getByText('2 selected').waitFor();
    await row(page, `${P}/scratch-2.md`).click({ modifiers: ['Control'] });
    await bar.getByText('3 selected').waitFor();
    await shots(page, 'explorer-multi-select', { ready: () => bar.waitFor() });
    await row(page, `${P}/scratch-2.md`).click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Delete 3 files…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 3 files?' });
    await dialog.waitFor();
    await expect(dialog.locator('li').allTextContents()).resolves.toEqual([`${P}/scratch-1.md`, `${P}/scratch-2.md`, `${P}/scratch-3.md`]);
    await shots(page, 'explorer-bulk-delete-confirm', { ready: () => dialog.waitFor() });
    await dialog.getByRole('button', { name: 'Delete 3 files' }).click();
    await page.getByText('Deleted 3 files.', { exact: false }).waitFor();
    for (const n of [1, 2, 3]) {
      await row(page, `${P}/scratch-${n}.md`).waitFor({ state: 'detached' });
      await expect(exists(`scratch-${n}.md`)).resolves.toBe(false);
    }
    // Each is restorable on its own from Recently deleted.
    await page.getByRole('treeitem', { name: /^Recently deleted from PROJECT, 3 files/ }).waitFor();
    await page.close();
  });

  it('drag and drop moves a file onto a directory of its scope; onto another scope it is refused, nothing moves', async () => {
    const page = await open();
    await row(page, `${P}/deploy.md`).dragTo(row(page, `${P}/notes`));
    await row(page, `${P}/notes/deploy.md`).waitFor();
    await expect(exists('notes/deploy.md')).resolves.toBe(true);
    await expect(exists('deploy.md')).resolves.toBe(false);
    await shots(page, 'explorer-dropped', { ready: () => row(page, `${P}/notes/deploy.md`).waitFor() });

    await row(page, `${P}/build.md`).dragTo(page.getByRole('treeitem', { name: /^GLOBAL memory/ }));
    const refusal = page.getByRole('alert').filter({ hasText: 'A memory moves within its scope' });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain(`${P}/build.md stays in project memory. To move it to global memory, create it there`);
    await expect(exists('build.md')).resolves.toBe(true);
    await shots(page, 'explorer-drop-refused', { ready: () => refusal.waitFor() });
    await page.close();
  });

  it('content search, the sort control and what agents receive (screenshots)', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'Search content' }).click();
    await page.keyboard.type('webpack');
    const results = page.getByRole('listbox', { name: /Content matches/ });
    await results.waitFor();
    await expect(results.locator('mark').first().textContent()).resolves.toBe('webpack');
    await shots(page, 'explorer-content-search', { ready: () => results.waitFor() });
    await page.getByRole('button', { name: 'Search content' }).click();
    await page.getByRole('searchbox', { name: 'Filter memories' }).fill('');
    await page.getByRole('combobox', { name: 'Sort files by' }).selectOption('written');
    await page.getByRole('button', { name: 'What agents receive' }).click();
    const dialog = page.getByRole('dialog', { name: 'What agents receive' });
    await dialog.getByText(/^index: .* of 24 KiB$/).waitFor();
    await shots(page, 'explorer-agents-receive', { ready: () => dialog.getByText(/^hot set: /).waitFor() });
    await page.close();
  });
});
