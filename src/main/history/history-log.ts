/**
 * The version log's line format and its reader: `<home>/history/log.jsonl`, one JSON line
 * per recorded version, the lines of one record() call (a batch) written together in one O_APPEND
 * write. Owns: how a version is serialized, how a line is validated, and which lines count.
 *
 * Line format (v 2; fields in this order, `oldPath`, `beforeData` and `afterData` only when present):
 *   {"v":2,"id","at","batch","i","n","owner","scope","path","oldPath"?,"op","actor","cause",
 *    "workspaceId","projectId","before","after","beforeSize","afterSize","agent"?,"beforeData"?,"afterData"?}
 * `agent` ({"name","session"}), an agent's change only: which agent made it and in which session
 * (common/activity/agents.ts); lines without it (older ones, a person's, outside edits) still read.
 * `before`/`after` are the sha256 hex of the bytes (or null / "unknown"), whatever the bytes are
 * kept in, so versions compare by digest. `beforeData`/`afterData`, when present, are those bytes
 * themselves, base64 (INLINE: small content, see history-store.ts); without them the bytes are a
 * blob file named by the digest. `afterData` is left out when `after` equals `before` and
 * `beforeData` is there (a rename): the line carries those bytes once. v 1 lines (no data fields,
 * every digest a blob file) are still read; gc rewrites them as v 2 lines without data.
 *
 * Invariants:
 * - Inline bytes belong to their line: a reader learns them when it takes the line, and they are
 *   gone exactly when the line is (gc's rewrite). A data field whose length does not match the
 *   line's size makes the line invalid; the bytes' digest is checked when they are read back
 *   (LogReader.inline() callers), never trusted.
 * - A batch counts whole or not at all. Each line carries its index in the batch (`i`) and the
 *   batch's size (`n`); a reader takes a batch only once it has seen lines 0..n-1 of it in a row. A
 *   batch cut short (a crash or a short write, disk full) is skipped, so nothing is half-recorded.
 * - A torn last line (no newline yet) is not consumed: it may still be being written by another
 *   process, and is read again next time. Once the next append has closed it with a newline, it is
 *   a line that does not parse, and is skipped.
 * - A version id appears once: a line whose id was already taken is skipped (a batch appended again
 *   after the log was replaced by gc, see history-store.ts, is harmless).
 * - A void line `{"v":2,"void":"<batch id>"}` takes back a batch recorded before its change was
 *   made, when the change then was not made (history-store.ts prepare/abandon): that batch does not
 *   count, wherever its lines are (before the void line, or appended again by gc). Only Cairn
 *   appends void lines, always after their batch; gc's rewrite drops both.
 * - Every line is validated field by field before it is believed; a line that does not validate is
 *   skipped, never fatal. The log is Cairn's own (under the home, 0600), so this guards against
 *   damage, not an attacker.
 *
 * Concurrency: LogReader keeps what it parsed and, on refresh(), reads only what was appended
 * since (by size), starting over when the file was replaced (another inode or birth time: gc's
 * rename) or shrank.
 */
import * as fs from 'node:fs';
import { isAgentRef, type AgentRef } from '../../common/activity/agents';
import { SCOPES, storedActor, type Actor } from '../../common/memory/constants';

export type HistoryActor = Actor;
export type HistoryOp = 'create' | 'update' | 'delete' | 'rename';
export type HistoryScope = 'global' | 'project' | 'workspace';

export const HISTORY_OPS: readonly HistoryOp[] = ['create', 'update', 'delete', 'rename'];
/** The line format's version written; a line of a version not in LOG_FORMATS_READ is skipped. */
const LOG_FORMAT = 2;
const LOG_FORMATS_READ: readonly unknown[] = [1, 2];

/** One recorded change, as listed. */
export interface HistoryVersion {
  /** Unique, sortable by time: `<ms since epoch, base36, 9 chars>-<10 hex, per batch>-<index in batch, base36, 4 chars>`. */
  readonly id: string;
  /** ISO time of the record() call. */
  readonly at: string;
  /** The id of the first change of its record() call. */
  readonly batch: string;
  readonly owner: string;
  readonly scope: HistoryScope;
  readonly path: string;
  readonly oldPath?: string;
  readonly op: HistoryOp;
  readonly actor: HistoryActor;
  readonly cause: string;
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  /** sha256 hex of the bytes before, null (nothing was there), or 'unknown'. */
  readonly before: string | null | 'unknown';
  /** sha256 hex of the bytes after, null (nothing is there now), or 'unknown'. */
  readonly after: string | null | 'unknown';
  readonly beforeSize: number | null;
  readonly afterSize: number | null;
  /** The agent and its session, for an agent's change when known. */
  readonly agent?: AgentRef;
}

