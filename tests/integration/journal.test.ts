// The change journal and the live change feed, with real processes and the real filesystem: a
// subscriber here hears writes made by `bin/cairn tool` in another process, edits made outside
// Cairn, and each change once.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { ChangeFeed } from '../../src/main/journal/change-feed';
import { Journal, type JournalEvent } from '../../src/main/journal/journal';
import { MemoryService } from '../../src/main/memory/memory-service';
import { TestFeeds, type FollowedFeed, type Seen } from '../support/change-feeds';
import { runCairn, runJsonl } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { waitFor } from '../support/wait';

let sb: Sandbox;
const feeds = new TestFeeds();
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await feeds.close();
  await sb.cleanup();
});

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A feed on the sandbox's home, watching its session, recording what it delivers. */
function startFeed(service?: MemoryService): Promise<FollowedFeed> {
  // A minute of dedupe: what these tests check is that a Cairn write is recognized when the watcher
  // finds it, not how fast a loaded machine gets there (the default window is 5 s).
  return feeds.follow(sb, { dedupeMs: 60_000, ...(service ? { service } : {}) });
}

let sentinels = 0;
const isSentinel = (p: string): boolean => /\/sentinel-\d+\.md$/.test(p);

/**
 * Ends a step without sleeping: makes changes the feed must report, one through each source that
 * could still bring something (an edit outside Cairn in each of `dirs`, for their root watchers;
 * with `journal`, a line appended by another process, for the journal tail) and waits until all
 * have arrived. A source reports in order, so whatever the step's own changes would still bring
 * (an echo, a duplicate) is there by then. Returns the events other than the sentinels', for the
 * caller to check exactly.
 */
async function settle(events: Seen[], dirs: string[], journal = false): Promise<Seen[]> {
  const names: string[] = [];
  for (const dir of dirs) {
    names.push(`sentinel-${++sentinels}.md`);
    fs.writeFileSync(path.join(dir, names.at(-1)!), 'sentinel');
  }
  if (journal) {
    names.push(`sentinel-${++sentinels}.md`);
    new Journal(sb.home, { pid: 4242 }).append(event(0, { path: `/memories/global/${names.at(-1)!}` }));
  }
  await waitFor(`the sentinels ${names.join(', ')}`, () => names.every((n) => events.some((e) => e.event.path.endsWith(`/${n}`))));
  return events.filter((e) => !isSentinel(e.event.path));
}

const tool = (command: unknown) => runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify(command)]);

function event(i: number, over: Partial<MemoryChangeEvent> = {}): MemoryChangeEvent {
  return { scope: 'global', path: `/memories/global/n${i}.md`, op: 'create', actor: 'agent', workspaceId: 'w', projectId: null, sha256: sha(`${i}`), at: new Date().toISOString(), ...over };
}

