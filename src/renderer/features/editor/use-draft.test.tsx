// @vitest-environment happy-dom
// Unsaved text kept in the browser (use-draft.ts), through the editor against the real backend:
// typing keeps it with the sha256 it was based on and saving drops it in the same step (so no
// reload finds it after "Saved."); text a page left behind
// (what a reload or a closed tab leaves: planted here as the page stored it, since a component test
// cannot reload) comes back when the file is opened, and "Discard my text" drops it; leaving the
// file with the pane's "Discard" drops it too; text kept for a file an agent deleted meanwhile
// comes back in the editor's deleted-file flow instead of being lost. The Chromium suite tests/e2e/web-restart.test.ts
// reloads a real page.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, renderWithBackend, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';
import { FileEditor } from './FileEditor';
import { draftKey, unsavedTextIsKept } from './use-draft';

afterEach(cleanup);

const FILE = '/memories/project/notes.md';
const OTHER = '/memories/project/other.md';
const ORIGINAL = 'Run make.\n';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function opened(b?: UiBackend) {
  const user = userEvent.setup();
  const backend = b ?? (await makeBackend());
  if (!b) {
    await fs.mkdir(backend.sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(backend.sb.roots.project, 'notes.md'), ORIGINAL);
    await fs.writeFile(path.join(backend.sb.roots.project, 'other.md'), 'other\n');
  }
  await renderPane(backend);
  await user.click(await screen.findByRole('treeitem', { name: FILE }));
  await screen.findByRole('region', { name: `Editor: ${FILE}` });
  await waitFor(() => expect(editorText()).not.toBe(''));
  return { b: backend, user, key: draftKey(backend.workspaceId, FILE) };
}

const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });
const kept = (key: string) => JSON.parse(localStorage.getItem(key) ?? 'null') as { text: string; baseSha256: string | null } | null;

describe('unsaved text kept in the browser', () => {
  it('is kept while it differs from the file, with the sha256 it was based on, and dropped once saved', async () => {
    const { user, key } = await opened();
    expect(kept(key)).toBeNull();
    typeInEditor('Run make test.\n');
    expect(kept(key)).toMatchObject({ text: 'Run make test.\n', baseSha256: sha(ORIGINAL) });
    expect(unsavedTextIsKept()).toBe(true);
    typeInEditor(ORIGINAL); // typed back to what the file holds: nothing unsaved
    expect(kept(key)).toBeNull();
    typeInEditor('Run make check.\n');
    await user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    await within(editor()).findByText('Saved.');
    // The save dropped it in its own step: nothing left to wait for.
    expect(kept(key)).toBeNull();
    expect(unsavedTextIsKept()).toBe(false);
  });

  it('is gone from storage the moment "Saved." shows, so a reload then never offers it back', async () => {
    const first = await opened();
    typeInEditor('Run make check.\n');
    // What storage holds when "Saved." enters the page, before any later effect could run: what a
    // reload at that moment would find.
    let atSaved: string | null | undefined;
    const watch = new MutationObserver(() => {
      if (atSaved === undefined && editor().textContent?.includes('Saved.')) atSaved = localStorage.getItem(first.key);
    });
    watch.observe(editor(), { childList: true, subtree: true, characterData: true });
    await first.user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    await within(editor()).findByText('Saved.');
    watch.disconnect();
    expect(atSaved).toBeNull();

    cleanup();
    await new Promise((r) => setTimeout(r, 0));
    if (atSaved) localStorage.setItem(first.key, atSaved); // the page reloaded with what it had then
    await opened(first.b);
    expect(editorText()).toBe('Run make check.\n');
    expect(within(editor()).queryByText(/Your unsaved text/)).toBeNull();
    expect(within(editor()).queryByLabelText('Unsaved changes')).toBeNull();
  });

  it('comes back when the file is opened again, unsaved, and "Discard my text" shows the file as it is', async () => {
    const first = await opened();
    typeInEditor('Run make test.\n');
    const left = localStorage.getItem(first.key)!;
    cleanup(); // the page goes away (an unmount drops the text once its microtasks have run)...
    await new Promise((r) => setTimeout(r, 0));
    expect(localStorage.getItem(first.key)).toBeNull();
    localStorage.setItem(first.key, left); // ...with the text it kept: a reload unmounts nothing, and storage stays

    const { user, key, b } = await opened(first.b);
    await within(editor()).findByText(/Your unsaved text \(kept just now\) is back\. It is not saved yet\./);
    expect(editorText()).toBe('Run make test.\n');
    expect(within(editor()).getByLabelText('Unsaved changes')).toBeTruthy();
    await user.click(within(editor()).getByRole('button', { name: 'Discard my text' }));
    await waitFor(() => expect(editorText()).toBe(ORIGINAL));
    expect(within(editor()).queryByLabelText('Unsaved changes')).toBeNull();
    expect(kept(key)).toBeNull();
    expect(await fs.readFile(path.join(b.sb.roots.project, 'notes.md'), 'utf8')).toBe(ORIGINAL);
  });

  it('of a file an agent deleted meanwhile comes back in the deleted-file flow, and can be kept as a new file', async () => {
    const first = await opened();
    typeInEditor('Run make test.\n');
    const left = localStorage.getItem(first.key)!;
    cleanup();
    await new Promise((r) => setTimeout(r, 0));
    localStorage.setItem(first.key, left);
    await first.b.agent({ command: 'delete', path: FILE });

    // The tree no longer lists it; the editor is opened on its path as the app opens one (by path).
    const user = userEvent.setup();
    await renderWithBackend(
      <FileEditor workspaceId={first.b.workspaceId} path={FILE} file={undefined} dark={false} previewByDefault={false} onClose={() => {}} onDirtyChange={() => {}} onPin={() => {}} />,
      first.b,
    );
    const banner = await within(await screen.findByRole('region', { name: `Editor: ${FILE}` })).findByRole('alert');
    await within(banner).findByText(/This file was deleted by an agent since you opened it/);
    await waitFor(() => expect(editorText()).toBe('Run make test.\n'));
    await user.click(within(banner).getByRole('button', { name: /Keep my text as a new file/ }));
    await within(editor()).findByText('Kept your text: the file exists again.');
    expect(await fs.readFile(path.join(first.b.sb.roots.project, 'notes.md'), 'utf8')).toBe('Run make test.\n');
    await waitFor(() => expect(kept(first.key)).toBeNull());
  });

  it('is dropped when the person leaves the file with "Discard"', async () => {
    const { user, key } = await opened();
    typeInEditor('Run make test.\n');
    expect(kept(key)).not.toBeNull();
    await user.click(screen.getByRole('treeitem', { name: OTHER }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Discard unsaved changes?' })).getByRole('button', { name: 'Discard' }));
    await screen.findByRole('region', { name: `Editor: ${OTHER}` });
    await waitFor(() => expect(kept(key)).toBeNull());
  });
});
