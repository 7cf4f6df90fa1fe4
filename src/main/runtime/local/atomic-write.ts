/**
 * The atomic write of one file on the local disk, and what a reader does with one of Cairn's own
 * files that does not parse.
 *
 * A write is a temp file in the target's own directory, written whole and fsynced, then renamed
 * over the name (or, for a file that must not exist yet, hard-linked to it). A reader sees the
 * whole old file or the whole new one, never a mix; a failure at any step removes the temp file,
 * and a crash leaves at most one, which a later write to that directory sweeps. Nothing else in src
 * writes a temp file and renames it. Every temp file
 * is named `.cairn-tmp-<pid>-<random>` (TEMP_PREFIX): hidden, so listings, counts and watchers
 * pass over it. Files are created 0600.
 *
 * Two callers:
 * - writeAtomically, for memory roots (and, with `sweepTemps: false` and the file's own mode, for
 *   agents' config files that setup edits): the caller holds the scope's write lock (every writer of a
 *   root takes it, so any temp file found while holding it belongs to a writer that died) and
 *   passes `dir` as the pinned path of an already-contained directory (containment.ts). The rename
 *   replaces a symlink at the name, never its target.
 * - writeOwnFile / writeOwnFileSync, for Cairn's own files under its home (settings, seen marks,
 *   usage, consolidation proposals, harvest state, tokens, server.json): several files share a directory
 *   under different locks, so only temp files of writers that are gone are swept (their process
 *   no longer runs and the temp is over a minute old).
 * - writeOwnSymlinkSync, for the one link among Cairn's own files (`<home>/run/context.sock`, to the
 *   context host that serves): the link is made at a temp name and renamed over the name the same
 *   way, so a hook finds the old link or the new one, never none. Not fsynced: each host that
 *   claims the link makes it again.
 *
 * A file of Cairn's that does not parse is never written over and never read as if absent without
 * a word: setAsideDamaged renames it to `<name>.damaged-<time>` beside it and reports that on
 * stderr (where the CLI and the hosts' logs show it); the reader then starts that file afresh.
 * listSetAside finds such files again, for the app to show them (api/set-aside-files.ts) until the
 * person removes them.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RuntimeError } from '../runtime';
import { DIR_MODE, FILE_MODE, lstatOrNull, namesIn } from './containment';
import { processRuns } from './process-alive';

const fsc = fs.constants;
/** fsync on the thread pool (looked up at each call, so a test can watch it). */
const fsync = (fd: number) => new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));

/** How a write's temp file is named: hidden, so never listed or counted. */
export const TEMP_PREFIX = '.cairn-tmp-';

/** A temp file this old whose writer no longer runs was left by a crash (a write takes far less). */
export const LEFTOVER_MS = 60_000;

/**
 * Whether `name` is a temp file, and of which writer: its pid, or null when the name does not say.
 * Besides TEMP_PREFIX names, with `target` (the file being written) also the names older Cairns
 * gave its temp files, `<target>.<pid and/or random>.tmp`, so what a crash left then goes too.
 */
function tempWriter(name: string, target?: string): number | null | undefined {
  let rest: string;
  if (name.startsWith(TEMP_PREFIX)) rest = name.slice(TEMP_PREFIX.length);
  else if (target !== undefined && name.startsWith(`${target}.`) && /^[0-9a-z.-]+\.tmp$/.test(name.slice(target.length + 1))) rest = name.slice(target.length + 1);
  else return undefined;
  const pid = Number(/^(\d+)[.-]/.exec(rest)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Removes temp files left in `dir` by writers that died mid-write: every one when the caller holds
 * the lock every writer of `dir` takes (`all`), else those of a process that no longer runs, once
 * they are LEFTOVER_MS old (`target`: see tempWriter).
 */
function removeDeadWritersTemps(dir: string, all: boolean, target?: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // Sweeping leftovers is housekeeping: the write itself says whether the folder can be used.
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const pid = tempWriter(name, all ? undefined : target);
    if (pid === undefined) continue;
    const temp = path.join(dir, name);
    if (!all) {
      const st = lstatOrNull(temp);
      const temporary = st?.isFile() || st?.isSymbolicLink();
      if (!st || !temporary || now - st.mtimeMs < LEFTOVER_MS || (pid !== null && processRuns(pid))) continue;
    }
    fs.rmSync(temp, { force: true });
  }
}

/** A new temp file's name in `dir`: TEMP_PREFIX, this process's pid, and a random part. */
function tempPath(dir: string): string {
  return path.join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
}

/** A temp file, created and open, in `dir`: 0600 less the umask, or exactly `mode`. */
function openTemp(dir: string, mode?: number): { temp: string; fd: number } {
  const temp = tempPath(dir);
  const fd = fs.openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, mode ?? FILE_MODE);
  try {
    if (mode !== undefined) fs.fchmodSync(fd, mode);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw err;
  }
  return { temp, fd };
}

