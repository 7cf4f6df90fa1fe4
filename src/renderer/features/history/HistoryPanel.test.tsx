// @vitest-environment happy-dom
// The open file's History against the real backend: versions newest first with when, who, how and
// lines; a selected version compared with the file now (or with what that change did); Restore
// after a confirmation, the editor then showing the restored content; unsaved edits said and never
// discarded without asking; the list following the file live; "History incomplete since".
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const FILE = '/memories/project/notes.md';
const V1 = '---\ndescription: Build notes\n---\nRun make.\n';
const V2 = '---\ndescription: Build notes\n---\nRun make -j4.\nThen test.\n';

const onDisk = (b: UiBackend) => fs.readFile(path.join(b.sb.roots.project, 'notes.md'), 'utf8');
const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });
const panel = () => screen.getByRole('region', { name: 'History of notes.md' });
const versions = () => within(panel()).getByRole('listbox', { name: 'Versions of notes.md, newest first' });
const options = () => within(versions()).queryAllByRole('option');
const optionNames = () => options().map((o) => o.getAttribute('aria-label') ?? '');

/** FILE created and edited by an agent, opened in the editor, its History shown. */
async function openHistory(setup?: (b: UiBackend) => Promise<void>) {
  const user = userEvent.setup();
  const b = await makeBackend();
  await b.agent({ command: 'create', path: FILE, file_text: V1 });
  await b.agent({ command: 'str_replace', path: FILE, old_str: 'Run make.', new_str: 'Run make -j4.\nThen test.' });
  await setup?.(b);
  await renderPane(b);
  await user.click(await screen.findByRole('treeitem', { name: FILE }));
  await screen.findByRole('region', { name: `Editor: ${FILE}` });
  const saved = await onDisk(b);
  await waitFor(() => expect(editorText()).toBe(saved));
  return { b, user };
}

async function showHistory(user: ReturnType<typeof userEvent.setup>) {
  await user.click(within(editor()).getByRole('button', { name: 'History' }));
  await screen.findByRole('region', { name: 'History of notes.md' });
  await waitFor(() => expect(options().length).toBeGreaterThan(0));
}

