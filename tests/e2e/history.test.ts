// Version history in real Chromium against `cairn serve` with a temp home: a delete made
// in the UI can be undone from its toast for 10 seconds; an undo that conflicts (an agent wrote the
// path again) says so and writes nothing; the open file's History compares an older version with
// the file now and restores it after a confirmation; a scope's Recently deleted brings a file back.
// Screenshots land under test-results/ (history-*.png) so a person can look at what the UI showed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runJsonl } from '../support/cli';
import { contentOf, editorOf, openPage, row, shot, shotLightAndDark } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';

let sb: Sandbox;
let served: Served;
let browser: Browser;

/** Commands run as an agent in another process (`cairn tool --jsonl`). */
const agent = (...commands: object[]) => runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
const onDisk = (name: string) => fs.readFile(path.join(sb.roots.project, name), 'utf8');
const gone = async (name: string) => expect(fs.access(path.join(sb.roots.project, name))).rejects.toThrow();

const open = (before?: (page: Page) => Promise<void>) => openPage(browser.context, served.address, { width: 1280, height: 760, before, row: `${P}/build.md` });

/** Deletes a file from its row's Delete button, confirming the dialog. */
async function deleteRow(page: Page, p: string): Promise<void> {
  const r = row(page, p);
  await r.hover();
  await r.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: `Delete ${p}?` }).getByRole('button', { name: 'Delete' }).click();
  await r.waitFor({ state: 'detached' });
}

