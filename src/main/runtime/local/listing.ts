/**
 * Reading a local scope's tree: listings, the file count of the cap, and the heads of many files
 * at once (the index's descriptions). Every call reads the disk; nothing is kept between calls, so
 * a listing is never older than the call that asked for it.
 *
 * Invariants: only names that pass the path rules are listed (hidden files, temp files, unsafe
 * names are skipped); a symlink is followed only when its target stays inside the root and out of
 * any `.git` there, and a listing never walks through a linked directory (a link to its own parent
 * would list the same files a thousand times over; the files are listed where they really are). Each listed file carries a version for the caches of its
 * readers (ListedEntry.version): its device, inode, size, mtime and ctime, or null while its last
 * change is too recent for those to be trusted to move on the next one. A folder that cannot be
 * read is never listed as an empty one: it is marked `unreadable` (or, listed itself, throws).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isListedName } from '../../../common/memory/paths';
import { RuntimeError, VERSION_SETTLE_MS, unreadableFolder, type CapturedFile, type FileContent, type ListOptions, type ListedEntry } from '../runtime';
import { TEMP_PREFIX } from './atomic-write';
import { checkInside, realpath, resolveTarget } from './containment';

const fsc = fs.constants;

/** The version's five numbers, and the same bytes as the 16-bit units of its text. */
const versionNumbers = new Float64Array(5);
const versionUnits = new Uint16Array(versionNumbers.buffer);

/**
 * A listed file's version (ListedEntry.version), as of `now` (ms since the epoch): its device,
 * inode, size, mtime and ctime, exactly, as text of 20 UTF-16 units holding their 64-bit values
 * (not numerals: writing five numbers out in decimal, fractions of a millisecond included, cost a
 * listing of 3000 files about 10 ms). It is compared, and kept in JSON (which escapes what it
 * must), never shown.
 */
export function versionOf(st: fs.Stats, now: number): string | null {
  if (now - st.ctimeMs < VERSION_SETTLE_MS) return null;
  const n = versionNumbers;
  n[0] = st.dev;
  n[1] = st.ino;
  n[2] = st.size;
  n[3] = st.mtimeMs;
  n[4] = st.ctimeMs;
  const u = versionUnits;
  return String.fromCharCode(u[0]!, u[1]!, u[2]!, u[3]!, u[4]!, u[5]!, u[6]!, u[7]!, u[8]!, u[9]!, u[10]!, u[11]!, u[12]!, u[13]!, u[14]!, u[15]!, u[16]!, u[17]!, u[18]!, u[19]!);
}

/** The OS code of a failed read of a directory or an entry in it. */
function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'EIO';
}

/**
 * The listed entries below `dir` (a resolved directory inside `rootReal`), sorted by name at each
 * level, walked depth-first up to `options.depth` levels and cut at `options.limit`. A directory
 * below whose entries cannot be read (readdir, or an lstat of what it names, refused) is listed
 * with `unreadable`, and with `withUnreadable` even in a files-only listing; `dir` itself being
 * unreadable throws UNREADABLE. One that is gone meanwhile (ENOENT) lists as what it now is: nothing.
 */
