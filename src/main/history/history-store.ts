/**
 * The storage of memory version history: every change's bytes before and after, kept
 * under `<home>/history/` (never inside a memory root or a repository), listed, read back, and
 * collected by retention. Owns the directory's layout; knows nothing of memory roots or runtimes
 * (MemoryService tells it what changed). Synchronous throughout: a record() is a few syscalls.
 *
 * Layout (directory and subdirectories 0700, files 0600):
 * - `log.jsonl`: append-only, one JSON line per version (history-log.ts has the format); replaced
 *   whole only by gc (temp file, fsync, rename). Content of at most INLINE_MAX_BYTES (8 KiB: nearly
 *   every memory file) is INLINE: its bytes are in the version's line itself (base64, `beforeData`
 *   / `afterData`), written by the same append as the line. Identical inline bytes are stored again
 *   by each line that has them (at most ~11 KiB a side; accepted for one append and no file).
 * - `blobs/<sha[0..2]>/<sha>`: larger content, content-addressed, identical bytes stored once.
 *   Written by the one write of Cairn's own files (runtime/local/atomic-write.ts: a temp file in
 *   the shard, fsynced, then renamed), so a reader never sees a partial blob. (Lines of format
 *   v 1 name small content here too; it is still read.)
 * - `incomplete`: the ISO time of the first record() that failed, until gc or clearIncomplete().
 * - `reserve`: RESERVE_BYTES written and kept, the room abandon() frees on a full disk (below).
 * - `gc.lock`: the lease of the one gc running (runtime/local/file-lock.ts).
 *
 * Durability: record()'s appended lines are not fsynced (a blob file is, by the shared write). A
 * SIGKILL leaves the page cache (so every blob and line written) intact; only a power loss or kernel crash can lose the last records, and then a blob
 * may be lost together with the lines naming it (or lines without their blobs: readBlob answers
 * null, never wrong bytes, since it checks the digest). gc fsyncs the rewritten log before its
 * rename, so a crash never replaces the history with an empty file.
 *
 * A batch (prepare() or record()) is written as blob files first (only for content over
 * INLINE_MAX_BYTES), then ONE O_APPEND write of all its lines with their inline bytes, so no reader
 * ever sees a line whose bytes are not there yet, processes never interleave inside a batch, and a
 * batch cut short (disk full, a crash) is skipped whole by readers. A failure leaves at most
 * unreferenced blobs (collected by gc).
 *
 * Recorded before made (memory's own changes: prepare, abandon; driven by change-outbox.ts
 * ChangeRecord under the scope's lock). The history must never lack a change that was made: the
 * bytes a change replaces could not be restored. So a change is recorded BEFORE it is made, and a
 * change the history cannot take (a full disk, the log a directory) is refused, nothing changed.
 * The runtime calls the record at the last moment (runtime.ts BeforeChange): a write's new content
 * is already in its temp file, so a full disk fails the write before anything is recorded, and
 * what is left after the record is a rename or an unlink, which need no room. If that last step
 * fails all the same, the batch is taken back by a void line (history-log.ts) appended after it:
 * the log is shared by every scope and process and only ever appended to, so nothing is cut out of
 * it; readers drop a void batch wherever they meet its line, gc drops both. The void line must be
 * writable when the change failed for want of room, so prepare() first makes sure of the reserve,
 * a file of RESERVE_BYTES in this directory (refusing the change when it cannot be made); abandon()
 * on a full disk deletes it and appends in the room it freed (made again by the next prepare()).
 * What remains: a process killed between the record and the change, or a disk that refuses even
 * that, leaves a version listed that was not made (its "after" never on disk; the file's content
 * is still its "before", so restoring is harmless): the history may say too much, never too little.
 * record() is for changes found after they were made (outside edits, other agents' files): it
 * never throws, and a failure sets the incomplete mark.
 *
 * Cost: a file create is 0.15-0.3 ms on the ext4 this was measured on, which is why small content
 * is inline: a typical record() or prepare() (a 2 KiB update; prepare adds one lstat of the reserve) hashes and base64-encodes its bytes and makes one
 * append (open, fstat, pread of the last byte, write, stat, close): a median of about 0.045 ms
 * there (it was about 0.4 ms with a blob file per new content). Only a change with content over
 * 8 KiB pays for a blob file (create, write, futimes, fsync, rename) per new blob, or a utimes per reused
 * one. The price is paid by readers and disk: a line of a 2 KiB update is about 6 KB (its before
 * and after, base64), and a reader keeps one base64 string per distinct inline content (decoded
 * and checked only by readBlob()): about 14 MB of heap, and about 0.1 s for the first list(), for
 * 5000 versions of 2 KiB files; later list() calls read only what was appended.
 *
 * Concurrency, record() against gc() (of this or other processes; record() takes no lock, so a
 * memory command never waits for a gc). Inline bytes need nothing here: they live and go with
 * their line, whose copy into a replaced log is covered below; only blob files do:
 * - gc runs under the cross-process lease `gc.lock` (runtime/local/file-lock.ts; a second gc
 *   finds it busy and removes nothing), so gcs never overlap.
 * - Blobs: every blob a record() writes or reuses gets its mtime set to the record's time (a reused
 *   one is touched with utimes; ENOENT means it is gone, and is written again). gc deletes only
 *   unreferenced blobs older than a grace period (blobGraceMs, 1 hour), and does it by renaming the
 *   blob aside to `<sha>.gc`, looking at the mtime of what it moved (the same inode), and putting it
 *   back if a record() touched it meanwhile. So a blob a record() in progress relies on is never
 *   deleted: either its touch came before the move (gc sees it and puts it back) or after (the
 *   touch fails and the record writes the blob again). readBlob() also looks at `<sha>.gc`, so the
 *   moment it is aside is invisible; a `<sha>.gc` left by a killed gc is put back by the next gc
 *   when a version references it.
 * - Log: gc reads the log, writes the kept lines to a temp file and renames it over the log, then
 *   copies every whole line appended to the old file after its read into the new one. A record()
 *   that appended to the old file checks after its write whether the log's path still names the
 *   file it wrote to, and appends its lines again if not. A batch may so end up twice; readers take
 *   an id once. Nothing appended is ever lost.
 *
 * Security: the history lives under the home, which is the user's own (0700); blob names are
 * validated digests (readBlob never takes a path), files are opened without following a final
 * symlink, and bytes (a blob file's or a line's inline bytes) are checked against their digest
 * before they are returned.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TEMP_PREFIX, writeOwnFileSync } from '../runtime/local/atomic-write';
import { errnoOf, namesIn } from '../runtime/local/containment';
import { takeLeaseSync } from '../runtime/local/file-lock';
import { ACTORS, HISTORY_KEEP_DAYS, HISTORY_KEEP_NEWEST, HISTORY_MAX_BYTES_PER_SCOPE, SCOPES } from '../../common/memory/constants';
import { parseMemoryPath } from '../../common/memory/paths';
import { isAgentRef, type AgentRef } from '../../common/activity/agents';
import {
  CAUSE_RE,
  HISTORY_OPS,
  LogReader,
  SHA_RE,
  parseChunk,
  readRange,
  serializeEntries,
  serializeLine,
  storageOf,
  versionId,
  voidLine,
  ID_RE,
  type HistoryActor,
  type LogEntry,
  type HistoryOp,
  type HistoryScope,
  type HistoryVersion,
} from './history-log';

export type { HistoryVersion } from './history-log';

const HISTORY_DIR = 'history';
const LOG_FILE = 'log.jsonl';
const BLOBS_DIR = 'blobs';
export const INCOMPLETE_FILE = 'incomplete';
const GC_LOCK = 'gc.lock';
export const RESERVE_FILE = 'reserve';
/** The reserve's size: room for the void lines of many abandoned batches on a full disk. */
const RESERVE_BYTES = 64 * 1024;
const DEFAULT_BLOB_GRACE_MS = 60 * 60 * 1000;
/** Content of at most this many bytes is kept in its version's log line, larger in a blob file. */
export const INLINE_MAX_BYTES = 8 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const NEWLINE = 0x0a;
const TRASH_SUFFIX = '.gc';
/** How older Cairns named a blob's temp file (`<sha>.<pid>.<n>.tmp`); gc still removes those. */
const LEGACY_TEMP_SUFFIX = '.tmp';