const toast = (page: Page): Locator => page.locator('.toast');

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await agent({ command: 'create', path: `${P}/build.md`, file_text: '---\ndescription: How to build and test\n---\nmake test\n' });
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('version history in Chromium', () => {
  it('deletes a file, and Undo in the toast brings it back as it was', async () => {
    await agent({ command: 'create', path: `${P}/undo-me.md`, file_text: '---\ndescription: Keep me\n---\nprecious\n' });
    const page = await open();
    await deleteRow(page, `${P}/undo-me.md`);
    const t = toast(page);
    await t.getByText(`Deleted ${P}/undo-me.md.`).waitFor();
    await expect(t.getAttribute('role')).resolves.toBe('status');
    await gone('undo-me.md');
    await shot(page, 'history-undo-toast');
    await t.getByRole('button', { name: 'Undo' }).click();
    await row(page, `${P}/undo-me.md`).waitFor();
    await t.getByText(`Undid the delete of ${P}/undo-me.md.`).waitFor();
    expect(await onDisk('undo-me.md')).toBe('---\ndescription: Keep me\n---\nprecious\n');
    await page.close();
  });

  it('undoes a directory delete from the keyboard (Ctrl+Z), every file coming back', async () => {
    await agent(
      { command: 'create', path: `${P}/team/alice.md`, file_text: 'alice\n' },
      { command: 'create', path: `${P}/team/bob.md`, file_text: 'bob\n' },
    );
    const page = await open();
    await row(page, `${P}/team`).focus();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: `Delete ${P}/team?` }).getByRole('button', { name: 'Delete' }).click();
    await toast(page).getByText(`Deleted ${P}/team and the 2 files in it.`).waitFor();
    await page.keyboard.press('Control+z');
    await row(page, `${P}/team/bob.md`).waitFor();
    await toast(page).getByText(/Undid the delete of 2 files/).waitFor();
    expect(await onDisk('team/alice.md')).toBe('alice\n');
    expect(await onDisk('team/bob.md')).toBe('bob\n');
    await page.close();
  });

  it('an Undo that conflicts (an agent wrote the path again) says so and writes nothing', async () => {
    await agent({ command: 'create', path: `${P}/contested.md`, file_text: 'mine\n' });
    const page = await open();
    await deleteRow(page, `${P}/contested.md`);
    await toast(page).getByText(`Deleted ${P}/contested.md.`).waitFor();
    // Held open while the agent writes (a toast waits while it is hovered): its 10 s may pass on a loaded machine.
    await toast(page).hover();
    await agent({ command: 'create', path: `${P}/contested.md`, file_text: 'the agent wrote this\n' });
    await row(page, `${P}/contested.md`).waitFor({ timeout: 15_000 });
    await toast(page).getByRole('button', { name: 'Undo' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Could not undo the delete' });
    await alert.getByText(`${P}/contested.md exists again since that change; nothing was undone.`).waitFor();
    await shot(page, 'history-undo-conflict');
    expect(await onDisk('contested.md')).toBe('the agent wrote this\n');
    // It stays until dismissed.
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    await alert.waitFor({ state: 'detached' });
    await page.close();
  });

  it('the Undo toast goes away after 10 seconds (the page clock run forward)', async () => {
    await agent({ command: 'create', path: `${P}/brief.md`, file_text: 'brief\n' });
    const page = await open((p) => p.clock.install());
    await deleteRow(page, `${P}/brief.md`);
    await toast(page).getByText(`Deleted ${P}/brief.md.`).waitFor();
    await page.clock.runFor(5_000);
    await expect(toast(page).count()).resolves.toBe(1);
    await page.clock.runFor(5_500);
    await toast(page).waitFor({ state: 'detached' });
    await gone('brief.md');
    await page.close();
  });

  it('opens History of a file, compares an older version with the file now, and restores it after confirming', async () => {
    await agent({ command: 'create', path: `${P}/deploy.md`, file_text: '---\ndescription: Deploy steps\n---\n1. build\n2. push\n' });
    await agent({ command: 'str_replace', path: `${P}/deploy.md`, old_str: '2. push', new_str: '2. push to main\n3. tag the release' });
    const page = await open();
    await row(page, `${P}/deploy.md`).click();
    const editor = editorOf(page, `${P}/deploy.md`);
    const content = contentOf(page, `${P}/deploy.md`);
    await content.getByText('3. tag the release').waitFor();
    // The person edits and saves in Cairn: a third version.
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('4. announce it');
    await page.keyboard.press('Control+s');
    await editor.getByRole('status').getByText('Saved.').waitFor();

    await editor.getByRole('button', { name: 'History' }).click();
    const history = editor.getByRole('region', { name: 'History of deploy.md' });
    const versions = history.getByRole('listbox', { name: 'Versions of deploy.md, newest first' });
    await versions.getByRole('option').nth(2).waitFor();
    const names = await versions.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names).toHaveLength(3);
    expect(names[0]).toMatch(/^Edited, latest, \+1 \u22120 \(1 line added, 0 removed\), You, saved in Cairn, just now \(.+\)\.$/);
    expect(names[1]).toMatch(/^Edited, \+2 \u22121 \(2 lines added, 1 removed\), An agent, with the memory tool, just now \(.+\)\.$/);
    expect(names[2]).toMatch(/^Created, \+5 \u22120 \(5 lines added, 0 removed\), An agent, with the memory tool, just now \(.+\)\.$/);

    await versions.getByRole('option', { name: /^Created/ }).click();
    const diff = history.getByRole('group', { name: 'Differences between this version and the file now' });
    await diff.getByText('3. tag the release').waitFor();
    // Screen readers hear which lines are added; the eye sees the colour and the sign.
    await expect(diff.locator('.dl.del .dl-text').allTextContents()).resolves.toEqual(['Removed: 2. push']);
    await expect(diff.locator('.dl.add .dl-text').allTextContents()).resolves.toEqual(['Added: 2. push to main', 'Added: 3. tag the release', 'Added: 4. announce it']);
    await shotLightAndDark(page, 'history-view');

    await history.getByRole('button', { name: 'Restore this version' }).click();
    const confirm = page.getByRole('dialog', { name: 'Restore deploy.md to this version?' });
    await shot(page, 'history-restore-confirm');
    await confirm.getByRole('button', { name: 'Restore', exact: true }).click();
    await editor.getByRole('status').getByText(/^Restored the version of/).waitFor();
    // The editor shows the restored content, and so does the disk.
    await content.getByText('2. push', { exact: true }).waitFor();
    await expect(content.textContent()).resolves.not.toContain('tag the release');
    expect(await onDisk('deploy.md')).toBe('---\ndescription: Deploy steps\n---\n1. build\n2. push\n');
    // The restore is a version of its own.
    await editor.getByRole('button', { name: 'History' }).click();
    await versions.getByRole('option', { name: /You, restoring the version of just now/ }).waitFor();
    await page.close();
  });

  it('with unsaved edits, History says so and restoring asks to discard them; it says when the history is incomplete', async () => {
    await agent({ command: 'create', path: `${P}/draft.md`, file_text: 'first\n' });
    await agent({ command: 'str_replace', path: `${P}/draft.md`, old_str: 'first', new_str: 'second' });
    const incomplete = path.join(sb.home, 'history', 'incomplete');
    await fs.writeFile(incomplete, '2026-11-24T12:00:00.000Z\n');
    try {
      const page = await open();
      await row(page, `${P}/draft.md`).click();
      const editor = editorOf(page, `${P}/draft.md`);
      const content = contentOf(page, `${P}/draft.md`);
      await content.getByText('second').waitFor();
      await content.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('my unsaved line');
      await editor.getByLabel('Unsaved changes').waitFor();
      await editor.getByRole('button', { name: 'History' }).click();
      const history = editor.getByRole('region', { name: 'History of draft.md' });
      await history.getByText(/^History incomplete since/).waitFor();
      await history.getByText(/You have unsaved edits/).waitFor();
      await history.getByRole('option', { name: /^Created/ }).click();
      await history.getByRole('button', { name: 'Restore this version' }).click();
      const confirm = page.getByRole('dialog', { name: 'Restore draft.md to this version?' });
      await confirm.getByText('Your unsaved edits in the editor are discarded.').waitFor();
      await shot(page, 'history-restore-unsaved');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect(await onDisk('draft.md')).toBe('second\n');
      await history.getByRole('button', { name: 'Restore this version' }).click();
      await confirm.getByRole('button', { name: 'Discard my edits and restore' }).click();
      await content.getByText('first', { exact: true }).waitFor();
      await editor.getByLabel('Unsaved changes').waitFor({ state: 'detached' });
      expect(await onDisk('draft.md')).toBe('first\n');
      await page.close();
    } finally {
      await fs.rm(incomplete, { force: true });
    }
  });

  it('lists a deleted file under Recently deleted in its scope, and Restore brings it back', async () => {
    await agent({ command: 'create', path: `${P}/notes/retro.md`, file_text: '---\ndescription: What went well\n---\nshipping\n' });
    await agent({ command: 'delete', path: `${P}/notes/retro.md` });
    const page = await open();
    const entry = page.getByRole('treeitem', { name: /^Recently deleted from PROJECT, \d+ files?$/ });
    await entry.click();
    const dialog = page.getByRole('dialog', { name: 'Recently deleted from PROJECT memory' });
    const item = dialog.getByRole('listitem', { name: `${P}/notes/retro.md` });
    await item.getByText('by an agent').waitFor();
    await item.getByRole('button', { name: 'Show what notes/retro.md held' }).click();
    await item.getByText('shipping').waitFor();
    await shot(page, 'history-recently-deleted');
    await item.getByRole('button', { name: `Restore ${P}/notes/retro.md` }).click();
    await dialog.getByRole('status').getByText(`Restored ${P}/notes/retro.md: created again.`).waitFor();
    await item.waitFor({ state: 'detached' });
    expect(await onDisk('notes/retro.md')).toBe('---\ndescription: What went well\n---\nshipping\n');
    await dialog.getByRole('button', { name: 'Open it' }).click();
    await editorOf(page, `${P}/notes/retro.md`).getByText('shipping').waitFor();
    await page.close();
  });
});
