/**
 * Cairn's locks between processes on the local disk: the one module that uses proper-lockfile,
 * and where every lock's timing is. Two kinds:
 *
 * - The write lock of a scope root (withLocalLock; also of Cairn's own files that several
 *   processes rewrite, and of the journal's rotation): waited for, held for a write's millisecond.
 *   An in-process mutex (so one process never contends with itself) and a cross-process lock file
 *   beside the root, `<root>.lock`, created exclusively (O_CREAT|O_EXCL) and kept fresh by its
 *   mtime (every LOCK_UPDATE_MS) while held. A lock left by a killed process goes stale after
 *   LOCK_STALE_MS and is taken over by the next writer, so it is recovered well within 10 s; a
 *   writer waits at most LOCK_WAIT_MS for it, then fails with BUSY.
 * - A lease (takeLease, takeLeaseSync, leaseHeld): one holder of a long run (the harvest's worker,
 *   one harvest of a session, a consolidation of a scope, the history's gc), never waited for:
 *   taking one another process holds answers null at once, and the caller says it is busy. It is
 *   proper-lockfile's directory `<file>.lock`, its mtime the heartbeat, refreshed every
 *   LEASE_UPDATE_MS; one not refreshed for LEASE_STALE_MS was left by a process that died (or that
 *   stalled that long) and is taken over. A lease held through one synchronous run (`syncRun`: the
 *   gc) is not refreshed while it runs, so it goes stale only after SYNC_RUN_STALE_MS, longer than
 *   any such run.
 *
 * A lock lost to a takeover (its holder stalled past the stale time) never crashes the process:
 * the write in progress still completes atomically, and a lease says so (`lost`), for a holder
 * that must stop at its next step.
 *
 * Why the write lock is a file and not proper-lockfile's default directory: on ext4 an rmdir costs
 * 0.2 to 1.5 ms (it frees the directory's block and puts the inode on the orphan list, waiting on
 * the journal commit an fsync just started), an empty file's create and unlink a few tens of
 * microseconds, and every write takes and drops the lock once. Both are exclusive the same way
 * (EEXIST when anything is at the path), so a lock directory left by an older Cairn, or taken by
 * the SSH helper of one, still excludes, and is removed like a file when stale. (The SSH helper
 * takes the same lock file on the remote host, in its own code: runtime/ssh/remote-helper.ts, with
 * LOCK_STALE_MS sent along.)
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Mutex } from 'async-mutex';
import { RuntimeError, unsafeRoot } from '../runtime';

/** The write lock: a lock not refreshed for this long was left by a killed process. */
export const LOCK_STALE_MS = 5_000;
const LOCK_UPDATE_MS = 1_000;
/** How long a writer waits for a busy scope before giving up with a "busy" error. */
const LOCK_WAIT_MS = 30_000;
/** A lease: its heartbeat's period, and how old a heartbeat is when its holder is taken for gone. */
export const LEASE_UPDATE_MS = 10_000;
export const LEASE_STALE_MS = 60_000;
/** A lease held through one synchronous run (no heartbeat while it runs): longer than any such run. */
export const SYNC_RUN_STALE_MS = 120_000;

const mutexes = new Map<string, Mutex>();

type Callback<T = void> = (err: NodeJS.ErrnoException | null, value?: T) => void;
function viaSync<T>(fn: () => T, callback: Callback<T>): void {
  let value: T;
  try {
    value = fn();
  } catch (err) {
    callback(err as NodeJS.ErrnoException);
    return;
  }
  callback(null, value);
}

/** What the lock's create fails with when something Cairn never made is at the lock's path. */
const FOREIGN = 'ECAIRNFOREIGNLOCK';

/**
 * Creates the lock file; EEXIST if a lock is there (a lock file, or an older Cairn's empty lock
 * directory). Anything else there (a symbolic link, a directory with files in it, a fifo) is no
 * lock Cairn made and would never go away by itself, as a repository can commit one: FOREIGN, so
 * the writer is told at once instead of waiting for it.
 */
function createLockFile(p: string): void {
  try {
    fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isForeignLock(p)) throw Object.assign(new Error('not a lock'), { code: FOREIGN });
    throw err;
  }
}

function isForeignLock(p: string): boolean {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (!st || st.isFile()) return false;
  if (st.isDirectory()) return fs.readdirSync(p).length > 0;
  return true;
}

/** Removes the lock, a file or (left by an older Cairn) a directory. */
function removeLockSync(p: string): void {
  try {
    fs.unlinkSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM') throw err;
    fs.rmdirSync(p);
  }
}

/**
 * The filesystem proper-lockfile uses, on synchronous calls: taking and dropping the lock is a
 * create, a stat and an unlink of microseconds each, which a thread-pool round trip would
 * multiply. Its `mkdir` and `rmdir` are the lock's create and remove (a file, see above).
 */
const syncLockFs = {
  mkdir: (p: string, cb: Callback) => viaSync(() => createLockFile(p), cb),
  rmdir: (p: string, cb: Callback) => viaSync(() => removeLockSync(p), cb),
  rmdirSync: (p: string) => removeLockSync(p),
  stat: (p: string, cb: Callback<fs.Stats>) => viaSync(() => fs.statSync(p), cb),
  utimes: (p: string, a: Date, m: Date, cb: Callback) => viaSync(() => fs.utimesSync(p, a, m), cb),
  realpath: (p: string, cb: Callback<string>) => viaSync(() => fs.realpathSync(p), cb),
};

/**
 * The lock's libraries, loaded on the first lock: a process that only reads (the prompt hook,
 * `cairn context`, on every prompt) never pays for loading them (about 20 ms of a hook's start).
 * proper-lockfile is required synchronously, for the leases taken without waiting (takeLeaseSync).
 */
