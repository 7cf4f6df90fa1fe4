// The facts cache (context-facts-cache.ts) with the ContextBuilder, on the real disk: a builder
// made afresh over a kept cache (what a new `cairn context` process is) reads no memory file when
// nothing changed and only the changed file after a change, never serves what a file held before
// (an outside edit, a same-size edit with its mtime put back, a rename, a delete, a new file), and a
// missing, truncated, corrupt, foreign or misplaced cache gives exactly what a fresh build gives.
//
// The runtime's clock is injected, a minute ahead of the disk's, so every file written here counts
// as settled (ListedEntry.version); the unsettled case sets it just past the file's ctime instead.
// Which files a build reads is seen through a recording wrapper around the real LocalRuntime's
// readHeads (nothing else shows it); every byte still comes from the disk.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pastCtimeTick } from '../../../tests/support/file-tree';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { TEMP_PREFIX } from '../runtime/local/atomic-write';
import { LocalRuntime } from '../runtime/local/local-runtime';
import type { Runtime } from '../runtime/runtime';
import { ContextBuilder } from './context-builder';
import { ContextFactsCache } from './context-facts-cache';
import type { MemorySession } from '../memory/session';
import { UsageStore } from '../memory/usage-store';

const PROMPT = 'how do we run the database migration before the release';

let sb: Sandbox;
let clockMs: number;
/** The memory files (rel paths inside their root) each build read, in order. */
let reads: string[];
let session: MemorySession;