/** A temp file in `dir` holding `data` whole, closed; what `settle` (fsync, times) does to it first. */
function stageTemp(dir: string, data: Uint8Array, settle: (fd: number) => Promise<void>, mode?: number): Promise<string>;
function stageTemp(dir: string, data: Uint8Array, settle: (fd: number) => void, mode?: number): string;
function stageTemp(dir: string, data: Uint8Array, settle: (fd: number) => void | Promise<void>, mode?: number): string | Promise<string> {
  const { temp, fd } = openTemp(dir, mode);
  let settled: void | Promise<void>;
  try {
    for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written, written);
    settled = settle(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw err;
  }
  const closed = (): string => {
    fs.closeSync(fd);
    return temp;
  };
  if (!(settled instanceof Promise)) return closed();
  return settled.then(closed, (err: unknown) => {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw err;
  });
}

/** Runs `place` on the staged temp file; any failure removes the temp file and is thrown. */
function placeTemp(temp: string, place: (temp: string) => void): void {
  try {
    place(temp);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Puts the written temp file at `target`: renamed over it, or (`exclusive`) hard-linked to it, which
 * fails with EEXIST when anything is there, so racing creators agree on the first. The temp's own
 * name goes either way.
 */
function placeAt(target: string, exclusive: boolean): (temp: string) => void {
  return (temp) => {
    if (!exclusive) return fs.renameSync(temp, target);
    fs.linkSync(temp, target);
    fs.rmSync(temp, { force: true });
  };
}

export interface AtomicWriteOptions {
  /** EEXIST if anything (a file, a directory, a dangling symlink) is at the name. */
  readonly exclusive: boolean;
  /** Called right before the rename; throws to abandon the write (a late containment check). */
  readonly beforeRename?: () => void;
  /**
   * Whether every temp file in `dir` is taken for a dead writer's (default: yes). Only where every
   * writer of the directory holds the caller's lock; otherwise (false) only temp files of writers
   * that are gone are removed, as for Cairn's own files.
   */
  readonly sweepTemps?: boolean;
  /** The written file's permission bits, exactly (a person's file keeps its own); default 0600. */
  readonly mode?: number;
}

/**
 * Writes `data` to `name` in `dir` (a memory root's directory: see the header). A directory at the
 * name is EISDIR; nothing is left behind on any failure.
 */
export async function writeAtomically(dir: string, name: string, data: Uint8Array, options: AtomicWriteOptions): Promise<void> {
  const target = path.join(dir, name);
  const existing = lstatOrNull(target);
  if (existing && options.exclusive) throw new RuntimeError('EEXIST');
  if (existing?.isDirectory()) throw new RuntimeError('EISDIR');
  removeDeadWritersTemps(dir, options.sweepTemps !== false);
  // On the thread pool: the one slow call of a write must not block the event loop.
  const temp = await stageTemp(dir, data, fsync, options.mode);
  placeTemp(temp, (t) => {
    options.beforeRename?.();
    fs.renameSync(t, target);
  });
}

export interface OwnFileOptions {
  /** Create only: EEXIST when anything is at the name (racing creators agree on the first). */
  readonly exclusive?: boolean;
  /** The file's modification time, when it must be another than now (a record's own clock). */
  readonly mtimeMs?: number;
}

/** Makes `file`'s directory (0700) and sweeps dead writers' temps from it; its bytes. */
function ownTemp(file: string, data: string | Uint8Array): { dir: string; bytes: Uint8Array } {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  removeDeadWritersTemps(dir, false, path.basename(file));
  return { dir, bytes: typeof data === 'string' ? Buffer.from(data, 'utf8') : data };
}

function setTimes(fd: number, options: OwnFileOptions): void {
  if (options.mtimeMs !== undefined) fs.futimesSync(fd, options.mtimeMs / 1000, options.mtimeMs / 1000);
}

/**
 * Writes one of Cairn's own files whole (its directory created 0700 if missing): the old content
 * or the new, never a mix, and no temp file left on any failure (a full disk: ENOSPC, thrown).
 * For callers off the event loop's hot path (a host's request): the fsync runs on the thread pool.
 */
export async function writeOwnFile(file: string, data: string | Uint8Array, options: OwnFileOptions = {}): Promise<void> {
  const { dir, bytes } = ownTemp(file, data);
  const temp = await stageTemp(dir, bytes, (fd) => {
    setTimes(fd, options);
    return fsync(fd);
  });
  placeTemp(temp, placeAt(file, options.exclusive === true));
}

/** writeOwnFile for synchronous callers (a CLI command, a hook, a lock held synchronously). */
export function writeOwnFileSync(file: string, data: string | Uint8Array, options: OwnFileOptions = {}): void {
  const { dir, bytes } = ownTemp(file, data);
  const temp = stageTemp(dir, bytes, (fd) => {
    setTimes(fd, options);
    fs.fsyncSync(fd);
  });
  placeTemp(temp, placeAt(file, options.exclusive === true));
}

/**
 * Points the symbolic link `link` (its directory created 0700 if missing) at `target`, replacing
 * whatever is at the name in one rename; no temp link is left on any failure.
 */
export function writeOwnSymlinkSync(link: string, target: string): void {
  const dir = path.dirname(link);
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  removeDeadWritersTemps(dir, false, path.basename(link));
  const temp = tempPath(dir);
  fs.symlinkSync(target, temp);
  placeTemp(temp, placeAt(link, false));
}

/** One of Cairn's own files as read: its text and which file it was (to set aside that one only). */
export interface OwnFileRead {
  readonly text: string;
  readonly stat: fs.BigIntStats;
}

/**
 * Reads one of Cairn's own files; null when there is none. Anything at the name that is not a
 * regular file (a directory, say) is set aside as damaged and reads as none; other errors
 * (EACCES, EIO) are thrown.
 */
export function readOwnFile(file: string): OwnFileRead | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fsc.O_RDONLY | fsc.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const stat = fs.fstatSync(fd, { bigint: true });
    if (!stat.isFile()) {
      setAsideDamaged(file, 'it is not a file', stat);
      return null;
    }
    return { text: fs.readFileSync(fd, 'utf8'), stat };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads one of Cairn's own files and parses it: null when there is none, and when `parse` throws,
 * in which case the file is set aside (setAsideDamaged, with the error's message as the reason).
 */
export function readOwnFileParsed<T>(file: string, parse: (text: string) => T): T | null {
  const read = readOwnFile(file);
  if (read === null) return null;
  try {
    return parse(read.text);
  } catch (err) {
    setAsideDamaged(file, (err as Error)?.message ?? String(err), read.stat);
    return null;
  }
}

/** A file set aside: where it was, where it is now, and why. */
export interface DamagedFile {
  readonly file: string;
  readonly aside: string;
  readonly reason: string;
}

/** How a set-aside file is named: `<name>.damaged-<UTC time, basic ISO>` and `-<n>` when taken. */
const ASIDE_NAME = /^(.+)\.damaged-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z(?:-\d+)?$/;

/** `<name>.damaged-<UTC time>` beside `file`, one not taken yet (`-2`, `-3`, ... after it). */
function asideName(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const base = `${file}.damaged-${stamp}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!lstatOrNull(candidate)) return candidate;
  }
}

/**
 * Moves one of Cairn's own files that does not parse out of the way, to `<name>.damaged-<time>`
 * beside it, and says so on stderr: what was there is kept for the person to look at, and the next
 * write starts the file afresh instead of replacing it unseen. `read` is the file as the reader
 * saw it: when another file has replaced it since (a writer fixed it), nothing is moved. Returns
 * what was moved, or null. Never throws (a file that cannot be moved is reported all the same).
 */
export function setAsideDamaged(file: string, reason: string, read?: fs.BigIntStats | fs.Stats): DamagedFile | null {
  try {
    const now = lstatOrNull(file);
    if (!now) return null;
    if (read && (BigInt(now.ino) !== BigInt(read.ino) || BigInt(now.dev) !== BigInt(read.dev))) return null;
    const aside = asideName(file, new Date());
    fs.renameSync(file, aside);
    process.stderr.write(`cairn: ${file} could not be read (${reason}); it was moved aside to ${aside} and Cairn starts that file afresh. Look at it, and remove it once it holds nothing you need.\n`);
    return { file, aside, reason };
  } catch (err) {
    process.stderr.write(`cairn: ${file} could not be read (${reason}), and could not be moved aside (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); Cairn leaves it as it is.\n`);
    return null;
  }
}

/** A file that was set aside, as found on disk: the file it was, when, and its size. */
export interface SetAsideFile {
  /** Where it is now. */
  readonly aside: string;
  /** The file it was (now started afresh, or absent). */
  readonly file: string;
  /** When it was set aside (from its name). */
  readonly at: Date;
  readonly bytes: number;
}

/**
 * The files set aside in `dirs` (regular files named as setAsideDamaged names them), newest first.
 * A folder that is missing has none; one that cannot be read throws (its files are not "none").
 */
export function listSetAside(dirs: readonly string[]): SetAsideFile[] {
  const out: SetAsideFile[] = [];
  for (const dir of dirs) {
    // A folder not made yet holds nothing set aside; one that cannot be read is no "nothing".
    for (const name of namesIn(dir)) {
      const m = ASIDE_NAME.exec(name);
      if (!m) continue;
      const aside = path.join(dir, name);
      const st = lstatOrNull(aside);
      if (!st?.isFile()) continue;
      const at = new Date(Date.UTC(+m[2]!, +m[3]! - 1, +m[4]!, +m[5]!, +m[6]!, +m[7]!));
      out.push({ aside, file: path.join(dir, m[1]!), at, bytes: st.size });
    }
  }
  return out.sort((a, b) => b.at.getTime() - a.at.getTime() || a.aside.localeCompare(b.aside));
}