export const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{10}-[0-9a-z]{4}$/;
export const SHA_RE = /^[0-9a-f]{64}$/;
export const CAUSE_RE = /^[a-z]+(:[A-Za-z0-9_-]+)?$/;
const NEWLINE = 0x0a;

/** A version's id: time first, so ids sort by time, then by their index within the batch. */
export function versionId(ms: number, batchRandom: string, index: number): string {
  return `${Math.max(0, Math.floor(ms)).toString(36).padStart(9, '0')}-${batchRandom}-${index.toString(36).padStart(4, '0')}`;
}

/** The bytes a line carries itself, base64 (see the header). */
export interface InlineData {
  readonly beforeData?: string;
  readonly afterData?: string;
}

/** A version with the bytes its line carries: what a line holds. */
export interface LogEntry extends InlineData {
  readonly version: HistoryVersion;
}

/** The length of the base64 of `size` bytes (padded). */
function base64Length(size: number): number {
  return 4 * Math.ceil(size / 3);
}

/**
 * One log line (ending in a newline), fields in a fixed order. `data` are the inline bytes, base64;
 * afterData is left out when it would repeat beforeData (same digest). `fresh`: the data was just
 * encoded (record()), so it is written without being scanned for JSON escapes (a few µs a line);
 * data parsed from a line (gc's rewrite) is escaped, whatever it holds.
 */
export function serializeLine(v: HistoryVersion, i: number, n: number, data: InlineData = {}, fresh = false): string {
  const line: Record<string, unknown> = { v: LOG_FORMAT, id: v.id, at: v.at, batch: v.batch, i, n, owner: v.owner, scope: v.scope, path: v.path };
  if (v.oldPath !== undefined) line.oldPath = v.oldPath;
  Object.assign(line, {
    op: v.op,
    actor: v.actor,
    cause: v.cause,
    workspaceId: v.workspaceId,
    projectId: v.projectId,
    before: v.before,
    after: v.after,
    beforeSize: v.beforeSize,
    afterSize: v.afterSize,
  });
  if (v.agent !== undefined) line.agent = { name: v.agent.name, session: v.agent.session };
  // Base64 needs no JSON escaping.
  const quote = (x: string): string => (fresh ? `"${x}"` : JSON.stringify(x));
  let text = JSON.stringify(line).slice(0, -1);
  if (data.beforeData !== undefined) text += `,"beforeData":${quote(data.beforeData)}`;
  if (data.afterData !== undefined && !(v.after === v.before && data.beforeData !== undefined)) text += `,"afterData":${quote(data.afterData)}`;
  return `${text}}\n`;
}

/** The line that takes back batch `batch` (see the header). */
export function voidLine(batch: string): string {
  return `{"v":${LOG_FORMAT},"void":"${batch}"}\n`;
}

/** The batch a void line takes back, or null when `text` is no void line. */
function parseVoid(text: string): string | null {
  if (!text.startsWith('{"v":') || !text.includes('"void"')) return null;
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    return Object.keys(o).length === 2 && o.v === LOG_FORMAT && typeof o.void === 'string' && ID_RE.test(o.void) ? o.void : null;
  } catch {
    return null;
  }
}

/** Serializes entries in order, numbering each run of one batch afresh (gc's rewrite drops some). */
export function serializeEntries(entries: readonly LogEntry[]): string {
  const out: string[] = [];
  for (let start = 0; start < entries.length; ) {
    let end = start + 1;
    while (end < entries.length && entries[end]!.version.batch === entries[start]!.version.batch) end++;
    for (let k = start; k < end; k++) out.push(serializeLine(entries[k]!.version, k - start, end - start, entries[k]!));
    start = end;
  }
  return out.join('');
}

/**
 * Where a line's bytes are: `inline`, the digests the line carries (sha -> base64, the bytes
 * counted once per line); `files`, the digests it names whose bytes are blob files, with sizes.
 */
