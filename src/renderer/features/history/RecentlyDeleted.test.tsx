// @vitest-environment happy-dom
// "Recently deleted" under each scope, against the real backend: the tree ends a scope with it
// (with how many) once a file of it is deleted, by anyone, live; its dialog lists each file with
// when and by whom, shows what it held, and Restore brings it back as it was before the delete
// (history.restore with the delete's version); a restore over a file written again is asked first.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderPane, rowNames, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const P = '/memories/project';
const RETRO = '---\ndescription: What went well\n---\nshipping\nreviews\n';

const onDisk = (b: UiBackend, rel: string) => fs.readFile(path.join(b.sb.roots.project, rel), 'utf8');

async function seeded(): Promise<UiBackend> {
  const b = await makeBackend();
  await b.agent({ command: 'create', path: `${P}/build.md`, file_text: 'make\n' });
  await b.agent({ command: 'create', path: `${P}/notes/retro.md`, file_text: RETRO });
  await b.agent({ command: 'create', path: '/memories/global/prefs.md', file_text: 'tabs\n' });
  return b;
}

const dialog = () => screen.getByRole('dialog', { name: 'Recently deleted from PROJECT memory' });

describe('Recently deleted', () => {
  it("ends a scope's rows once a file of it is deleted, live, with how many", async () => {
    const b = await seeded();
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/notes/retro.md` });
    expect(rowNames().some((n) => n.startsWith('Recently deleted'))).toBe(false);
    // An agent in another process deletes: the tree hears of it.
    await b.agentProcess({ command: 'delete', path: `${P}/notes/retro.md` });
    const entry = await screen.findByRole('treeitem', { name: 'Recently deleted from PROJECT, 1 file' });
    const names = rowNames();
    expect(names.slice(names.indexOf('PROJECT memory, 1 file'))).toEqual(['PROJECT memory, 1 file', `${P}/build.md`, 'Recently deleted from PROJECT, 1 file', 'WORKSPACE memory, 0 files', 'No memories yet.']);
    expect(entry.getAttribute('aria-level')).toBe('2');
    // Only under the scope it belongs to.
    expect(names.filter((n) => n.startsWith('Recently deleted'))).toHaveLength(1);
  });

  it('lists each file with when and by whom, shows what it held, and Restore brings it back as it was', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await b.agent({ command: 'delete', path: `${P}/notes/retro.md` });
    await b.client.memory.delete({ workspaceId: b.workspaceId, path: `${P}/build.md` });
    await renderPane(b);
    await user.click(await screen.findByRole('treeitem', { name: 'Recently deleted from PROJECT, 2 files' }));
    const list = within(dialog()).getByRole('list', { name: 'Deleted files of PROJECT memory' });
    const items = await within(list).findAllByRole('listitem');
    // Newest first, named by path, with who and when (exact on hover).
    expect(items.map((i) => i.getAttribute('aria-label'))).toEqual([`${P}/build.md`, `${P}/notes/retro.md`]);
    expect(items[0]!.textContent).toContain('Deleted just now by you · 1 line');
    const retro = items[1]!;
    expect(retro.textContent).toContain('Deleted just now by an agent · 5 lines');
    expect(retro.querySelector('time')?.getAttribute('title')).toMatch(/\d{1,2}:\d{2}:\d{2}/);

    await user.click(within(retro).getByRole('button', { name: 'Show what notes/retro.md held' }));
    expect((await within(retro).findByText(/reviews/)).textContent).toBe(RETRO);

    await user.click(within(retro).getByRole('button', { name: `Restore ${P}/notes/retro.md` }));
    await within(dialog()).findByText(`Restored ${P}/notes/retro.md: created again.`);
    expect(await onDisk(b, 'notes/retro.md')).toBe(RETRO);
    // It leaves the list, and the tree shows it again.
    await waitFor(() => expect(within(dialog()).queryByRole('listitem', { name: `${P}/notes/retro.md` })).toBeNull());
    await screen.findByRole('treeitem', { name: `${P}/notes/retro.md` });
    // "Open it" opens the restored file.
    await user.click(within(dialog()).getByRole('button', { name: 'Open it' }));
    await screen.findByRole('region', { name: `Editor: ${P}/notes/retro.md` });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('asks before restoring over a file written again at that path', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await b.agent({ command: 'delete', path: `${P}/notes/retro.md` });
    // Written again outside Cairn before the page watches the root (so no version records it): its
    // delete stays the file's last recorded version, and it is listed while a file is there again.
    await fs.writeFile(path.join(b.sb.roots.project, 'notes', 'retro.md'), 'written again by hand\n');
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/notes/retro.md` });
    await user.click(await screen.findByRole('treeitem', { name: 'Recently deleted from PROJECT, 1 file' }));
    const item = await within(dialog()).findByRole('listitem', { name: `${P}/notes/retro.md` });
    await user.click(within(item).getByRole('button', { name: `Restore ${P}/notes/retro.md` }));
    const ask = within(item).getByRole('group', { name: 'Replace notes/retro.md?' });
    expect(ask.textContent).toContain('A file notes/retro.md exists now: replace its content?');
    await user.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(await onDisk(b, 'notes/retro.md')).toBe('written again by hand\n');
    await user.click(within(item).getByRole('button', { name: `Restore ${P}/notes/retro.md` }));
    await user.click(within(item).getByRole('button', { name: 'Replace' }));
    await within(dialog()).findByText(`Restored ${P}/notes/retro.md to that version.`);
    expect(await onDisk(b, 'notes/retro.md')).toBe(RETRO);
  });

  it('opens from the keyboard (Enter on its row) and closes with Escape, back on the row', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await b.agent({ command: 'delete', path: '/memories/global/prefs.md' });
    await renderPane(b);
    const entry = await screen.findByRole('treeitem', { name: 'Recently deleted from GLOBAL, 1 file' });
    entry.focus();
    await user.keyboard('{Enter}');
    const d = await screen.findByRole('dialog', { name: 'Recently deleted from GLOBAL memory' });
    await within(d).findByRole('listitem', { name: '/memories/global/prefs.md' });
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(entry);
  });

  it('shows in the global-only view of Settings too', async () => {
    const b = await makeBackend({ workspace: false });
    await b.write('/memories/global/prefs.md', 'tabs\n');
    await b.client.memory.delete({ workspaceId: null, path: '/memories/global/prefs.md' });
    await renderPane(b, { scopes: ['global'] });
    await screen.findByRole('treeitem', { name: 'Recently deleted from GLOBAL, 1 file' });
  });
});
