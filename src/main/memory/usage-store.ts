/**
 * UsageStore owns `<home>/memory-meta.json`: pins and usage per memory file, keyed by logical
 * identity (src/common/memory/identity.ts).
 *
 * Invariants:
 * - no increment is lost when several processes record uses at once: uses are queued in memory and
 *   merged into the file under a cross-process lock (read, apply, atomic rename), in order;
 * - recording never waits for the disk in a memory command: the queue is flushed after a short
 *   delay, and by hosts before they exit, with the one atomic write of Cairn's files
 *   (runtime/local/atomic-write.ts: temp file, fsync, rename; nothing left behind on a full disk);
 * - a file that does not parse, or whose entries had to be repaired, is salvaged entry by entry and
 *   field by field, never fatal; the next write sets the original aside as
 *   `memory-meta.json.damaged-<time>` (reported on stderr) before it writes what was salvaged, so
 *   no pin is dropped unseen; a stats failure never fails a memory command (it is reported on stderr);
 * - a use is an agent's view or a write; a person's own write records when and by whom the file was
 *   last written but is no use, and neither is a pin or an unpin (which changes only `pinned`):
 *   uses rank the hot set agents receive, and a person browsing and editing must not move it.
 * - an undone delete gets its file's stats back, whichever process made the delete (an agent's
 *   `cairn mcp`, the CLI, the app): the stats a delete takes are kept in the file itself, under
 *   `deleted` (the latest RECENTLY_DELETED_KEPT, by when), until revive() gives them back; they
 *   are no file's stats meanwhile (nothing ranks or lists them).
 * The file is only ever replaced whole, so long-lived hosts learn of other processes' pins and uses
 * by watching it (journal/meta-watcher.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { storedActor, type Actor } from '../../common/memory/constants';
import { withinIdentity } from '../../common/memory/identity';
import { EMPTY_USAGE, type UsageStats } from '../../common/memory/usage';
import { withLocalLock } from '../runtime/local/file-lock';
import { readOwnFile, setAsideDamaged, writeOwnFile } from '../runtime/local/atomic-write';

export type UsageOp =
  /** A use: an agent view or a write (also sets lastWriteAt); a person's write (`by: 'person'`) only sets lastWriteAt and lastWriteBy. */
  | { readonly type: 'use'; readonly id: string; readonly at: string; readonly write: boolean; readonly by?: Actor }
  /** A pin or an unpin: not a use (it must not move the file up in what agents receive). */
  | { readonly type: 'pin'; readonly id: string; readonly pinned: boolean; readonly at: string }
  /** A file or a directory (its whole subtree) moved. */
  | { readonly type: 'move'; readonly from: string; readonly to: string }
  /** A file or a directory (its whole subtree) deleted. */
  | { readonly type: 'delete'; readonly id: string }
  /** A deleted file's stats given back (its delete undone), added to whatever it gathered since. */
  | { readonly type: 'revive'; readonly id: string };

export type UsageMap = Map<string, UsageStats>;

/** The stats deletes took, by identity, with when (ISO), kept for an undo of the delete. */
export type DeletedUsage = Map<string, { readonly stats: UsageStats; readonly deletedAt: string }>;

export const USAGE_FILE = 'memory-meta.json';
const FLUSH_DELAY_MS = 100;
/**
 * How many deleted files' stats are kept for an undo of their delete: enough for any undo a person
 * makes, few enough that the file every prompt's hook reads stays small.
 */
const RECENTLY_DELETED_KEPT = 1000;

function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value));
}

/** One entry's stats from whatever was stored, each field checked on its own; `repaired` when one was not right. */
function repairEntry(raw: unknown): { stats: UsageStats; repaired: boolean } {
  const isObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw);
  const r = (isObject ? raw : {}) as Record<string, unknown>;
  const stats: UsageStats = {
    pinned: r.pinned === true,
    accessCount: typeof r.accessCount === 'number' && Number.isSafeInteger(r.accessCount) && r.accessCount >= 0 ? r.accessCount : 0,
    lastAccessedAt: isIsoDate(r.lastAccessedAt) ? r.lastAccessedAt : null,
    lastWriteAt: isIsoDate(r.lastWriteAt) ? r.lastWriteAt : null,
    lastWriteBy: storedActor(r.lastWriteBy),
  };
  const kept = (field: keyof UsageStats, absent: unknown) => r[field] === undefined || r[field] === absent || r[field] === stats[field];
  const repaired = !isObject || !kept('pinned', false) || !kept('accessCount', 0) || !kept('lastAccessedAt', null) || !kept('lastWriteAt', null) || !(kept('lastWriteBy', null) || r.lastWriteBy === 'user');
  return { stats, repaired };
}

