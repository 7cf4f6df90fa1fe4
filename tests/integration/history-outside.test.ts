// Edits made outside Cairn (an editor, a `git pull`) are versions in the history too:
// found by the app's watchers, recorded with what was found and, as "before", the last version
// Cairn knew; each once, delivered with its version's id; undoable like any change. Real disk, a
// real app host and its change stream.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import type { AppRouter } from '../../src/main/api/router';
import type { AppHost } from '../../src/main/host/app-host';
import { openHostOn } from '../support/app-host';
import { makeSandbox, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let host: AppHost;
let client: RouterClient<AppRouter>;
let ws: string;
let events: MemoryChangeEvent[];
let stop: AbortController;

beforeEach(async () => {
  sb = await makeSandbox();
  fs.mkdirSync(sb.roots.global, { recursive: true });
  stop = new AbortController();
  await listen();
});
afterEach(async () => {
  stop.abort();
  await host.close();
  await sb.cleanup();
});

/** Opens a host on the sandbox's home and follows its change stream into `events`, from its "ready". */
async function listen(): Promise<void> {
  ({ host, client, ws } = await openHostOn(sb));
  events = [];
  const stream = await client.memory.onChange({ workspaceId: ws }, { signal: stop.signal });
  let ready!: () => void;
  const listening = new Promise<void>((resolve) => (ready = resolve));
  void (async () => {
    for await (const item of stream) {
      if (item.type === 'ready') ready();
      else events.push(item);
    }
  })().catch(() => {});
  await listening;
}

/** Waits for the `n`th event (deadline only to keep a failing test from hanging). */
async function nth(n: number): Promise<MemoryChangeEvent> {
  const deadline = Date.now() + 15_000;
  while (events.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${events.length} of ${n} events arrived`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return events[n - 1]!;
}

describe('outside edits in the history', () => {
  it('records each with what it found and what Cairn knew before, once, and undoes one', async () => {
    const file = path.join(sb.roots.global, 'notes.md');
    const p = '/memories/global/notes.md';
    fs.writeFileSync(file, 'from an editor\n');
    const created = await nth(1);
    expect(created).toMatchObject({ actor: 'external', op: 'create', path: p, historyId: expect.any(String) });
    // A save in Cairn: one version (its own), not also an outside one.
    const sha = (await client.memory.read({ workspaceId: ws, path: p })).sha256;
    await client.memory.save({ workspaceId: ws, path: p, content: 'saved in Cairn\n', expectedSha256: sha });
    await nth(2);
    fs.writeFileSync(file, 'edited outside again\n');
    const updated = await nth(3);
    expect(updated).toMatchObject({ actor: 'external', op: 'update', historyId: expect.any(String) });
    fs.rmSync(file);
    const deleted = await nth(4);
    expect(deleted).toMatchObject({ actor: 'external', op: 'delete', historyId: expect.any(String) });

    const { versions } = await client.history.list({ workspaceId: ws, path: p });
    expect(versions.map((v) => [v.op, v.actor, v.cause])).toEqual([
      ['delete', 'external', 'external'],
      ['update', 'external', 'external'],
      ['update', 'person', 'ui'],
      ['create', 'external', 'external'],
    ]);
    expect(versions.map((v) => v.id)).toEqual([deleted.historyId, updated.historyId, expect.any(String), created.historyId]);
    // Each outside version's "before" is what Cairn knew last: the chain is unbroken.
    const sides = await Promise.all(versions.map((v) => client.history.read({ workspaceId: ws, id: v.id })));
    expect(sides.map((s) => [s.before, s.after])).toEqual([
      ['edited outside again\n', null],
      ['saved in Cairn\n', 'edited outside again\n'],
      ['from an editor\n', 'saved in Cairn\n'],
      [null, 'from an editor\n'],
    ]);
    // The outside delete is undone like any change: the file comes back as it was.
    expect(await client.history.undo({ workspaceId: ws, id: deleted.historyId! })).toMatchObject({ status: 'ok' });
    expect(fs.readFileSync(file, 'utf8')).toBe('edited outside again\n');
  });

  it('a file Cairn never knew, changed outside, has an unknown "before" and cannot be undone, only restored', async () => {
    // Written before anything watched the root: the first the history hears of it is its change.
    const file = path.join(sb.roots.global, 'old.md');
    await host.close();
    fs.writeFileSync(file, 'old\n');
    await listen();
    fs.writeFileSync(file, 'new\n');
    const changed = await nth(1);
    expect(changed).toMatchObject({ op: 'update', historyId: expect.any(String) });
    const read = await client.history.read({ workspaceId: ws, id: changed.historyId! });
    expect(read).toMatchObject({ beforeKnown: false, after: 'new\n' });
    expect(await client.history.undo({ workspaceId: ws, id: changed.historyId! })).toMatchObject({ status: 'error', message: expect.stringMatching(/not known/) });
  });
});
