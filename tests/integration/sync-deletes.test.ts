// Sync with real git, where one machine deletes or renames a file that the other edits: two homes
// (a laptop and a desktop) syncing through a bare repository over file://, whichever syncs first.
// What a person notices: a rename on one machine and an edit on the other end as one file under
// the new name holding the edit, on both; an edit is never lost to a delete (the file comes back
// on the machine that deleted it, whose history still shows the delete); a file deleted on both
// machines is gone on both. None of these asks the person anything: nothing waits in the Inbox.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HomeServices } from '../../src/main/host/home-services';
import { syncMachines } from '../support/sync-machines';

const { machine, write, sync } = syncMachines();

/** The global memory's files on a machine's disk: name -> text. */
function files(m: HomeServices): Record<string, string> {
  const root = path.join(m.home, 'memory', 'global');
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(root)) if (fs.statSync(path.join(root, name)).isFile()) out[name] = fs.readFileSync(path.join(root, name), 'utf8');
  return out;
}

/** Two machines agreeing on notes.md (and keep.md, so that a delete never empties the scope). */
async function twoMachines(): Promise<{ laptop: HomeServices; desktop: HomeServices }> {
  const laptop = machine('laptop');
  const desktop = machine('desktop');
  await write(laptop, { command: 'create', path: '/memories/global/notes.md', file_text: 'line 1\nline 2\n' });
  await write(laptop, { command: 'create', path: '/memories/global/keep.md', file_text: 'kept\n' });
  await sync(laptop);
  await sync(desktop);
  expect(files(desktop)).toEqual(files(laptop));
  return { laptop, desktop };
}

const rename = { command: 'rename', old_path: '/memories/global/notes.md', new_path: '/memories/global/renamed.md' };
const edit = { command: 'str_replace', path: '/memories/global/notes.md', old_str: 'line 2', new_str: 'line 2, edited on the desktop' };
const deleteNotes = { command: 'delete', path: '/memories/global/notes.md' };

describe('sync: deletes and renames on one machine, edits on the other', () => {
  for (const first of ['the renaming machine', 'the editing machine'] as const) {
    it(`a rename and an edit end as one file under the new name with the edit (${first} syncs first)`, async () => {
      const { laptop, desktop } = await twoMachines();
      await write(laptop, rename);
      await write(desktop, edit);
      const order = first === 'the renaming machine' ? [laptop, desktop, laptop] : [desktop, laptop, desktop];
      for (const m of order) expect((await sync(m)).outcome).toBe('synced');
      const expected = { 'keep.md': 'kept\n', 'renamed.md': 'line 1\nline 2, edited on the desktop\n' };
      expect(files(laptop)).toEqual(expected);
      expect(files(desktop)).toEqual(expected);
      expect(laptop.inbox.list('pending')).toEqual([]);
      expect(desktop.inbox.list('pending')).toEqual([]);
      // Synced again, nothing moves: both agree.
      expect(await sync(laptop)).toMatchObject({ sent: [], received: [] });
      expect(await sync(desktop)).toMatchObject({ sent: [], received: [] });
    });

    it(`an edit wins over a delete: the file comes back where it was deleted, the delete still in its history (${first === 'the renaming machine' ? 'the deleting machine' : first} syncs first)`, async () => {
      const { laptop, desktop } = await twoMachines();
      await write(laptop, deleteNotes);
      await write(desktop, edit);
      const order = first === 'the renaming machine' ? [laptop, desktop, laptop] : [desktop, laptop, desktop];
      for (const m of order) expect((await sync(m)).outcome).toBe('synced');
      const expected = { 'keep.md': 'kept\n', 'notes.md': 'line 1\nline 2, edited on the desktop\n' };
      expect(files(laptop)).toEqual(expected);
      expect(files(desktop)).toEqual(expected);
      expect(laptop.inbox.list('pending')).toEqual([]);
      expect(desktop.inbox.list('pending')).toEqual([]);
      // The laptop's history: the agent's delete, then the file back by sync with the desktop's edit.
      const versions = laptop.versions.list(await laptop.registry.session(null), { path: '/memories/global/notes.md' }).versions;
      const ops = versions.map((v) => `${v.actor} ${v.op}`);
      expect(ops.slice(0, 2)).toEqual(['sync create', 'agent delete']);
      expect(await sync(laptop)).toMatchObject({ sent: [], received: [] });
    });
  }

  it('a file deleted on both machines is gone on both', async () => {
    const { laptop, desktop } = await twoMachines();
    await write(laptop, deleteNotes);
    await write(desktop, deleteNotes);
    for (const m of [laptop, desktop, laptop]) expect((await sync(m)).outcome).toBe('synced');
    expect(files(laptop)).toEqual({ 'keep.md': 'kept\n' });
    expect(files(desktop)).toEqual({ 'keep.md': 'kept\n' });
    expect(desktop.inbox.list('pending')).toEqual([]);
  });

  it('a rename with an edit on the renaming machine too keeps both texts, nothing lost', async () => {
    const { laptop, desktop } = await twoMachines();
    await write(laptop, rename);
    await write(laptop, { command: 'str_replace', path: '/memories/global/renamed.md', old_str: 'line 1', new_str: 'line 1, edited on the laptop' });
    await write(desktop, edit);
    for (const m of [laptop, desktop, laptop]) expect((await sync(m)).outcome).toBe('synced');
    const expected = { 'keep.md': 'kept\n', 'notes.md': 'line 1\nline 2, edited on the desktop\n', 'renamed.md': 'line 1, edited on the laptop\nline 2\n' };
    expect(files(laptop)).toEqual(expected);
    expect(files(desktop)).toEqual(expected);
  });
});