export function listTree(rootReal: string, dir: string, options: ListOptions, now: number): ListedEntry[] {
  const out: ListedEntry[] = [];
  let counted = 0;
  /** Lists `hostDir` into `out`: the OS code when it (or a name in it) could not be read, else null. */
  const walk = (hostDir: string, prefix: readonly string[], level: number): string | null => {
    let names: string[];
    try {
      // The default order is by UTF-16 code units, as `a < b`, without a call per comparison.
      names = fs.readdirSync(hostDir).sort();
    } catch (err) {
      const code = codeOf(err);
      return code === 'ENOENT' || code === 'ENOTDIR' ? null : code;
    }
    let refused: string | null = null;
    // A listed name holds no separator and is never '.' or '..': appending it is what path.join
    // would give, without normalizing the whole path again for every file (a fifth of a listing).
    const base = hostDir.endsWith(path.sep) ? hostDir : hostDir + path.sep;
    for (const name of names) {
      if (counted >= options.limit) return refused;
      if (!isListedName(name)) continue;
      const hostPath = base + name;
      let st: fs.Stats;
      let linked = false;
      try {
        st = fs.lstatSync(hostPath);
      } catch (err) {
        // A folder that may be read but not searched (r--) names its entries and hides them.
        const code = codeOf(err);
        if (code !== 'ENOENT') refused ??= code;
        continue;
      }
      if (st.isSymbolicLink()) {
        try {
          checkInside(realpath(hostPath), rootReal);
          st = fs.statSync(hostPath);
          linked = true;
        } catch {
          continue; // a link leading out of the root, or nowhere, is not listed
        }
      }
      const rel = prefix.concat(name);
      if (st.isDirectory()) {
        const entry: { -readonly [K in keyof ListedEntry]: ListedEntry[K] } = { rel, type: 'directory', size: st.size, mtimeMs: st.mtimeMs, version: null };
        if (!options.filesOnly) {
          out.push(entry);
          counted++;
        }
        const code = level < options.depth && !linked ? walk(hostPath, rel, level + 1) : null;
        if (code !== null) {
          entry.unreadable = code;
          if (options.filesOnly && options.withUnreadable && counted < options.limit) {
            out.push(entry);
            counted++;
          }
        }
      } else if (st.isFile()) {
        out.push({ rel, type: 'file', size: st.size, mtimeMs: st.mtimeMs, version: versionOf(st, now) });
        counted++;
      }
    }
    return refused;
  };
  const code = walk(dir, [], 1);
  if (code !== null) throw unreadableFolder(code);
  return out;
}

/**
 * Every regular file of the whole scope, counting up to `limit`: the per-scope cap counts files of
 * any name, listed or not (hidden names and node_modules too), so no name lets a scope grow past
 * it; only a writer's own temp files are left out. Symbolic links are neither counted nor walked
 * (what a link inside the root leads to is counted where it is). A create counts its scope under
 * the lock, so the directory entries' own types say what each is, without a stat apiece. A folder
 * that cannot be read counts what can be seen of it, nothing: the cap is a bound on what Cairn
 * lists, and a write into that folder fails on its own (permission denied).
 */
export function countFiles(rootReal: string, limit: number): number {
  let count = 0;
  const walk = (hostDir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(hostDir, { withFileTypes: true });
    } catch {
      return; // unreadable or gone: nothing of it can be listed either (see above)
    }
    for (const entry of entries) {
      if (count >= limit) return;
      let isFile = entry.isFile();
      let isDir = entry.isDirectory();
      if (!isFile && !isDir && !entry.isSymbolicLink()) {
        // A file system that gives no entry types.
        const st = fs.lstatSync(path.join(hostDir, entry.name), { throwIfNoEntry: false });
        isFile = st?.isFile() ?? false;
        isDir = st?.isDirectory() ?? false;
      }
      if (isFile && !entry.name.startsWith(TEMP_PREFIX)) count++;
      else if (isDir) walk(path.join(hostDir, entry.name));
    }
  };
  walk(rootReal);
  return count;
}

/** How much a batch of heads is read into at a time (HEADS_ARENA_FILES heads of the asked size). */
const HEADS_ARENA_FILES = 64;

/**
 * The first `bytes` bytes of each file; null for one that cannot be read. Each parent directory is
 * resolved and checked once for the batch; a file is opened with O_NOFOLLOW, and a symlink takes
 * the fully checked path. The heads are read straight into a few large buffers (of at most
 * HEADS_ARENA_FILES heads, and never more than the files left to read), one after the other, each
 * head a view of its part: a first call over thousands of files would otherwise copy each head
 * out of a scratch buffer into a small buffer of its own. A head kept keeps its buffer alive.
 */