export function storageOf(e: LogEntry): { inline: Map<string, string>; files: Map<string, number> } {
  const inline = new Map<string, string>();
  const files = new Map<string, number>();
  const { before, after, beforeSize, afterSize } = e.version;
  if (before !== null && before !== 'unknown') {
    if (e.beforeData !== undefined) inline.set(before, e.beforeData);
    else files.set(before, beforeSize ?? 0);
  }
  if (after !== null && after !== 'unknown') {
    if (e.afterData !== undefined) inline.set(after, e.afterData);
    else if (!inline.has(after)) files.set(after, afterSize ?? 0);
  }
  return { inline, files };
}

interface ParsedLine extends LogEntry {
  readonly i: number;
  readonly n: number;
}

const isStr = (x: unknown): x is string => typeof x === 'string';
const isNullableStr = (x: unknown): x is string | null => x === null || typeof x === 'string';
const isSize = (x: unknown): x is number | null => x === null || (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);
const isDigest = (x: unknown): x is string | null => x === null || x === 'unknown' || (typeof x === 'string' && SHA_RE.test(x));
const isIndex = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** A line's version, or null when it does not validate. */
function parseLine(text: string): ParsedLine | null {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    o = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!LOG_FORMATS_READ.includes(o.v)) return null;
  const { id, at, batch, i, n, owner, scope, path, oldPath, op, actor, cause, workspaceId, projectId, before, after, beforeSize, afterSize, agent } = o;
  if (!isStr(id) || !ID_RE.test(id) || !isStr(batch) || !ID_RE.test(batch)) return null;
  if (!isStr(at) || !Number.isFinite(Date.parse(at))) return null;
  if (!isIndex(i) || !isIndex(n) || i >= n) return null;
  if (!isStr(owner) || !isStr(path) || !(oldPath === undefined || isStr(oldPath))) return null;
  if (!(SCOPES as readonly unknown[]).includes(scope) || !(HISTORY_OPS as readonly unknown[]).includes(op) || storedActor(actor) === null) return null;
  if (!isStr(cause) || !CAUSE_RE.test(cause) || !isNullableStr(workspaceId) || !isNullableStr(projectId)) return null;
  if (!isDigest(before) || !isDigest(after) || !isSize(beforeSize) || !isSize(afterSize)) return null;
  if (agent !== undefined && !isAgentRef(agent)) return null;
  // Inline bytes (v 2): only of a digest, as long as its size says (the digest is checked on read).
  const isData = (data: unknown, digest: string | null, size: number | null): data is string | undefined =>
    data === undefined || (o.v !== 1 && typeof data === 'string' && digest !== null && SHA_RE.test(digest) && size !== null && data.length === base64Length(size));
  const { beforeData, afterData } = o;
  if (!isData(beforeData, before, beforeSize) || !isData(afterData, after, afterSize)) return null;
  const version: HistoryVersion = {
    id,
    at,
    batch,
    owner,
    scope: scope as HistoryScope,
    path,
    ...(oldPath === undefined ? {} : { oldPath }),
    op: op as HistoryOp,
    actor: storedActor(actor) as HistoryActor,
    cause,
    workspaceId,
    projectId,
    before,
    after,
    beforeSize,
    afterSize,
    ...(agent === undefined ? {} : { agent: Object.freeze({ name: agent.name, session: agent.session }) }),
  };
  return {
    version: Object.freeze(version),
    i,
    n,
    ...(beforeData === undefined ? {} : { beforeData }),
    ...(afterData === undefined ? {} : { afterData }),
  };
}

export interface ChunkResult {
  /** Whole batches, in log order. */
  readonly batches: ParsedLine[][];
  /** Bytes of `buf` consumed: up to the end of the last whole batch or skipped line. */
  readonly consumed: number;
  /** Lines skipped: unparseable, torn, or of a batch cut short. */
  readonly skipped: number;
  /** The batches void lines take back, in log order. */
  readonly voids: string[];
}

/**
 * Splits `buf` (log bytes from a line start) into whole batches. The tail that may still grow (a
 * line without its newline, or the first lines of a batch whose last lines are not there yet) is
 * left unconsumed.
 */
