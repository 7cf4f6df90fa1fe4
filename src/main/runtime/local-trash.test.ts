// The trash beside a local scope root (LocalTrash, through LocalRuntime): deletes (and the edits
// around them) do what they say at once, what was deleted or replaced is freed in the background or
// kept as a spare and written again by a later write (never before an fsync made its release
// durable, never a file with another name), nothing is left behind once idle, a symlink or file
// planted at the trash's path is never used, leftovers of a dead process are removed, and git never
// sees the trash. Real files and a real git in temp dirs.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScopeRoot } from './runtime';
import { LocalRuntime } from './local-runtime';
import { SPARE_LIMIT, SPARE_MAX_BYTES, trashPathFor } from './local-trash';

let base: string;
let root: ScopeRoot;
let trash: string;
const text = (s: string) => new TextEncoder().encode(s);

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-trash-')));
  root = { anchor: base, path: path.join(base, '.cairn', 'memory') };
  fs.mkdirSync(root.path, { recursive: true });
  trash = trashPathFor(root.path);
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

/** The trash's entries once they are `expected` (the background frees done), or after 2 s. */
async function settledTrash(expected = ['.gitignore']): Promise<string[]> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const names = fs.readdirSync(trash).sort();
    if (names.join('/') === [...expected].sort().join('/') || Date.now() > deadline) return names;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe.runIf(process.platform === 'linux')('the trash beside a local root', () => {
  it('deletes of files and trees take effect at once, and what they removed is freed, leaving nothing behind', async () => {
    const runtime = new LocalRuntime({ spareIdleMs: 20 });
    const fdsBefore = openFds();
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['a.md'], text('one\n'), { exclusive: true });
      await runtime.writeFile(root, ['a.md'], text('two\n'), { exclusive: false });
      expect(fs.readFileSync(path.join(root.path, 'a.md'), 'utf8')).toBe('two\n');
      await runtime.editFile(root, ['a.md'], 1024, (d) => text(`${new TextDecoder().decode(d)}three\n`));
      expect(fs.readFileSync(path.join(root.path, 'a.md'), 'utf8')).toBe('two\nthree\n');
      await runtime.remove(root, ['a.md']);
      expect(fs.existsSync(path.join(root.path, 'a.md'))).toBe(false);
      await runtime.writeFile(root, ['dir', 'deep', 'b.md'], text('b\n'), { exclusive: true });
      await runtime.remove(root, ['dir']);
      expect(fs.existsSync(path.join(root.path, 'dir'))).toBe(false);
    });
    expect(fs.readdirSync(root.path)).toEqual([]);
    expect(await settledTrash()).toEqual(['.gitignore']);
    expect(fs.readFileSync(path.join(trash, '.gitignore'), 'utf8')).toBe('*\n');
    expect(fs.statSync(trash).mode & 0o777).toBe(0o700);
    expect(openFds()).toBe(fdsBefore);
  });

  it.each([
    ['a symlink to a directory outside', () => fs.symlinkSync(outside(), trash)],
    ['a symlink to the root itself', () => fs.symlinkSync(root.path, trash)],
    ['a regular file', () => fs.writeFileSync(trash, 'not a directory\n')],
  ])('%s planted at the trash path is never used; writes still work', async (_label, plant) => {
    plant();
    const before = fs.lstatSync(trash);
    const runtime = new LocalRuntime();
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['a.md'], text('one\n'), { exclusive: true });
      await runtime.writeFile(root, ['a.md'], text('two\n'), { exclusive: false });
      await runtime.writeFile(root, ['d', 'b.md'], text('b\n'), { exclusive: true });
      await runtime.remove(root, ['d']);
    });
    expect(fs.readFileSync(path.join(root.path, 'a.md'), 'utf8')).toBe('two\n');
    expect(fs.existsSync(path.join(root.path, 'd'))).toBe(false);
    await runtime.withLock(root, () => runtime.remove(root, ['a.md']));
    expect(fs.readdirSync(root.path)).toEqual([]);
    const after = fs.lstatSync(trash);
    expect([after.ino, after.isSymbolicLink(), after.size]).toEqual([before.ino, before.isSymbolicLink(), before.size]);
    if (after.isSymbolicLink() && fs.readlinkSync(trash) !== root.path) expect(fs.readdirSync(outside())).toEqual([]);
  });

  it('removes the leftovers of a process that is gone, and keeps a live one’s', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    fs.mkdirSync(trash, { mode: 0o700 });
    fs.writeFileSync(path.join(trash, `${dead}-0123456789ab`), 'a deleted note\n');
    fs.mkdirSync(path.join(trash, `${dead}-ba9876543210`));
    fs.writeFileSync(path.join(trash, `${dead}-ba9876543210`, 'x.md'), 'x\n');
    fs.writeFileSync(path.join(trash, `${process.ppid}-00000000000a`), 'still being freed\n');
    const runtime = new LocalRuntime({ spareIdleMs: 20 });
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['a.md'], text('one\n'), { exclusive: true });
      await runtime.remove(root, ['a.md']);
    });
    const expected = ['.gitignore', `${process.ppid}-00000000000a`].sort();
    expect(await settledTrash(expected)).toEqual(expected);
  });

  it('git sees the memory changes and never the trash', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', base, ...args], { encoding: 'utf8' });
    git('init', '-q');
    fs.writeFileSync(path.join(root.path, 'kept.md'), 'kept\n');
    fs.writeFileSync(path.join(root.path, 'gone.md'), 'gone\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'memory');
    const runtime = new LocalRuntime({ spareIdleMs: 20 });
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['kept.md'], text('changed\n'), { exclusive: false });
      await runtime.remove(root, ['gone.md']);
    });
    await settledTrash();
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual([' D .cairn/memory/gone.md', ' M .cairn/memory/kept.md']);
  });
});

