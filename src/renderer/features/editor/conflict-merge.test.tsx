// @vitest-environment happy-dom
// A save that finds the file changed by an agent, against the real backend: edits that do not
// overlap are merged and shown before anything is written ("Save merged" writes both, "Keep
// editing" puts the merge in the editor); overlapping ones are resolved piece by piece in Compare;
// Reload can be undone from its toast; a draft kept across a reload still merges (its base text is
// kept with it).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';
import { draftKey } from './use-draft';

afterEach(cleanup);

const FILE = '/memories/project/notes.md';
const LINES = ['---', 'description: Build notes', '---', '# Building', '', 'Install the tools.', 'Run make.', 'Run the tests.', 'Ship it.', 'Tag the release.', ''];
const ORIGINAL = LINES.join('\n');
/** LINES with line `n` (1-based) replaced. */
const withLine = (text: string, n: number, to: string) => text.split('\n').map((l, i) => (i === n - 1 ? to : l)).join('\n');
const MINE = withLine(ORIGINAL, 8, 'Run the tests twice.');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

const onDisk = (b: UiBackend) => fs.readFile(path.join(b.sb.roots.project, 'notes.md'), 'utf8');
const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });
const dirtyMarker = () => within(editor()).queryByLabelText('Unsaved changes');

async function opened(given?: UiBackend) {
  const user = userEvent.setup();
  const b = given ?? (await makeBackend());
  if (!given) {
    await fs.mkdir(b.sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(b.sb.roots.project, 'notes.md'), ORIGINAL);
  }
  await renderPane(b);
  await user.click(await screen.findByRole('treeitem', { name: FILE }));
  await screen.findByRole('region', { name: `Editor: ${FILE}` });
  await waitFor(() => expect(editorText()).not.toBe(''));
  return { b, user };
}

/** The person edits line 8, an agent `agentEdit`s, the person saves: the banner is up. */
async function savedOver(agentEdit: { old_str: string; new_str: string }) {
  const o = await opened();
  typeInEditor(MINE);
  await o.b.agent({ command: 'str_replace', path: FILE, ...agentEdit });
  await within(editor()).findByText(/Changed by an agent while you edit/);
  await o.user.click(within(editor()).getByRole('button', { name: /^Save/ }));
  const banner = await within(editor()).findByRole('alert');
  return { ...o, banner, theirs: await onDisk(o.b) };
}

describe('edits that do not overlap', () => {
  it('are merged and shown first; "Save merged" writes both lines, and the editor is clean', async () => {
    const { b, user, banner, theirs } = await savedOver({ old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });
    expect(banner.textContent).toContain('changed by an agent since you opened it');
    expect(banner.textContent).toContain('Your edits and these changes do not overlap');
    // Shown, not written: the preview has the person's line as added against the disk, next to the agent's.
    const preview = within(editor()).getByRole('group', { name: 'Differences between the file on disk and the merge' });
    expect(preview.textContent).toContain('Added: Run the tests twice.');
    expect(preview.textContent).toContain('Ship it on Fridays.');
    expect(await onDisk(b)).toBe(theirs);

    await user.click(within(banner).getByRole('button', { name: 'Save merged' }));
    await within(editor()).findByText('Saved the merge.');
    const both = withLine(MINE, 9, 'Ship it on Fridays.');
    expect(await onDisk(b)).toBe(both);
    expect(editorText()).toBe(both);
    expect(dirtyMarker()).toBeNull();
    expect(within(editor()).queryByRole('alert')).toBeNull();
    expect(localStorage.getItem(draftKey(b.workspaceId, FILE))).toBeNull();
  });

  it('"Keep editing" puts the merge in the editor unsaved; the next Save writes it over the agent\'s version', async () => {
    const { b, user, banner, theirs } = await savedOver({ old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });
    await user.click(within(banner).getByRole('button', { name: 'Keep editing' }));
    const both = withLine(MINE, 9, 'Ship it on Fridays.');
    await waitFor(() => expect(editorText()).toBe(both));
    expect(dirtyMarker()).toBeTruthy();
    expect(await onDisk(b)).toBe(theirs);
    await user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe(both);
  });
});