/** Entries written as `"key": {flat object}`, found one by one in a damaged file (a deleted file's too, told by its deletedAt). */
const ENTRY = /"((?:[^"\\]|\\.){1,2048})"\s*:\s*(\{[^{}]*\})/g;

/**
 * Parses the sidecar's text, salvaging what it can from a damaged one; `problem` says what was
 * wrong (null: nothing, the file is as Cairn wrote it).
 */
export function parseUsageFile(text: string): { map: UsageMap; deleted: DeletedUsage; problem: string | null } {
  const map: UsageMap = new Map();
  const deleted: DeletedUsage = new Map();
  let parsed: { files?: unknown; deleted?: unknown } | undefined;
  let problem: string | null = null;
  try {
    parsed = JSON.parse(text) as { files?: unknown; deleted?: unknown } | undefined;
  } catch (err) {
    problem = (err as Error).message;
  }
  const files = parsed?.files;
  if (typeof files === 'object' && files !== null && !Array.isArray(files)) {
    for (const [key, value] of Object.entries(files)) {
      const entry = repairEntry(value);
      if (entry.repaired) problem = `the entry of ${JSON.stringify(key.slice(0, 200))} held values that are not usage`;
      map.set(key, entry.stats);
    }
    const gone = parsed?.deleted;
    if (typeof gone === 'object' && gone !== null && !Array.isArray(gone)) {
      for (const [key, value] of Object.entries(gone)) {
        // Kept only for an undo: one that is not right is dropped (no file's stats or pin are in it).
        const deletedAt = (value as { deletedAt?: unknown } | null)?.deletedAt;
        const entry = repairEntry(value);
        if (isIsoDate(deletedAt) && !entry.repaired) deleted.set(key, { stats: entry.stats, deletedAt });
      }
    }
    return { map, deleted, problem };
  }
  for (const m of text.matchAll(ENTRY)) {
    try {
      const key = JSON.parse(`"${m[1]}"`) as string;
      if (key === 'files' || key === 'deleted') continue;
      const value = JSON.parse(m[2]!) as Record<string, unknown>;
      // A deleted file's stats are no file's: salvaged as such, they would bring it back.
      if (typeof value === 'object' && value !== null && 'deletedAt' in value) continue;
      map.set(key, repairEntry(value).stats);
    } catch {
      // An entry that does not parse is lost with the damage; the file's problem below reports it.
    }
  }
  return { map, deleted, problem: problem ?? 'it holds no "files" object' };
}

function serializeUsage(map: UsageMap, deleted: DeletedUsage = new Map()): string {
  const files: Record<string, UsageStats> = {};
  for (const key of [...map.keys()].sort()) {
    const s = map.get(key)!;
    if (!s.pinned && s.accessCount === 0 && s.lastWriteAt === null) continue;
    files[key] = s;
  }
  if (deleted.size === 0) return `${JSON.stringify({ version: 1, files }, null, 1)}\n`;
  const gone: Record<string, UsageStats & { deletedAt: string }> = {};
  for (const key of [...deleted.keys()].sort()) gone[key] = { ...deleted.get(key)!.stats, deletedAt: deleted.get(key)!.deletedAt };
  return `${JSON.stringify({ version: 1, files, deleted: gone }, null, 1)}\n`;
}

/** Drops all but the latest RECENTLY_DELETED_KEPT deleted files' stats (in place). */
function trimDeleted(deleted: DeletedUsage): void {
  if (deleted.size <= RECENTLY_DELETED_KEPT) return;
  const oldestFirst = [...deleted].sort(([, a], [, b]) => (a.deletedAt < b.deletedAt ? -1 : a.deletedAt > b.deletedAt ? 1 : 0));
  for (const [key] of oldestFirst.slice(0, deleted.size - RECENTLY_DELETED_KEPT)) deleted.delete(key);
}

