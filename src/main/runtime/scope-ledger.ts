/**
 * ScopeLedger: what this process knows of a local scope root's directories as its own changes
 * left them, so that a write does not read a directory to learn what it already knows:
 * - the scope's file count (the cap's), from a walk that recorded the mtime of every directory it
 *   read, reused while each directory still has that mtime (one stat each);
 * - which directories hold no temp file of a dead writer (swept, or walked and seen without one),
 *   so the sweep before a write is skipped for them.
 *
 * Why: on ext4 a readdir of a directory changed since it was last read updates its atime, which
 * dirties its inode, and the write's fsync then commits that too. Sweeping the target directory
 * and walking the scope to count it made every create about 0.15 ms slower, more than the walk's
 * own time.
 *
 * Invariant: every change this process makes to a directory of a root, under the scope lock,
 * goes through `change()`. The records follow a change only if the directory was exactly as
 * recorded right before it (nobody else had changed it since); otherwise the root's count record
 * is dropped (the next count walks) and the directory is no longer known clean (the next write
 * sweeps). A change the count cannot follow (a tree removed or moved, directories created) drops
 * the count record too. Callers use the ledger only where a directory's mtime always moves on a
 * change (LocalRuntime.stampsMove); elsewhere they walk and sweep every time. Other Cairn
 * processes change a root only under its lock, so never inside one of these changes; a writer that
 * takes no lock (an editor, git) and adds a file in the microseconds between a change and its stat
 * goes uncounted until that directory changes again (the cap is a guard against runaway agents,
 * off by at most what it added).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isVisibleName } from '../../common/memory/paths';
import { TEMP_PREFIX } from './local-disk';

/**
 * How many counted files an entry is: a regular file 1 (0 if its name does not count), a symlink 0,
 * a directory unknown (null: its files are not known one by one).
 */
export function countedFiles(entry: fs.Stats, name: string): number | null {
  if (entry.isFile()) return isVisibleName(name) ? 1 : 0;
  return entry.isDirectory() ? null : 0;
}

/** A change about to be made to one directory; `done` once it is made. */
export interface DirectoryChange {
  /** Whether the directory is known to hold no temp file of a dead writer (no sweep needed). */
  readonly clean: boolean;
  /**
   * The change is made: the directory's mtime now, and how many counted files it gained (negative:
   * lost; null: a change the count cannot follow). `clean`: whether it is clean now (default: as
   * it was).
   */
  done(mtimeNs: bigint, gained: number | null, clean?: boolean): void;
}

interface CountRecord {
  files: number;
  /** Every directory the walk read (real paths), with its mtime then. */
  readonly dirs: Map<string, bigint>;
}

/** A directory's mtime (ns); undefined when it is gone. */
export const mtimeOf = (dir: string): bigint | undefined => fs.statSync(dir, { bigint: true, throwIfNoEntry: false })?.mtimeNs;

export class ScopeLedger {
  private readonly counts = new Map<string, CountRecord>();
  /** Directories (real paths) known clean, with their mtime when they were. */
  private readonly clean = new Map<string, bigint>();

  /**
   * Counted files in the scope at `rootReal`, up to `limit`: from the record while every directory
   * it holds keeps its mtime, else by a walk (recorded when `record` and it was complete).
   */
  count(rootReal: string, limit: number, record: boolean): number {
    const known = record ? this.counts.get(rootReal) : undefined;
    if (known) {
      let unchanged = true;
      for (const [dir, mtime] of known.dirs) {
        if (mtimeOf(dir) !== mtime) {
          unchanged = false;
          break;
        }
      }
      if (unchanged) return Math.min(known.files, limit);
    }
    this.counts.delete(rootReal);
    const dirs = new Map<string, bigint>();
    let files = 0;
    let complete = true;
    const walk = (dir: string): void => {
      let mtime: bigint | undefined;
      let entries: fs.Dirent[];
      try {
        // Stat before readdir: a change in between leaves a newer mtime, so the record is not reused.
        mtime = mtimeOf(dir);
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        complete = false;
        return;
      }
      let temps = false;
      for (const e of entries) {
        if (files >= limit) {
          complete = false;
          return;
        }
        if (e.name.startsWith(TEMP_PREFIX)) temps = true;
        if (!isVisibleName(e.name)) continue;
        if (e.isFile()) files++;
        else if (e.isDirectory()) walk(path.join(dir, e.name));
      }
      if (mtime === undefined) complete = false;
      else {
        dirs.set(dir, mtime);
        if (record && !temps) this.clean.set(dir, mtime);
      }
    };
    walk(rootReal);
    if (record && complete) this.counts.set(rootReal, { files, dirs });
    return Math.min(files, limit);
  }

  /** Before this process changes directory `dir` (a real path) of `rootReal`, whose mtime is `mtimeNs` now. */
  change(rootReal: string, dir: string, mtimeNs: bigint): DirectoryChange {
    const record = this.counts.get(rootReal);
    const followed = record !== undefined && record.dirs.get(dir) === mtimeNs;
    // Changed by someone else since (or a directory the walk did not read): the next count walks.
    if (record && !followed) this.counts.delete(rootReal);
    const clean = this.clean.get(dir) === mtimeNs;
    return {
      clean,
      done: (after, gained, stillClean = clean) => {
        if (followed && this.counts.get(rootReal) === record) {
          if (gained === null) this.counts.delete(rootReal);
          else {
            record.dirs.set(dir, after);
            record.files += gained;
          }
        }
        if (stillClean) this.clean.set(dir, after);
        else this.clean.delete(dir);
      },
    };
  }

  /** Drops what is known of `rootReal` (every root when omitted): the next count walks, the next writes sweep. */
  forget(rootReal?: string): void {
    if (rootReal === undefined) {
      this.counts.clear();
      this.clean.clear();
      return;
    }
    this.counts.delete(rootReal);
    for (const dir of this.clean.keys()) if (dir === rootReal || dir.startsWith(`${rootReal}${path.sep}`)) this.clean.delete(dir);
  }
}