/** What the store is told of one change (bytes as they were and are). */
export interface HistoryChange {
  /** The scope root's identity: 'global', 'project:<projectId>', 'workspace:<workspaceId>'. */
  readonly owner: string;
  readonly scope: HistoryScope;
  /** Virtual path after the change (/memories/project/a.md); for a delete, the deleted path. */
  readonly path: string;
  /** A rename: the path before. */
  readonly oldPath?: string;
  readonly op: HistoryOp;
  /** null: nothing was there; 'unknown': something was, but its bytes are not known. */
  readonly before: Uint8Array | null | 'unknown';
  /** null: nothing is there now (a delete); 'unknown': a file whose bytes could not be read (moved). */
  readonly after: Uint8Array | null | 'unknown';
  readonly actor: HistoryActor;
  /** 'tool' | 'ui' | 'external' | 'undo:<id>' | 'restore:<id>' ...: [a-z]+(:[A-Za-z0-9_-]+)? */
  readonly cause: string;
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** An agent's change: the agent and its session, when known. */
  readonly agent?: AgentRef | undefined;
}

export interface HistoryFilter {
  readonly owner?: string;
  /** A file's exact path, or a directory's prefix ending in '/'; matches a version's path or oldPath. */
  readonly path?: string;
  readonly op?: HistoryOp;
  /** Only the versions of this batch. */
  readonly batch?: string;
  /** At most this many (the newest). */
  readonly limit?: number;
}

