/**
 * SeenStore owns `<home>/seen.json`: when the person last opened each file in the UI, per file and
 * per workspace view (common/memory/badges.ts has the key), and derives the files' badges from it
 * and the version history: a file's badge is the newest version of it by an agent or outside Cairn
 * (following its renames) that is newer than the person's last open. Nothing else is logged: the
 * history already records every change with its actor and time, in every process.
 *
 * Invariants:
 * - the file is written whole (runtime/local/atomic-write.ts: temp file, fsync, rename; 0600, the
 *   home 0700) under a cross-process lock, read, changed and written back, so two processes marking
 *   files at once lose neither mark;
 * - a file that does not parse (torn, corrupt, foreign) is set aside as `seen.json.damaged-<time>`
 *   and reported, then reads as empty (every badge shows again), never as an error; a mark that
 *   cannot be written fails only itself;
 * - a seen time is taken before the read it stands for, so a change landing during that read
 *   badges the file again rather than being hidden.
 * Besides each file's last open, it keeps when the person last looked over a whole view ("Mark all
 * seen"): a badge newer than that mark is new to the person (the tree sets it apart); an older one
 * stays an ordinary badge until the file is opened. Those marks live in the same file, under keys
 * that start with `@looked:`, which no file's key can (a file's key starts with `/` or a
 * workspace id, and `@` is in neither).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { badgeKey, badgeOf, type Badge } from '../../common/memory/badges';
import { scopeOwner } from '../../common/memory/identity';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import { withLocalLock } from '../runtime/local/file-lock';
import { readOwnFileParsed, writeOwnFile } from '../runtime/local/atomic-write';
import type { MemorySession } from './session';

export const SEEN_FILE = 'seen.json';
/** Marks kept at most; the oldest go first (a file not opened for that long shows its badge again). */
export const MAX_SEEN_ENTRIES = 20_000;

export type SeenMap = Map<string, string>;

/** Where a view's "looked over everything" mark is kept among the files' marks (see the header). */
const LOOKED_PREFIX = '@looked:';

/** The name of a memory view's (a workspace's, or the global scope's alone) "Mark all seen". */
export function lookedView(workspaceId: string | null): string {
  return `tree:${workspaceId ?? '-'}`;
}

/** A file of this view with a change the person has not seen. */
export interface FileBadge {
  readonly scope: Scope;
  readonly path: string;
  readonly badge: Badge;
  /** The time of the change the badge stands for. */
  readonly at: string;
}

function isIsoDate(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 40 && !Number.isNaN(Date.parse(value));
}

/** The marks in a file's text; throws, saying what is wrong, when it is not a well-formed file. */
export function parseSeenFile(text: string): SeenMap {
  const map: SeenMap = new Map();
  const files = (JSON.parse(text) as { files?: unknown } | null)?.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) throw new Error('it holds no "files" object');
  for (const [key, at] of Object.entries(files)) {
    if (key.length > 4096 || !isIsoDate(at)) throw new Error('a mark in it is not a path with a time');
    map.set(key, at);
  }
  return map;
}

