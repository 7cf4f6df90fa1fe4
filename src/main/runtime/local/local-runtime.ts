/**
 * LocalRuntime: the Runtime on this machine's disk, composed of containment (containment.ts: where
 * a path really leads, and pinning the directory a change acts through), the atomic write
 * (atomic-write.ts) and listings (listing.ts). It keeps no state about the disk between calls, so
 * it cannot go stale; a process needs one, and any number would behave the same.
 *
 * Metadata calls and reads of memory files (at most 100 KiB) are synchronous: each takes
 * microseconds on a local disk, a tenth of a thread-pool round trip. The one slow call, fsync,
 * runs on the thread pool so it never blocks the event loop. Writes are serialized per scope root
 * by withLock (file-lock.ts); reads take no lock (a write is an atomic rename).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { lockPathFor, withLocalLock } from './file-lock';
import {
  RuntimeError,
  unreadableFolder,
  type BeforeChange,
  type Capture,
  type CapturedFile,
  type EntryStat,
  type EntryType,
  type FileContent,
  type ListOptions,
  type ListedEntry,
  type Runtime,
  type ScopeRoot,
} from '../runtime';
import { writeAtomically } from './atomic-write';
import {
  PINNING,
  lstatOrNull,
  openResolved,
  realpathOrNull,
  resolveRoot,
  resolveTarget,
  ensureDir,
  toRuntimeError,
  withPinnedDir,
} from './containment';
import { captureFiles, countFiles, listTree, readHeads, readToEnd } from './listing';

const fsc = fs.constants;

/** Where directories cannot be pinned: the checked real path must still be where it was. */
function checkStillAt(dir: string): void {
  if (realpathOrNull(dir) !== dir) throw new RuntimeError('ESCAPE');
}

