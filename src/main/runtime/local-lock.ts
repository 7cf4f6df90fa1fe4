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
import { Mutex } from 'async-mutex';
import lockfile from 'proper-lockfile';
import { RuntimeError } from './runtime';

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

/**
 * Lock files this process holds, and per lock path the spare name under which its last lock file's
 * inode lingers after a release (`<lock>.spare-<pid>`, removed after SPARE_LINGER_MS unused).
 *
 * Why: creating a file allocates an inode, which on ext4 costs 0.2-0.7 ms right after an fsync
 * (the allocation waits on the journal commit the write just started), while a hard link to an
 * existing inode, an unlink that leaves it another name and a rename take tens of microseconds.
 * So a release renames the lock file to the spare name (or, when it was linked from the spare,
 * just unlinks it), and the next acquisition links the spare to the lock path: still one atomic,
 * exclusive step (link fails with EEXIST when anything is at the path, like O_CREAT|O_EXCL), and
 * the spare's mtime is set before the link, so the lock is never seen with an old (stale) mtime.
 */
const held = new Set<string>();
const spares = new Map<string, { readonly name: string; timer: NodeJS.Timeout | null }>();
const SPARE_LINGER_MS = 250;
const cleaned = new Set<string>();

function spareName(lockPath: string, pid = process.pid): string {
  return `${lockPath}.spare-${pid}`;
}

/** Removes whatever is at `p` (a file, or a directory left by an older Cairn); ENOENT is fine. */
function removeAny(p: string): void {
  try {
    removeLockSync(p);
  } catch {}
}

function dropSpare(lockPath: string): void {
  const spare = spares.get(lockPath);
  if (!spare) return;
  spares.delete(lockPath);
  if (spare.timer) clearTimeout(spare.timer);
  removeAny(spare.name);
}

function lingerSpare(lockPath: string): void {
  const spare = spares.get(lockPath);
  if (!spare) return;
  if (spare.timer) clearTimeout(spare.timer);
  spare.timer = setTimeout(() => {
    spare.timer = null;
    if (!held.has(lockPath)) dropSpare(lockPath);
  }, SPARE_LINGER_MS);
  spare.timer.unref();
}

process.once('exit', () => {
  for (const lockPath of [...spares.keys()]) dropSpare(lockPath);
});

/** Spares of processes that died before removing theirs (once per lock path and process). */
function removeDeadSpares(lockPath: string): void {
  if (cleaned.has(lockPath)) return;
  cleaned.add(lockPath);
  const dir = path.dirname(lockPath);
  const prefix = `${path.basename(lockPath)}.spare-`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') removeAny(path.join(dir, name));
    }
  }
}

/** Creates the lock file; EEXIST if anything (a lock file, an older lock directory) is there. */
function createLockFile(p: string): void {
  const spare = spares.get(p);
  if (spare) {
    try {
      const now = new Date();
      fs.utimesSync(spare.name, now, now);
      fs.linkSync(spare.name, p);
      held.add(p);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw err;
      // The spare is gone, or this filesystem has no hard links: create the lock file.
      dropSpare(p);
    }
  }
  fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600));
  held.add(p);
}

/** Releases a lock this process holds: its inode is kept under the spare name for the next one. */
function releaseLockSync(p: string): void {
  held.delete(p);
  try {
    if (spares.has(p)) fs.unlinkSync(p);
    else {
      const name = spareName(p);
      fs.renameSync(p, name);
      spares.set(p, { name, timer: null });
    }
    lingerSpare(p);
  } catch {
    dropSpare(p);
    removeLockSync(p);
  }
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
  // Our own lock (a release), or a stale one of another process (a takeover).
  rmdir: (p: string, cb: Callback) => viaSync(() => (held.has(p) ? releaseLockSync(p) : removeLockSync(p)), cb),
  rmdirSync: (p: string) => (held.has(p) ? releaseLockSync(p) : removeLockSync(p)),
  stat: (p: string, cb: Callback<fs.Stats>) => viaSync(() => fs.statSync(p), cb),
  utimes: (p: string, a: Date, m: Date, cb: Callback) => viaSync(() => fs.utimesSync(p, a, m), cb),
  realpath: (p: string, cb: Callback<string>) => viaSync(() => fs.realpathSync(p), cb),
};

function mutexFor(lockPath: string): Mutex {
  let m = mutexes.get(lockPath);
  if (!m) {
    m = new Mutex();
    mutexes.set(lockPath, m);
  }
  return m;
}

export function lockPathFor(rootPath: string): string {
  return `${rootPath}.lock`;
}

/** Runs `fn` while holding the lock for `rootPath`; the root's parent directory must exist. */
export async function withLocalLock<T>(rootPath: string, fn: () => Promise<T>): Promise<T> {
  const lockPath = lockPathFor(rootPath);
  return mutexFor(lockPath).runExclusive(async () => {
    removeDeadSpares(lockPath);
    const release = takeFree(lockPath) ?? (await acquire(rootPath, lockPath));
    try {
      return await fn();
    } finally {
      await release().catch(() => {});
    }
  });
}

/**
 * Takes the lock at once if nobody holds it: the same exclusive create (or link) as below, without
 * proper-lockfile's machinery (its options, retry operation and mtime probe cost more than the
 * lock itself, and nearly every write finds the lock free). Null when something is at the path:
 * acquire() then checks whether it is stale and waits. While held, the lock's mtime is refreshed
 * every LOCK_UPDATE_MS like proper-lockfile does; a lock taken over meanwhile (this process stalled
 * past LOCK_STALE_MS) is left to its new owner on release.
 */
function takeFree(lockPath: string): (() => Promise<void>) | null {
  try {
    createLockFile(lockPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return null;
    throw new RuntimeError('IO', code ?? 'EIO');
  }
  let ino: number;
  try {
    ino = fs.statSync(lockPath).ino;
  } catch (err) {
    held.delete(lockPath);
    throw new RuntimeError('IO', (err as NodeJS.ErrnoException).code ?? 'EIO');
  }
  let ours = true;
  const timer = setInterval(() => {
    try {
      if (fs.statSync(lockPath).ino !== ino) throw new Error('taken over');
      const now = new Date();
      fs.utimesSync(lockPath, now, now);
    } catch {
      ours = false;
      held.delete(lockPath);
      clearInterval(timer);
    }
  }, LOCK_UPDATE_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    if (ours) releaseLockSync(lockPath);
  };
}

/**
 * Takes the cross-process lock, polling with a short, jittered, growing pause: writes hold it for
 * about a millisecond, so waiters must look again soon. (proper-lockfile's own retry schedule is
 * not used: it precomputes its whole table of timeouts on every call.)
 */
async function acquire(rootPath: string, lockPath: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await lockfile.lock(rootPath, {
        lockfilePath: lockPath,
        realpath: false,
        stale: LOCK_STALE_MS,
        update: LOCK_UPDATE_MS,
        retries: 0,
        fs: syncLockFs,
        // A compromised lock (its directory removed or taken over after we stalled past the stale
        // threshold) must not crash the process; the write in progress still completes atomically.
        onCompromised: () => {
          // No longer ours: its release is not called, and whatever is at the path is another's.
          held.delete(lockPath);
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ELOCKED') throw new RuntimeError('IO', code ?? 'EIO');
      if (Date.now() >= deadline) throw new RuntimeError('BUSY');
      const ceiling = Math.min(8, 1 + attempt);
      await new Promise((resolve) => setTimeout(resolve, 0.5 + Math.random() * ceiling));
    }
  }
}
