// The pins and usage sidecar on the real filesystem: what counts as a use (a pin does not), renames and deletes,
// repair of damaged files (the original set aside and reported), and failures that never fail a memory command.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { captureStderr } from '../../../tests/support/stderr';
import { scopeOwner } from '../../common/memory/identity';
import { HistoryStore } from '../history/history-store';
import { MemoryService } from './memory-service';
import { parseUsageFile, UsageStore } from './usage-store';

let sb: Sandbox;
let usage: UsageStore;
let service: MemoryService;
const run = (input: unknown, actor: 'agent' | 'person' = 'agent') => service.execute(input, sb.session, { mode: 'exec', actor });
const asides = async () => (await fs.readdir(sb.home)).filter((n) => n.startsWith('memory-meta.json.damaged-'));
const stored = async () => JSON.parse(await fs.readFile(path.join(sb.home, 'memory-meta.json'), 'utf8')).files as Record<string, { pinned: boolean; accessCount: number; lastAccessedAt: string | null; lastWriteAt: string | null; lastWriteBy: string | null }>;

beforeEach(async () => {
  sb = await makeSandbox();
  usage = new UsageStore(sb.home);
  service = new MemoryService({ usage });
});
afterEach(async () => {
  await sb.cleanup();
});

describe('what counts as a use', () => {
  it('agent views and agents\' writes count; a person viewing or writing does not, nor does a pin', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    await run({ command: 'view', path: '/memories/global/a.md' });
    await run({ command: 'view', path: '/memories/global/a.md' }, 'person');
    await run({ command: 'view', path: '/memories/global' }); // a directory view is not a use of its files
    await run({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' }, 'person');
    await run({ command: 'insert', path: '/memories/global/a.md', insert_line: 0, insert_text: 'top' });
    await service.setPinned('/memories/global/a.md', true, sb.session);
    await usage.flush();
    const entry = (await stored())['global:a.md']!;
    expect(entry).toMatchObject({ pinned: true, accessCount: 3 });
    expect(Date.parse(entry.lastWriteAt!)).toBeLessThanOrEqual(Date.parse(entry.lastAccessedAt!));
  });

  it('a person\'s saves in the editor say who wrote last, and leave the uses that rank what agents receive alone', async () => {
    const first = await service.save('/memories/global/a.md', '', null, sb.session);
    expect(first.status).toBe('ok');
    const second = await service.save('/memories/global/a.md', 'mine\n', first.status === 'ok' ? first.sha256 : null, sb.session);
    expect(second.status).toBe('ok');
    await service.read('/memories/global/a.md', sb.session);
    await usage.flush();
    const entry = (await stored())['global:a.md']!;
    expect(entry).toMatchObject({ accessCount: 0, lastAccessedAt: null, lastWriteBy: 'person' });
    expect(entry.lastWriteAt).not.toBeNull();
    // An agent's view afterwards is a use, as always.
    await run({ command: 'view', path: '/memories/global/a.md' });
    await usage.flush();
    expect((await stored())['global:a.md']).toMatchObject({ accessCount: 1, lastWriteBy: 'person' });
  });

  it('an undone delete gives the file back its uses and its pin', async () => {
    const history = new HistoryStore(sb.home);
    service = new MemoryService({ usage, history });
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    await run({ command: 'view', path: '/memories/global/a.md' });
    await run({ command: 'view', path: '/memories/global/a.md' });
    await service.setPinned('/memories/global/a.md', true, sb.session);
    await usage.flush();
    const before = (await stored())['global:a.md']!;
    expect(before).toMatchObject({ pinned: true, accessCount: 3 });
    await run({ command: 'delete', path: '/memories/global/a.md' });
    await usage.flush();
    expect((await stored())['global:a.md']).toBeUndefined();

    const [deleted] = history.list({ owner: scopeOwner('global', sb.session)! });
    expect(deleted).toMatchObject({ op: 'delete', path: '/memories/global/a.md' });
    const outcome = await service.undo([{ path: deleted!.path, op: 'delete', before: history.readBlob(deleted!.before!)!, after: null }], `undo:${deleted!.batch}`, sb.session);
    expect(outcome).toMatchObject({ status: 'ok' });
    await usage.flush();
    expect((await stored())['global:a.md']).toEqual(before);

    // So does one restored from Recently deleted (a version written back), once deleted again.
    await run({ command: 'delete', path: '/memories/global/a.md' });
    await usage.flush();
    expect((await stored())['global:a.md']).toBeUndefined();
    expect(await service.restore('/memories/global/a.md', 'one\n', 'restore:test', sb.session)).toEqual({ created: true });
    await usage.flush();
    expect((await stored())['global:a.md']).toMatchObject({ pinned: true, accessCount: 3, lastAccessedAt: before.lastAccessedAt, lastWriteBy: 'person' });
  });

  it('a pin and an unpin are not uses: they leave the use count and the last use as they were', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' });
    await run({ command: 'view', path: '/memories/global/a.md' });
    await usage.flush();
    const before = (await stored())['global:a.md']!;
    expect(before).toMatchObject({ pinned: false, accessCount: 2 });
    await service.setPinned('/memories/global/a.md', true, sb.session);
    expect((await stored())['global:a.md']).toEqual({ ...before, pinned: true });
    await service.setPinned('/memories/global/a.md', false, sb.session);
    expect((await stored())['global:a.md']).toEqual(before);
    // A file only pinned and unpinned, never used, has no uses at all (and no entry left).
    await fs.writeFile(path.join(sb.roots.global, 'b.md'), 'b\n');
    await service.setPinned('/memories/global/b.md', true, sb.session);
    await service.setPinned('/memories/global/b.md', false, sb.session);
    expect((await stored())['global:b.md']).toBeUndefined();
    expect((await usage.read()).get('global:b.md') ?? null).toMatchObject({ pinned: false, accessCount: 0, lastAccessedAt: null });
  });

  it('remembers who made the latest write, not who viewed or pinned', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' }, 'person');
    await usage.flush();
    expect((await stored())['global:a.md']!.lastWriteBy).toBe('person');
    await run({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' });
    await run({ command: 'view', path: '/memories/global/a.md' }, 'person');
    await service.setPinned('/memories/global/a.md', true, sb.session);
    await usage.flush();
    expect((await stored())['global:a.md']!.lastWriteBy).toBe('agent');
  });

  it('keys project and workspace files by their owners, not by path', async () => {
    await run({ command: 'create', path: '/memories/project/p.md', file_text: 'p' });
    await run({ command: 'create', path: '/memories/workspace/w.md', file_text: 'w' });
    await usage.flush();
    expect(Object.keys(await stored()).sort()).toEqual([`project:${sb.session.projectId}:p.md`, `workspace:${sb.session.workspaceId}:w.md`]);
  });

  it('failed commands record nothing', async () => {
    await run({ command: 'view', path: '/memories/global/missing.md' });
    await run({ command: 'create', path: '/memories/global/../x', file_text: 'x' });
    await usage.flush();
    await expect(fs.access(path.join(sb.home, 'memory-meta.json'))).rejects.toThrow();
  });
});

describe('renames and deletes', () => {
  it('rename moves the entry, and a directory rename moves its whole subtree', async () => {
    await run({ command: 'create', path: '/memories/global/notes/a.md', file_text: 'a' });
    await run({ command: 'create', path: '/memories/global/notes/deep/b.md', file_text: 'b' });
    await run({ command: 'create', path: '/memories/global/notes2.md', file_text: 'c' });
    await service.setPinned('/memories/global/notes/deep/b.md', true, sb.session);
    await run({ command: 'rename', old_path: '/memories/global/notes', new_path: '/memories/global/archive/notes' });
    await run({ command: 'rename', old_path: '/memories/global/notes2.md', new_path: '/memories/global/n2.md' });
    await usage.flush();
    const files = await stored();
    expect(Object.keys(files).sort()).toEqual(['global:archive/notes/a.md', 'global:archive/notes/deep/b.md', 'global:n2.md']);
    expect(files['global:archive/notes/deep/b.md']!.pinned).toBe(true);
  });

  it('delete removes the entry, or a directory subtree', async () => {
    await run({ command: 'create', path: '/memories/global/notes/a.md', file_text: 'a' });
    await run({ command: 'create', path: '/memories/global/notes-keep.md', file_text: 'k' });
    await run({ command: 'delete', path: '/memories/global/notes' });
    await usage.flush();
    expect(Object.keys(await stored())).toEqual(['global:notes-keep.md']);
  });
});

describe('pins', () => {
  it('pins files only, and only files that exist', async () => {
    await run({ command: 'create', path: '/memories/global/notes/a.md', file_text: 'a' });
    await expect(service.setPinned('/memories/global/notes', true, sb.session)).rejects.toThrow('is not a file');
    await expect(service.setPinned('/memories/global/nope.md', true, sb.session)).rejects.toThrow('does not exist');
    await expect(service.setPinned('/memories/global', true, sb.session)).rejects.toThrow('is not a file');
    await service.setPinned('/memories/global/notes/a.md', true, sb.session);
    await service.setPinned('/memories/global/notes/a.md', false, sb.session);
    expect((await stored())['global:notes/a.md']).toMatchObject({ pinned: false, accessCount: 1 });
  });
});

describe('a damaged sidecar', () => {
  it('is repaired field by field, and says it was', () => {
    const { map, problem } = parseUsageFile(
      JSON.stringify({
        version: 1,
        files: {
          'global:ok.md': { pinned: true, accessCount: 4, lastAccessedAt: '2026-01-02T03:04:05.000Z', lastWriteAt: null },
          'global:bad.md': { pinned: 'yes', accessCount: -3, lastAccessedAt: 'yesterday', lastWriteAt: 42, lastWriteBy: 'root', extra: 'x' },
          'global:worse.md': 'not an object',
        },
      }),
    );
    expect(map.get('global:ok.md')).toEqual({ pinned: true, accessCount: 4, lastAccessedAt: '2026-01-02T03:04:05.000Z', lastWriteAt: null, lastWriteBy: null });
    expect(map.get('global:bad.md')).toEqual({ pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null });
    expect(map.get('global:worse.md')).toEqual({ pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null });
    expect(problem).toMatch(/held values that are not usage/);
    expect(parseUsageFile(JSON.stringify({ version: 1, files: { 'global:ok.md': { pinned: true, accessCount: 4, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null } } })).problem).toBeNull();
  });

  it("keeps a deleted file's stats apart: read back for an undo, never salvaged as a file's", () => {
    const stats = { pinned: true, accessCount: 3, lastAccessedAt: '2026-01-02T03:04:05.000Z', lastWriteAt: null, lastWriteBy: 'agent' };
    const text = JSON.stringify({ version: 1, files: { 'global:kept.md': { ...stats, pinned: false } }, deleted: { 'global:gone.md': { ...stats, deletedAt: '2026-01-03T00:00:00.000Z' }, 'global:odd.md': { ...stats } } });
    const whole = parseUsageFile(text);
    expect(whole.problem).toBeNull();
    expect(whole.map.has('global:gone.md')).toBe(false);
    // One without its time of deletion is no use to an undo: left out.
    expect([...whole.deleted]).toEqual([['global:gone.md', { stats, deletedAt: '2026-01-03T00:00:00.000Z' }]]);
    // Torn after the deleted entry: what is salvaged is the files alone.
    const torn = parseUsageFile(text.slice(0, text.indexOf('"global:odd.md"')));
    expect([...torn.map.keys()]).toEqual(['global:kept.md']);
  });

  it('salvages the entries of a truncated file', async () => {
    await run({ command: 'create', path: '/memories/global/a.md', file_text: 'a' });
    await run({ command: 'create', path: '/memories/global/b.md', file_text: 'b' });
    await service.setPinned('/memories/global/a.md', true, sb.session);
    const file = path.join(sb.home, 'memory-meta.json');
    const text = await fs.readFile(file, 'utf8');
    const torn = text.slice(0, text.indexOf('"global:b.md"') + 20); // cut inside b's entry
    await fs.writeFile(file, torn);
    const map = await new UsageStore(sb.home).read();
    expect(map.get('global:a.md')).toMatchObject({ pinned: true, accessCount: 1 });
    expect(await asides()).toEqual([]); // reading changes nothing
    // The next write sets the torn file aside (saying so) and writes a whole, valid file with what was salvaged.
    await run({ command: 'view', path: '/memories/global/b.md' });
    const said = captureStderr();
    try {
      await usage.flush();
    } finally {
      said.restore();
    }
    const files = await stored();
    expect(files['global:a.md']).toMatchObject({ pinned: true, accessCount: 1 });
    expect(files['global:b.md']).toMatchObject({ accessCount: 1 });
    const [aside] = await asides();
    expect(await fs.readFile(path.join(sb.home, aside!), 'utf8')).toBe(torn);
    expect(said.text()).toContain(`${file} could not be read`);
    expect(said.text()).toContain(`moved aside to ${path.join(sb.home, aside!)}`);
  });

  it.each([
    ['garbage', '\u0000\u0001not json at all {{{'],
    ['an array', '[1, 2, 3]'],
    ['empty', ''],
    ['files is null', '{"version":1,"files":null}'],
  ])('starts afresh from %s, the file set aside', async (_name, text) => {
    await fs.mkdir(sb.home, { recursive: true });
    await fs.writeFile(path.join(sb.home, 'memory-meta.json'), text);
    expect((await run({ command: 'create', path: '/memories/global/a.md', file_text: 'a' })).ok).toBe(true);
    const said = captureStderr();
    try {
      await usage.flush();
    } finally {
      said.restore();
    }
    expect((await stored())['global:a.md']).toMatchObject({ accessCount: 1 });
    const [aside] = await asides();
    expect(await fs.readFile(path.join(sb.home, aside!), 'utf8')).toBe(text);
    expect(said.text()).toContain('could not be read');
  });

  it('reads what is queued and what other processes stored, between and after flushes', async () => {
    // Two stores on one home stand for two processes; every read must equal a fresh store's view
    // of the file plus the reader's own queue, whatever it answered before.
    const a = new UsageStore(sb.home);
    const b = new UsageStore(sb.home);
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const count = async (store: UsageStore, id: string) => (await store.read()).get(id)?.accessCount ?? 0;
    a.record({ type: 'use', id: 'global:x.md', at: at(1), write: true, by: 'agent' });
    expect(await count(a, 'global:x.md')).toBe(1);
    a.record({ type: 'use', id: 'global:x.md', at: at(2), write: false });
    expect(await count(a, 'global:x.md')).toBe(2);
    await a.flush();
    expect(await count(a, 'global:x.md')).toBe(2);
    b.record({ type: 'use', id: 'global:x.md', at: at(3), write: false });
    await b.flush();
    expect(await count(a, 'global:x.md')).toBe(3);
    a.record({ type: 'pin', id: 'global:y.md', pinned: true, at: at(4) }, { type: 'move', from: 'global:x.md', to: 'global:z.md' });
    const seen = await a.read();
    expect(seen.get('global:y.md')).toMatchObject({ pinned: true, accessCount: 0 });
    expect(seen.has('global:x.md')).toBe(false);
    expect(seen.get('global:z.md')).toMatchObject({ accessCount: 3, lastWriteBy: 'agent' });
    // A fresh reader of the file (nothing queued) sees only what was flushed.
    expect(await count(new UsageStore(sb.home), 'global:x.md')).toBe(3);
    await a.flush();
    expect((await new UsageStore(sb.home).read()).get('global:z.md')).toMatchObject({ accessCount: 3 });
    expect(await count(b, 'global:z.md')).toBe(3);
  });

  it('a directory where the sidecar should be never fails a memory command: it is set aside', async () => {
    await fs.mkdir(path.join(sb.home, 'memory-meta.json', 'inside'), { recursive: true });
    const said = captureStderr();
    try {
      const result = await run({ command: 'create', path: '/memories/global/a.md', file_text: 'a' });
      expect(result).toEqual({ ok: true, output: 'File created successfully at: /memories/global/a.md' });
      await usage.flush(); // reports on stderr, does not throw
      expect((await run({ command: 'view', path: '/memories/global/a.md' })).ok).toBe(true);
    } finally {
      said.restore();
    }
    expect(said.text()).toContain('(it is not a file)');
    const [aside] = await asides();
    expect(await fs.readdir(path.join(sb.home, aside!))).toEqual(['inside']);
    await usage.flush();
    expect((await stored())['global:a.md']).toMatchObject({ accessCount: 2 });
  });
});