function later(a: string | null, b: string): string {
  return a !== null && a > b ? a : b;
}

/**
 * Applies ops, in order, to a map (in place). With `deleted` (a merge into the file), a delete keeps
 * the stats it takes there, stamped `at`, and a revive gives them back; without (a read's view of
 * queued ops), a revive waits for the merge.
 */
function applyUsageOps(map: UsageMap, ops: readonly UsageOp[], deleted?: { readonly entries: DeletedUsage; readonly at: string }): UsageMap {
  for (const op of ops) {
    switch (op.type) {
      case 'use': {
        const s = map.get(op.id) ?? EMPTY_USAGE;
        const agentsUse = op.by !== 'person';
        map.set(op.id, {
          ...s,
          accessCount: agentsUse ? s.accessCount + 1 : s.accessCount,
          lastAccessedAt: agentsUse ? later(s.lastAccessedAt, op.at) : s.lastAccessedAt,
          lastWriteAt: op.write ? later(s.lastWriteAt, op.at) : s.lastWriteAt,
          // The writer of the latest write (ops of one file arrive in order).
          lastWriteBy: op.write && op.by && (s.lastWriteAt === null || op.at >= s.lastWriteAt) ? op.by : s.lastWriteBy,
        });
        break;
      }
      case 'pin': {
        const s = map.get(op.id) ?? EMPTY_USAGE;
        map.set(op.id, { ...s, pinned: op.pinned });
        break;
      }
      case 'move': {
        // (Deleting the entry just visited is safe while iterating a Map.)
        const moved: Array<[string, UsageStats]> = [];
        const from = withinIdentity(op.from);
        const to = withinIdentity(op.to);
        for (const [key, s] of map) {
          if (from(key)) {
            moved.push([op.to + key.slice(op.from.length), s]);
            map.delete(key);
          } else if (to(key)) map.delete(key);
        }
        for (const [key, s] of moved) map.set(key, s);
        break;
      }
      case 'delete': {
        const gone = withinIdentity(op.id);
        for (const [key, stats] of map) {
          if (!gone(key)) continue;
          deleted?.entries.set(key, { stats, deletedAt: deleted.at });
          map.delete(key);
        }
        break;
      }
      case 'revive': {
        const kept = deleted?.entries.get(op.id);
        if (!kept) break;
        deleted!.entries.delete(op.id);
        const s = map.get(op.id) ?? EMPTY_USAGE;
        const r = kept.stats;
        const rWroteLast = r.lastWriteAt !== null && (s.lastWriteAt === null || r.lastWriteAt > s.lastWriteAt);
        map.set(op.id, {
          pinned: s.pinned || r.pinned,
          accessCount: s.accessCount + r.accessCount,
          lastAccessedAt: r.lastAccessedAt === null ? s.lastAccessedAt : later(s.lastAccessedAt, r.lastAccessedAt),
          lastWriteAt: rWroteLast ? r.lastWriteAt : s.lastWriteAt,
          lastWriteBy: rWroteLast ? r.lastWriteBy : s.lastWriteBy,
        });
        break;
      }
    }
  }
  return map;
}