describe('journal', () => {
  it('appends one line per change, with the pid, to a 0600 file in a 0700 directory', async () => {
    const service = new MemoryService({ sink: new Journal(sb.home) });
    const run = (c: unknown) => service.execute(c, sb.session, { mode: 'exec', actor: 'agent' });
    expect((await run({ command: 'create', path: '/memories/global/a.md', file_text: 'one' })).ok).toBe(true);
    expect((await run({ command: 'rename', old_path: '/memories/global/a.md', new_path: '/memories/global/b.md' })).ok).toBe(true);
    const file = path.join(sb.home, 'journal', 'journal.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as JournalEvent);
    expect(lines).toEqual([
      expect.objectContaining({ scope: 'global', path: '/memories/global/a.md', op: 'create', actor: 'agent', sha256: sha('one'), workspaceId: sb.session.workspaceId, pid: process.pid }),
      expect.objectContaining({ path: '/memories/global/b.md', oldPath: '/memories/global/a.md', op: 'rename', sha256: null, pid: process.pid }),
    ]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('never fails a memory command when it cannot append', async () => {
    // The journal's directory is a file: every append fails.
    fs.mkdirSync(sb.home, { recursive: true });
    fs.writeFileSync(path.join(sb.home, 'journal'), 'not a directory');
    const service = new MemoryService({ sink: new Journal(sb.home) });
    const r = await service.execute({ command: 'create', path: '/memories/global/a.md', file_text: 'x' }, sb.session, { mode: 'exec', actor: 'agent' });
    expect(r.ok).toBe(true);
  });

  it('rotates by size, keeping at most `keep` old files, and a tail reads across rotations', async () => {
    const writer = new Journal(sb.home, { maxBytes: 1024, keep: 2, pid: 999_999 }); // plays another process
    const got: JournalEvent[] = [];
    feeds.onClose(new Journal(sb.home).tail((e) => got.push(e)));
    for (let i = 0; i < 120; i++) {
      writer.append(event(i));
      if (i % 3 === 0) await sleep(1);
      await writer.flush();
    }
    const dir = path.join(sb.home, 'journal');
    writer.append(event(120)); // after a rotation the current file is made again by the next append
    await writer.flush();
    const files = fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort();
    expect(files).toEqual(['journal.1.jsonl', 'journal.2.jsonl', 'journal.jsonl']);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).size).toBeLessThanOrEqual(1024 + 300);
    // The lines kept are the newest, each whole, in order.
    const kept = ['journal.2.jsonl', 'journal.1.jsonl', 'journal.jsonl'].flatMap((n) => fs.readFileSync(path.join(dir, n), 'utf8').split('\n').filter(Boolean));
    const numbers = kept.map((l) => Number(/n(\d+)\.md/.exec((JSON.parse(l) as JournalEvent).path)![1]));
    expect(numbers.at(-1)).toBe(120);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 121 - numbers.length + i));
    await waitFor('all 121 events through the tail', () => got.length >= 121);
    expect(got.map((e) => e.path)).toEqual(Array.from({ length: 121 }, (_, i) => `/memories/global/n${i}.md`));
    expect(got.every((e) => e.pid === 999_999)).toBe(true);
  });

  it('a tail reads every file rotated between two of its checks, in order', async () => {
    const writer = new Journal(sb.home, { pid: 31337 });
    writer.append(event(0)); // before the tail: not delivered
    const got: JournalEvent[] = [];
    feeds.onClose(new Journal(sb.home).tail((e) => got.push(e)));
    const dir = writer.dir;
    const mv = (from: string, to: string) => fs.renameSync(path.join(dir, from), path.join(dir, to));
    // Two rotations without yielding to the event loop, so the tail sees them at once.
    writer.append(event(1));
    mv('journal.jsonl', 'journal.1.jsonl');
    writer.append(event(2));
    mv('journal.1.jsonl', 'journal.2.jsonl');
    mv('journal.jsonl', 'journal.1.jsonl');
    writer.append(event(3));
    await waitFor('three events', () => got.length >= 3);
    // One more line, read after those three: a repeat of any of them would come before it.
    writer.append(event(4));
    await waitFor('the line after them', () => got.length >= 4);
    expect(got.map((e) => e.path)).toEqual(['/memories/global/n1.md', '/memories/global/n2.md', '/memories/global/n3.md', '/memories/global/n4.md']);
  });

  it('keeps at most `keep` files when several appenders rotate at once', async () => {
    const writers = [1, 2, 3].map((pid) => new Journal(sb.home, { maxBytes: 600, keep: 3, pid }));
    for (let i = 0; i < 200; i++) writers[i % 3]!.append(event(i));
    await Promise.all(writers.map((w) => w.flush()));
    const files = fs.readdirSync(path.join(sb.home, 'journal')).filter((n) => n.endsWith('.jsonl'));
    expect(files.length).toBeLessThanOrEqual(4);
    expect(files).not.toContain('journal.4.jsonl');
  });

  it('skips malformed lines, waits for a partial line to complete, and skips its own pid', async () => {
    const journal = new Journal(sb.home, { pid: 4242 });
    const file = journal.file;
    const got: JournalEvent[] = [];
    const tail = new Journal(sb.home).openTail((e) => got.push(e));
    feeds.onClose(() => tail.close());
    const line = (i: number) => JSON.stringify({ ...event(i), pid: 4242 });
    fs.appendFileSync(file, 'not json\n{"scope":"global"}\n{"broken":\n');
    fs.appendFileSync(file, `${line(1)}\n`);
    fs.appendFileSync(file, `${JSON.stringify({ ...event(2), pid: process.pid })}\n`); // this process: skipped
    const three = line(3);
    fs.appendFileSync(file, three.slice(0, 40));
    tail.check(); // reads everything there is now
    expect(got.map((e) => e.path)).toEqual(['/memories/global/n1.md']);
    fs.appendFileSync(file, `${three.slice(40)}\n`);
    journal.append(event(4));
    // Found by the tail's own wake-up (fs events, or its poll), without a check() from here.
    await waitFor('the completed line and the next', () => got.length >= 3);
    expect(got.map((e) => e.path)).toEqual(['/memories/global/n1.md', '/memories/global/n3.md', '/memories/global/n4.md']);
  });

  it("a tail skips its own process's lines and reads every other process's, in order", () => {
    const mine = new Journal(sb.home);
    const other = new Journal(sb.home, { pid: 4242 });
    const got: JournalEvent[] = [];
    const tail = mine.openTail((e) => got.push(e));
    feeds.onClose(() => tail.close());
    mine.append(event(1));
    other.append(event(2));
    mine.append(event(3), event(4));
    other.append(event(5), event(6));
    mine.append(event(7));
    tail.check();
    expect(got.map((e) => [e.path, e.pid])).toEqual([
      ['/memories/global/n2.md', 4242],
      ['/memories/global/n5.md', 4242],
      ['/memories/global/n6.md', 4242],
    ]);
  });

  it('closes a torn last line before appending, so the next line survives', async () => {
    const journal = new Journal(sb.home, { pid: 7 });
    fs.mkdirSync(journal.dir, { recursive: true });
    fs.writeFileSync(journal.file, '{"scope":"glo'); // a crash mid-line
    const got: JournalEvent[] = [];
    feeds.onClose(new Journal(sb.home).tail((e) => got.push(e)));
    journal.append(event(1));
    await waitFor('the line after the torn one', () => got.length >= 1);
    expect(got[0]!.path).toBe('/memories/global/n1.md');
  });
});