export interface HistoryStoreOptions {
  /** The clock, in ms since the epoch (tests inject it). */
  readonly now?: () => number;
  /** Versions older than this are collected, unless among the newest keepNewest of their path (90). */
  readonly keepDays?: number;
  readonly keepNewest?: number;
  /**
   * Bytes per owner above which its oldest versions are collected (64 MiB): the inline bytes of
   * each of its lines, plus the bytes of each distinct blob file its lines name.
   */
  readonly maxBytesPerOwner?: number;
  /** An unreferenced blob younger than this is kept: a record() may be about to reference it (1 hour). */
  readonly blobGraceMs?: number;
}

export interface GcResult {
  /** Versions dropped from the log. */
  readonly versions: number;
  /** Blob files deleted (inline bytes go with their versions and are not counted here). */
  readonly blobs: number;
  /** The blob files' bytes. */
  readonly bytes: number;
}

/** Temp files' numbers, unique in this process (with the pid, unique on the host). */

export class HistoryStore {
  readonly dir: string;
  readonly logFile: string;
  readonly blobsDir: string;
  private readonly incompleteFile: string;
  private readonly reserveFile: string;
  private readonly now: () => number;
  private readonly keepDays: number;
  private readonly keepNewest: number;
  private readonly maxBytesPerOwner: number;
  private readonly blobGraceMs: number;
  private readonly reader: LogReader;
  private readonly madeDirs = new Set<string>();
  /** The first failure's time when it could not be written to the incomplete file. */
  private incompleteHere: string | null = null;
  private reported = false;

  constructor(home: string, options: HistoryStoreOptions = {}) {
    this.dir = path.join(home, HISTORY_DIR);
    this.logFile = path.join(this.dir, LOG_FILE);
    this.blobsDir = path.join(this.dir, BLOBS_DIR);
    this.incompleteFile = path.join(this.dir, INCOMPLETE_FILE);
    this.reserveFile = path.join(this.dir, RESERVE_FILE);
    this.now = options.now ?? Date.now;
    this.keepDays = Math.max(0, options.keepDays ?? HISTORY_KEEP_DAYS);
    this.keepNewest = Math.max(1, Math.floor(options.keepNewest ?? HISTORY_KEEP_NEWEST));
    this.maxBytesPerOwner = Math.max(0, options.maxBytesPerOwner ?? HISTORY_MAX_BYTES_PER_SCOPE);
    this.blobGraceMs = Math.max(0, options.blobGraceMs ?? DEFAULT_BLOB_GRACE_MS);
    this.reader = new LogReader(this.logFile);
  }

  /**
   * Records changes made together (one batch) AFTER they were made, by what cannot be refused: an
   * edit found outside Cairn, another agent's file. Never throws: on any failure nothing is
   * recorded in the log, incompleteSince() is set, and [] is returned. Returns the versions' ids,
   * in the order of `changes`.
   */
  record(changes: readonly HistoryChange[]): string[] {
    if (changes.length === 0) return [];
    try {
      const ids = this.store(changes, null);
      this.reported = false;
      return ids;
    } catch (err) {
      this.markIncomplete(err);
      return [];
    }
  }

  /**
   * Records changes BEFORE they are made (one batch; see "Recorded before made" above): the
   * reserve, blob files of large content, then ONE append of the lines, after the void line of
   * `supersedes` (an earlier prepare of the same change that was not made) when given. Throws an
   * Error with the OS `code` (EINVAL: an invalid change) when the batch cannot be recorded whole:
   * then nothing of it counts, and the change must not be made. Returns the versions' ids, in the
   * order of `changes`; the first is the batch's id, for abandon().
   */
  prepare(changes: readonly HistoryChange[], supersedes: string | null = null): string[] {
    if (changes.length === 0) return [];
    return this.store(changes, supersedes, true);
  }

