// When a host syncs by itself, on a clock the test turns: one sync a while after a burst of
// changes (not one per change), one per period while nothing changes, none while sync is off or
// after close, and a change during a run makes exactly one more run after it.
import { describe, expect, it } from 'vitest';
import { SyncSchedule } from './sync-schedule';

/** A clock whose timers fire only when the test advances it. */
function manualClock() {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    setTimeout: (fn: () => void, ms: number) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id: unknown) => void timers.delete(id as number),
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        await Promise.resolve();
      }
      now = end;
      // Let runs started by the timers finish.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}

describe('SyncSchedule', () => {
  it('syncs once after a burst of changes, and once per period while nothing changes', async () => {
    const clock = manualClock();
    let runs = 0;
    const schedule = new SyncSchedule({ run: async () => void runs++, enabled: () => true, debounceMs: 30_000, everyMs: 300_000, ...clock });
    for (let i = 0; i < 10; i++) {
      schedule.changed();
      await clock.advance(1_000);
    }
    expect(runs).toBe(0);
    await clock.advance(30_000);
    expect(runs).toBe(1);
    await clock.advance(300_000 - 40_000);
    expect(runs).toBe(2);
    await clock.advance(300_000);
    expect(runs).toBe(3);
    await schedule.close();
    await clock.advance(1_000_000);
    expect(runs).toBe(3);
  });

  it('does nothing while sync is off', async () => {
    const clock = manualClock();
    let runs = 0;
    const schedule = new SyncSchedule({ run: async () => void runs++, enabled: () => false, ...clock });
    schedule.changed();
    await clock.advance(3_600_000);
    await schedule.now();
    expect(runs).toBe(0);
    await schedule.close();
  });

  it('runs once more after a run when asked during it, never two at once', async () => {
    let release: () => void = () => {};
    let running = 0;
    let most = 0;
    let runs = 0;
    const clock = manualClock();
    const schedule = new SyncSchedule({
      run: () =>
        new Promise<void>((resolve) => {
          runs++;
          running++;
          most = Math.max(most, running);
          release = () => {
            running--;
            resolve();
          };
        }),
      enabled: () => true,
      ...clock,
    });
    const first = schedule.now();
    void schedule.now();
    void schedule.now();
    release();
    await Promise.resolve();
    await Promise.resolve();
    expect(runs).toBe(2);
    release();
    await first;
    expect(runs).toBe(2);
    expect(most).toBe(1);
    await schedule.close();
  });

  it('keeps its schedule when a run fails (offline is normal)', async () => {
    const clock = manualClock();
    let runs = 0;
    const schedule = new SyncSchedule({ run: async () => { runs++; throw new Error('offline'); }, enabled: () => true, everyMs: 1_000, ...clock });
    await clock.advance(3_000);
    expect(runs).toBe(3);
    await schedule.close();
  });
});
