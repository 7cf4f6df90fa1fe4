// Leases on the real disk: a lease another holds answers null at once (the callers' "busy"), one
// whose heartbeat stopped is taken over after its stale time, and a holder whose lease was taken
// over is told (`lost`) instead of the process crashing. Another process's lease is what it
// leaves on disk (proper-lockfile's `<file>.lock` directory), its age set with utimes; only the
// heartbeat's timer is faked.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LEASE_STALE_MS, LEASE_UPDATE_MS, leaseHeld, SYNC_RUN_STALE_MS, takeLease, takeLeaseSync } from './file-lock';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-lease-')));
  file = path.join(dir, 'worker');
});
afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What another process holding `file`'s lease leaves, its heartbeat `ageMs` old. */
function leaseOfAnother(ageMs: number): string {
  const lock = `${file}.lock`;
  fs.mkdirSync(lock);
  const at = (Date.now() - ageMs) / 1000;
  fs.utimesSync(lock, at, at);
  return lock;
}

describe('leases', () => {
  it('answers null at once while one is held, and gives the lease once it is released', async () => {
    const held = await takeLease(file);
    expect(held).not.toBeNull();
    expect(leaseHeld(file)).toBe(true);
    expect(await takeLease(file)).toBeNull();
    expect(takeLeaseSync(file)).toBeNull();
    await held!.release();
    expect(leaseHeld(file)).toBe(false);
    const again = takeLeaseSync(file);
    expect(again).not.toBeNull();
    again!.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('takes over a lease not refreshed for LEASE_STALE_MS, never a younger one', async () => {
    const lock = leaseOfAnother(LEASE_STALE_MS - 5_000);
    expect(await takeLease(file)).toBeNull();
    expect(leaseHeld(file)).toBe(true);
    const old = (Date.now() - LEASE_STALE_MS - 5_000) / 1000;
    fs.utimesSync(lock, old, old);
    expect(leaseHeld(file)).toBe(false);
    const taken = await takeLease(file);
    expect(taken).not.toBeNull();
    expect(fs.statSync(lock).mtimeMs).toBeGreaterThan(old * 1000);
    await taken!.release();
  });

  it('a lease held through one synchronous run (syncRun) goes stale only after SYNC_RUN_STALE_MS', () => {
    const lock = leaseOfAnother(LEASE_STALE_MS + 5_000);
    const gc = { lockfilePath: lock, syncRun: true };
    expect(leaseHeld(file, gc)).toBe(true);
    expect(takeLeaseSync(file, gc)).toBeNull();
    const old = (Date.now() - SYNC_RUN_STALE_MS - 5_000) / 1000;
    fs.utimesSync(lock, old, old);
    const taken = takeLeaseSync(file, gc);
    expect(taken).not.toBeNull();
    taken!.release();
  });

  it.each([
    ['takeLease', (f: string) => takeLease(f)],
    ['takeLeaseSync', (f: string) => Promise.resolve(takeLeaseSync(f))],
  ])('%s: a lease taken over by another process is lost, and its release leaves the other one', async (_name, take) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const lease = await take(file);
    expect(lease).not.toBeNull();
    expect(lease!.lost).toBe(false);
    // Another process took it over (this one stalled): a new lock, of another time.
    const lock = `${file}.lock`;
    fs.rmdirSync(lock);
    fs.mkdirSync(lock);
    // A whole second: what every file system keeps of a time exactly.
    const other = Math.floor(Date.now() / 1000) - 1;
    fs.utimesSync(lock, other, other);
    // The next heartbeat finds the lock is not its own.
    vi.advanceTimersByTime(LEASE_UPDATE_MS);
    await vi.waitFor(() => expect(lease!.lost).toBe(true));
    await lease!.release();
    expect(fs.statSync(lock).mtimeMs).toBe(other * 1000);
  });
});
