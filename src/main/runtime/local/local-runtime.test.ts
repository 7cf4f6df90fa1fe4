// LocalRuntime on a real disk (temp dirs): listings are what is on disk after any mix of changes,
// made by Cairn or behind its back; a listed file's version moves with every change once it has
// settled (on a clock the test moves, never by waiting); writes are whole and leave no temp file;
// the cap's count sees room made behind the runtime's back.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pastCtimeTick } from '../../../../tests/support/file-tree';
import { seededRandom } from '../../../../tests/support/random';
import { makeTempRoot } from '../../../../tests/support/temp-root';
import { VERSION_SETTLE_MS, type ListOptions, type ScopeRoot } from '../runtime';
import { LocalRuntime } from './local-runtime';
import { TEMP_PREFIX } from './atomic-write';
import { readToEnd, versionOf } from './listing';

let base: string;
let root: ScopeRoot;
let cleanup: () => void;

beforeEach(() => {
  ({ base, root, cleanup } = makeTempRoot('cairn-local-'));
});
afterEach(() => cleanup());

const ALL: ListOptions = { depth: Number.POSITIVE_INFINITY, limit: 1000, filesOnly: true };
const text = (s: string) => new TextEncoder().encode(s);
/** A clock far enough ahead that every file on disk has settled. */
const later = () => Date.now() + VERSION_SETTLE_MS + 60_000;

/** The files under `dir` as an independent walk sees them: relative path and size, sorted as listings are. */
function onDisk(dir: string, prefix = ''): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    if (st.isDirectory()) out.push(...onDisk(p, `${prefix}${name}/`));
    else if (st.isFile() && !name.startsWith('.')) out.push([`${prefix}${name}`, st.size]);
  }
  return out;
}

