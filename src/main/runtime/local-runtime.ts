/**
 * LocalRuntime: the Runtime on this machine's disk.
 *
 * Security invariants (the containment half of the envelope):
 * - every operation resolves the deepest existing ancestor of its target with realpath and refuses
 *   (ESCAPE) unless it lies inside the root's realpath, and the root's inside its anchor's;
 * - a symlink at the final component is never followed for a write: writes go to a temp file in the
 *   resolved parent directory and are renamed over the name, replacing a link rather than its target;
 * - writes, renames and removals act through the parent directory pinned by a file descriptor
 *   (`/proc/self/fd/N/name` on Linux) whose current location is checked after it is opened, so a
 *   directory swapped for a symlink between check and write cannot redirect them outside the root.
 *   Where /proc is missing (macOS) the checked real path is re-checked just before it is used.
 * Files are created 0600 and directories 0700: memory can hold private notes.
 *
 * Speed: metadata calls (realpath, lstat, readdir, open, rename) and reads of memory files (at most
 * 100 KiB) are synchronous: each takes microseconds on a local disk, a tenth of a thread-pool round
 * trip. The one slow call, fsync, stays asynchronous so it never blocks the event loop. A write
 * reads no directory it already knows (ScopeLedger: the cap's count, the sweep of dead writers'
 * temp files) and reads of memory files leave atimes alone: on ext4 either would dirty an inode
 * that the next fsync must commit. A write's temp file is a spare of the trash when it has one (a
 * replaced or deleted file, written over: see local-trash.ts), and the version an edit replaces is
 * kept as one, so writes neither free nor allocate blocks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { isListedName, isVisibleName } from '../../common/memory/paths';
import { DIR_MODE, FILE_MODE, PINNING, TEMP_PREFIX, openForReading, pinnedPath } from './local-disk';
import { withLocalLock } from './local-lock';
import { LocalTrash } from './local-trash';
import { ScopeLedger, countedFiles, mtimeOf, type DirectoryChange } from './scope-ledger';
import { uniqueName } from './unique-name';
import {
  RuntimeError,
  type EntryStat,
  type EntryType,
  type FileContent,
  type ListOptions,
  type ListedEntry,
  type Runtime,
  type ScopeRoot,
} from './runtime';

const fsc = fs.constants;
const fsync = promisify(fs.fsync);
/** How many recently written files readHeads can answer for from memory, and the largest kept. */
const WRITTEN_KEPT = 32;
const WRITTEN_MAX_BYTES = 16 * 1024;
/**
 * A directory changed this recently when it was read may change again without its mtime moving:
 * where a disk stamps changes with the clock tick (1 to 10 ms; Linux before multigrain timestamps,
 * 6.13), every change within one tick gets the same mtime. Such a read ("racy", as git calls it) is
 * reused only on a disk whose stamps always move once read (probed once per root, in a scratch
 * directory of the trash beside it; anything that fails to probe counts as no).
 */
const RACY_NS = 20_000_000n;

/**
 * Whether a change to the directory `dir`, made right after its mtime was read, always gets a new
 * mtime (multigrain or fine-grained timestamps): changed three times microseconds apart with a
 * stat before each change; with stamps per clock tick at least one change would keep the stamp.
 */
function stampsAlwaysMove(dir: string): boolean {
  for (let i = 0; i < 3; i++) {
    const before = fs.statSync(dir, { bigint: true }).mtimeNs;
    fs.closeSync(fs.openSync(path.join(dir, String(i)), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE));
    if (fs.statSync(dir, { bigint: true }).mtimeNs === before) return false;
  }
  return true;
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException)?.code ?? 'EIO';
}