describe('change feed', () => {
  it('delivers a write made by `bin/cairn tool` in another process, once, as the agent of that workspace and project', async () => {
    const { events } = await startFeed();
    const r = await tool({ command: 'create', path: '/memories/project/notes.md', file_text: 'hello' });
    expect(r.status).toBe(0);
    await waitFor('the tool write', () => events.length >= 1);
    const r2 = await tool({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'hello', new_str: 'hello again' });
    expect(r2.status).toBe(0);
    await waitFor('the second tool write', () => events.length >= 2);
    // Anything the project root's watcher (the root appeared with the first write) or the tail
    // would add arrives before these sentinels.
    expect(await settle(events, [sb.roots.project], true)).toEqual([
      {
        origin: 'journal',
        event: expect.objectContaining({
          scope: 'project',
          path: '/memories/project/notes.md',
          op: 'create',
          actor: 'agent',
          workspaceId: sb.session.workspaceId,
          projectId: sb.session.projectId,
          sha256: sha('hello'),
        }),
      },
      { origin: 'journal', event: expect.objectContaining({ path: '/memories/project/notes.md', op: 'update', actor: 'agent', sha256: sha('hello again') }) },
    ]);
    expect(sb.session.projectId).not.toBeNull();
  });

  it('reports an edit made outside Cairn as `external`, once per change, and ignores dot files and node_modules', async () => {
    fs.mkdirSync(sb.roots.global, { recursive: true });
    const { events } = await startFeed();
    const file = path.join(sb.roots.global, 'outside.md');
    fs.writeFileSync(file, 'written by an editor');
    fs.writeFileSync(path.join(sb.roots.global, '.outside.md.swp'), 'swap');
    fs.mkdirSync(path.join(sb.roots.global, 'node_modules'));
    fs.writeFileSync(path.join(sb.roots.global, 'node_modules', 'x.md'), 'x');
    await waitFor('the outside create', () => events.length >= 1);
    fs.writeFileSync(file, 'edited again');
    await waitFor('the outside update', () => events.length >= 2);
    fs.rmSync(file);
    await waitFor('the outside delete', () => events.length >= 3);
    const seen = await settle(events, [sb.roots.global]);
    const common = { actor: 'external', scope: 'global', path: '/memories/global/outside.md', workspaceId: sb.session.workspaceId, projectId: sb.session.projectId };
    expect(seen).toEqual([
      { origin: 'external', event: expect.objectContaining({ ...common, op: 'create', sha256: sha('written by an editor') }) },
      { origin: 'external', event: expect.objectContaining({ ...common, op: 'update', sha256: sha('edited again') }) },
      { origin: 'external', event: expect.objectContaining({ ...common, op: 'delete', sha256: null }) },
    ]);
  });

  it('never watches a project root reached through a symbolic link (a committed .cairn -> .git): nothing behind it is reported', async () => {
    fs.mkdirSync(sb.roots.global, { recursive: true });
    fs.mkdirSync(path.join(sb.checkout, '.git', 'memory'));
    fs.symlinkSync('.git', path.join(sb.checkout, '.cairn'));
    const { feed, events } = await startFeed();
    await feed.ready();
    fs.writeFileSync(path.join(sb.checkout, '.git', 'memory', 'planted.md'), 'x');
    expect(await settle(events, [sb.roots.global])).toEqual([]);
  });

  it('reports a rename outside Cairn as a delete and a create', async () => {
    fs.mkdirSync(sb.roots.workspace, { recursive: true });
    fs.writeFileSync(path.join(sb.roots.workspace, 'a.md'), 'moving');
    const { events } = await startFeed();
    fs.renameSync(path.join(sb.roots.workspace, 'a.md'), path.join(sb.roots.workspace, 'b.md'));
    await waitFor('two events', () => events.length >= 2);
    const seen = await settle(events, [sb.roots.workspace]);
    expect(seen.map((e) => [e.origin, e.event.op, e.event.path, e.event.scope])).toEqual(
      expect.arrayContaining([
        ['external', 'delete', '/memories/workspace/a.md', 'workspace'],
        ['external', 'create', '/memories/workspace/b.md', 'workspace'],
      ]),
    );
    expect(seen).toHaveLength(2);
  });

  it('delivers a rename made by the tool as one rename event, not also as an outside delete and create', async () => {
    const { feed, events } = await startFeed();
    expect((await tool({ command: 'create', path: '/memories/global/dir/old.md', file_text: 'content' })).status).toBe(0);
    await waitFor('the create', () => events.length >= 1);
    await feed.ready(); // the new root is found and scanned; its files are Cairn's
    expect((await tool({ command: 'rename', old_path: '/memories/global/dir', new_path: '/memories/global/moved' })).status).toBe(0);
    await waitFor('the rename', () => events.length >= 2);
    expect((await settle(events, [sb.roots.global], true)).map((e) => [e.origin, e.event.op, e.event.path, e.event.oldPath])).toEqual([
      ['journal', 'create', '/memories/global/dir/old.md', undefined],
      ['journal', 'rename', '/memories/global/moved', '/memories/global/dir'],
    ]);
  });

  it('under concurrent writers: every Cairn write once from the journal, none as external, and outside edits still reported', async () => {
    fs.mkdirSync(sb.roots.global, { recursive: true });
    fs.mkdirSync(sb.roots.project, { recursive: true });
    const { events } = await startFeed();
    const processes = 3;
    const perProcess = 20;
    const writers = Array.from({ length: processes }, (_, p) => {
      const commands: unknown[] = [];
      for (let i = 0; i < perProcess; i++) {
        const file = `/memories/${i % 2 ? 'global' : 'project'}/p${p}/f${i}.md`;
        commands.push({ command: 'create', path: file, file_text: `v0 ${p} ${i}` });
        commands.push({ command: 'str_replace', path: file, old_str: 'v0', new_str: 'v1' });
        if (i % 5 === 0) commands.push({ command: 'delete', path: file });
      }
      return runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
    });
    const outside: string[] = [];
    for (let i = 0; i < 10; i++) {
      fs.writeFileSync(path.join(sb.roots.global, `outside-${i}.md`), `outside ${i}`);
      outside.push(`/memories/global/outside-${i}.md`);
      await sleep(20);
    }
    await Promise.all(writers);
    const cairnWrites = processes * (perProcess * 2 + perProcess / 5);
    await waitFor('every write', () => events.filter((e) => e.origin === 'journal').length >= cairnWrites && events.filter((e) => e.origin === 'external').length >= outside.length);
    const seen = await settle(events, [sb.roots.global, sb.roots.project], true);
    expect(seen.filter((e) => e.origin === 'journal')).toHaveLength(cairnWrites);
    expect(seen.filter((e) => e.origin === 'external').map((e) => e.event.path).sort()).toEqual(outside.sort());
  });

  it("delivers this process's own writes once, from its MemoryService, not as external", async () => {
    fs.mkdirSync(sb.roots.global, { recursive: true });
    const service = new MemoryService({ sink: new Journal(sb.home) });
    const { events } = await startFeed(service);
    const run = (c: unknown) => service.execute(c, sb.session, { mode: 'exec', actor: 'person' });
    expect((await run({ command: 'create', path: '/memories/global/mine.md', file_text: 'v1' })).ok).toBe(true);
    expect((await run({ command: 'str_replace', path: '/memories/global/mine.md', old_str: 'v1', new_str: 'v2' })).ok).toBe(true);
    expect((await run({ command: 'delete', path: '/memories/global/mine.md' })).ok).toBe(true);
    // An echo from the root's watcher or the journal (this process's own lines) comes before these.
    expect((await settle(events, [sb.roots.global], true)).map((e) => [e.origin, e.event.op, e.event.actor])).toEqual([
      ['self', 'create', 'person'],
      ['self', 'update', 'person'],
      ['self', 'delete', 'person'],
    ]);
  });

  it('watches a root made after it started, and again after it is removed and made again, leaving no watcher behind', async () => {
    const watchers = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    const baseline = watchers();
    const { feed, events } = await startFeed(); // the project root does not exist yet
    const root = sb.roots.project;
    fs.mkdirSync(path.join(root, 'd'), { recursive: true });
    fs.writeFileSync(path.join(root, 'd', 'a.md'), 'a');
    await waitFor('the file in the new root', () => events.length >= 1);
    fs.rmSync(root, { recursive: true });
    await waitFor('its delete', () => events.length >= 2);
    await feed.ready(); // the removal is noticed: the root's watcher is closed and the root looked for again
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'b.md'), 'b');
    await waitFor('the file in the root made again', () => events.length >= 3);
    expect(events.map((e) => [e.origin, e.event.op, e.event.path])).toEqual([
      ['external', 'create', '/memories/project/d/a.md'],
      ['external', 'delete', '/memories/project/d/a.md'],
      ['external', 'create', '/memories/project/b.md'],
    ]);
    await feed.close();
    await waitFor('no watcher left', () => watchers() === baseline);
  });

  it('with lingerMs, keeps an unused root watched for that long: a page coming back finds it ready, then it stops', async () => {
    const watchers = () => process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
    const baseline = watchers();
    fs.mkdirSync(sb.roots.global, { recursive: true });
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(sb.roots.global, `n${i}.md`), 'x');
    // The linger's end, on a clock the test moves: scheduled ends, fired when the test says so.
    const scheduled: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
    const waiting = () => scheduled.filter((t) => !t.cancelled).map((t) => t.ms);
    const lingerPasses = () => {
      for (const t of scheduled.splice(0)) if (!t.cancelled) t.fn();
    };
    const LINGER = 10 * 60_000;
    const feed = new ChangeFeed({
      home: sb.home,
      lingerMs: LINGER,
      schedule: (fn, ms) => {
        const t = { fn, ms, cancelled: false };
        scheduled.push(t);
        return () => void (t.cancelled = true);
      },
    });
    feeds.add(feed);
    const first: MemoryChangeEvent[] = [];
    let unsubscribe = feed.subscribe((e) => first.push(e));
    let unwatch = feed.watch(sb.session);
    await feed.ready();
    const watching = watchers();
    expect(watching).toBeGreaterThan(baseline);

    // The page goes away; its roots (three scopes) and the sources keep running for the linger.
    unwatch();
    unsubscribe();
    expect(waiting()).toEqual([LINGER, LINGER, LINGER, LINGER]);
    expect(watchers()).toBe(watching);

    // A page comes back within it: nothing to scan again, and outside edits reach it.
    const again: MemoryChangeEvent[] = [];
    unsubscribe = feed.subscribe((e) => again.push(e));
    unwatch = feed.watch(sb.session);
    expect(waiting()).toEqual([]);
    await feed.ready();
    expect(watchers()).toBe(watching);
    fs.writeFileSync(path.join(sb.roots.global, 'back.md'), 'seen');
    await waitFor('the outside edit after coming back', () => again.length >= 1);
    expect(again.map((e) => [e.op, e.path])).toEqual([['create', '/memories/global/back.md']]);

    // Gone, and the linger passes: everything stops, nothing is delivered.
    unwatch();
    unsubscribe();
    lingerPasses();
    await feed.ready(); // the watchers being closed are closed
    await waitFor('their handles released', () => watchers() === baseline);
    fs.writeFileSync(path.join(sb.roots.global, 'late.md'), 'unseen');
    // A page that comes later hears what happens from then on, and only that: an edit it must hear
    // is the sentinel (anything still running from before would have delivered late.md by then).
    const later: MemoryChangeEvent[] = [];
    feed.subscribe((e) => later.push(e));
    feed.watch(sb.session);
    await feed.ready();
    fs.writeFileSync(path.join(sb.roots.global, 'later.md'), 'seen');
    await waitFor('the edit after a page came later', () => later.length >= 1);
    expect(later.map((e) => [e.op, e.path])).toEqual([['create', '/memories/global/later.md']]);
    expect(first).toEqual([]);
    expect(again).toHaveLength(1);
  });

  it('stops everything on unsubscribe: no watchers or timers left, nothing delivered after', async () => {
    const count = (kind: string) => process.getActiveResourcesInfo().filter((r) => r === kind).length;
    const baseline = { watchers: count('FSEventWrap'), timers: count('Timeout') };
    fs.mkdirSync(sb.roots.global, { recursive: true });
    const feed = new ChangeFeed({ home: sb.home });
    const events: MemoryChangeEvent[] = [];
    const unsubscribe = feed.subscribe((e) => events.push(e));
    const unwatch = feed.watch(sb.session);
    await feed.ready();
    expect(count('FSEventWrap')).toBeGreaterThan(baseline.watchers);
    fs.writeFileSync(path.join(sb.roots.global, 'before.md'), 'seen');
    await waitFor('the outside edit', () => events.length >= 1);

    unsubscribe();
    await feed.ready(); // watchers being closed are closed
    await waitFor('watchers and timers back to baseline', () => count('FSEventWrap') === baseline.watchers && count('Timeout') <= baseline.timers);
    fs.writeFileSync(path.join(sb.roots.global, 'after.md'), 'unseen');
    expect((await tool({ command: 'create', path: '/memories/global/after-tool.md', file_text: 'unseen' })).status).toBe(0);
    // A subscriber that comes now hears an outside edit and another process's write made after it
    // came, and only those: they are the sentinels (anything still running from before would have
    // delivered after.md or after-tool.md by then).
    const later: MemoryChangeEvent[] = [];
    const unsubscribeLater = feed.subscribe((e) => later.push(e));
    await feed.ready();
    fs.writeFileSync(path.join(sb.roots.global, 'later.md'), 'seen');
    new Journal(sb.home, { pid: 4242 }).append(event(1, { path: '/memories/global/later-tool.md' }));
    await waitFor('the outside edit and the write after a subscriber came', () => later.length >= 2);
    expect(later.map((e) => e.path).sort()).toEqual(['/memories/global/later-tool.md', '/memories/global/later.md']);
    expect(events.map((e) => e.path)).toEqual(['/memories/global/before.md']);
    unsubscribeLater();
    await feed.ready();
    await waitFor('watchers back to baseline again', () => count('FSEventWrap') === baseline.watchers);
    unwatch();
    await feed.close();
    expect(count('FSEventWrap')).toBe(baseline.watchers);
  });
});
