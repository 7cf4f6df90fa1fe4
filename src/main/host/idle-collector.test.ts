// The history's gc in a long-lived host runs when the host is idle, on a fake clock: first after
// `firstMs`, then every `everyMs`, never while changes are recent; a failed gc is tried again.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { INCOMPLETE_FILE } from '../history/history-store';
import { openHome } from './home-services';
import { IdleCollector } from './idle-collector';

/** A clock and a scheduler the test moves by hand. */
function fakeTime() {
  let now = 0;
  const timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  return {
    now: () => now,
    schedule: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return () => void (t.live = false);
    },
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        next.live = false;
        now = next.at;
        next.fn();
      }
      now = end;
    },
    pending: () => timers.filter((t) => t.live).length,
  };
}

describe('IdleCollector', () => {
  it('collects first after firstMs, then every everyMs, and waits while changes are recent', () => {
    const time = fakeTime();
    const runs: number[] = [];
    const c = new IdleCollector({ collect: () => runs.push(time.now()), now: time.now, schedule: time.schedule, firstMs: 1_000, everyMs: 10_000, quietMs: 500 });
    time.advance(999);
    expect(runs).toEqual([]);
    time.advance(1);
    expect(runs).toEqual([1_000]);
    // A change 200 ms before the next turn: it waits until 500 ms of quiet.
    time.advance(9_800);
    c.noteChange();
    time.advance(200);
    expect(runs).toEqual([1_000]);
    time.advance(300);
    expect(runs).toEqual([1_000, 11_300]);
    c.stop();
    time.advance(100_000);
    expect(runs).toEqual([1_000, 11_300]);
    expect(time.pending()).toBe(0);
  });

  it('reports a failed gc and tries again at the next turn', () => {
    const time = fakeTime();
    let calls = 0;
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const c = new IdleCollector({
        collect: () => {
          calls++;
          if (calls === 1) throw new Error('disk full');
        },
        now: time.now,
        schedule: time.schedule,
        firstMs: 10,
        everyMs: 100,
      });
      time.advance(10);
      time.advance(100);
      c.stop();
    } finally {
      process.stderr.write = write;
    }
    expect(calls).toBe(2);
    expect(errors.join('')).toMatch(/the history's gc failed \(it is tried again later\): disk full/);
  });
});

describe('a host with a feed', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it("runs the history's gc when idle (it clears the history's incomplete mark), and none after close", async () => {
    const time = fakeTime();
    const host = openHome(sb.home, { feed: true, collector: { now: time.now, schedule: time.schedule, firstMs: 1_000, quietMs: 500 } });
    expect((await host.service.execute({ command: 'create', path: '/memories/global/a.md', file_text: 'a' }, sb.session, { mode: 'exec', actor: 'agent' })).ok).toBe(true);
    fs.writeFileSync(path.join(host.history.dir, INCOMPLETE_FILE), new Date(0).toISOString());
    expect(host.history.incompleteSince()).not.toBeNull();
    time.advance(1_000);
    expect(host.history.incompleteSince()).toBeNull();
    await host.close();
    expect(time.pending()).toBe(0);
  });
});