describe.runIf(process.platform === 'linux')('spare files', () => {
  const file = (...rel: string[]) => path.join(root.path, ...rel);
  const ino = (p: string) => fs.statSync(p).ino;
  /** Entries of the trash besides its .gitignore. */
  const spares = () => fs.readdirSync(trash).filter((n) => n !== GITIGNORE);
  const GITIGNORE = '.gitignore';

  it('reuses a replaced or deleted file for a later write only after another fsync, holding exactly the new bytes', async () => {
    const runtime = new LocalRuntime();
    const long = `${'an old line that is long\n'.repeat(200)}`;
    let replaced = 0;
    let deleted = 0;
    // Written outside Cairn, readable by others: the file reused holds none of its bytes or its mode.
    fs.writeFileSync(file('a.md'), long, { mode: 0o644 });
    await runtime.withLock(root, async () => {
      replaced = ino(file('a.md'));
      await runtime.writeFile(root, ['a.md'], text('two\n'), { exclusive: false });
      expect(ino(file('a.md'))).not.toBe(replaced);
      expect(spares()).toHaveLength(1);
      expect(fs.statSync(path.join(trash, spares()[0]!)).ino).toBe(replaced);
      // No fsync has finished since a.md's old version was let go of: not reused yet.
      await runtime.writeFile(root, ['b.md'], text('b\n'), { exclusive: true });
      expect(ino(file('b.md'))).not.toBe(replaced);
      // b.md's fsync made the rename over a.md durable: now it is.
      await runtime.writeFile(root, ['c.md'], text('c\n'), { exclusive: true });
      expect(ino(file('c.md'))).toBe(replaced);
      deleted = ino(file('b.md'));
      await runtime.remove(root, ['b.md']);
      await runtime.writeFile(root, ['d.md'], text('d\n'), { exclusive: true });
      await runtime.writeFile(root, ['e.md'], text('e\n'), { exclusive: true });
    });
    expect(ino(file('e.md'))).toBe(deleted);
    expect(fs.readFileSync(file('a.md'), 'utf8')).toBe('two\n');
    expect(fs.readFileSync(file('c.md'), 'utf8')).toBe('c\n');
    expect(fs.readFileSync(file('e.md'), 'utf8')).toBe('e\n');
    expect(fs.statSync(file('c.md')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(root.path).sort()).toEqual(['a.md', 'c.md', 'd.md', 'e.md']);
  });

  it('never keeps or writes a file that has another name', async () => {
    const runtime = new LocalRuntime();
    fs.writeFileSync(file('linked.md'), 'mine\n');
    fs.linkSync(file('linked.md'), path.join(outside(), 'elsewhere.md'));
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['linked.md'], text('replaced\n'), { exclusive: false });
      await runtime.writeFile(root, ['a.md'], text('a\n'), { exclusive: true });
      // A kept spare given a second name behind Cairn's back is not written either.
      await runtime.writeFile(root, ['a.md'], text('a2\n'), { exclusive: false });
      expect(spares()).toHaveLength(1);
      fs.linkSync(path.join(trash, spares()[0]!), path.join(outside(), 'planted.md'));
      for (const name of ['x.md', 'y.md', 'z.md']) await runtime.writeFile(root, [name], text(`${name}\n`), { exclusive: true });
    });
    expect(fs.readFileSync(path.join(outside(), 'elsewhere.md'), 'utf8')).toBe('mine\n');
    expect(fs.readFileSync(path.join(outside(), 'planted.md'), 'utf8')).toBe('a\n');
    const outsideInodes = new Set(fs.readdirSync(outside()).map((n) => ino(path.join(outside(), n))));
    for (const name of fs.readdirSync(root.path)) expect(outsideInodes.has(ino(file(name)))).toBe(false);
    expect(fs.readFileSync(file('linked.md'), 'utf8')).toBe('replaced\n');
  });

  it('keeps at most SPARE_LIMIT, none over SPARE_MAX_BYTES, and frees them all once idle', async () => {
    const runtime = new LocalRuntime({ spareIdleMs: 200 });
    const fdsBefore = openFds();
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['big.md'], new Uint8Array(SPARE_MAX_BYTES + 1).fill(120), { exclusive: true });
      for (let i = 0; i < SPARE_LIMIT + 4; i++) await runtime.writeFile(root, [`n${i}.md`], text(`${i}\n`), { exclusive: true });
      await runtime.remove(root, ['big.md']);
      for (let i = 0; i < SPARE_LIMIT + 4; i++) await runtime.remove(root, [`n${i}.md`]);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(spares()).toHaveLength(SPARE_LIMIT);
    for (const name of spares()) expect(fs.statSync(path.join(trash, name)).size).toBeLessThanOrEqual(SPARE_MAX_BYTES);
    expect(await settledTrash()).toEqual([GITIGNORE]);
    expect(openFds()).toBe(fdsBefore);
    expect(fs.readdirSync(root.path)).toEqual([]);
  });

  // Only root can give a file to another user (the suites run as root in CI).
  it.runIf(process.getuid?.() === 0)('keeps no file of another user', async () => {
    const runtime = new LocalRuntime();
    fs.writeFileSync(file('theirs.md'), 'theirs\n');
    fs.chownSync(file('theirs.md'), 65534, 65534);
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['theirs.md'], text('edited\n'), { exclusive: false });
    });
    expect(spares()).toEqual([]);
    expect(fs.readFileSync(file('theirs.md'), 'utf8')).toBe('edited\n');
  });

  it.runIf(fs.existsSync('/dev/shm') && fs.statfsSync('/dev/shm').type === 0x01021994)('keeps none on a file system that is not listed (tmpfs)', async () => {
    const shm = fs.mkdtempSync('/dev/shm/cairn-trash-');
    try {
      const shmRoot: ScopeRoot = { anchor: shm, path: path.join(shm, 'memory') };
      fs.mkdirSync(shmRoot.path);
      const runtime = new LocalRuntime();
      await runtime.withLock(shmRoot, async () => {
        await runtime.writeFile(shmRoot, ['a.md'], text('one\n'), { exclusive: true });
        await runtime.writeFile(shmRoot, ['a.md'], text('two\n'), { exclusive: false });
        await runtime.writeFile(shmRoot, ['b.md'], text('b\n'), { exclusive: true });
        await runtime.remove(shmRoot, ['b.md']);
      });
      const shmTrash = trashPathFor(shmRoot.path);
      const deadline = Date.now() + 2000;
      while (fs.readdirSync(shmTrash).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(fs.readdirSync(shmTrash)).toEqual([GITIGNORE]);
      expect(fs.readFileSync(path.join(shmRoot.path, 'a.md'), 'utf8')).toBe('two\n');
    } finally {
      fs.rmSync(shm, { recursive: true, force: true });
    }
  });

  it('writes stay whole when a kept spare is gone before it is reused', async () => {
    const runtime = new LocalRuntime();
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['a.md'], text('one\n'), { exclusive: true });
      await runtime.remove(root, ['a.md']);
      await runtime.writeFile(root, ['b.md'], text('b\n'), { exclusive: true });
      for (const name of spares()) fs.rmSync(path.join(trash, name));
      fs.mkdirSync(path.join(trash, 'in-the-way'));
      await runtime.writeFile(root, ['c.md'], text('c\n'), { exclusive: true });
      await runtime.writeFile(root, ['b.md'], text('b2\n'), { exclusive: false });
    });
    expect(fs.readFileSync(file('b.md'), 'utf8')).toBe('b2\n');
    expect(fs.readFileSync(file('c.md'), 'utf8')).toBe('c\n');
    expect(fs.readdirSync(root.path).sort()).toEqual(['b.md', 'c.md']);
  });
});

function outside(): string {
  const p = path.join(base, 'outside');
  fs.mkdirSync(p, { recursive: true });
  return p;
}
