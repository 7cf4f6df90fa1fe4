/**
 * HistoryStore on a real filesystem, in temp homes; time comes from an injected clock, never sleeps.
 * Two instances on one home play two processes.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../tests/support/random';
import { takeLeaseSync } from '../runtime/local/file-lock';
import { serializeLine } from './history-log';
import { HistoryStore, INLINE_MAX_BYTES, type HistoryChange, type HistoryStoreOptions, type HistoryVersion } from './history-store';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-11-24T12:00:00.000Z');

let home: string;
let clock: number;
const now = (): number => clock;

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-history-')));
  clock = T0;
});
afterEach(() => {
  fs.rmSync(home, { recursive: true, force: true });
});

function store(options: HistoryStoreOptions = {}): HistoryStore {
  return new HistoryStore(home, { now, ...options });
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha = (data: Uint8Array): string => crypto.createHash('sha256').update(data).digest('hex');
/** Content too large to be inline: kept in a blob file. */
const big = (tag: string, n = INLINE_MAX_BYTES + 1000): Uint8Array => bytes(tag.padEnd(n, '.'));
const logPath = (): string => path.join(home, 'history', 'log.jsonl');
const logLines = (): Array<Record<string, unknown>> =>
  fs
    .readFileSync(logPath(), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function change(over: Partial<HistoryChange> & Pick<HistoryChange, 'path' | 'op' | 'before' | 'after'>): HistoryChange {
  return { owner: 'global', scope: 'global', actor: 'agent', cause: 'tool', workspaceId: null, projectId: null, ...over };
}

function blobFiles(): string[] {
  const dir = path.join(home, 'history', 'blobs');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /^[0-9a-f]{2}\/[0-9a-f]{64}$/.test(name)).map((name) => name.slice(3));
}

/** Every non-null digest of every listed version can be read back with exactly those bytes. */
function expectNoDanglingBlobs(s: HistoryStore): void {
  for (const v of s.list()) {
    for (const digest of [v.before, v.after]) {
      if (digest === null || digest === 'unknown') continue;
      const data = s.readBlob(digest);
      expect(data, `${v.id} ${v.path} -> ${digest}`).not.toBeNull();
      expect(sha(data!)).toBe(digest);
    }
  }
}

