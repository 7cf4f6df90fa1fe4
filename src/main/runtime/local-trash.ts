/**
 * LocalTrash: what a local write or delete lets go of, off the request's path. On ext4, freeing a
 * file's blocks once it has been fsynced costs 0.2 to 0.6 ms (with the `discard` mount option a
 * discard is sent to the disk and waited for), most of a delete's time and a third of an edit's.
 * - A deleted tree, symlink or big file is renamed (microseconds) into `<root>.trash` beside the
 *   scope root and removed there on the thread pool once the command is done.
 * - A deleted or replaced small file is kept there instead, as a spare: an edit links the version it
 *   replaces into the trash before renaming over it, so the rename frees nothing, and the next write
 *   moves a spare to its temp name and writes over it (no block freed, none allocated, no new inode
 *   whose directory entry the fsync must also write). Deferring the free alone measured no faster
 *   (it ran during the next request); reusing the file instead saves about 0.3 ms per edit here.
 *
 * Spares and crashes: a spare's blocks are written only after its last name in the root is gone
 * from the disk too. A spare kept when this root's fsyncs had reached n is reused only once an
 * fsync started after that has finished: on a journalling file system that fsync committed the
 * rename or delete that let go of it (transactions commit in order, and the fsynced file was
 * changed later), so a crash can never show the old name with a later write's bytes. Spares are
 * kept on ext2/3/4 and XFS only (btrfs and others log per file; nothing is kept there). An ext4
 * made without a journal (ext2 too) orders nothing: there a crash within the seconds before
 * writeback may show an old name with a later write's bytes, but the write without spares is no
 * safer there (the freed blocks go to whatever file is allocated next, of any program), and a
 * spare only ever holds this root's memory. Only a regular file of this user with no other name is
 * kept or reused (checked again on the open descriptor before a byte is written), at most
 * SPARE_LIMIT per root, and none over SPARE_MAX_BYTES.
 *
 * Privacy: a spare holds the old version's bytes until it is overwritten or freed: all spares are
 * freed once no write has used them for SPARE_IDLE_MS (30 s) and when the process exits.
 *
 * Security: the trash is only reached through a descriptor-pinned path (`/proc/self/fd/N`), and
 * only when what is at `<root>.trash` is a real directory of this user whose real location is
 * exactly beside the root's real path: a symlink planted there (a cloned repository can hold one)
 * is never followed. Otherwise, and on any error, the caller removes in place as it would without
 * a trash. Entry names are unique (unique-name.ts), so a background removal only ever removes what
 * this process put there. A `.gitignore` of `*` keeps the trash out of git in a project checkout.
 *
 * A process that dies before its removals ran leaves entries behind; the next process to use the
 * trash removes those of processes that are gone. The trash also lends a scratch directory on the
 * root's filesystem (for probing how it stamps changes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DIR_MODE, FILE_MODE, PINNING, pinnedPath } from './local-disk';
import { uniqueName } from './unique-name';

const fsc = fs.constants;
const GITIGNORE = '.gitignore';

/** How many spare files are kept per root at most, and the largest file kept. */
export const SPARE_LIMIT = 8;
export const SPARE_MAX_BYTES = 64 * 1024;
/** Spares are freed once no write has used them for this long, ms (and when the process exits). */
export const SPARE_IDLE_MS = 30_000;
/** statfs types of the file systems spares are kept on: ext2/3/4, XFS (see the header). */
const ORDERED_FILE_SYSTEMS = new Set([0xef53, 0x58465342]);

/** A spare file in the trash: its name, and how many fsyncs of its root had started when it was kept. */
interface Spare {
  readonly name: string;
  readonly after: number;
}

/** The spares of one root, with the trash held open while it has any. */
interface RootSpares {
  readonly trash: OpenTrash;
  /** Oldest first. */
  readonly kept: Spare[];
  /** Fsyncs started on this root (by this process), and the highest of them known finished. */
  started: number;
  synced: number;
}

/** Whether a file may be kept as a spare: a small regular file of this user with no other name. */
function mayKeep(stat: fs.Stats): boolean {
  return stat.isFile() && stat.nlink === 1 && stat.uid === process.getuid?.() && stat.size <= SPARE_MAX_BYTES;
}

/** Every LocalTrash holding spares: their spares are freed when the process exits. */
const holding = new Set<LocalTrash>();
let exitHooked = false;

export function trashPathFor(rootReal: string): string {
  return `${rootReal}.trash`;
}