describe('edits that overlap', () => {
  it('are resolved piece by piece in Compare; Save merged waits until each is resolved', async () => {
    // The agent changes line 8 (the person's line) and line 6 (merged by itself).
    const o = await opened();
    typeInEditor(MINE);
    await o.b.agent({ command: 'str_replace', path: FILE, old_str: 'Run the tests.', new_str: 'Run the tests in CI.' });
    await o.b.agent({ command: 'str_replace', path: FILE, old_str: 'Install the tools.', new_str: 'Install the tools with mise.' });
    await within(editor()).findByText(/Changed by an agent while you edit/);
    await o.user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    const banner = await within(editor()).findByRole('alert');
    expect(banner.textContent).toContain('You both changed the same lines in one place');
    expect(within(banner).queryByRole('button', { name: 'Save merged' })).toBeNull();

    await o.user.click(within(banner).getByRole('button', { name: 'Compare' }));
    const piece = await within(editor()).findByRole('region', { name: 'Conflict 1 of 1' });
    const saveMerged = within(banner).getByRole('button', { name: 'Save merged' }) as HTMLButtonElement;
    expect(saveMerged.disabled).toBe(true);
    expect(within(editor()).getByText(/0 of 1 conflict resolved/)).toBeTruthy();

    await o.user.click(within(piece).getByRole('button', { name: 'Take theirs' }));
    expect(within(piece).getByLabelText('What conflict 1 becomes').textContent).toBe('Run the tests in CI.');
    await o.user.click(within(piece).getByRole('button', { name: 'Take both' }));
    expect(within(piece).getByLabelText('What conflict 1 becomes').textContent).toBe('Run the tests twice.\nRun the tests in CI.');
    await o.user.click(within(piece).getByRole('button', { name: /Edit/ }));
    const box = within(piece).getByRole('textbox', { name: 'Your text for conflict 1' });
    await o.user.clear(box);
    await o.user.type(box, 'Run the tests twice in CI.');
    await o.user.click(within(piece).getByRole('button', { name: 'Use this text' }));
    expect(within(editor()).getByText(/1 of 1 conflict resolved/)).toBeTruthy();
    expect(saveMerged.disabled).toBe(false);
    expect(await onDisk(o.b)).toContain('Run the tests in CI.'); // nothing written yet

    await o.user.click(saveMerged);
    await within(editor()).findByText('Saved the merge.');
    expect(await onDisk(o.b)).toBe(withLine(withLine(ORIGINAL, 6, 'Install the tools with mise.'), 8, 'Run the tests twice in CI.'));
    expect(dirtyMarker()).toBeNull();
  });
});

describe('Reload', () => {
  it('can be undone from its toast: the draft comes back unsaved, and saving it then merges', async () => {
    const { b, user, banner } = await savedOver({ old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });
    const theirs = await onDisk(b);
    await user.click(within(banner).getByRole('button', { name: 'Reload (discard mine)' }));
    await waitFor(() => expect(editorText()).toBe(theirs));
    expect(dirtyMarker()).toBeNull();
    const toast = (await screen.findByText('Reloaded: your unsaved text was discarded.')).closest<HTMLElement>('[role="status"]')!;
    await user.click(within(toast).getByRole('button', { name: /Undo/ }));
    await waitFor(() => expect(editorText()).toBe(MINE));
    expect(dirtyMarker()).toBeTruthy();
    expect(screen.queryByText('Reloaded: your unsaved text was discarded.')).toBeNull();
    expect(await onDisk(b)).toBe(theirs);
    // The focus went back to the editor, not to the page.
    expect(document.activeElement).toBe(editor());

    // The draft is based where it was, so Save finds the agent's change and merges.
    await user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    const again = await within(editor()).findByRole('alert');
    await user.click(within(again).getByRole('button', { name: 'Save merged' }));
    await within(editor()).findByText('Saved the merge.');
    expect(await onDisk(b)).toBe(withLine(MINE, 9, 'Ship it on Fridays.'));
  });
});

describe('a draft kept across a reload', () => {
  it('keeps its base text, so a file changed meanwhile still merges', async () => {
    const b = await makeBackend();
    await fs.mkdir(b.sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(b.sb.roots.project, 'notes.md'), ORIGINAL);
    // What a page left behind before it reloaded: the draft, on the version it was based on.
    localStorage.setItem(draftKey(b.workspaceId, FILE), JSON.stringify({ text: MINE, baseSha256: sha(ORIGINAL), baseText: ORIGINAL, keptAt: new Date().toISOString() }));
    await b.agent({ command: 'str_replace', path: FILE, old_str: 'Ship it.', new_str: 'Ship it on Fridays.' });

    const { user } = await opened(b);
    await within(editor()).findByText(/but the file has changed since/);
    expect(editorText()).toBe(MINE);
    await user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    const banner = await within(editor()).findByRole('alert');
    expect(banner.textContent).toContain('do not overlap');
    await user.click(within(banner).getByRole('button', { name: 'Save merged' }));
    await within(editor()).findByText('Saved the merge.');
    expect(await onDisk(b)).toBe(withLine(MINE, 9, 'Ship it on Fridays.'));
  });
});