describe('HistoryStore: record, list, get, readBlob', () => {
  it('round-trips a change with its exact bytes', () => {
    const s = store();
    const before = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x0a, 0x0d]);
    const after = bytes('# Build\nRun make test.\n');
    const ids = s.record([change({ path: '/memories/global/build.md', op: 'update', before, after })]);
    expect(ids).toHaveLength(1);
    const [v] = s.list();
    expect(v).toEqual({
      id: ids[0],
      at: '2026-11-24T12:00:00.000Z',
      batch: ids[0],
      owner: 'global',
      scope: 'global',
      path: '/memories/global/build.md',
      op: 'update',
      actor: 'agent',
      cause: 'tool',
      workspaceId: null,
      projectId: null,
      before: sha(before),
      after: sha(after),
      beforeSize: before.byteLength,
      afterSize: after.byteLength,
    });
    expect(s.get(ids[0]!)).toEqual(v);
    expect(s.get('nope')).toBeNull();
    expect(Buffer.from(s.readBlob(v!.before!)!)).toEqual(Buffer.from(before));
    expect(Buffer.from(s.readBlob(v!.after!)!)).toEqual(Buffer.from(after));
    expect(s.readBlob('0'.repeat(64))).toBeNull();
    expect(s.readBlob('../../etc/passwd')).toBeNull();
    expect(s.incompleteSince()).toBeNull();
  });

  it('records a create (before null), a delete (after null), a rename, and an unknown before', () => {
    const s = store();
    const a = bytes('a\n');
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: a })]);
    s.record([change({ path: '/memories/global/b.md', oldPath: '/memories/global/a.md', op: 'rename', before: a, after: a })]);
    s.record([change({ path: '/memories/global/b.md', op: 'update', before: 'unknown', after: bytes('b\n'), actor: 'external', cause: 'external' })]);
    s.record([change({ path: '/memories/global/b.md', op: 'delete', before: bytes('b\n'), after: null, actor: 'person', cause: 'ui' })]);
    const [del, ext, ren, cre] = s.list();
    expect(cre).toMatchObject({ op: 'create', before: null, beforeSize: null, after: sha(a), afterSize: 2 });
    expect(ren).toMatchObject({ op: 'rename', path: '/memories/global/b.md', oldPath: '/memories/global/a.md' });
    expect(ext).toMatchObject({ op: 'update', before: 'unknown', beforeSize: null, actor: 'external', cause: 'external' });
    expect(del).toMatchObject({ op: 'delete', after: null, afterSize: null, actor: 'person', cause: 'ui' });
    expect('oldPath' in cre!).toBe(false);
  });

  it('gives one batch id (the first change\'s) to changes recorded together, ids sorted by time then order', () => {
    const s = store();
    const first = s.record([change({ path: '/memories/global/x.md', op: 'create', before: null, after: bytes('x') })]);
    clock += 1;
    const ids = s.record([
      change({ path: '/memories/global/dir/a.md', op: 'delete', before: bytes('a'), after: null }),
      change({ path: '/memories/global/dir/b.md', op: 'delete', before: bytes('b'), after: null }),
      change({ path: '/memories/global/dir/c.md', op: 'delete', before: bytes('c'), after: null }),
    ]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort()).toEqual(ids);
    expect(first[0]! < ids[0]!).toBe(true);
    const batch = s.list({ batch: ids[0]! });
    expect(batch.map((v) => v.id)).toEqual([...ids].reverse());
    expect(batch.every((v) => v.batch === ids[0])).toBe(true);
    expect(s.get(first[0]!)!.batch).toBe(first[0]);
    expect(s.list().map((v) => v.id)).toEqual([...ids].reverse().concat(first));
  });

  it('stores identical large bytes once (a blob file), and small bytes inline in each line that has them', () => {
    const s = store();
    const same = big('same bytes');
    const small = bytes('small\n');
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: same })]);
    s.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: same })]);
    s.record([
      change({ path: '/memories/global/c.md', op: 'create', before: null, after: same }),
      change({ path: '/memories/global/d.md', op: 'create', before: null, after: big('other') }),
      change({ path: '/memories/global/e.md', op: 'create', before: null, after: small }),
      change({ path: '/memories/global/f.md', op: 'create', before: null, after: small }),
    ]);
    expect(blobFiles().sort()).toEqual([sha(same), sha(big('other'))].sort());
    expect(s.list()).toHaveLength(6);
    const inline = logLines().filter((l) => 'afterData' in l);
    expect(inline.map((l) => l.path)).toEqual(['/memories/global/e.md', '/memories/global/f.md']);
    expect(inline.every((l) => l.afterData === Buffer.from(small).toString('base64') && l.after === sha(small))).toBe(true);
    expectNoDanglingBlobs(s);
  });

  it('keeps content up to INLINE_MAX_BYTES inline (exact bytes, empty included), one byte more in a blob file', () => {
    const s = store();
    const empty = new Uint8Array(0);
    const atLimit = crypto.randomBytes(INLINE_MAX_BYTES);
    const over = crypto.randomBytes(INLINE_MAX_BYTES + 1);
    const binary = new Uint8Array([0, 0xff, 0x0a, 0x0d, 0x22, 0x5c, 0x7b]);
    const ids = [
      ...s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: empty })]),
      ...s.record([change({ path: '/memories/global/a.md', op: 'update', before: empty, after: atLimit })]),
      ...s.record([change({ path: '/memories/global/a.md', op: 'update', before: atLimit, after: over })]),
      ...s.record([change({ path: '/memories/global/a.md', op: 'update', before: over, after: binary })]),
    ];
    expect(ids).toHaveLength(4);
    const lines = logLines();
    expect(lines.map((l) => l.v)).toEqual([2, 2, 2, 2]);
    expect(lines.map((l) => [l.beforeData !== undefined, l.afterData !== undefined])).toEqual([
      [false, true],
      [true, true],
      [true, false],
      [false, true],
    ]);
    expect(lines[0]!.afterData).toBe('');
    expect(blobFiles()).toEqual([sha(over)]);
    for (const reader of [s, store()]) {
      for (const data of [empty, atLimit, over, binary]) expect(Buffer.from(reader.readBlob(sha(data))!)).toEqual(Buffer.from(data));
      expect(reader.get(ids[1]!)).toMatchObject({ before: sha(empty), beforeSize: 0, after: sha(atLimit), afterSize: INLINE_MAX_BYTES });
      expectNoDanglingBlobs(reader);
    }
  });

  it('a mixed batch: inline and blob-file content together, a rename carrying its bytes once', () => {
    const s = store();
    const small = bytes('small one\n');
    const large = big('large one');
    const ids = s.record([
      change({ path: '/memories/global/d/a.md', op: 'delete', before: small, after: null }),
      change({ path: '/memories/global/d/b.md', op: 'delete', before: large, after: null }),
      change({ path: '/memories/global/c.md', oldPath: '/memories/global/d/c.md', op: 'rename', before: small, after: small }),
      change({ path: '/memories/global/e.md', op: 'update', before: large, after: bytes('') }),
    ]);
    expect(ids).toHaveLength(4);
    const lines = logLines();
    expect(lines.map((l) => [l.i, l.n])).toEqual([
      [0, 4],
      [1, 4],
      [2, 4],
      [3, 4],
    ]);
    expect(lines[2]).toMatchObject({ before: sha(small), after: sha(small), beforeData: Buffer.from(small).toString('base64') });
    expect('afterData' in lines[2]!).toBe(false);
    expect('beforeData' in lines[1]! || 'beforeData' in lines[3]!).toBe(false);
    expect(blobFiles()).toEqual([sha(large)]);
    expect(s.list({ batch: ids[0]! })).toHaveLength(4);
    expectNoDanglingBlobs(s);
    expectNoDanglingBlobs(store());
  });

  it('reads lines of format v 1 (bytes in blob files), and gc keeps their blobs', () => {
    const s = store({ blobGraceMs: 60_000 });
    s.record([change({ path: '/memories/global/new.md', op: 'create', before: null, after: bytes('new') })]);
    // What the first version of the store wrote: a v 1 line naming a small blob file.
    const old = bytes('old small content');
    const dir = path.join(home, 'history', 'blobs', sha(old).slice(0, 2));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, sha(old)), old);
    const line = logLines()[0]!;
    const { afterData: _, ...rest } = line;
    const v1 = { ...rest, v: 1, id: '000000001-0000000000-0000', batch: '000000001-0000000000-0000', path: '/memories/global/old.md', after: sha(old), afterSize: old.byteLength };
    fs.appendFileSync(logPath(), `${JSON.stringify(v1)}\n`);
    // A v 1 line with data fields is not a valid v 1 line.
    fs.appendFileSync(logPath(), `${JSON.stringify({ ...v1, id: '000000002-0000000000-0000', batch: '000000002-0000000000-0000', afterData: Buffer.from(old).toString('base64') })}\n`);
    expect(s.list().map((v) => v.path)).toEqual(['/memories/global/old.md', '/memories/global/new.md']);
    expect(Buffer.from(s.readBlob(sha(old))!).toString()).toBe('old small content');
    clock += 10 * 60_000;
    expect(s.gc()).toEqual({ versions: 0, blobs: 0, bytes: 0 });
    expect(logLines().map((l) => l.v)).toEqual([2, 2]); // rewritten (a line was skipped), as v 2
    expect(blobFiles()).toEqual([sha(old)]);
    expectNoDanglingBlobs(s);
  });

  it('skips a line whose inline bytes do not match its size, and never returns inline bytes that do not match their digest', () => {
    const s = store();
    const [id] = s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('abc') })]);
    const line = logLines()[0]!;
    const at = (n: number): string => `00000000${n}-0000000000-0000`;
    fs.appendFileSync(logPath(), `${JSON.stringify({ ...line, id: at(1), batch: at(1), afterData: 'YWJjZA==' })}\n`); // 4 bytes, size 3
    fs.appendFileSync(logPath(), `${JSON.stringify({ ...line, id: at(2), batch: at(2), after: 'unknown', afterSize: null })}\n`); // data of no digest
    expect(store().list().map((v) => v.id)).toEqual([id]);
    // Right length, wrong bytes: listed (the line validates), but its digest's bytes are not those.
    const wrong = bytes('xyz');
    fs.writeFileSync(logPath(), `${JSON.stringify({ ...line, after: sha(wrong), afterData: Buffer.from(bytes('abc')).toString('base64') })}\n`);
    const fresh = store();
    expect(fresh.list()).toHaveLength(1);
    expect(fresh.readBlob(sha(wrong))).toBeNull();
  });

  it('makes the directory 0700 and its files 0600', () => {
    const s = store();
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: big('a') })]);
    const mode = (p: string): number => fs.statSync(p).mode & 0o777;
    expect(mode(path.join(home, 'history'))).toBe(0o700);
    expect(mode(path.join(home, 'history', 'blobs'))).toBe(0o700);
    expect(mode(path.join(home, 'history', 'log.jsonl'))).toBe(0o600);
    expect(mode(path.join(home, 'history', 'blobs', sha(big('a')).slice(0, 2), sha(big('a'))))).toBe(0o600);
  });

  it('filters by owner, exact path, directory prefix (path or oldPath), op and limit', () => {
    const s = store();
    const p = (over: Partial<HistoryChange>): Partial<HistoryChange> => ({ owner: 'project:p1', scope: 'project', projectId: 'p1', ...over });
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('g') })]);
    s.record([change({ ...p({}), path: '/memories/project/notes/a.md', op: 'create', before: null, after: bytes('1') })]);
    s.record([change({ ...p({}), path: '/memories/project/notes/ab.md', op: 'create', before: null, after: bytes('2') })]);
    s.record([change({ ...p({}), path: '/memories/project/top.md', oldPath: '/memories/project/notes/a.md', op: 'rename', before: bytes('1'), after: bytes('1') })]);
    s.record([change({ ...p({ owner: 'project:p2', projectId: 'p2' }), path: '/memories/project/notes/a.md', op: 'create', before: null, after: bytes('3') })]);

    expect(s.list({ owner: 'global' }).map((v) => v.path)).toEqual(['/memories/global/a.md']);
    expect(s.list({ owner: 'project:p1', path: '/memories/project/notes/a.md' }).map((v) => v.op)).toEqual(['rename', 'create']);
    expect(s.list({ owner: 'project:p1', path: '/memories/project/notes/' }).map((v) => v.path)).toEqual([
      '/memories/project/top.md',
      '/memories/project/notes/ab.md',
      '/memories/project/notes/a.md',
    ]);
    // A prefix without the slash is a file's path: it matches no sibling whose name merely starts with it.
    expect(s.list({ path: '/memories/project/notes/a' })).toEqual([]);
    expect(s.list({ path: '/memories/project/notes/a.md' })).toHaveLength(3);
    expect(s.list({ op: 'rename' })).toHaveLength(1);
    expect(s.list({ limit: 2 }).map((v) => v.owner)).toEqual(['project:p2', 'project:p1']);
    expect(s.list({ owner: 'workspace:none' })).toEqual([]);
  });

  it('lists the recently deleted paths of an owner: deletes and renames away, newest first', () => {
    const s = store();
    const rec = (over: Partial<HistoryChange> & Pick<HistoryChange, 'path' | 'op' | 'before' | 'after'>): string => {
      clock += 1000;
      return s.record([change(over)])[0]!;
    };
    rec({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') });
    const delA = rec({ path: '/memories/global/a.md', op: 'delete', before: bytes('a'), after: null });
    rec({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('b') });
    rec({ path: '/memories/global/b.md', op: 'delete', before: bytes('b'), after: null });
    rec({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('b2') }); // brought back
    rec({ path: '/memories/global/c.md', op: 'create', before: null, after: bytes('c') });
    const renC = rec({ path: '/memories/global/d.md', oldPath: '/memories/global/c.md', op: 'rename', before: bytes('c'), after: bytes('c') });
    clock += 1000;
    const dir = s.record([
      change({ path: '/memories/global/dir/x.md', op: 'delete', before: bytes('x'), after: null }),
      change({ path: '/memories/global/dir/y.md', op: 'delete', before: bytes('y'), after: null }),
    ]);
    rec({ owner: 'workspace:w', scope: 'workspace', workspaceId: 'w', path: '/memories/workspace/z.md', op: 'delete', before: bytes('z'), after: null });

    expect(s.recentlyDeleted('global').map((v) => v.id)).toEqual([dir[1], dir[0], renC, delA]);
    expect(s.recentlyDeleted('workspace:w').map((v) => v.path)).toEqual(['/memories/workspace/z.md']);
    expect(s.recentlyDeleted('project:none')).toEqual([]);
  });
});

