// @vitest-environment happy-dom
// Dialogs against the real backend: deleting asks first, naming the file (for a directory, how
// many files go with it); Escape, Cancel and a click outside cancel with nothing deleted; focus
// goes into the dialog and back; leaving unsaved edits asks too.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const P = '/memories/project';

async function seeded(): Promise<UiBackend> {
  const b = await makeBackend();
  const root = b.sb.roots.project;
  await fs.mkdir(path.join(root, 'notes', 'deep'), { recursive: true });
  await fs.writeFile(path.join(root, 'notes', 'build.md'), 'make');
  await fs.writeFile(path.join(root, 'notes', 'test.md'), 'make test');
  await fs.writeFile(path.join(root, 'notes', 'deep', 'ci.md'), 'ci');
  await fs.writeFile(path.join(root, 'keep.md'), 'keep');
  return b;
}

const exists = (b: UiBackend, rel: string) =>
  fs.access(path.join(b.sb.roots.project, rel)).then(
    () => true,
    () => false,
  );

/** The Delete action of a row, shown as the pointer rests on it. */
const deleteButtonOf = async (name: string) => {
  const row = await screen.findByRole('treeitem', { name });
  await userEvent.hover(row);
  return within(row).getByRole('button', { name: 'Delete' });
};

describe('delete confirmation', () => {
  it('names the file, takes the focus, and Escape cancels with nothing deleted and focus back', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    const button = await deleteButtonOf(`${P}/keep.md`);
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: `Delete ${P}/keep.md?` });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(within(dialog).getByText(/The file is removed for every agent\. Its history keeps it for 90 days/)).toBeTruthy();
    // The safe choice has the focus.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(await exists(b, 'keep.md')).toBe(true);
    expect(screen.getByRole('treeitem', { name: `${P}/keep.md` })).toBeTruthy();
  });

  it('Cancel and a click outside cancel too; Tab stays inside', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    await user.click(await deleteButtonOf(`${P}/keep.md`));
    let dialog = await screen.findByRole('dialog');
    await user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Delete' }));
    await user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(await deleteButtonOf(`${P}/keep.md`));
    dialog = await screen.findByRole('dialog');
    await user.click(dialog.parentElement!);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await exists(b, 'keep.md')).toBe(true);
  });

  it('confirmed, deletes the file for good and closes it if it was open', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    await user.click(await screen.findByRole('treeitem', { name: `${P}/keep.md` }));
    await screen.findByRole('region', { name: `Editor: ${P}/keep.md` });
    await user.click(await deleteButtonOf(`${P}/keep.md`));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: `${P}/keep.md` })).toBeNull());
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('region', { name: `Editor: ${P}/keep.md` })).toBeNull();
    expect(await exists(b, 'keep.md')).toBe(false);
    expect(await exists(b, 'notes/build.md')).toBe(true);
  });

  it('for a directory, says how many files go with it, and deletes them all', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    await user.click(await deleteButtonOf(`${P}/notes`));
    const dialog = await screen.findByRole('dialog', { name: `Delete ${P}/notes?` });
    expect(within(dialog).getByText(/The directory and the 3 files in it are removed for every agent/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: `${P}/notes` })).toBeNull());
    expect(screen.queryByRole('treeitem', { name: `${P}/notes/deep/ci.md` })).toBeNull();
    expect(await exists(b, 'notes')).toBe(false);
    expect(screen.getByRole('treeitem', { name: `${P}/keep.md` })).toBeTruthy();
    expect(screen.getByRole('treeitem', { name: 'PROJECT memory, 1 file' })).toBeTruthy();
  });
});

describe('unsaved edits', () => {
  it('opening another file asks before the draft is discarded; Escape keeps it', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    await user.click(await screen.findByRole('treeitem', { name: `${P}/keep.md` }));
    await screen.findByRole('region', { name: `Editor: ${P}/keep.md` });
    await waitFor(() => expect(editorText()).toBe('keep'));
    typeInEditor('my draft');

    await user.click(screen.getByRole('treeitem', { name: `${P}/notes/build.md` }));
    const dialog = await screen.findByRole('dialog', { name: 'Discard unsaved changes?' });
    expect(within(dialog).getByText(/Your edits to \/memories\/project\/keep\.md are not saved/)).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByRole('region', { name: `Editor: ${P}/keep.md` })).toBeTruthy();
    expect(editorText()).toBe('my draft');

    await user.click(screen.getByRole('treeitem', { name: `${P}/notes/build.md` }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Discard' }));
    await screen.findByRole('region', { name: `Editor: ${P}/notes/build.md` });
    await waitFor(() => expect(editorText()).toBe('make'));
    expect(await fs.readFile(path.join(b.sb.roots.project, 'keep.md'), 'utf8')).toBe('keep');
  });
});
