// A folder Cairn cannot read is never listed as an empty one: the shape listings give for it
// (ListedEntry.unreadable with the OS code, the same as the SSH helper's), a listing of the folder
// itself failing UNREADABLE, the cap's count skipping it, and a remove's or rename's capture of
// the history refusing rather than recording fewer files than the change takes away.
//
// The OS's refusal is made here by failing node:fs's calls on chosen folders as they fail for
// another user (root, which runs CI, reads through any mode); tests/security/unreadable-folders
// runs the real thing, a chmod 000 folder read by a second Unix user, through the built CLI and
// the remote helper.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempRoot } from '../../../../tests/support/temp-root';
import { RuntimeError, VERSION_SETTLE_MS, type ScopeRoot } from '../runtime';
import { captureFiles, countFiles, listTree } from './listing';
import { LocalRuntime } from './local-runtime';

const refusal = vi.hoisted(() => ({
  /** Folders whose entries may not be read (mode 000: readdir and open refused). */
  unreadable: new Set<string>(),
  /** Folders that may be read but not searched (mode r--: what is in them cannot be stat'd). */
  unsearchable: new Set<string>(),
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const denied = (call: string, p: unknown) => Object.assign(new Error(`EACCES: permission denied, ${call} '${String(p)}'`), { code: 'EACCES', errno: -13, syscall: call });
  const check = (call: string, p: unknown, whole: boolean) => {
    // A change acts through its pinned parent (/proc/self/fd/N/...): judged where that really is.
    const pinned = String(p).startsWith('/proc/self/fd/');
    const where = pinned ? path.join(real.realpathSync(path.dirname(String(p))), path.basename(String(p))) : String(p);
    if ((whole && refusal.unreadable.has(where)) || refusal.unsearchable.has(path.dirname(where)) || [...refusal.unreadable].some((d) => where.startsWith(`${d}/`))) throw denied(call, p);
  };
  const fake = {
    ...real,
    readdirSync: ((p: fs.PathLike, ...rest: unknown[]) => (check('scandir', p, true), (real.readdirSync as (...a: unknown[]) => unknown)(p, ...rest))) as typeof real.readdirSync,
    lstatSync: ((p: fs.PathLike, ...rest: unknown[]) => (check('lstat', p, false), (real.lstatSync as (...a: unknown[]) => unknown)(p, ...rest))) as typeof real.lstatSync,
    openSync: ((p: fs.PathLike, ...rest: unknown[]) => (check('open', p, true), (real.openSync as (...a: unknown[]) => unknown)(p, ...rest))) as typeof real.openSync,
  };
  return { ...fake, default: fake };
});

let base: string;
let root: ScopeRoot;
let cleanup: () => void;
const later = () => Date.now() + VERSION_SETTLE_MS + 60_000;

beforeEach(() => {
  ({ base, root, cleanup } = makeTempRoot('cairn-listing-'));
  fs.mkdirSync(path.join(root.path, 'notes'), { recursive: true });
  fs.mkdirSync(path.join(root.path, 'secret', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(root.path, 'a.md'), 'a');
  fs.writeFileSync(path.join(root.path, 'notes', 'b.md'), 'b');
  fs.writeFileSync(path.join(root.path, 'secret', 'c.md'), 'c');
  fs.writeFileSync(path.join(root.path, 'secret', 'deeper', 'd.md'), 'd');
});
afterEach(() => {
  refusal.unreadable.clear();
  refusal.unsearchable.clear();
  cleanup();
});

const shape = (entries: ReturnType<typeof listTree>) => entries.map((e) => [e.rel.join('/'), e.type, e.unreadable ?? null]);

describe('listing a folder Cairn cannot read', () => {
  it('lists it with the OS code and nothing of what it holds, not as an empty folder', () => {
    const rootReal = fs.realpathSync(root.path);
    expect(shape(listTree(rootReal, rootReal, { depth: 2, limit: 100 }, later()))).toEqual([
      ['a.md', 'file', null],
      ['notes', 'directory', null],
      ['notes/b.md', 'file', null],
      ['secret', 'directory', null],
      ['secret/c.md', 'file', null],
      ['secret/deeper', 'directory', null],
    ]);
    refusal.unreadable.add(path.join(rootReal, 'secret'));
    expect(shape(listTree(rootReal, rootReal, { depth: 2, limit: 100 }, later()))).toEqual([
      ['a.md', 'file', null],
      ['notes', 'directory', null],
      ['notes/b.md', 'file', null],
      ['secret', 'directory', 'EACCES'],
    ]);
  });

  it('a folder that may be read but not searched (r--) is unreadable too, not a folder of nothing', () => {
    const rootReal = fs.realpathSync(root.path);
    refusal.unsearchable.add(path.join(rootReal, 'secret'));
    expect(shape(listTree(rootReal, rootReal, { depth: 3, limit: 100 }, later())).filter(([rel]) => String(rel).startsWith('secret'))).toEqual([['secret', 'directory', 'EACCES']]);
  });

  it('a files-only listing (the index, the tree) gives it only when asked, counted towards the limit', () => {
    const rootReal = fs.realpathSync(root.path);
    refusal.unreadable.add(path.join(rootReal, 'secret', 'deeper'));
    const all = { depth: Number.POSITIVE_INFINITY, limit: 100, filesOnly: true };
    expect(shape(listTree(rootReal, rootReal, all, later()))).toEqual([
      ['a.md', 'file', null],
      ['notes/b.md', 'file', null],
      ['secret/c.md', 'file', null],
    ]);
    expect(shape(listTree(rootReal, rootReal, { ...all, withUnreadable: true }, later()))).toEqual([
      ['a.md', 'file', null],
      ['notes/b.md', 'file', null],
      ['secret/c.md', 'file', null],
      ['secret/deeper', 'directory', 'EACCES'],
    ]);
    expect(listTree(rootReal, rootReal, { ...all, withUnreadable: true, limit: 3 }, later())).toHaveLength(3);
  });

  it('the listed folder itself unreadable (a view of it, a scope root) fails UNREADABLE with a reason naming no path', async () => {
    const runtime = new LocalRuntime();
    const rootReal = fs.realpathSync(root.path);
    refusal.unreadable.add(path.join(rootReal, 'secret'));
    await expect(runtime.list(root, ['secret'], { depth: 2, limit: 100 })).rejects.toMatchObject({ code: 'UNREADABLE', errno: 'EACCES' });
    // A view reads first: a folder that may not be opened is unreadable, not a failed read of a file.
    await expect(runtime.readFile(root, ['secret'], 1000)).rejects.toMatchObject({ code: 'UNREADABLE', errno: 'EACCES' });
    refusal.unreadable.add(rootReal);
    const err = await runtime.list(root, [], { depth: Number.POSITIVE_INFINITY, limit: 100, filesOnly: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RuntimeError);
    expect((err as RuntimeError).code).toBe('UNREADABLE');
    expect((err as RuntimeError).detail).toMatch(/^Cairn cannot read its folder \(permission denied\)/);
    expect((err as RuntimeError).detail).not.toContain(base);
  });

  it('the cap counts what can be seen; a capture for the history refuses rather than miss files', () => {
    const rootReal = fs.realpathSync(root.path);
    expect(countFiles(rootReal, 100)).toBe(4);
    refusal.unreadable.add(path.join(rootReal, 'secret', 'deeper'));
    expect(countFiles(rootReal, 100)).toBe(3);
    const secret = path.join(rootReal, 'secret');
    expect(() => captureFiles(secret, fs.lstatSync(secret), ['secret'], 1000)).toThrow(expect.objectContaining({ code: 'IO', errno: 'EACCES' }));
    expect(captureFiles(path.join(rootReal, 'notes'), fs.lstatSync(path.join(rootReal, 'notes')), ['notes'], 1000).map((f) => f.rel.join('/'))).toEqual(['notes/b.md']);
  });

  it('a remove or rename of a folder holding one it cannot read changes nothing', async () => {
    const runtime = new LocalRuntime();
    const rootReal = fs.realpathSync(root.path);
    refusal.unreadable.add(path.join(rootReal, 'secret', 'deeper'));
    const beforeChange = vi.fn();
    await expect(runtime.rename(root, ['secret'], ['moved'], { maxBytes: 1000, beforeChange })).rejects.toMatchObject({ code: 'IO', errno: 'EACCES' });
    await expect(runtime.remove(root, ['secret'], { maxBytes: 1000, beforeChange })).rejects.toMatchObject({ code: 'IO', errno: 'EACCES' });
    expect(beforeChange).not.toHaveBeenCalled();
    refusal.unreadable.clear();
    expect(fs.readFileSync(path.join(root.path, 'secret', 'deeper', 'd.md'), 'utf8')).toBe('d');
    expect(fs.existsSync(path.join(root.path, 'moved'))).toBe(false);
  });
});