export function parseChunk(buf: Buffer): ChunkResult {
  const batches: ParsedLine[][] = [];
  const voids: string[] = [];
  let pending: ParsedLine[] = [];
  let pendingStart = 0;
  let consumed = 0;
  let skipped = 0;
  const drop = (): void => {
    skipped += pending.length;
    pending = [];
  };
  for (let pos = 0; ; ) {
    const nl = buf.indexOf(NEWLINE, pos);
    if (nl < 0) break;
    const start = pos;
    pos = nl + 1;
    if (nl === start) {
      // An empty line: never written by an append; a batch around it is not whole.
      drop();
      consumed = pos;
      continue;
    }
    const text = buf.toString('utf8', start, nl);
    const voided = parseVoid(text);
    if (voided !== null) {
      drop();
      voids.push(voided);
      consumed = pos;
      continue;
    }
    const line = parseLine(text);
    if (line === null) {
      drop();
      skipped++;
      consumed = pos;
      continue;
    }
    if (line.i === 0) {
      drop();
      pending = [line];
      pendingStart = start;
    } else if (pending.length === line.i && pending[0]!.version.batch === line.version.batch && pending[0]!.n === line.n) {
      pending.push(line);
    } else {
      drop();
      skipped++;
      consumed = pos;
      continue;
    }
    if (pending.length === line.n) {
      batches.push(pending);
      pending = [];
      consumed = pos;
    }
  }
  if (pending.length > 0) consumed = pendingStart;
  return { batches, consumed, skipped, voids };
}

/** Reads `[from, to)` of an open file. */
export function readRange(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, to - from));
  let off = 0;
  while (off < buf.length) {
    const got = fs.readSync(fd, buf, off, buf.length - off, from + off);
    if (got === 0) break;
    off += got;
  }
  return off === buf.length ? buf : buf.subarray(0, off);
}

/**
 * The versions of one log file, kept between calls: refresh() reads only what was appended since
 * the last call, or everything again when the file was replaced. Keeps the inline bytes of the
 * lines it took (base64 as parsed, decoded only when read: list() never pays for them), by digest,
 * and which digests lines name as blob files; both are forgotten with the lines on a re-read.
 */
export class LogReader {
  private ino = -1;
  private dev = -1;
  /** With the inode, tells a replaced log from the one kept (an inode number can be reused). */
  private birth = -1;
  private offset = 0;
  private versions: HistoryVersion[] = [];
  private byId = new Map<string, HistoryVersion>();
  private inlineBySha = new Map<string, string>();
  private fileRefs = new Set<string>();
  /** Batches taken back by void lines. */
  private voided = new Set<string>();

  constructor(readonly file: string) {}

  /** Brings the kept versions up to date with the file; a missing log (or history dir) is empty. */
  refresh(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      this.reset(-1, -1, -1);
      return;
    }
    try {
      const st = fs.fstatSync(fd);
      if (st.ino !== this.ino || st.dev !== this.dev || st.birthtimeMs !== this.birth || st.size < this.offset) this.reset(st.ino, st.dev, st.birthtimeMs);
      if (st.size === this.offset) return;
      const chunk = parseChunk(readRange(fd, this.offset, st.size));
      this.offset += chunk.consumed;
      if (chunk.voids.length > 0) this.takeBack(chunk.voids);
      for (const batch of chunk.batches) {
        if (this.voided.has(batch[0]!.version.batch)) continue;
        for (const line of batch) {
          const { version } = line;
          if (this.byId.has(version.id)) continue;
          this.byId.set(version.id, version);
          this.versions.push(version);
          const { inline, files } = storageOf(line);
          for (const [sha, data] of inline) if (!this.inlineBySha.has(sha)) this.inlineBySha.set(sha, data);
          for (const sha of files.keys()) this.fileRefs.add(sha);
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The versions in log order (oldest first). Do not mutate. */
  all(): readonly HistoryVersion[] {
    return this.versions;
  }

  get(id: string): HistoryVersion | null {
    return this.byId.get(id) ?? null;
  }

  /** The base64 of a digest's bytes carried by a line taken (unchecked), or undefined. */
  inline(sha: string): string | undefined {
    return this.inlineBySha.get(sha);
  }

  /** The digests some line taken names as a blob file (not carried inline by that line). */
  blobRefs(): ReadonlySet<string> {
    return this.fileRefs;
  }

  /** Forgets the versions of batches void lines take back (inline bytes stay: they are checked when read). */
  private takeBack(batches: readonly string[]): void {
    for (const b of batches) this.voided.add(b);
    if (!this.versions.some((v) => this.voided.has(v.batch))) return;
    this.versions = this.versions.filter((v) => {
      if (!this.voided.has(v.batch)) return true;
      this.byId.delete(v.id);
      return false;
    });
  }

  private reset(ino: number, dev: number, birth: number): void {
    this.ino = ino;
    this.dev = dev;
    this.birth = birth;
    this.offset = 0;
    this.versions = [];
    this.byId = new Map();
    this.inlineBySha = new Map();
    this.fileRefs = new Set();
    this.voided = new Set();
  }
}