export function readHeads(rootReal: string, rels: ReadonlyArray<readonly string[]>, bytes: number): Array<FileContent | null> {
  const dirs = new Map<string, string | null>();
  let arena = Buffer.allocUnsafeSlow(0);
  let used = 0;
  return rels.map((rel, index) => {
    const parent = rel.slice(0, -1);
    const key = parent.join('/');
    let dir = dirs.get(key);
    if (dir === undefined) {
      try {
        dir = resolveTarget(rootReal, parent, true);
      } catch {
        dir = null;
      }
      dirs.set(key, dir);
    }
    if (dir === null) return null;
    let fd: number;
    try {
      fd = fs.openSync(path.join(dir, rel[rel.length - 1]!), fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOOP') return null;
      try {
        fd = fs.openSync(resolveTarget(rootReal, rel, true), fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
      } catch {
        return null;
      }
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.nlink > 1) return null;
      if (arena.length - used < bytes) {
        // Sized for the files left, not the whole batch: a head kept by a long-lived caller
        // keeps its arena alive, and the last of a batch must not hold one sized for 64.
        arena = Buffer.allocUnsafeSlow(bytes * Math.min(HEADS_ARENA_FILES, rels.length - index));
        used = 0;
      }
      let length = 0;
      while (length < bytes) {
        const n = fs.readSync(fd, arena, used + length, bytes - length, null);
        if (n === 0) break;
        length += n;
      }
      const data = arena.subarray(used, used + length);
      used += length;
      return { data, size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      return null;
    } finally {
      fs.closeSync(fd);
    }
  });
}

/**
 * The files at `hostPath` (what `st`, its lstat, says it is: a file, or a directory walked without
 * following links, listed names only), each read up to `maxBytes`: what a remove takes away or a
 * rename moves, for the version history. `rel` is where `hostPath` is in its root. A folder in it
 * that cannot be read throws (IO, its OS code): the history could not record what the change takes
 * away, so the change is refused rather than made with files it does not know of.
 */
export function captureFiles(hostPath: string, st: fs.Stats, rel: readonly string[], maxBytes: number): CapturedFile[] {
  if (st.isFile()) return [{ rel, data: readWhole(hostPath, st, maxBytes) }];
  if (!st.isDirectory()) return [];
  const out: CapturedFile[] = [];
  const walk = (dir: string, prefix: readonly string[]): void => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch (err) {
      const code = codeOf(err);
      if (code === 'ENOENT') return;
      throw new RuntimeError('IO', code);
    }
    for (const name of names) {
      if (!isListedName(name)) continue;
      const p = path.join(dir, name);
      let s: fs.Stats | undefined;
      try {
        s = fs.lstatSync(p, { throwIfNoEntry: false });
      } catch (err) {
        throw new RuntimeError('IO', codeOf(err));
      }
      if (s?.isDirectory()) walk(p, [...prefix, name]);
      else if (s?.isFile()) out.push({ rel: [...prefix, name], data: readWhole(p, s, maxBytes) });
    }
  };
  walk(hostPath, rel);
  return out;
}

/** A regular file's bytes, or null: over `maxBytes`, a hard link (never read), or unreadable. */
function readWhole(p: string, st: fs.Stats, maxBytes: number): Uint8Array | null {
  if (st.nlink > 1 || st.size > maxBytes) return null;
  let fd: number;
  try {
    fd = fs.openSync(p, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    return readToEnd(fd, st.size, maxBytes);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads an open file to its end, sized by `expected` (its fstat size) and grown if the file grew
 * since: its bytes, or null once they pass `maxBytes`. (A buffer of the cap's size for every read
 * cost a 100 KiB allocation per memory file read.)
 */
export function readToEnd(fd: number, expected: number, maxBytes: number): Buffer | null {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
    if (n === 0) break;
    length += n;
    if (length > maxBytes) return null;
  }
  return buffer.subarray(0, length);
}
