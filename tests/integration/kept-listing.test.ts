// A scope root the change feed watches is read from disk once while nothing under it changes: the
// home's snapshots (the UI's memory.list) reuse its listing under the feed's listing stamp. Any
// change shows in the first snapshot after it: this process's own write at once, an edit or a
// delete outside Cairn once the feed has heard it. Real files, a real watcher.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ContextBuilder, type SnapshotOptions } from '../../src/main/context/context-builder';
import { Journal } from '../../src/main/journal/journal';
import { MemoryService } from '../../src/main/memory/memory-service';
import { LocalRuntime } from '../../src/main/runtime/local/local-runtime';
import { TestFeeds } from '../support/change-feeds';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { waitFor } from '../support/wait';

let sb: Sandbox;
let runtime: LocalRuntime;
const feeds = new TestFeeds();

beforeEach(async () => {
  // A clock a minute ahead: every file written by the test has settled (ListedEntry.version), so
  // its listing may be kept without waiting for the real clock.
  runtime = new LocalRuntime({ now: () => Date.now() + 60_000 });
  sb = await makeSandbox({ runtime });
  fs.mkdirSync(path.join(sb.roots.global, 'topic'), { recursive: true });
  for (const name of ['a.md', 'b.md', 'topic/c.md']) fs.writeFileSync(path.join(sb.roots.global, name), `---\ndescription: ${name}\n---\n`);
});
afterEach(async () => {
  await feeds.close();
  await sb.cleanup();
});

const globalPaths = async (builder: ContextBuilder, options: SnapshotOptions): Promise<string[]> =>
  (await builder.snapshot(sb.session, options)).files.filter((f) => f.scope === 'global').map((f) => f.path);

describe('a watched root’s listing', () => {
  it('is read once while nothing changes, and shows this process’s write at once and outside edits once heard', async () => {
    const service = new MemoryService({ sink: new Journal(sb.home) });
    const { feed, events } = await feeds.follow(sb, { service });
    const listings = vi.spyOn(runtime, 'list');
    const globalListings = () => listings.mock.calls.filter(([root]) => root.path === sb.roots.global).length;
    const builder = new ContextBuilder();
    const options: SnapshotOptions = { listingStamp: (root) => feed.listingStamp(root) };

    const first = await globalPaths(builder, options);
    expect(first).toEqual(['/memories/global/a.md', '/memories/global/b.md', '/memories/global/topic/c.md']);
    expect(await globalPaths(builder, options)).toEqual(first);
    expect(globalListings()).toBe(1);

    // This process's own write: in the very next snapshot, with no wait for the watcher.
    expect((await service.execute({ command: 'create', path: '/memories/global/mine.md', file_text: 'mine' }, sb.session, { mode: 'exec', actor: 'person' })).ok).toBe(true);
    expect(await globalPaths(builder, options)).toContain('/memories/global/mine.md');

    // An edit outside Cairn, and a delete: in the first snapshot after the feed reports them.
    fs.writeFileSync(path.join(sb.roots.global, 'topic', 'outside.md'), 'from an editor');
    await waitFor('the outside edit', () => events.some((e) => e.event.path === '/memories/global/topic/outside.md'));
    expect(await globalPaths(builder, options)).toContain('/memories/global/topic/outside.md');
    fs.unlinkSync(path.join(sb.roots.global, 'a.md'));
    await waitFor('the outside delete', () => events.some((e) => e.event.path === '/memories/global/a.md' && e.event.op === 'delete'));
    expect(await globalPaths(builder, options)).not.toContain('/memories/global/a.md');

    // Nothing changed since: kept again.
    const before = globalListings();
    await globalPaths(builder, options);
    expect(globalListings()).toBe(before);
  });

  it('is read every time once nobody watches the root', async () => {
    const { feed, stop } = await feeds.follow(sb);
    stop();
    expect(feed.listingStamp(sb.roots.global)).toBeNull();
    const listings = vi.spyOn(runtime, 'list');
    const builder = new ContextBuilder();
    const options: SnapshotOptions = { listingStamp: (root) => feed.listingStamp(root) };
    await globalPaths(builder, options);
    fs.writeFileSync(path.join(sb.roots.global, 'd.md'), 'unwatched');
    expect(await globalPaths(builder, options)).toContain('/memories/global/d.md');
    expect(listings.mock.calls.filter(([root]) => root.path === sb.roots.global)).toHaveLength(2);
  });
});
