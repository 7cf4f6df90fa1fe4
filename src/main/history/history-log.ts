/**
 * The version log's line format and its reader (issue 18): `<home>/history/log.jsonl`, one JSON line
 * per recorded version, the lines of one record() call (a batch) written together in one O_APPEND
 * write. Owns: how a version is serialized, how a line is validated, and which lines count.
 *
 * Invariants:
 * - A batch counts whole or not at all. Each line carries its index in the batch (`i`) and the
 *   batch's size (`n`); a reader takes a batch only once it has seen lines 0..n-1 of it in a row. A
 *   batch cut short (a crash or a short write, disk full) is skipped, so nothing is half-recorded.
 * - A torn last line (no newline yet) is not consumed: it may still be being written by another
 *   process, and is read again next time. Once the next append has closed it with a newline, it is
 *   a line that does not parse, and is skipped.
 * - A version id appears once: a line whose id was already taken is skipped (a batch appended again
 *   after the log was replaced by gc, see history-store.ts, is harmless).
 * - Every line is validated field by field before it is believed; a line that does not validate is
 *   skipped, never fatal. The log is Cairn's own (under the home, 0600), so this guards against
 *   damage, not an attacker.
 *
 * Concurrency: LogReader keeps what it parsed and, on refresh(), reads only what was appended
 * since (by size), starting over when the file was replaced (another inode or birth time: gc's
 * rename) or shrank.
 */
import * as fs from 'node:fs';
import { ACTORS, SCOPES } from '../../common/memory/constants';

export type HistoryActor = 'agent' | 'user' | 'external';
export type HistoryOp = 'create' | 'update' | 'delete' | 'rename';
export type HistoryScope = 'global' | 'project' | 'workspace';

export const HISTORY_OPS: readonly HistoryOp[] = ['create', 'update', 'delete', 'rename'];
/** The line format's version; a line of another version is skipped. */
export const LOG_FORMAT = 1;

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
}

export const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{10}-[0-9a-z]{4}$/;
export const SHA_RE = /^[0-9a-f]{64}$/;
export const CAUSE_RE = /^[a-z]+(:[A-Za-z0-9_-]+)?$/;
const NEWLINE = 0x0a;

/** A version's id: time first, so ids sort by time, then by their index within the batch. */
export function versionId(ms: number, batchRandom: string, index: number): string {
  return `${Math.max(0, Math.floor(ms)).toString(36).padStart(9, '0')}-${batchRandom}-${index.toString(36).padStart(4, '0')}`;
}

/** One log line (ending in a newline), fields in a fixed order. */
export function serializeLine(v: HistoryVersion, i: number, n: number): string {
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
  return `${JSON.stringify(line)}\n`;
}

/** Serializes versions in order, numbering each run of one batch afresh (gc's rewrite drops some). */
export function serializeVersions(versions: readonly HistoryVersion[]): string {
  const out: string[] = [];
  for (let start = 0; start < versions.length; ) {
    let end = start + 1;
    while (end < versions.length && versions[end]!.batch === versions[start]!.batch) end++;
    for (let k = start; k < end; k++) out.push(serializeLine(versions[k]!, k - start, end - start));
    start = end;
  }
  return out.join('');
}

export interface ParsedLine {
  readonly version: HistoryVersion;
  readonly i: number;
  readonly n: number;
}

const isStr = (x: unknown): x is string => typeof x === 'string';
const isNullableStr = (x: unknown): x is string | null => x === null || typeof x === 'string';
const isSize = (x: unknown): x is number | null => x === null || (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0);
const isDigest = (x: unknown): x is string | null => x === null || x === 'unknown' || (typeof x === 'string' && SHA_RE.test(x));
const isIndex = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;

/** A line's version, or null when it does not validate. */
export function parseLine(text: string): ParsedLine | null {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    o = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (o.v !== LOG_FORMAT) return null;
  const { id, at, batch, i, n, owner, scope, path, oldPath, op, actor, cause, workspaceId, projectId, before, after, beforeSize, afterSize } = o;
  if (!isStr(id) || !ID_RE.test(id) || !isStr(batch) || !ID_RE.test(batch)) return null;
  if (!isStr(at) || !Number.isFinite(Date.parse(at))) return null;
  if (!isIndex(i) || !isIndex(n) || i >= n) return null;
  if (!isStr(owner) || !isStr(path) || !(oldPath === undefined || isStr(oldPath))) return null;
  if (!(SCOPES as readonly unknown[]).includes(scope) || !(HISTORY_OPS as readonly unknown[]).includes(op) || !(ACTORS as readonly unknown[]).includes(actor)) return null;
  if (!isStr(cause) || !CAUSE_RE.test(cause) || !isNullableStr(workspaceId) || !isNullableStr(projectId)) return null;
  if (!isDigest(before) || !isDigest(after) || !isSize(beforeSize) || !isSize(afterSize)) return null;
  const version: HistoryVersion = {
    id,
    at,
    batch,
    owner,
    scope: scope as HistoryScope,
    path,
    ...(oldPath === undefined ? {} : { oldPath }),
    op: op as HistoryOp,
    actor: actor as HistoryActor,
    cause,
    workspaceId,
    projectId,
    before,
    after,
    beforeSize,
    afterSize,
  };
  return { version: Object.freeze(version), i, n };
}

export interface ChunkResult {
  /** Whole batches, in log order. */
  readonly batches: ParsedLine[][];
  /** Bytes of `buf` consumed: up to the end of the last whole batch or skipped line. */
  readonly consumed: number;
  /** Lines skipped: unparseable, torn, or of a batch cut short. */
  readonly skipped: number;
}

/**
 * Splits `buf` (log bytes from a line start) into whole batches. The tail that may still grow (a
 * line without its newline, or the first lines of a batch whose last lines are not there yet) is
 * left unconsumed.
 */
export function parseChunk(buf: Buffer): ChunkResult {
  const batches: ParsedLine[][] = [];
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
    const line = parseLine(buf.toString('utf8', start, nl));
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
  return { batches, consumed, skipped };
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
 * the last call, or everything again when the file was replaced.
 */
export class LogReader {
  private ino = -1;
  private dev = -1;
  /** With the inode, tells a replaced log from the one kept (an inode number can be reused). */
  private birth = -1;
  private offset = 0;
  private versions: HistoryVersion[] = [];
  private byId = new Map<string, HistoryVersion>();

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
      for (const batch of chunk.batches) {
        for (const { version } of batch) {
          if (this.byId.has(version.id)) continue;
          this.byId.set(version.id, version);
          this.versions.push(version);
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

  private reset(ino: number, dev: number, birth: number): void {
    this.ino = ino;
    this.dev = dev;
    this.birth = birth;
    this.offset = 0;
    this.versions = [];
    this.byId = new Map();
  }
}
