/**
 * The atomic write of one file on the local disk: a temp file in the target's own directory,
 * written whole and fsynced, then renamed over the name. A reader sees the whole old file or the
 * whole new one, never a mix; a crash leaves at most a temp file, which the next write to that
 * directory sweeps.
 *
 * Invariants: the caller holds the scope's write lock (every writer of a root takes it, so any
 * temp file found while holding it belongs to a writer that died mid-write), and passes `dir` as
 * the pinned path of an already-contained directory (containment.ts). The rename replaces a
 * symlink at the name, never its target. Files are created 0600.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { RuntimeError } from '../runtime';
import { FILE_MODE, lstatOrNull } from './containment';

const fsc = fs.constants;
const fsync = promisify(fs.fsync);

/** How a write's temp file is named: hidden, so never listed or counted. */
export const TEMP_PREFIX = '.cairn-tmp-';

/** Removes temp files left in `dir` by writers that died mid-write (the caller holds the lock). */
function removeDeadWritersTemps(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

export interface AtomicWriteOptions {
  /** EEXIST if anything (a file, a directory, a dangling symlink) is at the name. */
  readonly exclusive: boolean;
  /** Called right before the rename; throws to abandon the write (a late containment check). */
  readonly beforeRename?: () => void;
  /**
   * Whether temp files of dead writers in `dir` are removed first (default: yes). Only where every
   * writer of the directory holds the caller's lock; a directory shared by files under different
   * locks (Cairn's home) keeps them.
   */
  readonly sweepTemps?: boolean;
}

/**
 * Writes `data` to `name` in `dir`. A directory at the name is EISDIR; nothing is left behind on
 * any failure.
 */
export async function writeAtomically(dir: string, name: string, data: Uint8Array, options: AtomicWriteOptions): Promise<void> {
  const target = path.join(dir, name);
  const existing = lstatOrNull(target);
  if (existing && options.exclusive) throw new RuntimeError('EEXIST');
  if (existing?.isDirectory()) throw new RuntimeError('EISDIR');
  if (options.sweepTemps !== false) removeDeadWritersTemps(dir);
  const temp = path.join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  const fd = fs.openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
  try {
    try {
      for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written, written);
      // On the thread pool: the one slow call of a write must not block the event loop.
      await fsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}