let properLockfile: typeof import('proper-lockfile') | null = null;
function lockfileLibrary(): typeof import('proper-lockfile') {
  properLockfile ??= createRequire(import.meta.url)('proper-lockfile') as typeof import('proper-lockfile');
  return properLockfile;
}
let mutexLibrary: Promise<typeof Mutex> | null = null;
function lockLibraries(): Promise<{ Mutex: typeof Mutex; lockfile: typeof import('proper-lockfile') }> {
  mutexLibrary ??= import('async-mutex').then((mutex) => mutex.Mutex);
  return mutexLibrary.then((Mutex) => ({ Mutex, lockfile: lockfileLibrary() }));
}

async function mutexFor(lockPath: string): Promise<Mutex> {
  let m = mutexes.get(lockPath);
  if (!m) {
    const { Mutex } = await lockLibraries();
    m = mutexes.get(lockPath) ?? new Mutex();
    mutexes.set(lockPath, m);
  }
  return m;
}

export function lockPathFor(rootPath: string): string {
  return `${rootPath}.lock`;
}

/**
 * Runs `fn` while holding the lock for `rootPath`; the root's parent directory must exist.
 * `shownAs`: the lock's path as errors may name it (relative to the checkout or the home).
 */
export async function withLocalLock<T>(rootPath: string, fn: () => Promise<T>, shownAs = path.basename(lockPathFor(rootPath))): Promise<T> {
  const lockPath = lockPathFor(rootPath);
  return (await mutexFor(lockPath)).runExclusive(async () => {
    const release = await acquire(rootPath, lockPath, shownAs);
    try {
      return await fn();
    } finally {
      await release().catch(() => {});
    }
  });
}

/**
 * Takes the cross-process lock, polling with a short, jittered, growing pause: writes hold it for
 * about a millisecond, so waiters must look again soon. (proper-lockfile's own retry schedule is
 * not used: it precomputes its whole table of timeouts on every call.)
 */
async function acquire(rootPath: string, lockPath: string, shownAs: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const { lockfile } = await lockLibraries();
      return await lockfile.lock(rootPath, {
        lockfilePath: lockPath,
        realpath: false,
        stale: LOCK_STALE_MS,
        update: LOCK_UPDATE_MS,
        retries: 0,
        fs: syncLockFs,
        // A compromised lock (its directory removed or taken over after we stalled past the stale
        // threshold) must not crash the process; the write in progress still completes atomically.
        onCompromised: () => {},
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === FOREIGN) throw unsafeRoot('lock', shownAs);
      if (code !== 'ELOCKED') throw new RuntimeError('IO', code ?? 'EIO');
      if (Date.now() >= deadline) throw new RuntimeError('BUSY');
      const ceiling = Math.min(8, 1 + attempt);
      await new Promise((resolve) => setTimeout(resolve, 0.5 + Math.random() * ceiling));
    }
  }
}

/** A lease held: whether it has been taken over since, and how to give it up. */
export interface Lease {
  /**
   * True once another process took the lease over (this one stalled past the stale time, so its
   * heartbeat stopped): what the lease guarded is the other's now, and a holder stops at its next
   * step where that matters.
   */
  readonly lost: boolean;
  /** Gives the lease up; never throws (one lost or already gone is nothing to give up). */
  release(): Promise<void>;
}

/** A lease taken synchronously; its release is synchronous too. */
export interface SyncLease {
  readonly lost: boolean;
  release(): void;
}

export interface LeaseOptions {
  /** Where the lease is when not `<file>.lock`. */
  readonly lockfilePath?: string;
  /** Held through one synchronous run, which no heartbeat interrupts (see the header). */
  readonly syncRun?: boolean;
}

/** Where the lease is and when it is stale, as proper-lockfile takes them. */
function leasePlace(options: LeaseOptions): { realpath: false; stale: number; lockfilePath?: string } {
  return { realpath: false, stale: options.syncRun ? SYNC_RUN_STALE_MS : LEASE_STALE_MS, ...(options.lockfilePath !== undefined ? { lockfilePath: options.lockfilePath } : {}) };
}

function leaseOptions(options: LeaseOptions, lost: () => void): import('proper-lockfile').LockOptions {
  return { ...leasePlace(options), update: LEASE_UPDATE_MS, retries: 0, onCompromised: lost };
}

/** Takes the lease of `file` (its directory must exist); null at once when another holds it. */
export async function takeLease(file: string, options: LeaseOptions = {}): Promise<Lease | null> {
  let lost = false;
  let release: () => Promise<void>;
  try {
    release = await lockfileLibrary().lock(file, leaseOptions(options, () => (lost = true)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw err;
  }
  return {
    get lost() {
      return lost;
    },
    release: () => release().catch(() => {}),
  };
}

/**
 * takeLease, taken synchronously: for a run that must not let another in between its call and
 * its lease (two triggers of one harvest at once), or that is synchronous itself (`syncRun`).
 */
export function takeLeaseSync(file: string, options: LeaseOptions = {}): SyncLease | null {
  let lost = false;
  let release: () => void;
  try {
    release = lockfileLibrary().lockSync(file, leaseOptions(options, () => (lost = true)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw err;
  }
  return {
    get lost() {
      return lost;
    },
    release: () => {
      try {
        release();
      } catch {
        // Taken over or removed already: the lease is no longer this holder's either way.
      }
    },
  };
}

/** Whether a live process holds the lease of `file` (one past its stale time is held by nobody). */
export function leaseHeld(file: string, options: LeaseOptions = {}): boolean {
  return lockfileLibrary().checkSync(file, leasePlace(options));
}