export class UsageStore {
  readonly file: string;
  private pending: UsageOp[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /**
   * The last parse of the file and the identity it had (inode, size, mtime): the file is only ever
   * replaced whole by a rename (a new inode), so an unchanged identity means unchanged content and
   * a search or context build does not parse it again.
   */
  private parsed: { stat: fs.BigIntStats; map: UsageMap; deleted: DeletedUsage; problem: string | null } | null = null;
  /**
   * What read() last answered: the file's map `source` with the first `applied` ops of the queue
   * `pending` applied. While readFile() gives the same map (the kept parse) and the queue is the
   * same, the next read applies only the ops queued since (a search right after a few writes does
   * not copy and replay everything).
   */
  private view: { source: UsageMap; pending: UsageOp[]; applied: number; map: UsageMap } | null = null;

  constructor(readonly home: string) {
    this.file = path.join(home, USAGE_FILE);
  }

  /** Queues ops; they reach the file within FLUSH_DELAY_MS, or at the next flush(). */
  record(...ops: UsageOp[]): void {
    this.pending.push(...ops);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /**
   * Records `ops` and writes them, with whatever is queued, now; throws when they could not be
   * written (a pin a person asked for is never reported done when it was lost). Queued usage that
   * failed with them stays queued for the next flush.
   */
  async recordNow(...ops: UsageOp[]): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const queued = this.pending;
    this.pending = [];
    const run = this.flushing.then(() => this.merge([...queued, ...ops]));
    this.flushing = run.catch(() => {});
    try {
      await run;
    } catch (err) {
      this.pending.unshift(...queued);
      throw err;
    }
  }

  /** Writes every queued op to the file. Never throws: a failure is reported on stderr. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const ops = this.pending;
    this.pending = [];
    const run = this.flushing.then(async () => {
      if (ops.length === 0) return;
      try {
        await this.merge(ops);
      } catch (err) {
        process.stderr.write(`cairn: could not record memory usage (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); memory itself is unaffected\n`);
      }
    });
    this.flushing = run;
    return run;
  }

  /**
   * Gives a file whose delete was undone the stats that delete took, whichever process made it
   * (they are in the file), merged now so that the next read has them. Never throws: the file is
   * back either way, and a failure is reported on stderr.
   */
  async revive(id: string): Promise<void> {
    try {
      await this.recordNow({ type: 'revive', id });
    } catch (err) {
      process.stderr.write(`cairn: could not give a restored file its usage back (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); memory itself is unaffected\n`);
    }
  }

  /** The stored stats with this process's queued ops applied (shared: not to be changed). */
  async read(): Promise<ReadonlyMap<string, UsageStats>> {
    await this.flushing;
    const source = this.readFile();
    const view = this.view;
    if (view && view.source === source && view.pending === this.pending) {
      applyUsageOps(view.map, this.pending.slice(view.applied));
      view.applied = this.pending.length;
      return view.map;
    }
    const map = applyUsageOps(new Map(source), this.pending);
    this.view = { source, pending: this.pending, applied: this.pending.length, map };
    return map;
  }

  /** The stored stats (the cached parse itself when the file is unchanged: copy before changing). */
  private readFile(): UsageMap {
    try {
      return this.readParsed()?.map ?? new Map();
    } catch {
      // Usage only orders what agents are shown: unreadable, every file counts as unused here,
      // and the next merge throws rather than write over what it could not read.
      return new Map();
    }
  }

  /**
   * The file's parse (kept while its identity is unchanged); null when there is no file. Throws
   * when it cannot be read (a merge must not write over what it could not read).
   */
  private readParsed(): { stat: fs.BigIntStats; map: UsageMap; deleted: DeletedUsage; problem: string | null } | null {
    const st = fs.statSync(this.file, { bigint: true, throwIfNoEntry: false });
    if (!st) return null;
    const cached = this.parsed;
    if (cached && sameFile(cached.stat, st)) return cached;
    const read = readOwnFile(this.file);
    if (read === null) return null;
    const parsed = { stat: read.stat, ...parseUsageFile(read.text) };
    // Kept only when the file read is the one stat saw (not replaced in between).
    this.parsed = sameFile(read.stat, st) ? parsed : null;
    return parsed;
  }

  private async merge(ops: readonly UsageOp[]): Promise<void> {
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    await withLocalLock(this.file, async () => {
      const stored = this.readParsed();
      // A damaged file is kept aside (and reported) before what was salvaged of it replaces it.
      if (stored?.problem) setAsideDamaged(this.file, stored.problem, stored.stat);
      const deleted: DeletedUsage = new Map(stored?.deleted ?? []);
      const map = applyUsageOps(new Map(stored?.map ?? []), ops, { entries: deleted, at: new Date().toISOString() });
      trimDeleted(deleted);
      await writeOwnFile(this.file, serializeUsage(map, deleted));
      // The file is now the one just written, holding `map` as serialized: the next read need not
      // parse it back. Entries the serializer drops (never used, never written, not pinned) read
      // as EMPTY_USAGE either way.
      const st = fs.statSync(this.file, { bigint: true, throwIfNoEntry: false });
      this.parsed = st ? { stat: st, map, deleted, problem: null } : null;
    });
  }
}

/** Whether two stats are of the same file, unchanged (it is only ever replaced whole, by a rename). */
function sameFile(a: fs.BigIntStats, b: fs.BigIntStats): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeNs === b.mtimeNs;
}