/** The trash beside one root, open and checked; `close()` when done with it. */
interface OpenTrash {
  /** The pinned path of the trash directory. */
  readonly dir: string;
  readonly fd: number;
  close(): void;
}

export class LocalTrash {
  /** Trash directories whose leftovers this process has looked for already. */
  private readonly swept = new Set<string>();
  /** Per root real path: its spares, or null where none are kept (no trash, or an unlisted file system). */
  private readonly spares = new Map<string, RootSpares | null>();
  private idle: NodeJS.Timeout | null = null;

  /** `spareIdleMs`: how long spares outlive the last write that used them (SPARE_IDLE_MS). */
  constructor(private readonly spareIdleMs = SPARE_IDLE_MS) {}

  /**
   * Moves the file, symlink or directory at `source` (a pinned path inside the root whose real path
   * is `rootReal`; `stat` its lstat) into the trash, where it is kept as a spare or freed in the
   * background. False when it cannot (nothing was moved): the caller removes it in place.
   */
  discard(rootReal: string, source: string, stat: fs.Stats): boolean {
    const spares = mayKeep(stat) ? this.sparesOf(rootReal) : null;
    const keep = spares !== null && spares.kept.length < SPARE_LIMIT;
    const trash = keep ? spares.trash : this.open(rootReal);
    if (!trash) return false;
    const name = uniqueName();
    try {
      fs.renameSync(source, path.join(trash.dir, name));
    } catch {
      if (!keep) trash.close();
      return false;
    }
    if (keep) spares.kept.push({ name, after: spares.started });
    else free(trash, name);
    return true;
  }

  /**
   * Just before a write renames over the file at `target` (pinned; `stat` its lstat): keeps that
   * version as a spare by a second name in the trash, so the rename frees nothing. Returns what
   * undoes it if the rename fails, or null when the file is not kept.
   */
  retire(rootReal: string, target: string, stat: fs.Stats): (() => void) | null {
    if (!mayKeep(stat)) return null;
    const spares = this.sparesOf(rootReal);
    if (!spares || spares.kept.length >= SPARE_LIMIT) return null;
    const spare = { name: uniqueName(), after: spares.started };
    try {
      fs.linkSync(target, path.join(spares.trash.dir, spare.name));
    } catch {
      return null;
    }
    spares.kept.push(spare);
    return () => {
      // Released meanwhile: the release removed it.
      if (this.spares.get(rootReal) !== spares) return;
      const at = spares.kept.indexOf(spare);
      if (at < 0) return;
      spares.kept.splice(at, 1);
      fs.rmSync(path.join(spares.trash.dir, spare.name), { force: true });
    };
  }

  /**
   * A spare of this root that is safe to write (see the header) moved to `temp` (a new pinned path
   * in the root) and opened for writing with its mode set to `mode`; null when there is none (the
   * caller creates the file). `size` is what it held: the caller truncates to what it writes.
   */
  takeSpare(rootReal: string, temp: string, mode: number): { fd: number; size: number } | null {
    const spares = this.spares.get(rootReal);
    if (!spares) return null;
    const at = spares.kept.findIndex((s) => s.after < spares.synced);
    if (at < 0) return null;
    const [spare] = spares.kept.splice(at, 1);
    this.touch();
    const kept = path.join(spares.trash.dir, spare!.name);
    try {
      fs.renameSync(kept, temp);
    } catch {
      fs.rm(kept, { force: true }, () => {});
      return null;
    }
    let fd: number | null = null;
    try {
      // O_NONBLOCK: a FIFO swapped in fails the open instead of waiting for a reader.
      fd = fs.openSync(temp, fsc.O_WRONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.nlink !== 1 || stat.uid !== process.getuid?.()) throw new Error('not a spare');
      if ((stat.mode & 0o7777) !== mode) fs.fchmodSync(fd, mode);
      return { fd, size: stat.size };
    } catch {
      if (fd !== null) fs.closeSync(fd);
      // Only the name this process gave it goes; another name keeps its file.
      fs.rmSync(temp, { force: true });
      return null;
    }
  }

  /**
   * Before an fsync of a file in this root: returns what to call once it has finished (bound to the
   * spares kept now: spares kept after a release never count an fsync started before it).
   */
  syncing(rootReal: string): () => void {
    const spares = this.spares.get(rootReal);
    if (!spares) return () => {};
    const n = ++spares.started;
    return () => {
      if (n > spares.synced) spares.synced = n;
    };
  }

