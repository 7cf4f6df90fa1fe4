/**
 * The write lock of a scope root on the local disk: an in-process mutex (so one process never
 * contends with itself) and a cross-process lock file beside the root, `<root>.lock`, created
 * exclusively (O_CREAT|O_EXCL) and kept fresh by its mtime while held. A lock left by a killed
 * process goes stale after LOCK_STALE_MS and is taken over by the next writer, so it is recovered
 * well within 10 s.
 *
 * Why a file and not proper-lockfile's default directory: on ext4 an rmdir costs 0.2 to 1.5 ms
 * (it frees the directory's block and puts the inode on the orphan list, waiting on the journal
 * commit an fsync just started), an empty file's create and unlink a few tens of microseconds, and
 * every write takes and drops the lock once. Both are exclusive the same way (EEXIST when anything
 * is at the path), so a lock directory left by an older Cairn, or taken by the SSH helper of one,
 * still excludes, and is removed like a file when stale.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Mutex } from 'async-mutex';
import { RuntimeError, unsafeRoot } from './runtime';

export const LOCK_STALE_MS = 5_000;
const LOCK_UPDATE_MS = 1_000;
/** How long a writer waits for a busy scope before giving up with a "busy" error. */
const LOCK_WAIT_MS = 30_000;

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
 */
let libraries: Promise<{ Mutex: typeof Mutex; lockfile: typeof import('proper-lockfile') }> | null = null;
function lockLibraries(): Promise<{ Mutex: typeof Mutex; lockfile: typeof import('proper-lockfile') }> {
  libraries ??= Promise.all([import('async-mutex'), import('proper-lockfile')]).then(([mutex, lockfile]) => ({ Mutex: mutex.Mutex, lockfile: lockfile.default }));
  return libraries;
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
