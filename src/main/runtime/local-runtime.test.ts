// LocalRuntime listings that reuse what they read (ListOptions.reuse, the context builder's and
// memory_search's path): after any mix of changes in any directories, a reused listing is the
// listing a fresh walk gives, also where a directory is cut by the limit. Real files in a temp dir.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../tests/support/random';
import { makeTempRoot } from '../../../tests/support/temp-root';
import type { ListOptions, ScopeRoot } from './runtime';
import { LocalRuntime } from './local-runtime';

let base: string;
let root: ScopeRoot;
let cleanup: () => void;

beforeEach(() => {
  ({ base, root, cleanup } = makeTempRoot('cairn-list-'));
});
afterEach(() => cleanup());

const ALL: ListOptions = { depth: Number.POSITIVE_INFINITY, limit: 1000, filesOnly: true };
const names = (listed: Awaited<ReturnType<LocalRuntime['list']>>) => listed!.map((e) => e.rel.join('/'));

/**
 * Ages the directories changed in the last 20 ms by a second, as if time had passed: a listing is
 * kept for reuse only once its directories' last change is that old (RACY_NS).
 */
function settle(dir = root.path): void {
  const past = new Date(Date.now() - 1000);
  const walk = (d: string) => {
    if (Date.now() - fs.statSync(d).mtimeMs < 25) fs.utimesSync(d, past, past);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(dir);
}

describe('LocalRuntime.list with reuse', () => {
  it('matches a fresh walk after every change, wherever it happened', async () => {
    const reusing = new LocalRuntime();
    const random = seededRandom(11);
    const dirs = ['', 'a', 'a/deep', 'b', 'c/d/e'];
    for (const d of dirs) fs.mkdirSync(path.join(root.path, d), { recursive: true });
    for (let step = 0; step < 250; step++) {
      const dir = path.join(root.path, dirs[Math.floor(random() * dirs.length)]!);
      const names = fs.readdirSync(dir).filter((n) => n.endsWith('.md'));
      const victim = names[Math.floor(random() * names.length)];
      const r = random();
      if (r < 0.4 || !victim) fs.writeFileSync(path.join(dir, `f${step}.md`), 'x'.repeat(1 + Math.floor(random() * 50)));
      else if (r < 0.65) {
        // Replaced as Cairn and most editors replace a file: a new file renamed over the name.
        fs.writeFileSync(path.join(dir, '.tmp'), 'y'.repeat(1 + Math.floor(random() * 50)));
        fs.renameSync(path.join(dir, '.tmp'), path.join(dir, victim));
      } else if (r < 0.8) fs.renameSync(path.join(dir, victim), path.join(root.path, 'b', `moved-${step}.md`));
      else fs.rmSync(path.join(dir, victim));
      if (random() < 0.7) settle();
      const fresh = await new LocalRuntime().list(root, [], ALL);
      expect(await reusing.list(root, [], { ...ALL, reuse: true })).toEqual(fresh);
    }
    expect((await reusing.list(root, [], { ...ALL, reuse: true }))!.length).toBeGreaterThan(20);
  });

  it('returns the same listing, unchanged, while nothing changed', async () => {
    const runtime = new LocalRuntime();
    fs.mkdirSync(path.join(root.path, 'a'));
    fs.writeFileSync(path.join(root.path, 'a', 'one.md'), '1');
    settle();
    const first = await runtime.list(root, [], { ...ALL, reuse: true });
    expect(await runtime.list(root, [], { ...ALL, reuse: true })).toBe(first);
    fs.writeFileSync(path.join(root.path, 'two.md'), '2');
    const second = await runtime.list(root, [], { ...ALL, reuse: true });
    expect(names(second)).toEqual(['a/one.md', 'two.md']);
  });

  it('does not reuse a directory read in the clock tick of its last change (coarse timestamps)', async () => {
    // Before multigrain timestamps (Linux 6.13), every change within one clock tick gets the same
    // mtime. This machine's kernel stamps every change anew, so the runtime is told the disk is
    // coarse, and the second change is stamped (with utimes) as the first was.
    const runtime = new LocalRuntime({ coarseStamps: true });
    fs.mkdirSync(path.join(root.path, 'a'));
    settle();
    fs.writeFileSync(path.join(root.path, 'a', 'one.md'), '1');
    const tick = new Date(Date.now());
    fs.utimesSync(path.join(root.path, 'a'), tick, tick);
    expect(names(await runtime.list(root, [], { ...ALL, reuse: true }))).toEqual(['a/one.md']);
    fs.writeFileSync(path.join(root.path, 'a', 'two.md'), '2');
    fs.utimesSync(path.join(root.path, 'a'), tick, tick);
    expect(names(await runtime.list(root, [], { ...ALL, reuse: true }))).toEqual(['a/one.md', 'a/two.md']);
  });

  it("reuses a listing read right after a change exactly where this disk's stamps always move, and leaves no probe behind", async () => {
    // Measured here independently of the runtime: a change right after a stat, stamped anew or not?
    const probe = fs.mkdtempSync(path.join(root.path, '.measure-'));
    let moves = true;
    for (let i = 0; i < 3; i++) {
      const before = fs.statSync(probe, { bigint: true }).mtimeNs;
      fs.writeFileSync(path.join(probe, String(i)), '');
      if (fs.statSync(probe, { bigint: true }).mtimeNs === before) moves = false;
    }
    fs.rmSync(probe, { recursive: true });
    settle();
    const runtime = new LocalRuntime();
    fs.writeFileSync(path.join(root.path, 'fresh.md'), '1');
    const first = await runtime.list(root, [], { ...ALL, reuse: true });
    expect((await runtime.list(root, [], { ...ALL, reuse: true })) === first).toBe(moves);
    expect(fs.readdirSync(root.path)).toEqual(['fresh.md']);
    expect(fs.readdirSync(`${root.path}.trash`)).toEqual(['.gitignore']);
  });

  it('keeps to the limit in a directory cut short, and lists the rest once the limit allows', async () => {
    const runtime = new LocalRuntime();
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(root.path, `n${String(i).padStart(2, '0')}.md`), 'x');
    const cut = await runtime.list(root, [], { ...ALL, limit: 10, reuse: true });
    expect(cut!.map((e) => e.rel[0])).toEqual(Array.from({ length: 10 }, (_, i) => `n${String(i).padStart(2, '0')}.md`));
    expect(await runtime.list(root, [], { ...ALL, reuse: true })).toHaveLength(30);
    expect(await runtime.list(root, [], { ...ALL, limit: 10, reuse: true })).toEqual(cut);
  });

  it('sees a file edited in place (no rename) once told to forget', async () => {
    const runtime = new LocalRuntime();
    const file = path.join(root.path, 'in-place.md');
    fs.writeFileSync(file, 'short');
    expect((await runtime.list(root, [], { ...ALL, reuse: true }))![0]!.size).toBe(5);
    fs.appendFileSync(file, ' and longer');
    runtime.forget();
    expect((await runtime.list(root, [], { ...ALL, reuse: true }))![0]!.size).toBe(16);
  });

  it('reads a missing scope root as empty, and refuses one whose existing part escapes its anchor', async () => {
    const runtime = new LocalRuntime();
    expect(await runtime.list({ anchor: base, path: path.join(base, 'none', 'memory') }, [], ALL)).toEqual([]);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-outside-'));
    try {
      fs.symlinkSync(outside, path.join(base, 'link'));
      await expect(runtime.list({ anchor: base, path: path.join(base, 'link', 'missing', 'memory') }, [], ALL)).rejects.toMatchObject({ code: 'ESCAPE' });
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('LocalRuntime.readHeads with what a listing said', () => {
  const text = (s: string) => new TextEncoder().encode(s);
  const decode = (h: { data: Uint8Array } | null) => new TextDecoder().decode(h!.data);

  it('answers from the bytes it wrote while the file keeps their size and mtime, and reads the disk once it changed', async () => {
    const runtime = new LocalRuntime();
    await runtime.withLock(root, () => runtime.writeFile(root, ['a.md'], text('written by cairn\n'), { exclusive: true }));
    const file = path.join(root.path, 'a.md');
    const asListed = () => {
      const st = fs.statSync(file);
      return [{ size: st.size, mtimeMs: st.mtimeMs }];
    };
    // Changed behind its back to other bytes of the same size, the mtime put back: the listing
    // cannot tell, so the bytes it wrote are what the head is (as for the builder's own cache).
    const listed = asListed();
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, 'changed outside!\n');
    fs.utimesSync(file, mtime, mtime);
    expect(decode((await runtime.readHeads(root, [['a.md']], 4096, listed))[0]!)).toBe('written by cairn\n');
    expect(decode((await runtime.readHeads(root, [['a.md']], 4096))[0]!)).toBe('changed outside!\n');
    expect(decode((await runtime.readHeads(root, [['a.md']], 5, listed))[0]!)).toBe('writt');
    // The same size with a new mtime is a change.
    await new Promise((r) => setTimeout(r, 5));
    fs.writeFileSync(file, 'changed again!!!\n');
    expect(decode((await runtime.readHeads(root, [['a.md']], 4096, asListed()))[0]!)).toBe('changed again!!!\n');
    // A change the listing sees (size, mtime) is read from the disk, beside a file it answers for.
    fs.writeFileSync(file, 'changed outside, longer\n');
    await runtime.withLock(root, () => runtime.writeFile(root, ['b.md'], text('b\n'), { exclusive: true }));
    const bStat = fs.statSync(path.join(root.path, 'b.md'));
    const heads = await runtime.readHeads(root, [['a.md'], ['b.md'], ['gone.md']], 4096, [...asListed(), { size: bStat.size, mtimeMs: bStat.mtimeMs }, { size: 1, mtimeMs: 1 }]);
    expect(heads.map((h) => (h ? decode(h) : null))).toEqual(['changed outside, longer\n', 'b\n', null]);
  });
});
