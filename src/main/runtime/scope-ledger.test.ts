// ScopeLedger through LocalRuntime: the cap's count and the sweep of dead writers' temp files,
// kept from this process's own changes instead of reading directories again. Whatever mix of the
// runtime's own changes and changes made behind its back (another process, an editor), the count
// is the one a fresh walk gives. Real files in a temp dir; readdirSync is observed (wrapped, still
// doing its work) to show which writes read no directory.
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVisibleName } from '../../common/memory/paths';
import { seededRandom } from '../../../tests/support/random';
import { makeTempRoot } from '../../../tests/support/temp-root';
import type { ScopeRoot } from './runtime';
import { LocalRuntime } from './local-runtime';

let root: ScopeRoot;
let cleanup: () => void;

beforeEach(() => {
  ({ root, cleanup } = makeTempRoot('cairn-ledger-'));
});
afterEach(() => cleanup());

/** The count as a fresh walk finds it, written independently of the runtime. */
function walkCount(dir = root.path): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!isVisibleName(e.name)) continue;
    if (e.isFile()) n++;
    else if (e.isDirectory()) n += walkCount(path.join(dir, e.name));
  }
  return n;
}

const text = (s: string) => new TextEncoder().encode(s);
const filesIn = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.md'));

/** The directories read (readdirSync) while `fn` runs. */
async function readsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const cjs = createRequire(import.meta.url)('node:fs') as typeof fs;
  const original = cjs.readdirSync;
  const reads: string[] = [];
  cjs.readdirSync = ((dir: fs.PathLike, ...rest: unknown[]) => {
    reads.push(String(dir));
    return (original as (...a: unknown[]) => unknown)(dir, ...rest);
  }) as typeof fs.readdirSync;
  syncBuiltinESMExports();
  try {
    await fn();
    return reads;
  } finally {
    cjs.readdirSync = original;
    syncBuiltinESMExports();
  }
}

describe.each([
  ['where stamps always move (the ledger is used)', false],
  ['on a disk stamping per clock tick (every count walks)', true],
])('the scope count %s', (_name, coarseStamps) => {
  it('matches a fresh walk after any mix of own and outside changes', async () => {
    const runtime = new LocalRuntime({ coarseStamps });
    const random = seededRandom(coarseStamps ? 7 : 5);
    const dirs = ['', 'a', 'a/deep', 'b'];
    for (const d of dirs) fs.mkdirSync(path.join(root.path, d), { recursive: true });
    for (let step = 0; step < 400; step++) {
      const d = dirs[Math.floor(random() * dirs.length)]!;
      const dir = path.join(root.path, d);
      const rel = d === '' ? [] : d.split('/');
      const present = filesIn(dir);
      const victim = present[Math.floor(random() * present.length)];
      const r = random();
      await runtime.withLock(root, async () => {
        if (r < 0.25 || !victim) await runtime.createFile(root, [...rel, `f${step}.md`], text('x'), 1000);
        else if (r < 0.35) await runtime.writeFile(root, [...rel, victim], text(`edit ${step}`), { exclusive: false });
        else if (r < 0.45) await runtime.rename(root, [...rel, victim], [...rel, `r${step}.md`]);
        else if (r < 0.52) await runtime.rename(root, [...rel, victim], ['b', `moved${step}.md`]);
        else if (r < 0.58) await runtime.rename(root, [...rel, victim], ['new', `d${step}`, `moved${step}.md`]);
        else if (r < 0.68) await runtime.remove(root, [...rel, victim]);
        else if (r < 0.71 && d === 'a/deep') await runtime.remove(root, ['a', 'deep']);
        else if (r < 0.73) await runtime.mkdir(root, ['made', String(step)]);
        else if (r < 0.78) fs.writeFileSync(path.join(dir, `outside${step}.md`), 'o'); // another process
        else if (r < 0.82) fs.rmSync(path.join(dir, victim));
        else if (r < 0.85) {
          fs.mkdirSync(path.join(dir, `sub${step}`, 'x'), { recursive: true });
          fs.writeFileSync(path.join(dir, `sub${step}`, 'x', 'in.md'), 'i');
        }
        else if (r < 0.88) fs.writeFileSync(path.join(dir, `.hidden${step}`), 'h'); // does not count
        else if (r < 0.9) fs.symlinkSync(path.join(dir, victim), path.join(dir, `link${step}.md`)); // does not count
      });
      fs.mkdirSync(path.join(root.path, 'a', 'deep'), { recursive: true });
      // Not after every step: several changes, own and outside, pile up between two counts.
      if (random() < 0.4) expect(await runtime.withLock(root, () => runtime.countFiles(root, 1000))).toBe(walkCount());
    }
    expect(await runtime.withLock(root, () => runtime.countFiles(root, 1000))).toBe(walkCount());
    expect(walkCount()).toBeGreaterThan(30);
  });

  it('follows trees this process removes and moves', async () => {
    const runtime = new LocalRuntime({ coarseStamps });
    const count = () => runtime.withLock(root, () => runtime.countFiles(root, 1000));
    for (const rel of [['t', 'a.md'], ['t', 'deep', 'b.md'], ['u', 'c.md'], ['top.md']]) await runtime.withLock(root, () => runtime.createFile(root, rel, text('x'), 1000));
    expect(await count()).toBe(4);
    await runtime.withLock(root, () => runtime.rename(root, ['t', 'deep'], ['u', 'deep']));
    expect(await count()).toBe(4);
    await runtime.withLock(root, () => runtime.rename(root, ['u'], ['v']));
    expect(await count()).toBe(4);
    await runtime.withLock(root, () => runtime.remove(root, ['v']));
    expect(await count()).toBe(2);
    await runtime.withLock(root, () => runtime.remove(root, ['t']));
    expect(await count()).toBe(1);
    expect(walkCount()).toBe(1);
  });

  it('sees a file another process added to a directory this process then changed', async () => {
    const runtime = new LocalRuntime({ coarseStamps });
    await runtime.withLock(root, () => runtime.createFile(root, ['a', 'mine.md'], text('m'), 1000));
    expect(await runtime.withLock(root, () => runtime.countFiles(root, 1000))).toBe(1);
    fs.writeFileSync(path.join(root.path, 'a', 'theirs.md'), 't');
    await runtime.withLock(root, () => runtime.createFile(root, ['a', 'mine2.md'], text('m'), 1000));
    expect(await runtime.withLock(root, () => runtime.countFiles(root, 1000))).toBe(3);
  });

  it('stops at the limit, and refuses a create in a full scope without writing anything', async () => {
    const runtime = new LocalRuntime({ coarseStamps });
    for (let i = 0; i < 5; i++) await runtime.withLock(root, () => runtime.createFile(root, ['n', `${i}.md`], text('x'), 6));
    expect(await runtime.withLock(root, () => runtime.countFiles(root, 3))).toBe(3);
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '5.md'], text('x'), 6))).toBe('created');
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '6.md'], text('x'), 6))).toBe('full');
    expect(fs.readdirSync(path.join(root.path, 'n')).sort()).toEqual(['0.md', '1.md', '2.md', '3.md', '4.md', '5.md']);
    // Room made behind the runtime's back is seen.
    fs.rmSync(path.join(root.path, 'n', '0.md'));
    expect(await runtime.withLock(root, () => runtime.createFile(root, ['n', '6.md'], text('x'), 6))).toBe('created');
  });
});