describe('LocalRuntime.list', () => {
  it('is what is on disk after every change, made through the runtime or behind its back', async () => {
    const runtime = new LocalRuntime();
    const random = seededRandom(11);
    const dirs = ['', 'a', 'a/deep', 'b', 'c/d/e'];
    for (const d of dirs) fs.mkdirSync(path.join(root.path, d), { recursive: true });
    for (let step = 0; step < 200; step++) {
      const d = dirs[Math.floor(random() * dirs.length)]!;
      const dir = path.join(root.path, d);
      const names = fs.readdirSync(dir).filter((n) => n.endsWith('.md'));
      const victim = names[Math.floor(random() * names.length)];
      const rel = (name: string) => (d === '' ? [name] : [...d.split('/'), name]);
      const r = random();
      const body = 'x'.repeat(1 + Math.floor(random() * 50));
      if (r < 0.2 || !victim) fs.writeFileSync(path.join(dir, `f${step}.md`), body);
      else if (r < 0.4) await runtime.withLock(root, () => runtime.createFile(root, rel(`g${step}.md`), text(body), 1000));
      else if (r < 0.55) await runtime.withLock(root, () => runtime.writeFile(root, rel(victim), text(body), { exclusive: false }));
      else if (r < 0.65) fs.writeFileSync(path.join(dir, victim), body); // in place, as some editors do
      else if (r < 0.8) await runtime.withLock(root, () => runtime.rename(root, rel(victim), ['b', `moved-${step}.md`]));
      else if (r < 0.9) await runtime.withLock(root, () => runtime.remove(root, rel(victim)));
      else fs.rmSync(path.join(dir, victim));
      const listed = await runtime.list(root, [], ALL);
      expect(listed!.map((e) => [e.rel.join('/'), e.size])).toEqual(onDisk(root.path));
    }
    expect(onDisk(root.path).length).toBeGreaterThan(20);
  });

  it('keeps to the limit, the lexicographically first entries', async () => {
    const runtime = new LocalRuntime();
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(root.path, `n${String(i).padStart(2, '0')}.md`), 'x');
    const cut = await runtime.list(root, [], { ...ALL, limit: 10 });
    expect(cut!.map((e) => e.rel[0])).toEqual(Array.from({ length: 10 }, (_, i) => `n${String(i).padStart(2, '0')}.md`));
    expect(await runtime.list(root, [], ALL)).toHaveLength(30);
  });

  it('reads a missing scope root as empty, and refuses one whose existing part is a link, even one staying inside its anchor', async () => {
    const runtime = new LocalRuntime();
    expect(await runtime.list({ anchor: base, path: path.join(base, 'none', 'memory') }, [], ALL)).toEqual([]);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-outside-'));
    try {
      fs.symlinkSync(outside, path.join(base, 'link'));
      await expect(runtime.list({ anchor: base, path: path.join(base, 'link', 'missing', 'memory') }, [], ALL)).rejects.toMatchObject({ code: 'UNSAFE_ROOT', errno: 'symlink' });
      fs.mkdirSync(path.join(base, 'real'));
      fs.symlinkSync(path.join(base, 'real'), path.join(base, 'inner-link'));
      await expect(runtime.list({ anchor: base, path: path.join(base, 'inner-link', 'memory') }, [], ALL)).rejects.toMatchObject({ code: 'UNSAFE_ROOT', errno: 'symlink' });
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('a listed file’s version', () => {
  it('tells apart a change of any of its five numbers, down to a fraction of a millisecond, and comes back whole from JSON', () => {
    const at = 1_795_977_992_455.7898;
    const stats = (change: Partial<fs.Stats> = {}) => ({ dev: 65024, ino: 3008941, size: 1079, mtimeMs: at, ctimeMs: at, ...change }) as fs.Stats;
    const now = at + VERSION_SETTLE_MS + 1;
    const version = versionOf(stats(), now)!;
    expect(versionOf(stats(), now)).toBe(version);
    // The next double after `at`: a tenth of a microsecond later.
    const next = new Float64Array([at]);
    new BigInt64Array(next.buffer)[0]! += 1n;
    for (const change of [{ dev: 65025 }, { ino: 3008942 }, { size: 1080 }, { mtimeMs: next[0]! }, { ctimeMs: next[0]! }]) expect(versionOf(stats(change), now)).not.toBe(version);
    // Kept in the facts cache's JSON and the sync state's, it must read back as itself.
    expect(JSON.parse(JSON.stringify({ version })).version).toBe(version);
    expect(Buffer.from(JSON.stringify(version), 'utf8').toString('utf8')).toBe(JSON.stringify(version));
  });

  it('is withheld while the file’s last change is recent, and given once it has settled', async () => {
    const file = path.join(root.path, 'note.md');
    fs.writeFileSync(file, 'one');
    expect((await new LocalRuntime().list(root, [], ALL))![0]!.version).toBeNull();
    const settled = (await new LocalRuntime({ now: later }).list(root, [], ALL))![0]!.version;
    expect(settled).toEqual(expect.any(String));
    // Unchanged: the same version every time.
    expect((await new LocalRuntime({ now: later }).list(root, [], ALL))![0]!.version).toBe(settled);
  });

  it('moves when the bytes change in place at the same size with the mtime put back', async () => {
    const runtime = new LocalRuntime({ now: later });
    const file = path.join(root.path, 'note.md');
    fs.writeFileSync(file, 'aaaa');
    // A whole second, which utimes can put back exactly.
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    const before = fs.statSync(file);
    const v1 = (await runtime.list(root, [], ALL))![0]!.version;
    await pastCtimeTick(before);
    fs.writeFileSync(file, 'bbbb');
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    const after = (await runtime.list(root, [], ALL))![0]!;
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.size).toBe(4);
    expect(after.version).not.toBe(v1);
  });

  it('moves when the file is replaced by a rename (a new inode), whatever its size and mtime', async () => {
    const runtime = new LocalRuntime({ now: later });
    const file = path.join(root.path, 'note.md');
    fs.writeFileSync(file, 'aaaa');
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    const v1 = (await runtime.list(root, [], ALL))![0]!.version;
    await runtime.withLock(root, () => runtime.writeFile(root, ['note.md'], text('bbbb'), { exclusive: false }));
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    expect((await runtime.list(root, [], ALL))![0]!.version).not.toBe(v1);
  });
});

describe('LocalRuntime writes', () => {
  it('leave the new bytes whole, 0600, and no temp file; a dead writer’s temp file is swept by the next write there', async () => {
    const runtime = new LocalRuntime();
    fs.mkdirSync(path.join(root.path, 'a'));
    const dead = path.join(root.path, 'a', `${TEMP_PREFIX}12345-dead`);
    fs.writeFileSync(dead, 'half a write');
    await runtime.withLock(root, () => runtime.createFile(root, ['a', 'new.md'], text('hello'), 1000));
    expect(fs.readdirSync(path.join(root.path, 'a'))).toEqual(['new.md']);
    expect(fs.readFileSync(path.join(root.path, 'a', 'new.md'), 'utf8')).toBe('hello');
    expect(fs.statSync(path.join(root.path, 'a', 'new.md')).mode & 0o777).toBe(0o600);
    // Temp files are never listed, even before they are swept.
    fs.writeFileSync(dead, 'another');
    expect((await runtime.list(root, [], ALL))!.map((e) => e.rel.join('/'))).toEqual(['a/new.md']);
  });

  it('refuse a create in a full scope without writing anything, and see room made behind their back', async () => {
    const runtime = new LocalRuntime();
    for (let i = 0; i < 5; i++) await runtime.withLock(root, () => runtime.createFile(root, ['n', `${i}.md`], text('x'), 6));
    expect(await runtime.countFiles(root, 3)).toBe(3);
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '5.md'], text('x'), 6))).toBe('created');
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '6.md'], text('x'), 6))).toBe('full');
    expect(fs.readdirSync(path.join(root.path, 'n')).sort()).toEqual(['0.md', '1.md', '2.md', '3.md', '4.md', '5.md']);
    fs.rmSync(path.join(root.path, 'n', '0.md'));
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '6.md'], text('x'), 6))).toBe('created');
  });

  it('remove a symlink itself, never what it points to, and a directory with everything in it', async () => {
    const runtime = new LocalRuntime();
    const outside = path.join(base, 'outside.md');
    fs.writeFileSync(outside, 'keep me');
    fs.symlinkSync(outside, path.join(root.path, 'link.md'));
    await runtime.withLock(root, () => runtime.remove(root, ['link.md']));
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    fs.mkdirSync(path.join(root.path, 'tree', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root.path, 'tree', 'deep', 'x.md'), 'x');
    await runtime.withLock(root, () => runtime.remove(root, ['tree']));
    expect(fs.readdirSync(root.path)).toEqual([]);
  });
});