describe('HistoryStore: several processes, damaged logs', () => {
  it('two instances (two processes) each list what the other appended', () => {
    const a = store();
    const b = store();
    expect(a.list()).toEqual([]);
    const [idA] = a.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('A') })]);
    expect(b.list().map((v) => v.id)).toEqual([idA]);
    clock += 1;
    const [idB] = b.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('B') })]);
    expect(a.list().map((v) => v.id)).toEqual([idB, idA]);
    expect(a.get(idB!)!.path).toBe('/memories/global/b.md');
    expect(Buffer.from(a.readBlob(sha(bytes('B')))!).toString()).toBe('B');
    for (let k = 0; k < 50; k++) (k % 2 ? a : b).record([change({ path: `/memories/global/n${k}.md`, op: 'create', before: null, after: bytes(`${k}`) })]);
    expect(a.list()).toEqual(b.list());
    expect(a.list()).toHaveLength(52);
  });

  it('two instances (two processes) read each other\'s inline bytes, without listing first', () => {
    const a = store();
    const b = store();
    expect(b.list()).toEqual([]); // b has read the log before a's lines were there
    const fromA = crypto.randomBytes(2048);
    a.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: fromA })]);
    expect(Buffer.from(b.readBlob(sha(fromA))!)).toEqual(Buffer.from(fromA));
    const fromB = bytes('from b\n');
    clock += 1;
    b.record([change({ path: '/memories/global/a.md', op: 'update', before: fromA, after: fromB })]);
    expect(Buffer.from(a.readBlob(sha(fromB))!).toString()).toBe('from b\n');
    expect(blobFiles()).toEqual([]);
    expectNoDanglingBlobs(a);
    expectNoDanglingBlobs(b);
  });

  it('skips a torn last line, and the next append closes it', () => {
    const s = store();
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') })]);
    const log = path.join(home, 'history', 'log.jsonl');
    fs.appendFileSync(log, '{"v":1,"id":"0000000');
    expect(s.list()).toHaveLength(1);
    const other = store();
    expect(other.list()).toHaveLength(1);
    s.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('b') })]);
    expect(s.list().map((v) => v.path)).toEqual(['/memories/global/b.md', '/memories/global/a.md']);
    expect(other.list().map((v) => v.path)).toEqual(['/memories/global/b.md', '/memories/global/a.md']);
    expect(store().list()).toHaveLength(2);
  });

  it('takes a batch whole or not at all (a batch cut short by a crash is skipped)', () => {
    const s = store();
    const log = path.join(home, 'history', 'log.jsonl');
    const ids = s.record([
      change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') }),
      change({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('b') }),
      change({ path: '/memories/global/c.md', op: 'create', before: null, after: bytes('c') }),
    ]);
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    // The same batch's first two lines again, cut short (a crash), as if written by another record.
    const cut = lines.slice(0, 2).map((l) => l.replace(/"id":"[^"]+"/, '"id":"zzzzzzzzz-0000000000-0000"').replace(/"batch":"[^"]+"/, '"batch":"zzzzzzzzz-0000000000-0000"'));
    fs.appendFileSync(log, `${cut.join('\n')}\n`);
    const fresh = store();
    expect(fresh.list()).toHaveLength(3); // the cut batch is not there yet (it might still be being written)
    s.record([change({ path: '/memories/global/d.md', op: 'create', before: null, after: bytes('d') })]);
    expect(fresh.list().map((v) => v.path)).toEqual(['/memories/global/d.md', '/memories/global/c.md', '/memories/global/b.md', '/memories/global/a.md']);
    expect(store().list()).toHaveLength(4);
    expect(fresh.list({ batch: ids[0]! })).toHaveLength(3);
  });

  it('skips lines that do not validate, and a version appended twice counts once', () => {
    const s = store();
    const [id] = s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') })]);
    const log = path.join(home, 'history', 'log.jsonl');
    const line = fs.readFileSync(log, 'utf8');
    fs.appendFileSync(log, line); // gc's copy and the record's own retry
    fs.appendFileSync(log, '\n[1,2]\n{"v":2}\nnot json\n');
    fs.appendFileSync(log, line.replace('"before":null', '"before":"../x"'));
    const v = s.get(id!)!;
    fs.appendFileSync(log, serializeLine({ ...v, id: 'aaaaaaaaa-0000000000-0000', batch: 'aaaaaaaaa-0000000000-0000', cause: 'BAD CAUSE' }, 0, 1));
    expect(store().list().map((x) => x.id)).toEqual([id]);
    expect(s.list().map((x) => x.id)).toEqual([id]);
  });

  it('when the history directory cannot be made, record() answers [] and marks history incomplete; list still works', () => {
    fs.writeFileSync(path.join(home, 'history'), 'not a directory');
    const s = store();
    expect(s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') })])).toEqual([]);
    expect(s.incompleteSince()).toBe('2026-11-24T12:00:00.000Z');
    clock += 5000;
    expect(s.record([change({ path: '/memories/global/a.md', op: 'update', before: bytes('a'), after: bytes('b') })])).toEqual([]);
    expect(s.incompleteSince()).toBe('2026-11-24T12:00:00.000Z'); // the first failure counts
    expect(s.list()).toEqual([]);
    expect(s.get('x')).toBeNull();
    expect(s.recentlyDeleted('global')).toEqual([]);
    expect(s.gc()).toEqual({ versions: 0, blobs: 0, bytes: 0 });
  });

  it('a failure after earlier records leaves the log whole, persists the mark for other processes until cleared', () => {
    const s = store();
    const [ok] = s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: big('a') })]);
    const blobs = path.join(home, 'history', 'blobs');
    const saved = path.join(home, 'blobs-saved');
    fs.renameSync(blobs, saved);
    fs.writeFileSync(blobs, 'in the way'); // a new blob cannot be written
    clock += 60_000;
    expect(s.record([change({ path: '/memories/global/a.md', op: 'update', before: big('a'), after: big('new') })])).toEqual([]);
    expect(s.list().map((v) => v.id)).toEqual([ok]);
    const other = store();
    expect(other.incompleteSince()).toBe('2026-11-24T12:01:00.000Z');
    clock += 60_000;
    // A change whose blobs are all there already still records (the before is reused, nothing is new).
    fs.rmSync(blobs);
    fs.renameSync(saved, blobs);
    expect(s.record([change({ path: '/memories/global/a.md', op: 'delete', before: big('a'), after: null })])).toHaveLength(1);
    expect(other.incompleteSince()).toBe('2026-11-24T12:01:00.000Z'); // until cleared
    expect(other.clearIncomplete()).toBe(true);
    expect(s.incompleteSince()).toBeNull();
    expect(store().incompleteSince()).toBeNull();
    expectNoDanglingBlobs(s);
  });

  it('an invalid change records nothing of its batch and marks history incomplete', () => {
    const s = store();
    const good = change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') });
    const bad: HistoryChange[] = [
      change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a'), cause: 'Tool' }),
      change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a'), cause: 'undo:../x' }),
      change({ path: '/memories/project/a.md', op: 'create', before: null, after: bytes('a') }), // scope mismatch
      change({ path: '/memories/global/../x.md', op: 'create', before: null, after: bytes('a') }),
      change({ path: '/memories/global/b.md', op: 'rename', before: bytes('a'), after: bytes('a') }), // no oldPath
      change({ path: '/memories/global/b.md', op: 'delete', before: bytes('a'), after: bytes('a') }),
      change({ owner: 'project:', scope: 'project', path: '/memories/project/a.md', op: 'create', before: null, after: bytes('a') }),
    ];
    for (const b of bad) expect(s.record([good, b])).toEqual([]);
    expect(s.list()).toEqual([]);
    expect(s.incompleteSince()).not.toBeNull();
    expect(s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a'), cause: 'undo:0abc-def_1' })])).toHaveLength(1);
  });
});