export function serializeSeen(map: SeenMap): string {
  let entries = [...map];
  if (entries.length > MAX_SEEN_ENTRIES) entries = entries.sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)).slice(0, MAX_SEEN_ENTRIES);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${JSON.stringify({ version: 1, files: Object.fromEntries(entries) }, null, 1)}\n`;
}

export interface SeenStoreOptions {
  /** The clock, in ms since the epoch (tests inject it). */
  readonly now?: () => number;
}

export class SeenStore {
  readonly file: string;
  private readonly now: () => number;

  constructor(
    readonly home: string,
    options: SeenStoreOptions = {},
  ) {
    this.file = path.join(home, SEEN_FILE);
    this.now = options.now ?? Date.now;
  }

  /** The time to mark a file seen at, taken before the read the person is shown. */
  stamp(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * Records that the person saw `path` (of `scope`, from workspace `workspaceId`) as it was at `at`.
   * A later mark already there is kept. Throws on I/O errors (the caller reports them).
   */
  async markSeen(workspaceId: string | null, scope: Scope, filePath: string, at: string = this.stamp()): Promise<void> {
    const key = badgeKey(workspaceId, scope, filePath);
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    await withLocalLock(this.file, async () => {
      const map = this.read();
      const before = map.get(key);
      if (before !== undefined && before >= at) return;
      map.set(key, at);
      await writeOwnFile(this.file, serializeSeen(map));
    });
  }

  /**
   * Records that the person looked over everything of `view` (a name the caller chooses, such as
   * lookedView(workspaceId)) as it was at `at`. A later mark already there is kept; the mark kept is
   * returned. Throws on I/O errors.
   */
  async markLooked(view: string, at: string = this.stamp()): Promise<string> {
    const key = LOOKED_PREFIX + view;
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    return withLocalLock(this.file, async () => {
      const map = this.read();
      const before = map.get(key);
      if (before !== undefined && before >= at) return before;
      map.set(key, at);
      await writeOwnFile(this.file, serializeSeen(map));
      return at;
    });
  }

  /** When the person last looked over everything of `view` (null: never). */
  lookedAt(view: string, marks: SeenMap = this.read()): string | null {
    return marks.get(LOOKED_PREFIX + view) ?? null;
  }

  /** Every mark (a fresh read of the file: other processes mark too); a damaged file is set aside. */
  read(): SeenMap {
    return readOwnFileParsed(this.file, parseSeenFile) ?? new Map();
  }

  /**
   * The badges of the files `session` shows: for each of its scopes, the newest version by an
   * agent or outside Cairn of each file there now, when newer than the person's last open.
   */
  badges(session: MemorySession, history: HistoryStore): FileBadge[] {
    const seen = this.read();
    const out: FileBadge[] = [];
    for (const scope of SCOPES) {
      const owner = scopeOwner(scope, session);
      if (owner === null) continue;
      const versions = history.list({ owner }).reverse();
      const seenAt = (p: string) => seen.get(badgeKey(session.workspaceId, scope, p)) ?? null;
      for (const u of unseenChanges(versions, seenAt)) out.push({ scope, ...u });
    }
    return out;
  }
}

interface FileState {
  /** The newest change by an agent or outside Cairn. */
  other: { readonly badge: Badge; readonly at: string } | null;
  /** The latest open of the file under a path it has since been renamed away from. */
  seen: string | null;
}

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a >= b ? a : b);
const within = (p: string, base: string) => p === base || p.startsWith(`${base}/`);

/**
 * The files with a change the person has not seen, from one scope's versions (oldest first) and
 * the person's last open of each path: each file's newest change by an agent or outside Cairn,
 * carried along its renames (as is an open made before a rename), dropped with its delete.
 */
export function unseenChanges(versions: readonly HistoryVersion[], seenAt: (path: string) => string | null): Array<{ path: string; badge: Badge; at: string }> {
  const files = new Map<string, FileState>();
  for (const v of versions) {
    if (v.op === 'delete') {
      for (const p of [...files.keys()]) if (within(p, v.path)) files.delete(p);
      continue;
    }
    if (v.op === 'rename' && v.oldPath !== undefined) {
      const from = v.oldPath;
      const moved: Array<[string, FileState]> = [];
      for (const [p, state] of files) {
        if (!within(p, from)) continue;
        files.delete(p);
        // An open of the old path counts only if it came before the file left it.
        const opened = seenAt(p);
        moved.push([v.path + p.slice(from.length), { other: state.other, seen: later(state.seen, opened !== null && opened <= v.at ? opened : null) }]);
      }
      if (!moved.some(([p]) => p === v.path)) {
        const opened = seenAt(from);
        moved.push([v.path, { other: null, seen: opened !== null && opened <= v.at ? opened : null }]);
      }
      for (const [p, state] of moved) files.set(p, state);
    }
    const state = files.get(v.path) ?? { other: null, seen: null };
    const badge = badgeOf(v.actor);
    if (badge !== null) state.other = { badge, at: v.at };
    files.set(v.path, state);
  }
  const out: Array<{ path: string; badge: Badge; at: string }> = [];
  for (const [p, state] of files) {
    if (state.other === null) continue;
    const seen = later(state.seen, seenAt(p));
    if (seen === null || state.other.at > seen) out.push({ path: p, ...state.other });
  }
  return out;
}
