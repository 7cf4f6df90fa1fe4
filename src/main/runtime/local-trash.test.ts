// The trash beside a local scope root (LocalTrash, through LocalRuntime): deletes (and the edits
// around them) do what they say at once, what was deleted is freed in the background and nothing is
// left behind, a symlink or file planted at the trash's path is never used, leftovers of a dead
// process are removed, and git never sees the trash. Real files and a real git in temp dirs.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScopeRoot } from './runtime';
import { LocalRuntime } from './local-runtime';
import { trashPathFor } from './local-trash';

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
    const runtime = new LocalRuntime();
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
    const runtime = new LocalRuntime();
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
    const runtime = new LocalRuntime();
    await runtime.withLock(root, async () => {
      await runtime.writeFile(root, ['kept.md'], text('changed\n'), { exclusive: false });
      await runtime.remove(root, ['gone.md']);
    });
    await settledTrash();
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual([' D .cairn/memory/gone.md', ' M .cairn/memory/kept.md']);
  });
});

function outside(): string {
  const p = path.join(base, 'outside');
  fs.mkdirSync(p, { recursive: true });
  return p;
}