function typeOf(st: fs.Stats): EntryType {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

export interface LocalRuntimeOptions {
  /**
   * Fault injection for tests only: called after a directory was resolved and checked, before it
   * is used, so a test can swap it in that window (a race no real timing reproduces reliably).
   */
  readonly afterCheck?: (resolvedDir: string) => Promise<void>;
  /** The clock listings judge a file's version by (ListedEntry.version); tests move it. */
  readonly now?: () => number;
}

export class LocalRuntime implements Runtime {
  readonly label = 'local';
  private readonly now: () => number;

  constructor(private readonly options: LocalRuntimeOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  private pinned<T>(rootReal: string, dirRel: readonly string[], create: boolean, fn: (dir: string) => Promise<T>): Promise<T> {
    return withPinnedDir(rootReal, dirRel, create, this.options.afterCheck, fn);
  }

  async stat(root: ScopeRoot, rel: readonly string[], follow: boolean): Promise<EntryStat | null> {
    try {
      const rootReal = resolveRoot(root, false);
      if (!rootReal) return null;
      const st = lstatOrNull(resolveTarget(rootReal, rel, follow));
      return st ? { type: typeOf(st), size: st.size, mtimeMs: st.mtimeMs } : null;
    } catch (err) {
      const e = toRuntimeError(err);
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
      throw e;
    }
  }

  async readFile(root: ScopeRoot, rel: readonly string[], maxBytes: number): Promise<FileContent> {
    let fd: number;
    try {
      const rootReal = resolveRoot(root, false);
      if (!rootReal) throw new RuntimeError('ENOENT');
      const target = resolveTarget(rootReal, rel, true);
      try {
        fd = openResolved(target, fsc.O_RDONLY | fsc.O_NONBLOCK);
      } catch (err) {
        // A folder Cairn may not open is one it cannot read, not a failed read of a file.
        const e = toRuntimeError(err);
        if (e.code === 'IO' && (e.errno === 'EACCES' || e.errno === 'EPERM') && fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) throw unreadableFolder(e.errno);
        throw e;
      }
    } catch (err) {
      throw toRuntimeError(err);
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.isDirectory()) throw new RuntimeError('EISDIR');
      if (!st.isFile()) throw new RuntimeError('NOT_FILE');
      // A hard link shares its content with a name elsewhere, perhaps outside every root.
      if (st.nlink > 1) throw new RuntimeError('NOT_FILE', 'EMLINK');
      if (st.size > maxBytes) throw new RuntimeError('TOO_LARGE', undefined, st.size);
      const data = readToEnd(fd, st.size, maxBytes);
      if (data === null) throw new RuntimeError('TOO_LARGE', undefined, maxBytes + 1);
      return { data, size: data.length, mtimeMs: st.mtimeMs };
    } catch (err) {
      throw toRuntimeError(err);
    } finally {
      fs.closeSync(fd);
    }
  }

  async readHeads(root: ScopeRoot, rels: ReadonlyArray<readonly string[]>, bytes: number): Promise<Array<FileContent | null>> {
    const rootReal = resolveRoot(root, false);
    return rootReal ? readHeads(rootReal, rels, bytes) : rels.map(() => null);
  }

  async writeFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, options: { exclusive: boolean; beforeChange?: BeforeChange }): Promise<void> {
    await this.write(root, rel, data, options);
  }

  async createFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, maxFiles: number, beforeChange?: BeforeChange): Promise<'created' | 'full'> {
    // An existing name is refused first; then a full scope gets no file (nothing is written).
    const written = await this.write(root, rel, data, { exclusive: true, admit: (rootReal) => countFiles(rootReal, maxFiles) < maxFiles, ...(beforeChange ? { beforeChange } : {}) });
    return written ? 'created' : 'full';
  }

  private async write(
    root: ScopeRoot,
    rel: readonly string[],
    data: Uint8Array,
    options: { exclusive: boolean; admit?: (rootReal: string) => boolean; beforeChange?: BeforeChange },
  ): Promise<boolean> {
    const name = rel[rel.length - 1];
    if (name === undefined) throw new RuntimeError('EISDIR');
    try {
      const rootReal = resolveRoot(root, true)!;
      // A full scope is refused before the write makes any directory ("a failed command changes
      // nothing"); the caller holds the lock, so the count cannot change before the write.
      if (options.admit) {
        if (this.occupied(rootReal, rel)) throw new RuntimeError('EEXIST');
        if (!options.admit(rootReal)) return false;
      }
      await this.pinned(rootReal, rel.slice(0, -1), true, (dir) =>
        writeAtomically(dir, name, data, {
          exclusive: options.exclusive,
          // The new content is on disk in its temp file: only the rename is left, and the history
          // records the change before it (BeforeChange). Without pinning, the directory must still
          // be the one checked, after the fsync's wait.
          beforeRename: () => {
            if (!PINNING) checkStillAt(dir);
            options.beforeChange?.([]);
          },
        }),
      );
      return true;
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  /** Whether anything (a dangling link too) is at `rel` already; false where its parent is missing. */
  private occupied(rootReal: string, rel: readonly string[]): boolean {
    try {
      return lstatOrNull(resolveTarget(rootReal, rel, false)) !== null;
    } catch (err) {
      const e = toRuntimeError(err);
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return false;
      throw e;
    }
  }

  async editFile(root: ScopeRoot, rel: readonly string[], maxBytes: number, change: (data: Uint8Array) => Uint8Array, beforeChange?: BeforeChange): Promise<Uint8Array> {
    const next = change((await this.readFile(root, rel, maxBytes)).data);
    await this.writeFile(root, rel, next, { exclusive: false, ...(beforeChange ? { beforeChange } : {}) });
    return next;
  }

  async list(root: ScopeRoot, rel: readonly string[], options: ListOptions): Promise<ListedEntry[] | null> {
    const rootReal = resolveRoot(root, false);
    if (!rootReal) return rel.length === 0 ? [] : null;
    let dir: string;
    try {
      dir = resolveTarget(rootReal, rel, true);
      if (!fs.statSync(dir).isDirectory()) throw new RuntimeError('ENOTDIR');
    } catch (err) {
      const e = toRuntimeError(err);
      if (e.code === 'ENOENT') return rel.length === 0 ? [] : null;
      throw e;
    }
    return listTree(rootReal, dir, options, this.now());
  }

  async countFiles(root: ScopeRoot, limit: number): Promise<number> {
    const rootReal = resolveRoot(root, false);
    return rootReal ? countFiles(rootReal, limit) : 0;
  }

  async rename(root: ScopeRoot, from: readonly string[], to: readonly string[], capture?: Capture): Promise<CapturedFile[]> {
    try {
      const rootReal = resolveRoot(root, false);
      if (!rootReal) throw new RuntimeError('ENOENT');
      // The reference's order: an existing destination, then a missing source, then a directory
      // moving into itself. Nothing is created before all three are known to be fine.
      let destProbe: string | null = null;
      try {
        destProbe = resolveTarget(rootReal, to, false);
      } catch (err) {
        const e = toRuntimeError(err);
        if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') throw e;
      }
      if (destProbe && lstatOrNull(destProbe)) throw new RuntimeError('EEXIST');
      return await this.pinned(rootReal, from.slice(0, -1), false, async (sourceDir) => {
        const source = path.join(sourceDir, from[from.length - 1]!);
        const st = fs.lstatSync(source);
        if (from.length <= to.length && from.every((s, i) => to[i] === s)) throw new RuntimeError('EINVAL');
        return this.pinned(rootReal, to.slice(0, -1), true, async (destDir) => {
          const dest = path.join(destDir, to[to.length - 1]!);
          if (lstatOrNull(dest)) throw new RuntimeError('EEXIST');
          const moved = capture ? captureFiles(source, st, from, capture.maxBytes) : [];
          capture?.beforeChange?.(moved);
          fs.renameSync(source, dest);
          return moved;
        });
      });
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  async remove(root: ScopeRoot, rel: readonly string[], capture?: Capture): Promise<CapturedFile[]> {
    try {
      const rootReal = resolveRoot(root, false);
      if (!rootReal || rel.length === 0) throw new RuntimeError('ENOENT');
      return await this.pinned(rootReal, rel.slice(0, -1), false, async (dir) => {
        const target = path.join(dir, rel[rel.length - 1]!);
        const st = fs.lstatSync(target);
        const taken = capture ? captureFiles(target, st, rel, capture.maxBytes) : [];
        capture?.beforeChange?.(taken);
        // A symlink is removed itself, never followed; a directory with everything in it.
        if (!st.isDirectory()) fs.unlinkSync(target);
        else {
          try {
            fs.rmSync(target, { recursive: true });
          } catch (err) {
            // Stopped midway: the history keeps exactly the files that are gone (BeforeChange).
            capture?.beforeChange?.(
              taken.filter((f) => lstatOrNull(path.join(dir, ...f.rel.slice(rel.length - 1))) === null),
              true,
            );
            throw err;
          }
        }
        return taken;
      });
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  async mkdir(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    try {
      ensureDir(resolveRoot(root, true)!, rel);
    } catch (err) {
      throw toRuntimeError(err);
    }
  }

  async removeEmptyDirs(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    const rootReal = resolveRoot(root, false);
    if (!rootReal) return;
    for (let n = rel.length; n >= 1; n--) {
      const removed = await this.pinned(rootReal, rel.slice(0, n - 1), false, async (dir) => {
        try {
          fs.rmdirSync(path.join(dir, rel[n - 1]!));
          return true;
        } catch {
          return false; // not empty, missing, a file or a link: stop here
        }
      }).catch(() => false);
      if (!removed) return;
    }
  }

  async withLock<T>(root: ScopeRoot, fn: () => Promise<T>): Promise<T> {
    try {
      // The lock lives beside the root: its parent must exist (and the root stay in its anchor).
      resolveRoot(root, true);
    } catch (err) {
      throw toRuntimeError(err);
    }
    return withLocalLock(root.path, fn, path.relative(root.anchor, lockPathFor(root.path)));
  }
}