describe('the cap’s count', () => {
  it('counts every file of the scope, listed or not (hidden, node_modules, unsafe names), but no links and no temp files', async () => {
    const runtime = new LocalRuntime();
    fs.mkdirSync(path.join(root.path, 'a', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(root.path, 'node_modules', 'x'), { recursive: true });
    fs.mkdirSync(path.join(root.path, '.hidden-dir'));
    const files = ['one.md', 'a/two.md', 'a/deep/three.md', '.hidden.md', '.hidden-dir/four.md', 'node_modules/x/five.js', 'bad<name>.md'];
    for (const f of [...files, `a/${TEMP_PREFIX}x`]) fs.writeFileSync(path.join(root.path, f), 'x');
    fs.symlinkSync(path.join(root.path, 'one.md'), path.join(root.path, 'link-in.md'));
    fs.symlinkSync(path.join(root.path, 'a'), path.join(root.path, 'dir-link'));
    const outside = path.join(base, 'outside.md');
    fs.writeFileSync(outside, 'x');
    fs.symlinkSync(outside, path.join(root.path, 'link-out.md'));
    fs.symlinkSync(path.join(base, 'missing.md'), path.join(root.path, 'dangling.md'));
    expect(await runtime.countFiles(root, 1000)).toBe(files.length);
    expect(await runtime.countFiles(root, 4)).toBe(4);
    // The listing shows what the path rules let through, and walks no linked directory.
    const listed = await runtime.list(root, [], ALL);
    expect(listed!.map((e) => e.rel.join('/'))).toEqual(['a/deep/three.md', 'a/two.md', 'link-in.md', 'one.md']);
  });
});

describe('reading a file to its end', () => {
  it('reads what is there even when the file grew since its size was taken, and stops past the cap', () => {
    const file = path.join(base, 'grown.md');
    fs.writeFileSync(file, 'x'.repeat(5000));
    const read = (expected: number, max: number) => {
      const fd = fs.openSync(file, 'r');
      try {
        return readToEnd(fd, expected, max);
      } finally {
        fs.closeSync(fd);
      }
    };
    // Sized for 3 bytes (the size an earlier fstat saw), it still reads all 5000.
    expect(read(3, 100_000)?.length).toBe(5000);
    expect(read(5000, 5000)?.length).toBe(5000);
    expect(read(3, 4999)).toBeNull();
    expect(read(5000, 4999)).toBeNull();
    fs.writeFileSync(file, '');
    expect(read(0, 10)?.length).toBe(0);
  });
});