describe('HistoryStore: gc', () => {
  const gcOptions = { blobGraceMs: 60_000 };

  it('drops versions older than keepDays unless among the newest keepNewest of their path', () => {
    const s = store({ ...gcOptions, keepNewest: 3 });
    const ids: string[] = [];
    for (let k = 0; k < 6; k++) {
      ids.push(s.record([change({ path: '/memories/global/a.md', op: 'update', before: bytes(`a${k}`), after: bytes(`a${k + 1}`) })])[0]!);
      clock += DAY;
    }
    const [old] = s.record([change({ path: '/memories/global/old.md', op: 'create', before: null, after: bytes('old') })]);
    clock = T0 + 90 * DAY; // the a.md versions are 90..85 days old: none is older than 90 days
    expect(s.gc().versions).toBe(0);
    clock = T0 + 100 * DAY;
    const r = s.gc();
    expect(r.versions).toBe(3);
    expect(s.list().map((v) => v.id)).toEqual([old, ids[5], ids[4], ids[3]]);
    expect(r.blobs).toBe(0); // all inline: gone with their lines (a3 is the before of the oldest kept)
    expect(s.readBlob(sha(bytes('a2')))).toBeNull();
    expect(s.readBlob(sha(bytes('a3')))).not.toBeNull();
    expect(fs.readFileSync(logPath(), 'utf8')).not.toContain(Buffer.from('a2').toString('base64'));
    expectNoDanglingBlobs(s);
    expect(s.gc()).toEqual({ versions: 0, blobs: 0, bytes: 0 });
  });

  it('keeps the newest 20 versions of each path by default, whatever their age, and recent ones beyond 20', () => {
    const s = store(gcOptions);
    for (let k = 0; k < 30; k++) s.record([change({ path: '/memories/global/a.md', op: 'update', before: bytes(`${k}`), after: bytes(`${k + 1}`) })]);
    clock += 10 * DAY;
    for (let k = 0; k < 25; k++) s.record([change({ path: '/memories/global/b.md', op: 'update', before: bytes(`b${k}`), after: bytes(`b${k + 1}`) })]);
    clock += 85 * DAY; // a.md's versions are 95 days old, b.md's 85
    expect(s.gc().versions).toBe(10);
    expect(s.list({ path: '/memories/global/a.md' })).toHaveLength(20);
    expect(s.list({ path: '/memories/global/b.md' })).toHaveLength(25);
    expectNoDanglingBlobs(s);
  });

  it('a rename counts as a version of its old path too (it is what recently deleted shows)', () => {
    const s = store({ ...gcOptions, keepNewest: 1 });
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a') })]);
    const [ren] = s.record([change({ path: '/memories/global/b.md', oldPath: '/memories/global/a.md', op: 'rename', before: bytes('a'), after: bytes('a') })]);
    const [upd] = s.record([change({ path: '/memories/global/b.md', op: 'update', before: bytes('a'), after: bytes('b') })]);
    clock += 200 * DAY;
    expect(s.gc().versions).toBe(1);
    expect(s.list().map((v) => v.id)).toEqual([upd, ren]);
    expect(s.recentlyDeleted('global').map((v) => v.id)).toEqual([ren]);
  });

  it('caps an owner\'s bytes (inline bytes of each line), dropping its oldest versions but never the newest of a path', () => {
    const s = store({ ...gcOptions, maxBytesPerOwner: 10_000 });
    const kb = (tag: string, n = 1000): Uint8Array => bytes(tag.padEnd(n, '.'));
    const ids: string[] = [];
    let prev: Uint8Array | null = null;
    for (let k = 0; k < 10; k++) {
      const next = kb(`a${k}`);
      ids.push(s.record([change({ path: '/memories/global/a.md', op: prev ? 'update' : 'create', before: prev, after: next })])[0]!);
      prev = next;
    }
    // Big single-version files: each the newest of its path, never dropped.
    const [big6] = s.record([change({ path: '/memories/global/big.md', op: 'create', before: null, after: kb('big', 6000) })]);
    // Another owner under the cap (5 lines of 2000 inline bytes) is not touched.
    for (let k = 0; k < 5; k++) s.record([change({ owner: 'workspace:w', scope: 'workspace', workspaceId: 'w', path: '/memories/workspace/w.md', op: 'update', before: kb(`w${k}`), after: kb(`w${k + 1}`) })]);
    clock += 2 * 60_000;
    const r = s.gc();
    // global: 1000 (the create) + 9 * 2000 (each update carries its before and after) + 6000 =
    // 25000 > 10000: the oldest a versions go until 10000 is left: 6000 + versions 8 and 9.
    const kept = s.list({ owner: 'global' });
    expect(kept.map((v) => v.id)).toEqual([big6, ids[9], ids[8]]);
    expect(r).toEqual({ versions: 8, blobs: 0, bytes: 0 });
    expect(s.list({ owner: 'workspace:w' })).toHaveLength(5);
    expect(s.readBlob(sha(kb('a7')))).not.toBeNull(); // the before of version 8
    expect(s.readBlob(sha(kb('a6')))).toBeNull();
    expectNoDanglingBlobs(s);

    // A cap below a single newest version keeps that version anyway.
    const tight = store({ ...gcOptions, maxBytesPerOwner: 1 });
    tight.gc();
    expect(tight.list({ owner: 'global' }).map((v) => v.id)).toEqual([big6, ids[9]]);
    expect(tight.list({ owner: 'workspace:w' })).toHaveLength(1);
    expectNoDanglingBlobs(tight);
  });

  it('caps an owner\'s bytes counting each blob file once, with inline bytes', () => {
    const s = store({ ...gcOptions, maxBytesPerOwner: 40_000 });
    const n = 9000; // > INLINE_MAX_BYTES: blob files
    const ids: string[] = [];
    let prev: Uint8Array | null = null;
    for (let k = 0; k < 10; k++) {
      const next = big(`a${k}`, n);
      ids.push(s.record([change({ path: '/memories/global/a.md', op: prev ? 'update' : 'create', before: prev, after: next })])[0]!);
      prev = next;
    }
    const [small] = s.record([change({ path: '/memories/global/small.md', op: 'create', before: null, after: bytes('s'.repeat(1000)) })]);
    clock += 2 * 60_000;
    // 10 distinct blobs (90000) + 1000 inline: dropping version 0 frees nothing (a0 is version 1's
    // before); each later one frees one blob, until 91000 - 6 * 9000 = 37000 <= 40000.
    const r = s.gc();
    expect(s.list({ owner: 'global' }).map((v) => v.id)).toEqual([small, ids[9], ids[8], ids[7]]);
    expect(r).toEqual({ versions: 7, blobs: 6, bytes: 6 * n });
    expect(blobFiles().sort()).toEqual([6, 7, 8, 9].map((k) => sha(big(`a${k}`, n))).sort());
    expectNoDanglingBlobs(s);
  });

  it('gc keeps inline bytes with their line and removes them with it; a second instance sees the same', () => {
    const s = store({ ...gcOptions, keepNewest: 1 });
    const other = store();
    const v = (k: number): Uint8Array => bytes(`version ${k}\n`);
    const shared = bytes('shared\n');
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: v(0) })]);
    s.record([change({ path: '/memories/global/a.md', op: 'update', before: v(0), after: shared })]);
    s.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: shared })]);
    s.record([change({ path: '/memories/global/a.md', op: 'update', before: shared, after: v(2) })]);
    expect(Buffer.from(other.readBlob(sha(v(0)))!).toString()).toBe('version 0\n'); // other has taken every line
    clock += 100 * DAY;
    expect(s.gc()).toEqual({ versions: 2, blobs: 0, bytes: 0 });
    for (const reader of [s, other, store()]) {
      expect(reader.list()).toHaveLength(2);
      expect(reader.readBlob(sha(v(0)))).toBeNull(); // only in dropped lines
      expect(Buffer.from(reader.readBlob(sha(shared))!).toString()).toBe('shared\n'); // in kept lines too
      expect(Buffer.from(reader.readBlob(sha(v(2)))!).toString()).toBe('version 2\n');
      expectNoDanglingBlobs(reader);
    }
    expect(fs.readFileSync(logPath(), 'utf8')).not.toContain(Buffer.from(v(0)).toString('base64'));
  });

  it('deletes unreferenced blobs past the grace period and keeps referenced and young ones', () => {
    const s = store(gcOptions);
    const kept = big('kept');
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: kept })]);
    // Blobs no version references: a record that failed after its blobs, or a killed process.
    const orphan = (text: string, at: number): string => {
      const digest = sha(bytes(text));
      const dir = path.join(home, 'history', 'blobs', digest.slice(0, 2));
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, digest), text);
      fs.utimesSync(path.join(dir, digest), at / 1000, at / 1000);
      return digest;
    };
    const old = orphan('old orphan', T0 - 5 * 60_000);
    const young = orphan('young orphan', T0 + 30_000);
    const tempDir = path.join(home, 'history', 'blobs', old.slice(0, 2));
    fs.writeFileSync(path.join(tempDir, `${old}.123.1.tmp`), 'partial');
    fs.utimesSync(path.join(tempDir, `${old}.123.1.tmp`), (T0 - 5 * 60_000) / 1000, (T0 - 5 * 60_000) / 1000);
    clock = T0 + 60_000;
    const r = s.gc();
    expect(r).toEqual({ versions: 0, blobs: 1, bytes: 'old orphan'.length });
    expect(blobFiles().sort()).toEqual([sha(kept), young].sort());
    expect(fs.existsSync(path.join(tempDir, `${old}.123.1.tmp`))).toBe(false);
    clock = T0 + 10 * 60_000;
    expect(s.gc().blobs).toBe(1);
    expect(blobFiles()).toEqual([sha(kept)]);
    expect(Buffer.from(s.readBlob(sha(kept))!)).toEqual(Buffer.from(kept));
  });

  it('a blob a record() reuses gets the record\'s time (gc\'s grace), and one gc has put aside is written again', () => {
    const s = store(gcOptions);
    const v1 = big('v1');
    const digest = sha(v1);
    const p = path.join(home, 'history', 'blobs', digest.slice(0, 2), digest);
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: v1 })]);
    expect(fs.statSync(p).mtimeMs).toBe(T0);
    clock += 100 * DAY;
    // gc decided on the old mtime: the blob is unreferenced and old. A record reusing it now...
    s.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: v1 })]);
    // ...moved its mtime, which gc looks at again (on what it moved aside) before deleting.
    expect(fs.statSync(p).mtimeMs).toBe(clock);
    // gc moved it aside before the record looked: the record finds it gone and writes it again.
    fs.renameSync(p, `${p}.gc`);
    clock += 1;
    s.record([change({ path: '/memories/global/c.md', op: 'create', before: null, after: v1 })]);
    expect(fs.readFileSync(p)).toEqual(Buffer.from(v1));
    fs.rmSync(`${p}.gc`); // gc then deletes what it moved
    expectNoDanglingBlobs(s);
    // And a whole gc keeps a blob a version references, whatever its age.
    clock += 100 * DAY;
    expect(s.gc().blobs).toBe(0);
    expectNoDanglingBlobs(s);
  });

  it('puts back a blob a killed gc left aside, when a version references it; readBlob finds it meanwhile', () => {
    const s = store(gcOptions);
    const aside = big('aside');
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: aside })]);
    const digest = sha(aside);
    const p = path.join(home, 'history', 'blobs', digest.slice(0, 2), digest);
    fs.renameSync(p, `${p}.gc`);
    expect(Buffer.from(s.readBlob(digest)!)).toEqual(Buffer.from(aside));
    // An unreferenced one left aside goes.
    const gone = sha(bytes('gone'));
    fs.mkdirSync(path.join(home, 'history', 'blobs', gone.slice(0, 2)), { recursive: true });
    fs.writeFileSync(path.join(home, 'history', 'blobs', gone.slice(0, 2), `${gone}.gc`), 'gone');
    clock += 10 * 60_000;
    expect(s.gc()).toEqual({ versions: 0, blobs: 1, bytes: 4 });
    expect(fs.existsSync(p)).toBe(true);
    expect(fs.existsSync(`${p}.gc`)).toBe(false);
    expectNoDanglingBlobs(s);
  });

  it('a second gc while one holds the lock removes nothing', () => {
    const s = store({ ...gcOptions, keepDays: 1, keepNewest: 1 });
    s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('1') })]);
    s.record([change({ path: '/memories/global/a.md', op: 'update', before: bytes('1'), after: bytes('2') })]);
    clock += 10 * DAY;
    const lease = takeLeaseSync(path.join(home, 'history', 'log.jsonl'), { lockfilePath: path.join(home, 'history', 'gc.lock'), syncRun: true });
    expect(lease).not.toBeNull();
    try {
      expect(s.gc()).toEqual({ versions: 0, blobs: 0, bytes: 0 });
    } finally {
      lease!.release();
    }
    expect(s.gc().versions).toBe(1);
  });

  it('after gc replaced the log, other instances re-read it, and appends still land', () => {
    const a = store({ ...gcOptions, keepNewest: 2 });
    const b = store();
    for (let k = 0; k < 5; k++) a.record([change({ path: '/memories/global/a.md', op: 'update', before: bytes(`${k}`), after: bytes(`${k + 1}`) })]);
    expect(b.list()).toHaveLength(5);
    const log = path.join(home, 'history', 'log.jsonl');
    const inode = fs.statSync(log).ino;
    clock += 100 * DAY;
    expect(a.gc().versions).toBe(3);
    expect(fs.statSync(log).ino).not.toBe(inode);
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
    expect(b.list()).toHaveLength(2);
    b.record([change({ path: '/memories/global/b.md', op: 'create', before: null, after: bytes('b') })]);
    expect(a.list().map((v) => v.path)).toEqual(['/memories/global/b.md', '/memories/global/a.md', '/memories/global/a.md']);
    expectNoDanglingBlobs(a);
  });

  it('a mark left by another process that cannot be read, or holds no time, still says the history is incomplete', () => {
    const mark = path.join(home, 'history', 'incomplete');
    fs.mkdirSync(path.dirname(mark), { recursive: true });
    fs.writeFileSync(mark, 'torn');
    fs.utimesSync(mark, new Date(T0 - 60_000), new Date(T0 - 60_000));
    expect(store().incompleteSince()).toBe('2026-11-24T11:59:00.000Z');
    fs.rmSync(mark);
    fs.mkdirSync(mark); // unreadable as a file
    fs.utimesSync(mark, new Date(T0 - 120_000), new Date(T0 - 120_000));
    expect(store().incompleteSince()).toBe('2026-11-24T11:58:00.000Z');
  });

  it('clears the incomplete mark', () => {
    const s = store(gcOptions);
    expect(s.record([change({ path: '/memories/global/a.md', op: 'create', before: null, after: bytes('a'), cause: '' })])).toEqual([]);
    expect(s.incompleteSince()).not.toBeNull();
    s.gc();
    expect(s.incompleteSince()).toBeNull();
    expect(store().incompleteSince()).toBeNull();
  });

  it('property: 200 random changes, then gc: every listed version\'s blobs exist with their bytes', () => {
    for (const seed of [1, 7, 42]) {
      const rnd = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const owners = [
        { owner: 'global', scope: 'global' as const, workspaceId: null, projectId: null },
        { owner: 'project:p1', scope: 'project' as const, workspaceId: null, projectId: 'p1' },
        { owner: 'workspace:w1', scope: 'workspace' as const, workspaceId: 'w1', projectId: null },
      ];
      const s = new HistoryStore(path.join(home, `seed-${seed}`), { now, blobGraceMs: 60_000, keepNewest: 1 + Math.floor(rnd() * 5), keepDays: 30, maxBytesPerOwner: 60_000 });
      const state = new Map<string, Uint8Array>(); // owner\0path -> bytes
      const recorded: string[] = [];
      const content = (): Uint8Array => {
        // Mostly inline, some in blob files, and the edges.
        const r = rnd();
        const n = r < 0.6 ? Math.floor(rnd() * 3000) : r < 0.8 ? INLINE_MAX_BYTES + Math.floor(rnd() * 4000) : r < 0.85 ? INLINE_MAX_BYTES : r < 0.9 ? INLINE_MAX_BYTES + 1 : 0;
        const out = new Uint8Array(n);
        const fill = Math.floor(rnd() * 256);
        for (let k = 0; k < n; k++) out[k] = rnd() < 0.1 ? Math.floor(rnd() * 256) : fill;
        return rnd() < 0.2 ? bytes(`shared ${Math.floor(rnd() * 5)}`) : out;
      };
      for (let k = 0; k < 200; k++) {
        clock += Math.floor(rnd() * 2 * DAY);
        const o = pick(owners);
        const name = (): string => `/memories/${o.scope}/${pick(['a', 'b', 'c', 'd/e', 'd/f'])}.md`;
        const p = name();
        const key = `${o.owner}\0${p}`;
        const had = state.get(key) ?? null;
        const batch: HistoryChange[] = [];
        const r = rnd();
        if (had === null) {
          const after = content();
          batch.push({ ...o, path: p, op: 'create', before: rnd() < 0.1 ? 'unknown' : null, after, actor: 'agent', cause: 'tool' });
          state.set(key, after);
        } else if (r < 0.5) {
          const after = content();
          batch.push({ ...o, path: p, op: 'update', before: rnd() < 0.1 ? 'unknown' : had, after, actor: pick(['agent', 'person', 'external'] as const), cause: pick(['tool', 'ui', 'external']) });
          state.set(key, after);
        } else if (r < 0.75) {
          batch.push({ ...o, path: p, op: 'delete', before: had, after: null, actor: 'person', cause: 'ui' });
          state.delete(key);
          const sibling = `${o.owner}\0${p === `/memories/${o.scope}/d/e.md` ? `/memories/${o.scope}/d/f.md` : `/memories/${o.scope}/d/e.md`}`;
          const sib = state.get(sibling);
          if (p.includes('/d/') && sib) {
            batch.push({ ...o, path: sibling.split('\0')[1]!, op: 'delete', before: sib, after: null, actor: 'person', cause: 'ui' });
            state.delete(sibling);
          }
        } else {
          const to = name();
          const toKey = `${o.owner}\0${to}`;
          if (to === p || state.has(toKey)) continue;
          batch.push({ ...o, path: to, oldPath: p, op: 'rename', before: had, after: had, actor: 'agent', cause: 'tool' });
          state.delete(key);
          state.set(toKey, had);
        }
        const ids = s.record(batch);
        expect(ids).toHaveLength(batch.length);
        recorded.push(...ids);
        if (rnd() < 0.05) s.gc();
      }
      expect(s.incompleteSince()).toBeNull();
      const all = new Set(recorded);
      expect(s.list().every((v) => all.has(v.id))).toBe(true);
      expectNoDanglingBlobs(s);
      clock += 10 * 60_000;
      s.gc();
      expectNoDanglingBlobs(s);
      // The newest version of every path survives, and its after is the file's current bytes.
      for (const [key, data] of state) {
        const [owner, p] = key.split('\0') as [string, string];
        const [latest] = s.list({ owner, path: p, limit: 1 });
        expect(latest, key).toBeDefined();
        expect(latest!.after).toBe(sha(data));
      }
      // A fresh instance reads the same log.
      expect(new HistoryStore(path.join(home, `seed-${seed}`)).list()).toEqual(s.list());
      // No blob is left that nothing references (past the grace period).
      const referenced = new Set(s.list().flatMap((v: HistoryVersion) => [v.before, v.after]));
      const dir = path.join(home, `seed-${seed}`, 'history', 'blobs');
      const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((n) => /^[0-9a-f]{2}\/[0-9a-f]{64}$/.test(n));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(referenced.has(f.slice(3))).toBe(true);
      // Inline bytes are only in lines: no blob file of inline size.
      for (const f of files) expect(fs.statSync(path.join(dir, f)).size).toBeGreaterThan(INLINE_MAX_BYTES);
    }
  });
});