  /**
   * The change of the batch `batch` (prepare()'s first id) was not made: appends its void line,
   * freeing the reserve for it when the disk is full. Never throws; false (and a line on stderr)
   * when even that failed: the history then lists a change that was not made (never the reverse).
   */
  abandon(batch: string): boolean {
    const line = Buffer.from(voidLine(batch), 'utf8');
    let failure: unknown;
    try {
      this.append(line);
      return true;
    } catch (err) {
      failure = err;
    }
    const code = (failure as NodeJS.ErrnoException)?.code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      try {
        fs.rmSync(this.reserveFile, { force: true });
        this.append(line);
        return true;
      } catch (err) {
        failure = err;
      }
    }
    process.stderr.write(`cairn: a change that was not made could not be taken out of the history: ${(failure as NodeJS.ErrnoException)?.code ?? String(failure)}\n`);
    return false;
  }

  /** Validates, stores blobs and appends the batch's lines (and a void line first); throws on any failure. */
  private store(changes: readonly HistoryChange[], supersedes: string | null, reserve = false): string[] {
    for (const change of changes) validateChange(change);
    if (supersedes !== null && !ID_RE.test(supersedes)) throw Object.assign(new Error('invalid history change: supersedes'), { code: 'EINVAL' });
    const ms = this.now();
    const at = new Date(ms).toISOString();
    const random = crypto.randomBytes(5).toString('hex');
    const ids = changes.map((_, index) => versionId(ms, random, index));
    const blobs = new Map<string, Uint8Array>();
    let data: { beforeData?: string; afterData?: string } = {};
    const digest = (bytes: Uint8Array | null | 'unknown', side: 'beforeData' | 'afterData'): string | null => {
      if (bytes === null || bytes === 'unknown') return bytes;
      const sha = crypto.createHash('sha256').update(bytes).digest('hex');
      if (bytes.byteLength <= INLINE_MAX_BYTES) data[side] = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
      else blobs.set(sha, bytes);
      return sha;
    };
    let lines = supersedes === null ? '' : voidLine(supersedes);
    changes.forEach((change, index) => {
      data = {};
      const version: HistoryVersion = {
        id: ids[index]!,
        at,
        batch: ids[0]!,
        owner: change.owner,
        scope: change.scope,
        path: change.path,
        ...(change.oldPath === undefined ? {} : { oldPath: change.oldPath }),
        op: change.op,
        actor: change.actor,
        cause: change.cause,
        workspaceId: change.workspaceId,
        projectId: change.projectId,
        before: digest(change.before, 'beforeData'),
        after: digest(change.after, 'afterData'),
        beforeSize: change.before instanceof Uint8Array ? change.before.byteLength : null,
        afterSize: change.after instanceof Uint8Array ? change.after.byteLength : null,
        ...(change.agent === undefined ? {} : { agent: change.agent }),
      };
      lines += serializeLine(version, index, changes.length, data, true);
    });
    const out = Buffer.from(lines, 'utf8');
    const store = (): void => {
      this.makeDir(this.dir);
      if (reserve) this.ensureReserve();
      for (const [sha, bytes] of blobs) this.putBlob(sha, bytes, ms);
      this.append(out);
    };
    try {
      store();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // The directory went away (a home being reset): make it again, once.
      this.madeDirs.clear();
      store();
    }
    return ids;
  }

  /**
   * Makes sure the reserve is there, whole (RESERVE_BYTES written, so its blocks are allocated):
   * the room abandon() frees for a void line on a full disk. A reserve left short (a process killed
   * while writing it) is written whole again; one that cannot be is removed (its room given back).
   */
  private ensureReserve(): void {
    const st = lstatOrNull(this.reserveFile);
    if (st?.isFile() && st.size >= RESERVE_BYTES) return;
    writeOwnFileSync(this.reserveFile, Buffer.alloc(RESERVE_BYTES, 0x20));
  }

  /** Newest first, including lines other processes appended. */
  list(filter: HistoryFilter = {}): HistoryVersion[] {
    this.reader.refresh();
    const all = this.reader.all();
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const matchPath = filter.path === undefined ? null : pathMatcher(filter.path);
    const out: HistoryVersion[] = [];
    for (let k = all.length - 1; k >= 0 && out.length < limit; k--) {
      const v = all[k]!;
      if (filter.owner !== undefined && v.owner !== filter.owner) continue;
      if (filter.op !== undefined && v.op !== filter.op) continue;
      if (filter.batch !== undefined && v.batch !== filter.batch) continue;
      if (matchPath !== null && !matchPath(v.path) && !(v.oldPath !== undefined && matchPath(v.oldPath))) continue;
      out.push(v);
    }
    return out;
  }

  get(id: string): HistoryVersion | null {
    this.reader.refresh();
    return this.reader.get(id);
  }

  /**
   * The bytes of a recorded sha256, or null if collected, missing or damaged: the inline bytes of
   * a line of the log as it is now (this process's or another's; so they are gone exactly when
   * their line is), else a blob file.
   */
  readBlob(sha256: string): Uint8Array | null {
    if (!SHA_RE.test(sha256)) return null;
    try {
      this.reader.refresh();
    } catch {
      // The log cannot be read: what was taken before still counts, and blob files.
    }
    return this.readInline(sha256) ?? this.readBlobFile(sha256);
  }

  private readInline(sha256: string): Uint8Array | null {
    const base64 = this.reader.inline(sha256);
    if (base64 === undefined) return null;
    const data = Buffer.from(base64, 'base64');
    if (crypto.createHash('sha256').update(data).digest('hex') !== sha256) return null;
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }

  private readBlobFile(sha256: string): Uint8Array | null {
    const main = this.blobPath(sha256);
    // The blob may be aside for a moment (gc, see the header): look there, then again in place.
    for (const p of [main, main + TRASH_SUFFIX, main]) {
      let data: Buffer;
      try {
        const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
        try {
          data = fs.readFileSync(fd);
        } finally {
          fs.closeSync(fd);
        }
      } catch {
        // Not in this place (collected, or aside for a moment), or unreadable: the next place;
        // a blob found nowhere reads as not kept, which is what a person is shown.
        continue;
      }
      if (crypto.createHash('sha256').update(data).digest('hex') !== sha256) return null;
      return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    }
    return null;
  }

  /**
   * The owner's recently deleted: the paths whose latest version is a delete of it, or a rename
   * away from it, newest first, each with that version.
   */
  recentlyDeleted(owner: string): HistoryVersion[] {
    this.reader.refresh();
    const latest = new Map<string, HistoryVersion>();
    for (const v of this.reader.all()) {
      if (v.owner !== owner) continue;
      latest.set(v.path, v);
      if (v.oldPath !== undefined) latest.set(v.oldPath, v);
    }
    const gone = new Set<HistoryVersion>();
    for (const [p, v] of latest) {
      if ((v.op === 'delete' && v.path === p) || (v.op === 'rename' && v.oldPath === p && v.path !== p)) gone.add(v);
    }
    const order = new Map(this.reader.all().map((v, k) => [v, k] as const));
    return [...gone].sort((a, b) => order.get(b)! - order.get(a)!);
  }

  /**
   * The ISO time of the first record() that failed (this process's or another's), or null. The
   * mark's presence is what counts: one that cannot be read or holds no time still says the history
   * is incomplete, since the time it was last changed.
   */
  incompleteSince(): string | null {
    let persisted: string | null = null;
    try {
      const text = fs.readFileSync(this.incompleteFile, 'utf8').trim();
      persisted = Number.isFinite(Date.parse(text)) ? text : this.markTime();
    } catch (err) {
      // No mark (nor a history folder to hold one): nothing failed.
      const code = errnoOf(err);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') persisted = this.markTime();
    }
    if (persisted === null) return this.incompleteHere;
    if (this.incompleteHere === null) return persisted;
    return Date.parse(persisted) <= Date.parse(this.incompleteHere) ? persisted : this.incompleteHere;
  }

  /** When the incomplete mark was last changed (now, if even that cannot be seen). */
  private markTime(): string {
    let at = this.now();
    try {
      at = fs.statSync(this.incompleteFile).mtimeMs;
    } catch {
      // Not even its time can be seen: incomplete from now, which is when it was found.
    }
    return new Date(at).toISOString();
  }

  /** Forgets the incomplete mark (after the person was told); false when it could not be removed. */
  clearIncomplete(): boolean {
    try {
      fs.rmSync(this.incompleteFile, { force: true });
    } catch {
      return false;
    }
    this.incompleteHere = null;
    return true;
  }

  /**
   * Retention (also `cairn history gc`): drops versions older than keepDays unless among the newest
   * keepNewest versions of their path (or old path); then, while an owner's referenced blob bytes
   * exceed maxBytesPerOwner, drops its oldest versions, but never the newest version of any path;
   * then deletes blobs no version references (older than the grace period). Clears the incomplete
   * mark. Returns what it removed; all zeros when another gc holds the lock. Throws on I/O errors.
   */
  gc(): GcResult {
    if (!isDirectory(this.dir)) return { versions: 0, blobs: 0, bytes: 0 };
    // gc runs synchronously, so its lease has no heartbeat while it runs (`syncRun`).
    const lease = takeLeaseSync(this.logFile, { lockfilePath: path.join(this.dir, GC_LOCK), syncRun: true });
    if (!lease) return { versions: 0, blobs: 0, bytes: 0 };
    try {
      const versions = this.collectVersions();
      const referenced = this.referencedBlobs();
      const blobs = this.collectBlobs(referenced);
      this.clearIncomplete();
      return { versions, blobs: blobs.count, bytes: blobs.bytes };
    } finally {
      lease.release();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private blobPath(sha: string): string {
    return path.join(this.blobsDir, sha.slice(0, 2), sha);
  }

  private makeDir(dir: string): void {
    if (this.madeDirs.has(dir)) return;
    fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    this.madeDirs.add(dir);
  }

  /** Makes sure the blob is there, with its mtime at `ms` (see the header: gc's grace). */
  private putBlob(sha: string, bytes: Uint8Array, ms: number): void {
    const p = this.blobPath(sha);
    const time = ms / 1000;
    try {
      fs.utimesSync(p, time, time);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // The shared write: temp in the shard, fsync, rename; its mtime the record's (gc's grace).
    writeOwnFileSync(p, bytes, { mtimeMs: ms });
  }

  /**
   * One O_APPEND write of whole lines (a torn last line is closed first); appended again if gc
   * replaced the log meanwhile (see the header).
   */
  private append(data: Buffer): void {
    for (let attempt = 0; ; attempt++) {
      const fd = fs.openSync(this.logFile, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, FILE_MODE);
      let replaced: boolean;
      try {
        const st = fs.fstatSync(fd);
        let out = data;
        if (st.size > 0) {
          const last = Buffer.alloc(1);
          if (fs.readSync(fd, last, 0, 1, st.size - 1) === 1 && last[0] !== NEWLINE) out = Buffer.concat([Buffer.from('\n'), data]);
        }
        const written = fs.writeSync(fd, out);
        // A short append to a regular file means the disk (or the quota) is full; its torn line
        // is skipped by readers and closed by the next append.
        if (written !== out.length) throw Object.assign(new Error('short write to the history log'), { code: 'ENOSPC' });
        let now: fs.Stats | null = null;
        try {
          now = fs.statSync(this.logFile);
        } catch {
          // The log is no longer at its name: replaced (a gc's rewrite), as the line below takes it.
        }
        replaced = now === null || now.ino !== st.ino || now.dev !== st.dev;
      } finally {
        fs.closeSync(fd);
      }
      if (!replaced) return;
      // gc replaced the log between our open and our check; our lines may not have been copied.
      if (attempt >= 3) throw Object.assign(new Error('the history log kept being replaced'), { code: 'EAGAIN' });
    }
  }

  private markIncomplete(err: unknown): void {
    const at = new Date(this.now()).toISOString();
    if (!this.reported) {
      this.reported = true;
      const code = (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);
      process.stderr.write(`cairn: could not record history (history incomplete from now on): ${code}\n`);
    }
    try {
      this.makeDir(this.dir);
    } catch {
      this.incompleteHere ??= at;
      return;
    }
    try {
      writeOwnFileSync(this.incompleteFile, `${at}\n`, { exclusive: true });
    } catch (e) {
      // EEXIST: an earlier failure is already marked, and the earliest counts.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') this.incompleteHere ??= at;
    }
  }

  /** gc's first step: rewrites the log without the versions retention drops; returns how many. */
  private collectVersions(): number {
    let fd: number;
    try {
      fd = fs.openSync(this.logFile, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    try {
      const size = fs.fstatSync(fd).size;
      const chunk = parseChunk(readRange(fd, 0, size));
      const seen = new Set<string>();
      const all: LogEntry[] = [];
      let duplicates = 0;
      // A batch taken back is dropped with its void line; neither is a version.
      const voided = new Set(chunk.voids);
      for (const batch of chunk.batches) {
        if (voided.has(batch[0]!.version.batch)) continue;
        for (const line of batch) {
          if (seen.has(line.version.id)) duplicates++;
          else {
            seen.add(line.version.id);
            all.push(line);
          }
        }
      }
      const dropped = this.retention(all);
      if (dropped.size === 0 && duplicates === 0 && chunk.skipped === 0 && voided.size === 0) return 0;
      const kept = all.filter((e) => !dropped.has(e));
      writeOwnFileSync(this.logFile, serializeEntries(kept));
      // Whole lines appended to the old file since we read it (and a batch still being written
      // when we did) go into the new one; a record() still writing to the old file after this
      // sees the rename and appends again.
      const tail = readRange(fd, chunk.consumed, fs.fstatSync(fd).size);
      const end = tail.lastIndexOf(NEWLINE);
      if (end >= 0) this.append(tail.subarray(0, end + 1));
      return dropped.size;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The entries retention drops, from all entries (one per version) in log order. */
  private retention(all: readonly LogEntry[]): Set<LogEntry> {
    const horizon = this.now() - this.keepDays * DAY_MS;
    // Each path's versions (a rename belongs to its old path too), per owner, newest last.
    const byPath = new Map<string, LogEntry[]>();
    const keys = (v: HistoryVersion): string[] => (v.oldPath === undefined || v.oldPath === v.path ? [`${v.owner}\0${v.path}`] : [`${v.owner}\0${v.path}`, `${v.owner}\0${v.oldPath}`]);
    for (const e of all) {
      for (const key of keys(e.version)) {
        let list = byPath.get(key);
        if (!list) byPath.set(key, (list = []));
        list.push(e);
      }
    }
    const newestOfPath = new Set<LogEntry>();
    const amongNewest = new Set<LogEntry>();
    for (const list of byPath.values()) {
      newestOfPath.add(list[list.length - 1]!);
      for (const e of list.slice(-this.keepNewest)) amongNewest.add(e);
    }
    const dropped = new Set<LogEntry>();
    for (const e of all) {
      if (Date.parse(e.version.at) < horizon && !amongNewest.has(e)) dropped.add(e);
    }
    // The byte cap, per owner, over what the age rule kept: each line's inline bytes, plus each
    // distinct blob file once.
    const byOwner = new Map<string, LogEntry[]>();
    for (const e of all) {
      if (dropped.has(e)) continue;
      let list = byOwner.get(e.version.owner);
      if (!list) byOwner.set(e.version.owner, (list = []));
      list.push(e);
    }
    for (const list of byOwner.values()) {
      const refs = new Map<string, { count: number; size: number }>();
      const costs = new Map<LogEntry, { inline: number; files: Map<string, number> }>();
      let total = 0;
      for (const e of list) {
        const { inline, files } = storageOf(e);
        let inlineBytes = 0;
        for (const base64 of inline.values()) inlineBytes += inlineSize(base64);
        costs.set(e, { inline: inlineBytes, files });
        total += inlineBytes;
        for (const [sha, size] of files) {
          const ref = refs.get(sha);
          if (ref) ref.count++;
          else {
            refs.set(sha, { count: 1, size });
            total += size;
          }
        }
      }
      for (const e of list) {
        if (total <= this.maxBytesPerOwner) break;
        if (newestOfPath.has(e)) continue;
        dropped.add(e);
        const cost = costs.get(e)!;
        total -= cost.inline;
        for (const sha of cost.files.keys()) {
          const ref = refs.get(sha)!;
          if (--ref.count === 0) total -= ref.size;
        }
      }
    }
    return dropped;
  }

  /** Every blob file the log as it is now names (inline bytes are not in files). */
  private referencedBlobs(): ReadonlySet<string> {
    const reader = new LogReader(this.logFile);
    reader.refresh();
    return reader.blobRefs();
  }

  /** gc's last step: deletes unreferenced blobs past the grace period, and stale temp files. */
  private collectBlobs(referenced: ReadonlySet<string>): { count: number; bytes: number } {
    const young = this.now() - this.blobGraceMs;
    let count = 0;
    let bytes = 0;
    for (const shard of namesIn(this.blobsDir)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      const dir = path.join(this.blobsDir, shard);
      // A shard that went away (or is a stray file) holds no blobs; any other failure is gc's to report.
      for (const name of namesIn(dir, undefined, ['ENOENT', 'ENOTDIR'])) {
        const p = path.join(dir, name);
        if (name.startsWith(TEMP_PREFIX) || name.endsWith(LEGACY_TEMP_SUFFIX)) {
          // A temp file of a record() killed before its rename (or of an older Cairn's).
          const st = lstatOrNull(p);
          if (st && st.mtimeMs < young) fs.rmSync(p, { force: true });
          continue;
        }
        if (name.endsWith(TRASH_SUFFIX)) {
          // Left aside by a killed gc: back if referenced (and not written again meanwhile), else gone.
          const sha = name.slice(0, -TRASH_SUFFIX.length);
          if (!SHA_RE.test(sha)) continue;
          const main = path.join(dir, sha);
          if (referenced.has(sha) && lstatOrNull(main) === null) {
            try {
              fs.renameSync(p, main);
            } catch {
              // Left aside, where readBlob looks too: a referenced blob is never removed, and the
              // next gc tries again.
            }
            continue;
          }
          const st = lstatOrNull(p);
          fs.rmSync(p, { force: true });
          if (st) {
            count++;
            bytes += st.size;
          }
          continue;
        }
        if (!SHA_RE.test(name) || referenced.has(name)) continue;
        const st = lstatOrNull(p);
        if (st === null || st.mtimeMs >= young) continue;
        // Aside first, then decide on what was moved: a record() that touched it meanwhile wins.
        const aside = p + TRASH_SUFFIX;
        try {
          fs.renameSync(p, aside);
        } catch {
          // Gone already (another gc), or cannot be moved: kept, and the next gc tries again.
          continue;
        }
        const moved = lstatOrNull(aside);
        if (moved !== null && moved.mtimeMs >= young) {
          fs.renameSync(aside, p);
          continue;
        }
        fs.rmSync(aside, { force: true });
        count++;
        bytes += moved?.size ?? 0;
      }
    }
    return { count, bytes };
  }
}

function validateChange(c: HistoryChange): void {
  const fail = (why: string): never => {
    throw Object.assign(new Error(`invalid history change: ${why}`), { code: 'EINVAL' });
  };
  if (!(SCOPES as readonly string[]).includes(c.scope)) fail('scope');
  if (c.scope === 'global' ? c.owner !== 'global' : !c.owner.startsWith(`${c.scope}:`) || c.owner.length === c.scope.length + 1) fail('owner');
  if (/[\u0000-\u001f\u007f]/.test(c.owner)) fail('owner');
  if (!HISTORY_OPS.includes(c.op)) fail('op');
  if (!(ACTORS as readonly string[]).includes(c.actor)) fail('actor');
  if (!CAUSE_RE.test(c.cause)) fail('cause');
  if (c.agent !== undefined && !isAgentRef(c.agent)) fail('agent');
  if (!(c.workspaceId === null || typeof c.workspaceId === 'string') || !(c.projectId === null || typeof c.projectId === 'string')) fail('ids');
  const checkPath = (p: string): void => {
    let parsed;
    try {
      parsed = parseMemoryPath(p);
    } catch {
      return fail('path');
    }
    if (parsed.kind !== 'scope' || parsed.scope !== c.scope || parsed.segments.length === 0 || p.endsWith('/')) fail('path');
  };
  checkPath(c.path);
  if ((c.op === 'rename') !== (c.oldPath !== undefined)) fail('oldPath');
  if (c.oldPath !== undefined) checkPath(c.oldPath);
  const isBytes = (x: unknown): boolean => x === null || x === 'unknown' || x instanceof Uint8Array;
  if (!isBytes(c.before) || !isBytes(c.after)) fail('bytes');
  if (c.op === 'delete' && c.after !== null) fail('a delete leaves nothing');
  if ((c.op === 'create' || c.op === 'update') && c.after === null) fail('a create or update leaves bytes');
}

/** Matches a file's exact path, or everything under a directory's prefix ending in '/'. */
function pathMatcher(filter: string): (p: string) => boolean {
  return filter.endsWith('/') ? (p) => p.startsWith(filter) : (p) => p === filter;
}

/** The number of bytes a (padded) base64 string decodes to. */
function inlineSize(base64: string): number {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - pad;
}

/** What is at `p`, or null when nothing is; any other failure is thrown. */
function lstatOrNull(p: string): fs.Stats | null {
  return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
}

function isDirectory(p: string): boolean {
  return lstatOrNull(p)?.isDirectory() ?? false;
}