/** The real LocalRuntime with an injected clock, its readHeads recorded. */
function recordingRuntime(): Runtime {
  const local = new LocalRuntime({ now: () => clockMs });
  return new Proxy(local, {
    get(target, key, receiver) {
      if (key === 'readHeads') {
        return (root: Parameters<Runtime['readHeads']>[0], rels: Parameters<Runtime['readHeads']>[1], bytes: number) => {
          reads.push(...rels.map((r) => r.join('/')));
          return target.readHeads(root, rels, bytes);
        };
      }
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What a new process prints: the index and the relevant memories, from a builder made now. */
async function context(options: { cache: boolean } = { cache: true }): Promise<string> {
  const builder = new ContextBuilder(new UsageStore(sb.home), options.cache ? { factsCache: new ContextFactsCache(sb.home) } : {});
  const snapshot = await builder.snapshot(session);
  return `${builder.index(snapshot)}\n\n${builder.relevant(snapshot, PROMPT, clockMs)}`;
}

/** What a build from nothing gives (no cache), without counting its reads. */
async function fresh(): Promise<string> {
  const before = reads.length;
  const text = await context({ cache: false });
  reads.length = before;
  return text;
}

function note(topic: string, i: number): string {
  return `---\ndescription: How the ${topic} work is done (${i})\n---\n# ${topic} ${i}\n\n${`- run the ${topic} step ${i} before the release.\n`.repeat(8)}`;
}

async function write(rel: string, text: string): Promise<void> {
  const file = path.join(sb.roots.project, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

beforeEach(async () => {
  reads = [];
  sb = await makeSandbox({ runtime: recordingRuntime() });
  session = sb.session;
  const topics = ['database', 'release', 'migration', 'deploy'];
  for (let i = 0; i < 12; i++) await write(`${topics[i % 4]}/note-${i}.md`, note(topics[i % 4]!, i));
  await fs.mkdir(sb.roots.global, { recursive: true });
  await fs.writeFile(path.join(sb.roots.global, 'style.md'), note('database', 99));
  clockMs = Date.now() + 60_000;
});

afterEach(async () => {
  await sb.cleanup();
});

describe('the facts cache, across builders (processes)', () => {
  it('reads no memory file when nothing changed, and gives what a fresh build gives', async () => {
    const first = await context();
    expect(reads).toHaveLength(13);
    expect(first).toContain('/memories/project/database/note-0.md');
    expect(first).toContain('<relevant_memories>');
    reads = [];
    expect(await context()).toBe(first);
    expect(reads).toEqual([]);
    expect(await fresh()).toBe(first);
  });

  it("a read-only builder (the app's) starts from the cache, reads only what changed, and never writes it", async () => {
    const first = await context();
    const file = new ContextFactsCache(sb.home).fileOf('local', sb.roots.project);
    const kept = await fs.readFile(file);
    const builder = new ContextBuilder(new UsageStore(sb.home), { factsCache: new ContextFactsCache(sb.home), readOnlyCache: true });
    const ask = async () => {
      const snapshot = await builder.snapshot(session);
      return `${builder.index(snapshot)}\n\n${builder.relevant(snapshot, PROMPT, clockMs)}`;
    };
    reads = [];
    expect(await ask()).toBe(first);
    expect(reads).toEqual([]);
    await write('database/note-0.md', note('database', 0).replace('(0)', '(zero)'));
    reads = [];
    const edited = await ask();
    expect(edited).toContain('How the database work is done (zero)');
    expect(reads).toEqual(['database/note-0.md']);
    expect(edited).toBe(await fresh());
    expect(await fs.readFile(file)).toEqual(kept);
  });

  it('keeps the cache for the person alone: 0600 files in a 0700 directory under the home', async () => {
    await context();
    const dir = path.join(sb.home, 'cache', 'context-facts');
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    const files = await fs.readdir(dir);
    expect(files).toHaveLength(2); // the project's root and the global one (the workspace's is empty)
    for (const f of files) expect((await fs.stat(path.join(dir, f))).mode & 0o777).toBe(0o600);
  });

  it("removes a killed process's temp file once it is a minute old, and only then", async () => {
    await context();
    const dir = path.join(sb.home, 'cache', 'context-facts');
    // No process has a pid this high (pid_max is at most 2^22), so its writer is gone.
    const old = `${TEMP_PREFIX}99999999-deadbeef`;
    const recent = `${TEMP_PREFIX}99999998-deadbeef`;
    const running = `${TEMP_PREFIX}${process.pid}-deadbeef`;
    await fs.writeFile(path.join(dir, old), 'half a cache');
    await fs.writeFile(path.join(dir, recent), 'a save in progress');
    await fs.writeFile(path.join(dir, running), 'a slow save in progress');
    const past = (Date.now() - 120_000) / 1000;
    await fs.utimes(path.join(dir, old), past, past);
    await fs.utimes(path.join(dir, running), past, past);
    await write('database/note-0.md', note('database', 0).replace('(0)', '(zero)'));
    await context(); // a change: the root's cache is saved again
    const names = await fs.readdir(dir);
    expect(names).not.toContain(old);
    expect(names).toContain(recent);
    expect(names).toContain(running);
  });

  it('an outside edit shows in the next build, which reads that file alone', async () => {
    await context();
    await write('database/note-0.md', note('database', 0).replace('How the database work is done (0)', 'Backups of the database, nightly'));
    reads = [];
    const after = await context();
    expect(reads).toEqual(['database/note-0.md']);
    expect(after).toContain('Backups of the database, nightly');
    expect(after).toBe(await fresh());
  });

  it('a same-size edit with its mtime put back still shows (the ctime moved)', async () => {
    const file = path.join(sb.roots.project, 'release', 'note-1.md');
    // A whole second, so that putting it back restores it exactly (utimes takes seconds).
    const second = Math.floor(Date.now() / 1000) - 3600;
    await fs.utimes(file, second, second);
    await context();
    const before = await fs.stat(file);
    await pastCtimeTick(before);
    const text = note('release', 1);
    const edited = text.replace('How the release work', 'How the rollout work');
    expect(Buffer.byteLength(edited)).toBe(before.size);
    // In place (same inode), then the times put back as an editor or a restore can.
    const handle = await fs.open(file, 'r+');
    await handle.write(edited, 0);
    await handle.close();
    await fs.utimes(file, second, second);
    const now = await fs.stat(file);
    expect([now.ino, now.size, now.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(now.ctimeMs).not.toBe(before.ctimeMs);
    reads = [];
    const after = await context();
    expect(reads).toEqual(['release/note-1.md']);
    expect(after).toBe(await fresh());
    expect(after).toContain('/memories/project/release/note-1.md: How the rollout work is done (1)');
  });

  it('a rename, a delete and a new file show in the next build', async () => {
    const first = await context();
    await fs.rename(path.join(sb.roots.project, 'deploy', 'note-3.md'), path.join(sb.roots.project, 'deploy', 'renamed.md'));
    await fs.rm(path.join(sb.roots.project, 'migration', 'note-2.md'));
    await write('database/new-note.md', note('database', 42));
    reads = [];
    const after = await context();
    expect(after).not.toBe(first);
    expect(after).toContain('/memories/project/deploy/renamed.md');
    expect(after).not.toContain('/memories/project/deploy/note-3.md');
    expect(after).not.toContain('/memories/project/migration/note-2.md');
    expect(after).toContain('How the database work is done (42)');
    // The renamed file is another path: read once; the new one too; nothing else.
    expect(reads.sort()).toEqual(['database/new-note.md', 'deploy/renamed.md']);
    expect(after).toBe(await fresh());
    reads = [];
    expect(await context()).toBe(after);
    expect(reads).toEqual([]);
  });

  it('never keeps a file changed too recently to be told apart from its next change', async () => {
    await context();
    const file = path.join(sb.roots.project, 'database', 'note-4.md');
    await fs.writeFile(file, note('database', 4).replace('(4)', '(four)'));
    // The clock just after that write: the file has no version yet, so it is read every time and
    // the cache keeps nothing of it (nor of the others written as recently).
    const changedAt = (await fs.stat(file)).ctimeMs;
    clockMs = changedAt + 1_000;
    for (let call = 0; call < 2; call++) {
      reads = [];
      expect(await context()).toContain('How the database work is done (four)');
      expect(reads).toContain('database/note-4.md');
    }
    expect(new ContextFactsCache(sb.home).load('local', sb.roots.project).has('database/note-4.md')).toBe(false);
    // Once settled it is read once more, kept, and then not read again.
    clockMs = changedAt + 60_000;
    reads = [];
    await context();
    expect(reads).toContain('database/note-4.md');
    expect(new ContextFactsCache(sb.home).load('local', sb.roots.project).has('database/note-4.md')).toBe(true);
    reads = [];
    expect(await context()).toBe(await fresh());
    expect(reads).toEqual([]);
  });
});

describe('an empty cache', () => {
  it('closes its descriptor once (a second close, from a finalizer, could close another file)', async () => {
    // A scope whose files are all gone leaves an empty cache. The finalizer that closes a loaded
    // cache's descriptor runs after a garbage collection, so this runs in a child process that can
    // force some: the files it opens meanwhile (reusing the numbers) must all stay open.
    const script = path.join(sb.dir, 'empty-cache.mts');
    const module = path.join(import.meta.dirname, 'context-facts-cache.ts');
    await fs.writeFile(
      script,
      `import * as fs from 'node:fs';
import { ContextFactsCache } from ${JSON.stringify(module)};
const cache = new ContextFactsCache(${JSON.stringify(sb.home)});
const failed = await cache.save('local', '/nowhere', new Map());
if (failed) throw failed;
for (let i = 0; i < 20; i++) if (cache.load('local', '/nowhere').size !== 0) throw new Error('not empty');
const others = Array.from({ length: 20 }, () => fs.openSync(${JSON.stringify(script)}, 'r'));
for (let round = 0; round < 5; round++) {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const closed = others.filter((fd) => { try { fs.fstatSync(fd); return false; } catch { return true; } });
console.log(JSON.stringify({ closed: closed.length }));
`,
    );
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ closed: 0 });
  });
});

describe('a damaged cache', () => {
  /** `data` with the first match of `pattern` replaced by what `by` makes of its group, which must keep its length. */
  function sameLength(data: Buffer, pattern: RegExp, by: (group: string) => string): Buffer {
    const text = data.toString('latin1');
    const found = pattern.exec(text);
    if (!found) throw new Error(`no ${pattern} in the cache`);
    const replaced = by(found[1]!);
    expect(replaced).toHaveLength(found[0].length);
    return Buffer.from(text.slice(0, found.index) + replaced + text.slice(found.index + found[0].length), 'latin1');
  }

  async function cacheFile(): Promise<string> {
    return new ContextFactsCache(sb.home).fileOf('local', sb.roots.project);
  }

  const damages: Array<[string, (data: Buffer) => Buffer]> = [
    ['empty', () => Buffer.alloc(0)],
    ['truncated in the header', (d) => d.subarray(0, 200)],
    ['truncated in the heads', (d) => d.subarray(0, d.length - 100)],
    ['longer than it says', (d) => Buffer.concat([d, Buffer.from('more')])],
    ['garbage', (d) => Buffer.from(d.map((_, i) => (i * 7919) % 251))],
    ['of another format version', (d) => Buffer.from(d.toString('latin1').replace(/^cairn-context-facts \d+ /, 'cairn-context-facts 9 '), 'latin1')],
    ['of another build', (d) => Buffer.from(d.toString('latin1').replace(/"fingerprint":"[0-9a-f]+"/, `"fingerprint":"${'0'.repeat(32)}"`), 'latin1')],
    // Damages that keep every length (JSON allows the spaces): only the header's checks catch them.
    ['with a column of the wrong type', (d) => sameLength(d, /"heads":\[(\d+)/, (n) => `"heads":["${'x'.repeat(n.length - 2)}"`)],
    ['with a column of the wrong length', (d) => sameLength(d, /"versionLengths":\[(\d+,)/, (v) => `"versionLengths":[${' '.repeat(v.length)}`)],
    ['with versions that do not add up', (d) => sameLength(d, /"versionLengths":\[(\d)/, (n) => `"versionLengths":[${(Number(n) + 1) % 10}`)],
    ['with words that do not add up', (d) => sameLength(d, /"words":\[(\d)/, (n) => `"words":[${(Number(n) + 1) % 10}`)],
  ];

  it.each(damages)('%s: rebuilt, with the output of a fresh build', async (_, damage) => {
    const expected = await context();
    const file = await cacheFile();
    await fs.writeFile(file, damage(await fs.readFile(file)));
    reads = [];
    expect(await context()).toBe(expected);
    expect(reads).toHaveLength(12); // every file of the project's root, read again
    reads = [];
    expect(await context()).toBe(expected);
    expect(reads).toEqual([]); // and written whole again
  });

  it("another root's cache put in its place is not used", async () => {
    const expected = await context();
    await fs.copyFile(new ContextFactsCache(sb.home).fileOf('local', sb.roots.global), await cacheFile());
    reads = [];
    expect(await context()).toBe(expected);
    expect(reads).toHaveLength(12);
  });

  it('a cache that cannot be written costs reads, never the answer', async () => {
    const dir = path.join(sb.home, 'cache', 'context-facts');
    await fs.mkdir(path.dirname(dir), { recursive: true });
    await fs.writeFile(dir, 'not a directory');
    const errors: Error[] = [];
    const builder = new ContextBuilder(new UsageStore(sb.home), { factsCache: new ContextFactsCache(sb.home), onCacheError: (e) => errors.push(e) });
    const snapshot = await builder.snapshot(session);
    expect(`${builder.index(snapshot)}\n\n${builder.relevant(snapshot, PROMPT, clockMs)}`).toBe(await fresh());
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe("a long-lived builder's facts (the app's, serving every workspace opened since it started)", () => {
  it('keeps those of the roots it built for last, not of every root it ever built for', async () => {
    const builder = new ContextBuilder(new UsageStore(sb.home));
    // Sessions each with a project root of its own (one note each), as workspaces opened one after another.
    const b = session.scopes.project;
    if (!b.available) throw new Error('the sandbox has a project scope');
    const sessionOn = async (i: number): Promise<MemorySession> => {
      // Inside the checkout, as a project root must be (its anchor).
      const root = path.join(b.root.anchor, 'roots', String(i));
      await fs.mkdir(root, { recursive: true });
      await fs.writeFile(path.join(root, `note-${i}.md`), note('deploy', i));
      return { ...session, scopes: { ...session.scopes, project: { ...b, root: { ...b.root, path: root } } } };
    };
    const first = await sessionOn(0);
    await builder.snapshot(first);
    reads = [];
    await builder.snapshot(first);
    expect(reads).toEqual([]); // kept while recent
    for (let i = 1; i <= 30; i++) await builder.snapshot(await sessionOn(i));
    reads = [];
    await builder.snapshot(first);
    // Thirty roots later the first one's facts are gone: its note is read again (the shared
    // global root, built for every time, is still kept).
    expect(reads).toEqual(['note-0.md']);
  });
});
