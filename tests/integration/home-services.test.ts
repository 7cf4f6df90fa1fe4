// A home's services as every host opens them (src/main/host/home-services.ts), on a real home and
// checkout: one LocalRuntime for the whole process, a write in the journal and heard by the feed
// before its command resolves, and close() leaving every use on disk.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { openHome, type HomeServices } from '../../src/main/host/home-services';
import { localRuntime } from '../../src/main/host/memory-home';
import type { MemorySession } from '../../src/main/memory/session';
import { makeCheckout, makeSandbox, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let opened: HomeServices[] = [];
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
  await sb.cleanup();
});

/** Services closed when the test ends. */
function open<T extends HomeServices>(services: T): T {
  opened.push(services);
  return services;
}

function runtimesOf(session: MemorySession): unknown[] {
  return Object.values(session.scopes).flatMap((b) => (b.available ? [b.runtime] : []));
}

describe('openHome', () => {
  it('reaches the local disk through one LocalRuntime per process, whatever home or session', async () => {
    const a = open(openHome(sb.home));
    const b = open(openHome(path.join(sb.dir, 'other-home')));
    expect(a.runtime).toBe(localRuntime());
    expect(b.runtime).toBe(a.runtime);
    const workspace = await a.registry.add('widgets', sb.checkout);
    const other = await makeCheckout(path.join(sb.dir, 'elsewhere'));
    const sessions = [await a.registry.session(null), await a.registry.session(workspace.id), await b.registry.session(null), sb.session];
    const registered = await b.registry.add('elsewhere', other);
    sessions.push(await b.registry.session(registered.id));
    for (const session of sessions) {
      const runtimes = runtimesOf(session);
      expect(runtimes.length).toBeGreaterThan(0);
      for (const r of runtimes) expect(r).toBe(a.runtime);
    }
  });

  it("journals a write and tells the feed before the command resolves, and close() leaves the write's uses on disk", async () => {
    const services = open(openHome(sb.home, { feed: true }));
    const heard: MemoryChangeEvent[] = [];
    const unsubscribe = services.changes.subscribe((e) => heard.push(e));
    const created = await services.service.execute({ command: 'create', path: '/memories/global/a.md', file_text: 'one\n' }, sb.session, { mode: 'exec', actor: 'agent' });
    expect(created.ok).toBe(true);
    // No waiting: both happened before execute() resolved.
    expect(heard.map((e) => [e.op, e.path, e.actor])).toEqual([['create', '/memories/global/a.md', 'agent']]);
    const journal = fs.readFileSync(path.join(sb.home, 'journal', 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(journal.map((l) => (JSON.parse(l) as MemoryChangeEvent).path)).toEqual(['/memories/global/a.md']);
    expect((await services.service.execute({ command: 'view', path: '/memories/global/a.md' }, sb.session, { mode: 'exec', actor: 'agent' })).ok).toBe(true);
    unsubscribe();
    await services.close();
    await services.close(); // idempotent

    // What a new process finds: the write and the view, two uses.
    const later = open(openHome(sb.home));
    const file = (await later.builder.snapshot(sb.session)).files.find((f) => f.path === '/memories/global/a.md');
    expect(file?.stats).toMatchObject({ accessCount: 2 });
    expect(file?.stats.lastWriteAt).not.toBeNull();
  });

  it('opens no feed unless asked: a short-lived command starts no watcher or tail', () => {
    expect(open(openHome(sb.home)).changes).toBeNull();
    expect(open(openHome(sb.home, { feed: { lingerMs: 5 } })).changes).not.toBeNull();
  });
});