  /** Frees every spare (synchronously with `now`, else in the background) and lets go of the trashes. */
  releaseSpares(now = false): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    for (const spares of this.spares.values()) {
      if (!spares) continue;
      const { trash, kept } = spares;
      if (now) {
        try {
          for (const { name } of kept) fs.rmSync(path.join(trash.dir, name), { force: true });
          fs.closeSync(trash.fd);
        } catch {}
        continue;
      }
      let left = kept.length;
      if (left === 0) trash.close();
      for (const { name } of kept) fs.rm(path.join(trash.dir, name), { force: true }, () => --left === 0 && trash.close());
    }
    this.spares.clear();
    holding.delete(this);
  }

  /** The spares of one root, the trash opened and the file system checked on first use; null where none are kept. */
  private sparesOf(rootReal: string): RootSpares | null {
    let spares = this.spares.get(rootReal);
    if (spares === undefined) {
      spares = null;
      const trash = this.open(rootReal);
      if (trash) {
        try {
          if (fs.fstatSync(trash.fd).dev === fs.statSync(rootReal).dev && ORDERED_FILE_SYSTEMS.has(fs.statfsSync(rootReal).type)) spares = { trash, kept: [], started: 0, synced: 0 };
        } catch {}
        if (!spares) trash.close();
      }
      this.spares.set(rootReal, spares);
      if (spares) this.hold();
    }
    if (spares) this.touch();
    return spares;
  }

  private hold(): void {
    holding.add(this);
    if (exitHooked) return;
    exitHooked = true;
    process.once('exit', () => {
      for (const trash of holding) trash.releaseSpares(true);
    });
  }

  /** Spares live on while writes use them. */
  private touch(): void {
    if (this.idle) this.idle.refresh();
    else {
      this.idle = setTimeout(() => this.releaseSpares(), this.spareIdleMs);
      this.idle.unref();
    }
  }

  /**
   * Runs `fn` with a new empty directory of its own in the trash (on the root's filesystem, outside
   * the root, so the root's listings see no change), removed afterwards; `fallback` when there is
   * no trash or it lies on another filesystem than the root.
   */
  withScratchDirectory<T>(rootReal: string, fallback: T, fn: (dir: string) => T): T {
    const trash = this.open(rootReal);
    if (!trash) return fallback;
    const dir = path.join(trash.dir, uniqueName());
    try {
      if (fs.statSync(trash.dir).dev !== fs.statSync(rootReal).dev) return fallback;
      fs.mkdirSync(dir, { mode: DIR_MODE });
      return fn(dir);
    } catch {
      return fallback;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      trash.close();
    }
  }

  private open(rootReal: string): OpenTrash | null {
    if (!PINNING) return null;
    const trashPath = trashPathFor(rootReal);
    let fd = openDirectory(trashPath);
    if (fd === null) {
      try {
        fs.mkdirSync(trashPath, { mode: DIR_MODE });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      fd = openDirectory(trashPath);
      if (fd === null) return null;
    }
    const dir = pinnedPath(fd);
    const close = () => fs.close(fd, () => {});
    try {
      // Where the directory we hold really is, and whose it is.
      if (fs.readlinkSync(dir) !== trashPath || fs.fstatSync(fd).uid !== process.getuid?.()) {
        fs.closeSync(fd);
        return null;
      }
      if (!this.swept.has(trashPath)) {
        this.swept.add(trashPath);
        sweep(dir);
      }
    } catch {
      fs.closeSync(fd);
      return null;
    }
    return { dir, fd, close };
  }
}

/** Opens a directory without following a symlink at its last component; null if it cannot. */
function openDirectory(p: string): number | null {
  try {
    return fs.openSync(p, fsc.O_RDONLY | fsc.O_DIRECTORY | fsc.O_NOFOLLOW);
  } catch {
    return null;
  }
}

/** Removes one entry (a file, a symlink or a tree) on the thread pool, then lets go of the trash. */
function free(trash: OpenTrash, name: string): void {
  fs.rm(path.join(trash.dir, name), { recursive: true, force: true }, () => trash.close());
}

/**
 * Writes the `.gitignore` if missing, and removes the entries of processes that are gone (rare:
 * only a crash leaves any), synchronously while the trash is held open.
 */
function sweep(dir: string): void {
  try {
    const fd = fs.openSync(path.join(dir, GITIGNORE), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
    try {
      fs.writeSync(fd, '*\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  for (const name of fs.readdirSync(dir)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    } catch {}
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