describe('writes that read no directory', () => {
  it('a scope this process alone changes is walked once, and a directory it keeps clean is not swept again', async () => {
    const runtime = new LocalRuntime();
    const notes = path.join(root.path, 'notes');
    await runtime.withLock(root, () => runtime.createFile(root, ['notes', 'seed.md'], text('seed'), 1000));
    for (let i = 0; i < 3; i++) {
      const reads = await readsDuring(async () => {
        await runtime.withLock(root, () => runtime.createFile(root, ['notes', `n${i}.md`], text('n'), 1000));
        await runtime.withLock(root, () => runtime.writeFile(root, ['notes', `n${i}.md`], text('edited'), { exclusive: false }));
        await runtime.withLock(root, () => runtime.rename(root, ['notes', `n${i}.md`], ['notes', `r${i}.md`]));
        await runtime.withLock(root, () => runtime.remove(root, ['notes', `r${i}.md`]));
      });
      expect(reads).toEqual([]);
    }
    // Another process's write in the directory: the next write there sweeps it and counts again.
    fs.writeFileSync(path.join(notes, '.cairn-tmp-99999-deadbeef-0'), 'half a wri');
    const reads = await readsDuring(() => runtime.withLock(root, () => runtime.createFile(root, ['notes', 'after.md'], text('a'), 1000)));
    expect(reads).toContain(notes);
    expect(fs.readdirSync(notes).sort()).toEqual(['after.md', 'seed.md']);
  });

  it('sweeps a dead writer\'s temp file a walk saw, though nothing changed since', async () => {
    const runtime = new LocalRuntime();
    const notes = path.join(root.path, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, '.cairn-tmp-99999-deadbeef-0'), 'half a wri');
    fs.writeFileSync(path.join(notes, 'a.md'), 'a');
    // The count's walk reads notes/ with the leftover in it; the write after must still sweep it.
    expect(await runtime.withLock(root, () => runtime.countFiles(root, 1000))).toBe(1);
    await runtime.withLock(root, () => runtime.writeFile(root, ['notes', 'a.md'], text('b'), { exclusive: false }));
    expect(fs.readdirSync(notes)).toEqual(['a.md']);
  });
});

describe('reads of memory files', () => {
  it('leave the file\'s access time as it was', async () => {
    const runtime = new LocalRuntime();
    const file = path.join(root.path, 'a.md');
    fs.writeFileSync(file, 'a note\n');
    // An access time older than the last change: relatime (the usual mount option) updates it on a read.
    const past = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, past, new Date());
    const before = fs.statSync(file).atimeMs;
    expect(new TextDecoder().decode((await runtime.readFile(root, ['a.md'], 1024)).data)).toBe('a note\n');
    expect((await runtime.readHeads(root, [['a.md']], 64))[0]?.data.length).toBe(7);
    expect(fs.statSync(file).atimeMs).toBe(before);
  });
});