/** Maps an OS error to a RuntimeError; RuntimeErrors pass through. */
function toRuntimeError(err: unknown): RuntimeError {
  if (err instanceof RuntimeError) return err;
  const code = errno(err);
  switch (code) {
    case 'ENOENT':
      return new RuntimeError('ENOENT');
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new RuntimeError('EEXIST');
    case 'ENOTDIR':
      return new RuntimeError('ENOTDIR');
    case 'EISDIR':
      return new RuntimeError('EISDIR');
    case 'EINVAL':
      return new RuntimeError('EINVAL');
    default:
      return new RuntimeError('IO', code);
  }
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

function typeOf(st: fs.Stats): EntryType {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

const realpath = (p: string): string => fs.realpathSync.native(p);

function lstatOrNull(p: string): fs.Stats | null {
  return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
}

/**
 * A missing path is found by a stat that does not throw: a missing scope root is met on every
 * read of a session (an empty scope), and a thrown ENOENT costs tens of microseconds.
 */
function exists(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false }) !== undefined;
}

function realpathOrNull(p: string): string | null {
  if (!exists(p)) return null;
  try {
    return realpath(p);
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Opens a path that was just resolved (no symlinks in it). O_NOFOLLOW refuses a symlink swapped
 * in at its last component since; that is reported as an escape.
 */
function openResolved(resolved: string, flags: number, reading = false): number {
  try {
    return reading ? openForReading(resolved, flags | fsc.O_NOFOLLOW) : fs.openSync(resolved, flags | fsc.O_NOFOLLOW);
  } catch (err) {
    const code = errno(err);
    if (code === 'ELOOP') throw new RuntimeError('ESCAPE');
    // With O_DIRECTORY, Linux reports a symlink as ENOTDIR rather than ELOOP.
    if (code === 'ENOTDIR' && lstatOrNull(resolved)?.isSymbolicLink()) throw new RuntimeError('ESCAPE');
    throw toRuntimeError(err);
  }
}

/**
 * Realpath of the deepest existing ancestor of `target` (itself included), with the missing
 * remainder appended. Stops climbing at `stop`.
 */
function resolveDeepest(target: string, stop: string, likelyMissing = false): { real: string; missing: string[] } {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    // Climbing (or told the target is likely missing): a path seen missing by stat is skipped
    // without a throwing realpath (one that appears or goes in between is settled below).
    if ((likelyMissing || missing.length > 0) && current !== stop && !exists(current)) {
      const parent = path.dirname(current);
      if (parent === current) throw new RuntimeError('ENOENT');
      missing.unshift(path.basename(current));
      current = parent;
      continue;
    }
    try {
      return { real: realpath(current), missing };
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOTDIR') throw new RuntimeError('ENOTDIR');
      if (code !== 'ENOENT') throw toRuntimeError(err);
      const parent = path.dirname(current);
      if (current === stop || parent === current) throw new RuntimeError('ENOENT');
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Removes temp files left by a writer that died mid-write. Callers hold the scope lock, and every
 * writer of the root takes that lock, so any temp file present now belongs to a dead writer.
 */
function removeStaleTemps(dir: string, own: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX) && name !== own) {
      try {
        fs.unlinkSync(path.join(dir, name));
      } catch {}
    }
  }
}

/** One directory's listed entries (sorted by name) and its mtime when they were read. */
interface DirectoryEntries {
  readonly mtimeNs: bigint;
  /** Read within RACY_NS of its last change: reused only where stamps always move. */
  readonly racy: boolean;
  readonly entries: ReadonlyArray<{ readonly name: string; readonly type: 'file' | 'directory'; readonly size: number; readonly mtimeMs: number }>;
}

export interface LocalRuntimeOptions {
  /**
   * Fault injection for tests only: called after a directory was resolved and checked, before it
   * is used, so a test can swap it in that window (a race no real timing reproduces reliably).
   */
  readonly afterCheck?: (resolvedDir: string) => Promise<void>;
  /**
   * For tests only: treat every disk as stamping changes per clock tick (a kernel before 6.13),
   * which this machine's kernel cannot be made to do.
   */
  readonly coarseStamps?: boolean;
  /** How long deleted and replaced files are kept as spares after the last write that used them, ms (LocalTrash; 30 s). */
  readonly spareIdleMs?: number;
}

/** A change on a disk where the ledger is not used: nothing known clean, nothing recorded. */
const UNTRACKED: DirectoryChange = { clean: false, done: () => {} };

export class LocalRuntime implements Runtime {
  readonly label = 'local';
  /** Anchors (Cairn's home, a checkout) are resolved once per process. */
  private readonly anchorReal = new Map<string, string>();
  /**
   * Scope roots' realpaths, refreshed by every write (withLock) and reused by reads. A stale entry
   * is harmless: every target is still resolved and checked against it, so a root swapped for a
   * symlink since fails containment rather than being followed.
   */
  private readonly rootReal = new Map<string, string>();
  /** Roots found missing whose existing part was found contained (see resolveRoot). */
  private readonly missingRoots = new Set<string>();
  /** Listings that may be reused while none of their directories changed (ListOptions.reuse). */
  private readonly listings = new Map<string, { dirs: Map<string, bigint>; racy: boolean; result: ListedEntry[] }>();
  /**
   * Each directory's entries as last read whole, by root and host path, with its mtime then: a
   * listing after a change in one directory reads that directory again, not the whole tree
   * (ListOptions.reuse).
   */
  private readonly directories = new Map<string, DirectoryEntries>();
  /** Per root's real path: whether its directories' stamps always move (see stampsAlwaysMove). */
  private readonly movingStamps = new Map<string, boolean>();
  /** Where deleted and replaced files go: freed off the request's path, or kept as spares for later writes. */
  private readonly trash: LocalTrash;
  /** Scope counts and clean directories as this process's own changes left them. */
  private readonly ledger = new ScopeLedger();
  /**
   * The last files written (by root real path and relative path): their bytes and the size and
   * mtime they were left with, for readHeads (an agent's search right after its writes).
   */
  private readonly written = new Map<string, { readonly size: number; readonly mtimeMs: number; readonly data: Uint8Array }>();

  constructor(private readonly options: LocalRuntimeOptions = {}) {
    this.trash = new LocalTrash(options.spareIdleMs);
  }

  private resolveAnchor(anchor: string, create: boolean): string | null {
    const cached = this.anchorReal.get(anchor);
    if (cached) return cached;
    let real = realpathOrNull(anchor);
    if (!real && create) {
      fs.mkdirSync(anchor, { recursive: true, mode: DIR_MODE });
      real = realpath(anchor);
    }
    if (real) this.anchorReal.set(anchor, real);
    return real;
  }

  /** The root's realpath, checked against its anchor; null when it does not exist and !create. */
  private resolveRoot(root: ScopeRoot, create: boolean, fresh = false): string | null {
    const cached = fresh ? undefined : this.rootReal.get(root.path);
    if (cached) return cached;
    const anchor = this.resolveAnchor(root.anchor, create);
    if (!anchor) return null;
    let real = realpathOrNull(root.path);
    if (!real) {
      if (!create) {
        // A missing root reads as empty, but only if the part of it that exists is contained:
        // checked the first time it is found missing. (A swap of that part since could only turn
        // "empty" into "escapes": nothing is read either way, and a write checks afresh.)
        if (this.missingRoots.has(root.path)) return null;
        let deepest: { real: string } | null = null;
        try {
          deepest = resolveDeepest(root.path, root.anchor, true);
        } catch {}
        if (deepest && !isInside(deepest.real, anchor)) throw new RuntimeError('ESCAPE');
        this.missingRoots.add(root.path);
        return null;
      }
      const deepest = resolveDeepest(root.path, root.anchor);
      if (!isInside(deepest.real, anchor)) throw new RuntimeError('ESCAPE');
      fs.mkdirSync(path.join(deepest.real, ...deepest.missing), { recursive: true, mode: DIR_MODE });
      real = realpath(root.path);
    }
    this.missingRoots.delete(root.path);
    if (!isInside(real, anchor)) throw new RuntimeError('ESCAPE');
    this.rootReal.set(root.path, real);
    return real;
  }

  /**
   * The host path of `rel` under the resolved root. With `followFinal` the final component is
   * resolved too (a symlink followed, checked); otherwise only its parent is, and the name appended.
   */
  private resolveTarget(rootReal: string, rel: readonly string[], followFinal: boolean): string {
    if (rel.length === 0) return rootReal;
    const full = path.join(rootReal, ...rel);
    const start = followFinal ? full : path.dirname(full);
    const { real, missing } = resolveDeepest(start, rootReal);
    if (!isInside(real, rootReal)) throw new RuntimeError('ESCAPE');
    const resolved = path.join(real, ...missing);
    return followFinal ? resolved : path.join(resolved, rel[rel.length - 1]!);
  }

  /**
   * Creates the directory `rel` (and parents) inside the root; returns its checked realpath. With
   * `opensAsDirectory`, an existing path is returned as is: the caller opens it with O_DIRECTORY.
   */
  private ensureDir(rootReal: string, rel: readonly string[], opensAsDirectory = false): string {
    const full = path.join(rootReal, ...rel);
    const { real, missing } = resolveDeepest(full, rootReal);
    if (!isInside(real, rootReal)) throw new RuntimeError('ESCAPE');
    if (missing.length === 0 && opensAsDirectory) return real;
    if (missing.length > 0) {
      try {
        fs.mkdirSync(path.join(real, ...missing), { recursive: true, mode: DIR_MODE });
      } catch (err) {
        if (errno(err) === 'EEXIST') throw new RuntimeError('ENOTDIR');
        throw toRuntimeError(err);
      }
    }
    let after: string;
    try {
      after = realpath(full);
    } catch (err) {
      throw toRuntimeError(err);
    }
    if (!isInside(after, rootReal)) throw new RuntimeError('ESCAPE');
    if (!fs.statSync(after).isDirectory()) throw new RuntimeError('ENOTDIR');
    return after;
  }

  /**
   * Runs `fn` with a path through which the directory `dirRel` (created if `create`) is reached
   * race-free: a descriptor-pinned path on Linux, else the checked real path.
   */
  private async withPinnedDir<T>(rootReal: string, dirRel: readonly string[], create: boolean, fn: (dir: string, real: string, fd: number | null) => Promise<T>): Promise<T> {
    const real = create ? this.ensureDir(rootReal, dirRel, PINNING) : this.resolveTarget(rootReal, dirRel, true);
    await this.options.afterCheck?.(real);
    if (!PINNING) {
      // Best effort without descriptor paths: re-check as late as possible.
      if (realpathOrNull(real) !== real) throw new RuntimeError('ESCAPE');
      return fn(real, real, null);
    }
    const fd = openResolved(real, fsc.O_RDONLY | fsc.O_DIRECTORY);
    try {
      const pinned = pinnedPath(fd);
      // Where the directory we hold really is now; a swap before the open shows up here.
      const at = fs.readlinkSync(pinned);
      if (!isInside(at, rootReal)) throw new RuntimeError('ESCAPE');
      return await fn(pinned, at, fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  async stat(root: ScopeRoot, rel: readonly string[], follow: boolean): Promise<EntryStat | null> {
    try {
      const rootReal = this.resolveRoot(root, false);
      if (!rootReal) return null;
      const st = lstatOrNull(this.resolveTarget(rootReal, rel, follow));
      return st ? { type: typeOf(st), size: st.size, mtimeMs: st.mtimeMs } : null;
    } catch (err) {
      const e = toRuntimeError(err);
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
      throw e;
    }
  }

  async readFile(root: ScopeRoot, rel: readonly string[], maxBytes: number): Promise<FileContent> {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal) throw new RuntimeError('ENOENT');
    const fd = openResolved(this.resolveTarget(rootReal, rel, true), fsc.O_RDONLY | fsc.O_NONBLOCK, true);
    try {
      const st = fs.fstatSync(fd);
      if (st.isDirectory()) throw new RuntimeError('EISDIR');
      if (!st.isFile()) throw new RuntimeError('NOT_FILE');
      if (st.size > maxBytes) throw new RuntimeError('TOO_LARGE', undefined, st.size);
      // Read to EOF into a buffer up to one byte larger than the cap, so growth since fstat is seen.
      let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(st.size + 1, 4096)));
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
          buffer.copy(grown, 0, 0, length);
          buffer = grown;
        }
        const bytesRead = fs.readSync(fd, buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length > maxBytes) throw new RuntimeError('TOO_LARGE', undefined, length);
      }
      return { data: buffer.subarray(0, length), size: length, mtimeMs: st.mtimeMs };
    } catch (err) {
      throw toRuntimeError(err);
    } finally {
      fs.closeSync(fd);
    }
  }

  async readHeads(
    root: ScopeRoot,
    rels: ReadonlyArray<readonly string[]>,
    bytes: number,
    listed?: ReadonlyArray<{ readonly size: number; readonly mtimeMs: number }>,
  ): Promise<Array<FileContent | null>> {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal) return rels.map(() => null);
    // Files this runtime wrote, still with the size and mtime it left them with, are not read back.
    if (listed) {
      const heads = rels.map((rel, i) => {
        const w = this.written.get(`${rootReal}\0${rel.join('/')}`);
        return w && w.size === listed[i]!.size && w.mtimeMs === listed[i]!.mtimeMs ? { data: w.data.subarray(0, bytes), size: 0, mtimeMs: 0 } : null;
      });
      if (heads.every((h) => h !== null)) return heads;
      const rest = rels.filter((_, i) => heads[i] === null);
      const read = await this.readHeads(root, rest, bytes);
      let next = 0;
      return heads.map((h) => h ?? read[next++]!);
    }
    // Each parent directory is resolved and checked once for the whole batch; the file itself is
    // opened with O_NOFOLLOW (a symlink takes the slow, fully checked path).
    const dirs = new Map<string, string | null>();
    const buffer = Buffer.allocUnsafe(bytes);
    return rels.map((rel) => {
      const parent = rel.slice(0, -1);
      const key = parent.join('/');
      let dir = dirs.get(key);
      if (dir === undefined) {
        try {
          dir = this.resolveTarget(rootReal, parent, true);
        } catch {
          dir = null;
        }
        dirs.set(key, dir);
      }
      if (dir === null) return null;
      let fd: number;
      try {
        fd = openForReading(path.join(dir, rel[rel.length - 1]!), fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
      } catch (err) {
        if (errno(err) !== 'ELOOP') return null;
        try {
          fd = openResolved(this.resolveTarget(rootReal, rel, true), fsc.O_RDONLY | fsc.O_NONBLOCK, true);
        } catch {
          return null;
        }
      }
      try {
        let length = 0;
        while (length < bytes) {
          const n = fs.readSync(fd, buffer, length, bytes - length, null);
          if (n === 0) break;
          length += n;
        }
        return { data: Buffer.from(buffer.subarray(0, length)), size: 0, mtimeMs: 0 };
      } catch {
        return null; // a directory, or unreadable
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  async editFile(root: ScopeRoot, rel: readonly string[], maxBytes: number, change: (data: Uint8Array) => Uint8Array): Promise<Uint8Array> {
    const next = change((await this.readFile(root, rel, maxBytes)).data);
    await this.writeFile(root, rel, next, { exclusive: false });
    return next;
  }

  async createFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, maxFiles: number): Promise<'created' | 'full'> {
    // An existing name is refused first; then a full scope gets no file (nothing is written).
    let full = false;
    await this.writeFile(root, rel, data, { exclusive: true, admit: () => !(full = this.countFilesNow(root, maxFiles) >= maxFiles) });
    return full ? 'full' : 'created';
  }

  async writeFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, options: { exclusive: boolean; admit?: () => boolean }): Promise<void> {
    const name = rel[rel.length - 1];
    if (name === undefined) throw new RuntimeError('EISDIR');
    try {
      const rootReal = this.resolveRoot(root, true)!;
      await this.withPinnedDir(rootReal, rel.slice(0, -1), true, async (dir, real, dirFd) => {
        const target = path.join(dir, name);
        const existing = lstatOrNull(target);
        if (existing && options.exclusive) throw new RuntimeError('EEXIST');
        if (existing?.isDirectory()) throw new RuntimeError('EISDIR');
        // The caller's check (false: no file is written), before the directory changes.
        if (options.admit && !options.admit()) return;
        const change = this.changing(rootReal, dir, real, dirFd);
        let mtimeMs: number;
        const tempName = `${TEMP_PREFIX}${uniqueName()}`;
        const temp = path.join(dir, tempName);
        const spare = this.trash.takeSpare(rootReal, temp, FILE_MODE);
        const fd = spare ? spare.fd : fs.openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
        try {
          for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written, written);
          if (spare && spare.size > data.length) fs.ftruncateSync(fd, data.length);
          // The mtime the file keeps (a rename does not change it).
          mtimeMs = fs.fstatSync(fd).mtimeMs;
          const synced = this.trash.syncing(rootReal);
          const flushed = fsync(fd);
          try {
            // While the thread pool waits for the disk, temp files of dead writers go (still under
            // the lock, before the rename) from a directory not known to be clean of them.
            if (!change.clean) removeStaleTemps(dir, tempName);
          } finally {
            await flushed;
          }
          synced();
        } catch (err) {
          fs.closeSync(fd);
          fs.rmSync(temp, { force: true });
          change.done(this.mtimeOf(dir, dirFd), null, false);
          throw err;
        }
        fs.closeSync(fd);
        // Without pinning, the directory must still be the one we checked.
        if (!PINNING && realpathOrNull(dir) !== dir) {
          fs.rmSync(temp, { force: true });
          change.done(this.mtimeOf(dir, dirFd), null, false);
          throw new RuntimeError('ESCAPE');
        }
        const undo = existing ? this.trash.retire(rootReal, target, existing) : null;
        try {
          fs.renameSync(temp, target);
        } catch (err) {
          undo?.();
          fs.rmSync(temp, { force: true });
          change.done(this.mtimeOf(dir, dirFd), null, false);
          throw err;
        }
        this.wrote(`${rootReal}\0${rel.join('/')}`, { size: data.length, mtimeMs, data });
        // A new file, or one in place of a symlink (which did not count), counts now.
        change.done(this.mtimeOf(dir, dirFd), (isVisibleName(name) ? 1 : 0) - (existing ? countedFiles(existing, name)! : 0), true);
      });
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  /** Keeps what was written to a file (small files only, the last WRITTEN_KEPT of them). */
  private wrote(key: string, file: { readonly size: number; readonly mtimeMs: number; readonly data: Uint8Array }): void {
    this.written.delete(key);
    if (file.size > WRITTEN_MAX_BYTES) return;
    this.written.set(key, file);
    if (this.written.size > WRITTEN_KEPT) this.written.delete(this.written.keys().next().value!);
  }

  async list(root: ScopeRoot, rel: readonly string[], options: ListOptions): Promise<ListedEntry[] | null> {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal) return rel.length === 0 ? [] : null;
    let dir: string;
    try {
      dir = this.resolveTarget(rootReal, rel, true);
      if (!fs.statSync(dir).isDirectory()) throw new RuntimeError('ENOTDIR');
    } catch (err) {
      const e = toRuntimeError(err);
      if (e.code === 'ENOENT') return rel.length === 0 ? [] : null;
      throw e;
    }
    const cacheKey = `${dir}\0${options.depth}\0${options.limit}\0${options.filesOnly === true}`;
    if (options.reuse) {
      const cached = this.listings.get(cacheKey);
      if (
        cached &&
        (!cached.racy || this.stampsMove(rootReal)) &&
        [...cached.dirs].every(([d, mtime]) => fs.statSync(d, { bigint: true, throwIfNoEntry: false })?.mtimeNs === mtime)
      ) {
        return cached.result;
      }
    }
    const out: ListedEntry[] = [];
    const dirs = new Map<string, bigint>();
    let racy = false;
    let files = 0;
    const full = () => (options.filesOnly ? files : out.length) >= options.limit;
    const walk = (hostDir: string, prefix: readonly string[], level: number): void => {
      const entries = this.readDirectory(hostDir, rootReal, options.reuse === true, options.limit - (options.filesOnly ? files : out.length), !options.filesOnly);
      if (!entries) return;
      dirs.set(hostDir, entries.mtimeNs);
      if (entries.racy) racy = true;
      for (const entry of entries.entries) {
        if (full()) return;
        const entryRel = [...prefix, entry.name];
        if (entry.type === 'directory') {
          if (!options.filesOnly) out.push({ rel: entryRel, type: 'directory', size: entry.size, mtimeMs: entry.mtimeMs });
          if (level < options.depth) walk(path.join(hostDir, entry.name), entryRel, level + 1);
        } else {
          out.push({ rel: entryRel, type: 'file', size: entry.size, mtimeMs: entry.mtimeMs });
          files++;
        }
      }
    };
    walk(dir, [], 1);
    if (options.reuse) this.listings.set(cacheKey, { dirs, racy, result: out });
    return out;
  }

  /**
   * The listed files and directories directly in `hostDir`, sorted by name, with the directory's
   * mtime as stat saw it before reading it. With `reuse`, a directory whose mtime is unchanged
   * since it was last read whole is not read again (its files are not stat'ed again either: see
   * ListOptions.reuse). Every whole read is kept for that, also one made without `reuse` (it is
   * fresh). `room` says how many more entries the caller can take (directories count when
   * `dirsCount`): a directory read is cut there, and then not kept.
   */
  private readDirectory(hostDir: string, rootReal: string, reuse: boolean, room: number, dirsCount: boolean): DirectoryEntries | null {
    // Kept per root: which symlinks were followed depends on the root they were checked against.
    const key = `${rootReal}\0${hostDir}`;
    let mtimeNs: bigint;
    let names: fs.Dirent[];
    try {
      // Stat before readdir: a change in between leaves a newer mtime, so the copy kept is read again.
      mtimeNs = fs.statSync(hostDir, { bigint: true }).mtimeNs;
      const known = this.directories.get(key);
      if (reuse && known && known.mtimeNs === mtimeNs && (!known.racy || this.stampsMove(rootReal))) return known;
      names = fs.readdirSync(hostDir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return null;
    }
    const entries: Array<DirectoryEntries['entries'][number]> = [];
    let counted = 0;
    let complete = true;
    for (const entry of names) {
      if (counted >= room) {
        complete = false;
        break;
      }
      if (!isListedName(entry.name)) continue;
      const hostPath = path.join(hostDir, entry.name);
      let st: fs.Stats;
      try {
        // Only a symlink is followed, and only when its target stays inside the root; anything
        // else is looked at without following (it may have become a symlink since readdir).
        if (entry.isSymbolicLink()) {
          if (!isInside(realpath(hostPath), rootReal)) continue;
          st = fs.statSync(hostPath);
        } else st = fs.lstatSync(hostPath);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        entries.push({ name: entry.name, type: 'directory', size: st.size, mtimeMs: st.mtimeMs });
        if (dirsCount) counted++;
      } else if (st.isFile()) {
        entries.push({ name: entry.name, type: 'file', size: st.size, mtimeMs: st.mtimeMs });
        counted++;
      }
    }
    const racy = BigInt(Date.now()) * 1_000_000n - mtimeNs < RACY_NS;
    const read = { mtimeNs, entries, racy };
    if (complete) this.directories.set(key, read);
    else this.directories.delete(key);
    return read;
  }

  /** Whether the root's directories' stamps always move once read; probed once per root. */
  private stampsMove(rootReal: string): boolean {
    let moving = this.movingStamps.get(rootReal);
    if (moving === undefined) {
      moving = !this.options.coarseStamps && this.trash.withScratchDirectory(rootReal, false, stampsAlwaysMove);
      this.movingStamps.set(rootReal, moving);
    }
    return moving;
  }

  async countFiles(root: ScopeRoot, limit: number): Promise<number> {
    return this.countFilesNow(root, limit);
  }

  private countFilesNow(root: ScopeRoot, limit: number): number {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal) return 0;
    return this.ledger.count(rootReal, limit, this.stampsMove(rootReal));
  }

  /**
   * Under the scope lock, before this process changes the directory reached as `dir` (real path
   * `real`): see ScopeLedger. Untracked where stamps may not move (then nothing is known clean).
   */
  private changing(rootReal: string, dir: string, real: string, fd: number | null): DirectoryChange {
    return this.stampsMove(rootReal) ? this.ledger.change(rootReal, real, this.mtimeOf(dir, fd)) : UNTRACKED;
  }

  /** A directory's mtime (ns), through its descriptor when held; -1 if it cannot be read (gone), which no record holds. */
  private mtimeOf(dir: string, fd: number | null): bigint {
    try {
      return fd !== null ? fs.fstatSync(fd, { bigint: true }).mtimeNs : (mtimeOf(dir) ?? -1n);
    } catch {
      return -1n;
    }
  }

  async rename(root: ScopeRoot, from: readonly string[], to: readonly string[]): Promise<void> {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal) throw new RuntimeError('ENOENT');
    try {
      if (from.length === to.length && from.slice(0, -1).every((s, i) => to[i] === s)) {
        // Within one directory (a rename in place): one pinned directory serves both names.
        await this.withPinnedDir(rootReal, from.slice(0, -1), false, async (dir, real, fd) => {
          const dest = path.join(dir, to[to.length - 1]!);
          if (lstatOrNull(dest)) throw new RuntimeError('EEXIST');
          const source = path.join(dir, from[from.length - 1]!);
          const moved = fs.lstatSync(source);
          const change = this.changing(rootReal, dir, real, fd);
          try {
            fs.renameSync(source, dest);
          } finally {
            const gained = countedFiles(moved, to[to.length - 1]!);
            change.done(this.mtimeOf(dir, fd), gained === null ? null : gained - countedFiles(moved, from[from.length - 1]!)!);
          }
        });
        return;
      }
      // The reference's order: an existing destination, then a missing source. Nothing is
      // created before both are known to be fine.
      let destProbe: string | null = null;
      try {
        destProbe = this.resolveTarget(rootReal, to, false);
      } catch (err) {
        const e = toRuntimeError(err);
        if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') throw e;
      }
      if (destProbe && lstatOrNull(destProbe)) throw new RuntimeError('EEXIST');
      await this.withPinnedDir(rootReal, from.slice(0, -1), false, async (sourceDir, sourceReal, sourceFd) => {
        const source = path.join(sourceDir, from[from.length - 1]!);
        const moved = fs.lstatSync(source);
        if (from.length <= to.length && from.every((s, i) => to[i] === s)) throw new RuntimeError('EINVAL');
        const fromSource = this.changing(rootReal, sourceDir, sourceReal, sourceFd);
        // A directory created for the destination is one the count has not walked: it follows only moves of files.
        try {
          await this.withPinnedDir(rootReal, to.slice(0, -1), true, async (destDir, destReal, destFd) => {
            const dest = path.join(destDir, to[to.length - 1]!);
            if (lstatOrNull(dest)) throw new RuntimeError('EEXIST');
            const toDest = this.changing(rootReal, destDir, destReal, destFd);
            try {
              fs.renameSync(source, dest);
            } finally {
              toDest.done(this.mtimeOf(destDir, destFd), countedFiles(moved, to[to.length - 1]!));
            }
          });
        } finally {
          const lost = countedFiles(moved, from[from.length - 1]!);
          fromSource.done(this.mtimeOf(sourceDir, sourceFd), lost === null ? null : -lost);
        }
      });
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  async remove(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    const rootReal = this.resolveRoot(root, false);
    if (!rootReal || rel.length === 0) throw new RuntimeError('ENOENT');
    try {
      await this.withPinnedDir(rootReal, rel.slice(0, -1), false, async (dir, real, fd) => {
        const name = rel[rel.length - 1]!;
        const target = path.join(dir, name);
        const removed = fs.lstatSync(target);
        const change = this.changing(rootReal, dir, real, fd);
        try {
          if (!this.trash.discard(rootReal, target, removed)) fs.rmSync(target, { recursive: true, force: false });
        } finally {
          // A tree's files are not known one by one: the count walks again.
          const lost = countedFiles(removed, name);
          change.done(this.mtimeOf(dir, fd), lost === null ? null : -lost);
        }
      });
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  async mkdir(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    try {
      const rootReal = this.resolveRoot(root, true)!;
      // New directories are ones the count has not walked.
      this.ledger.forget(rootReal);
      this.ensureDir(rootReal, rel);
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  forget(): void {
    this.written.clear();
    this.listings.clear();
    this.directories.clear();
    this.ledger.forget();
  }

  async withLock<T>(root: ScopeRoot, fn: () => Promise<T>): Promise<T> {
    try {
      // Writes refresh the cached root (it may have been removed or replaced since).
      this.resolveRoot(root, true, true);
    } catch (err) {
      throw toRuntimeError(err);
    }
    return withLocalLock(root.path, fn);
  }
}