describe("the open file's History", () => {
  it('lists every version newest first: what, when (exact on hover), who and how, lines added and removed', async () => {
    const { user } = await openHistory();
    await showHistory(user);
    expect(within(editor()).getByRole('button', { name: 'History' }).getAttribute('aria-pressed')).toBe('true');
    expect(optionNames()).toEqual([
      expect.stringMatching(/^Edited, latest, \+2 \u22121 \(2 lines added, 1 removed\), An agent, with the memory tool, just now \(.+\)\.$/),
      expect.stringMatching(/^Created, \+4 \u22120 \(4 lines added, 0 removed\), An agent, with the memory tool, just now \(.+\)\.$/),
    ]);
    const [newest] = options();
    expect(within(newest!).getByText('latest')).toBeTruthy();
    expect(within(newest!).getByText('+2').className).toBe('v-add');
    expect(within(newest!).getByText('\u22121').className).toBe('v-del');
    // Relative in the list, exact on hover.
    const time = newest!.querySelector('time')!;
    expect(time.textContent).toBe('just now');
    expect(time.getAttribute('title')).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(Date.parse(time.getAttribute('dateTime')!)).not.toBeNaN();
    // Nothing chosen yet: it says what choosing does.
    expect(within(panel()).getByText(/Select a version to compare it with the file as it is now/)).toBeTruthy();
  });

  it('shows a version against the file now, removed and added lines marked in words, and what that change did', async () => {
    const { user } = await openHistory();
    await showHistory(user);
    await user.click(within(versions()).getByRole('option', { name: /^Created/ }));
    const diff = await within(panel()).findByRole('group', { name: 'Differences between this version and the file now' });
    expect([...diff.querySelectorAll('.dl.del .dl-text')].map((e) => e.textContent)).toEqual(['Removed: Run make.']);
    expect([...diff.querySelectorAll('.dl.add .dl-text')].map((e) => e.textContent)).toEqual(['Added: Run make -j4.', 'Added: Then test.']);
    expect(within(diff).getByText(/1 line only in this version/)).toBeTruthy();
    expect(within(diff).getByText(/2 lines only in the file now/)).toBeTruthy();
    expect(within(panel()).getByRole('heading', { name: 'Created just now' })).toBeTruthy();

    await user.click(within(panel()).getByRole('button', { name: 'What this change did' }));
    const change = await within(panel()).findByRole('group', { name: 'Differences between the file before this change and the file after it' });
    expect(change.querySelectorAll('.dl.add')).toHaveLength(4);
    expect(change.querySelectorAll('.dl.del')).toHaveLength(0);

    // The newest version is the file now: nothing to restore.
    await user.click(within(panel()).getByRole('button', { name: 'With the file now' }));
    await user.click(within(versions()).getByRole('option', { name: /^Edited/ }));
    await within(panel()).findByText('This version is what the file holds now.');
    expect((within(panel()).getByRole('button', { name: 'Restore this version' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('moves through the versions with the arrow keys', async () => {
    const { user } = await openHistory();
    await showHistory(user);
    const [first, second] = options();
    first!.focus();
    await user.keyboard('{ArrowDown}');
    await waitFor(() => expect(document.activeElement).toBe(options()[1]));
    expect(second!.getAttribute('aria-selected')).toBe('true');
    await user.keyboard('{ArrowUp}');
    await waitFor(() => expect(options()[0]!.getAttribute('aria-selected')).toBe('true'));
  });

  it('restores a version after confirming, and the editor shows the restored content', async () => {
    const { b, user } = await openHistory();
    await showHistory(user);
    await user.click(within(versions()).getByRole('option', { name: /^Created/ }));
    await within(panel()).findByRole('group', { name: /^Differences between this version/ });
    await user.click(within(panel()).getByRole('button', { name: 'Restore this version' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore notes.md to this version?' });
    // Asked, not done.
    expect(await onDisk(b)).toBe(V2);
    await user.click(within(dialog).getByRole('button', { name: 'Restore' }));
    await within(editor()).findByText(/^Restored the version of just now/);
    expect(await onDisk(b)).toBe(V1);
    await waitFor(() => expect(editorText()).toBe(V1));
    expect(screen.queryByRole('region', { name: 'History of notes.md' })).toBeNull();
    // The restore is a version of the person's, naming what it brought back.
    await showHistory(user);
    await waitFor(() => expect(optionNames()[0]).toMatch(/^Edited, latest, \+1 \u22122 \(1 line added, 2 removed\), You, restoring the version of just now, just now \(.+\)\.$/));
  });

  it('with unsaved edits, says so, and restoring asks to discard them (Cancel keeps them)', async () => {
    const { b, user } = await openHistory();
    typeInEditor('my unsaved draft\n');
    await showHistory(user);
    expect(within(panel()).getByText(/You have unsaved edits/)).toBeTruthy();
    await user.click(within(versions()).getByRole('option', { name: /^Created/ }));
    await within(panel()).findByRole('group', { name: /^Differences between this version/ });
    await user.click(within(panel()).getByRole('button', { name: 'Restore this version' }));
    let dialog = await screen.findByRole('dialog', { name: 'Restore notes.md to this version?' });
    expect(within(dialog).getByText('Your unsaved edits in the editor are discarded.')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    // Nothing happened: the draft is still there, the disk unchanged.
    expect(await onDisk(b)).toBe(V2);
    await user.click(within(editor()).getByRole('button', { name: 'History' }));
    expect(editorText()).toBe('my unsaved draft\n');
    expect(within(editor()).getByLabelText('Unsaved changes')).toBeTruthy();

    await showHistory(user);
    await user.click(within(versions()).getByRole('option', { name: /^Created/ }));
    await within(panel()).findByRole('group', { name: /^Differences between this version/ });
    await user.click(within(panel()).getByRole('button', { name: 'Restore this version' }));
    dialog = await screen.findByRole('dialog', { name: 'Restore notes.md to this version?' });
    await user.click(within(dialog).getByRole('button', { name: 'Discard my edits and restore' }));
    await waitFor(() => expect(editorText()).toBe(V1));
    expect(await onDisk(b)).toBe(V1);
    expect(within(editor()).queryByLabelText('Unsaved changes')).toBeNull();
  });

  it("follows the file live: an agent's edit shows up in the list and in the comparison", async () => {
    const { b, user } = await openHistory();
    await showHistory(user);
    await user.click(within(versions()).getByRole('option', { name: /^Created/ }));
    await within(panel()).findByRole('group', { name: /^Differences between this version/ });
    await b.agentProcess({ command: 'str_replace', path: FILE, old_str: 'Then test.', new_str: 'Then test.\nThen ship.' });
    await waitFor(() => expect(options()).toHaveLength(3));
    expect(optionNames()[0]).toMatch(/^Edited, latest, \+1 \u22120 \(1 line added, 0 removed\), An agent, with the memory tool, just now \(.+\)\.$/);
    const diff = within(panel()).getByRole('group', { name: /^Differences between this version/ });
    await within(diff).findByText('Then ship.', { exact: false });
    // The selection stays where it was.
    expect(within(versions()).getByRole('option', { name: /^Created/ }).getAttribute('aria-selected')).toBe('true');
  });

  it('an edit made outside Cairn (an editor, git) shows up live as a version of its own', async () => {
    const { b, user } = await openHistory();
    await showHistory(user);
    await fs.writeFile(path.join(b.sb.roots.project, 'notes.md'), `${V2}Edited in vim.\n`);
    await waitFor(() => expect(options()).toHaveLength(3));
    expect(optionNames()[0]).toMatch(/^Edited, latest, \+1 \u22120 \(1 line added, 0 removed\), Outside Cairn \(another editor, git, \.\.\.\), just now \(.+\)\.$/);
    expect(options()[0]!.querySelector('.v-who')?.className).toBe('v-who external');
  });

  it('shows 50 versions at first, and older ones on request', async () => {
    const { user } = await openHistory(async (b) => {
      for (let i = 0; i < 50; i++) await b.agent({ command: 'str_replace', path: FILE, old_str: 'Then test.', new_str: 'Then test.\n' });
    });
    await showHistory(user);
    expect(options()).toHaveLength(50);
    await user.click(within(panel()).getByRole('button', { name: 'Show older versions' }));
    await waitFor(() => expect(options()).toHaveLength(52));
    expect(optionNames()[51]).toMatch(/^Created/);
    expect(within(panel()).queryByRole('button', { name: 'Show older versions' })).toBeNull();
  });

  it('says "History incomplete since" when the history could not record some changes', async () => {
    const { user } = await openHistory(async (b) => {
      await fs.mkdir(path.join(b.sb.home, 'history'), { recursive: true });
      await fs.writeFile(path.join(b.sb.home, 'history', 'incomplete'), '2026-11-24T12:00:00.000Z\n');
    });
    await showHistory(user);
    const note = within(panel()).getByText(/^History incomplete since/);
    expect(note.textContent).toMatch(/changes made after that may be missing here/);
    expect(note.querySelector('time')?.getAttribute('dateTime')).toBe('2026-11-24T12:00:00.000Z');
  });

  it('says so when no version of the file is recorded (written outside Cairn)', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    await fs.mkdir(b.sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(b.sb.roots.project, 'notes.md'), V1);
    await renderPane(b);
    await user.click(await screen.findByRole('treeitem', { name: FILE }));
    await waitFor(() => expect(editorText()).toBe(V1));
    await user.click(within(editor()).getByRole('button', { name: 'History' }));
    await within(screen.getByRole('region', { name: 'History of notes.md' })).findByText('No versions of notes.md are recorded yet.');
  });
});
