/**
 * VersionHistory: what a person does with the version history, once, for the CLI and
 * the app's API: list a file's (or a scope's) versions with the lines each added and removed, list
 * the recently deleted files, read one version, restore a file to one, undo a change.
 *
 * Invariants: a session sees only the versions of its own scope roots (its global, project and
 * workspace owners), whatever id it is given; reading history is not a use of memory; a restore
 * and an undo are changes of the person's through MemoryService (cause `restore:<id>`,
 * `undo:<batch>`), made under the scope lock, so they are recorded and can be undone in turn.
 * Refusals are MemoryToolErrors whose text a person can act on.
 */
import { diffLines } from 'diff';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { scopeOwner } from '../../common/memory/identity';
import { parseMemoryPath } from '../../common/memory/paths';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import type { UndoStep } from './history-undo';
import type { MemoryService } from './memory-service';
import type { MemorySession } from './session';

const decoder = new TextDecoder('utf-8', { fatal: false });

/** A version with the lines it added and removed (null when one side's bytes are not known). */
export type VersionRow = HistoryVersion & { readonly added: number | null; readonly removed: number | null };

/** One version's two sides as text: null (nothing there), undefined (not known, or collected). */
export interface VersionText {
  readonly version: VersionRow;
  readonly before: string | null | undefined;
  readonly after: string | null | undefined;
}

export type UndoResult =
  | { readonly status: 'ok'; readonly version: HistoryVersion; readonly files: number; readonly paths: readonly string[] }
  | { readonly status: 'conflict'; readonly kind: 'changed' | 'exists' | 'deleted'; readonly path: string; readonly message: string };

export interface ListOptions {
  /** A file's path, a directory's, or a scope's (`/memories/project`); all scopes when absent. */
  readonly path?: string | undefined;
  /** Only this scope's versions. */
  readonly scope?: Scope | undefined;
  readonly limit?: number | undefined;
}

/** How many renames back a file's history is followed. */
const MAX_RENAMES_FOLLOWED = 20;

const newestFirst = (a: HistoryVersion, b: HistoryVersion): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class VersionHistory {
  constructor(
    readonly store: HistoryStore,
    private readonly service: MemoryService,
  ) {}

  /** Versions, newest first: a file's (and, when it is or was a directory, everything's below it). */
  list(session: MemorySession, options: ListOptions = {}): { versions: VersionRow[]; incompleteSince: string | null } {
    const limit = options.limit ?? 50;
    const { owners, prefix } = this.where(session, options);
    const seen = new Set<string>();
    const versions = owners
      .flatMap((owner) => [
        // A file's versions follow it back through its renames.
        ...(prefix && !prefix.endsWith('/')
          ? this.formerPaths(owner, prefix).flatMap(({ path, before }) => this.store.list({ owner, path, limit }).filter((v) => before === undefined || v.id <= before))
          : this.store.list({ owner, ...(prefix ? { path: prefix } : {}), limit })),
        ...(prefix && !prefix.endsWith('/') ? this.store.list({ owner, path: `${prefix}/`, limit }) : []),
      ])
      .filter((v) => !seen.has(v.id) && seen.add(v.id))
      .sort(newestFirst)
      .slice(0, limit)
      .map((v) => this.row(v));
    return { versions, incompleteSince: this.store.incompleteSince() };
  }

  /** Files deleted recently (their latest version is their delete; a rename is not), newest first. */
  deleted(session: MemorySession, options: ListOptions = {}): VersionRow[] {
    const { owners, prefix } = this.where(session, options);
    const under = (p: string) => prefix === undefined || p === prefix || p.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
    return owners
      .flatMap((owner) => this.store.recentlyDeleted(owner))
      .filter((v) => v.op === 'delete' && under(v.path))
      .sort(newestFirst)
      .slice(0, options.limit ?? 50)
      .map((v) => this.row(v));
  }

  /** One version of the session's scopes, with both sides as text. */
  read(id: string, session: MemorySession): VersionText {
    const v = this.own(id, session);
    return { version: this.row(v), before: this.text(v.before), after: this.text(v.after) };
  }

  /**
   * Writes back to `path` the content version `id` left (for a delete: what it took away), whatever
   * the file holds now, as the person's change; a deleted file is created again.
   */
  async restore(path: string, id: string, session: MemorySession): Promise<{ path: string; version: HistoryVersion; created: boolean; restored: string | null }> {
    const parsed = parseMemoryPath(path);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(`${path} is not a file; give the path of a memory file.`);
    const clean = path.replace(/\/+$/, '');
    const v = this.store.get(id);
    if (!v) throw new MemoryToolError(`There is no version ${JSON.stringify(id)} in the history (it may have been collected); list ${clean}'s versions to choose one.`);
    const owner = scopeOwner(parsed.scope, session);
    const former = owner === null ? [] : this.formerPaths(owner, clean).map((f) => f.path);
    if (v.owner !== owner || !(former.includes(v.path) || (v.oldPath !== undefined && former.includes(v.oldPath)))) {
      throw new MemoryToolError(`Version ${id} is not a version of ${clean}; list ${clean}'s versions to choose one.`);
    }
    const content = this.text(v.op === 'delete' ? v.before : v.after);
    if (content === null || content === undefined) throw new MemoryToolError(`The content of version ${id} is not known (it was not readable when recorded, or has been collected).`);
    const { created } = await this.service.restore(clean, content, `restore:${v.id}`, session);
    // The restore's own version (recorded as the write returned), so a caller can offer to undo it.
    const restored = owner === null ? undefined : this.store.list({ owner, limit: 20 }).find((x) => x.cause === `restore:${v.id}` && x.path === clean);
    return { path: clean, version: v, created, restored: restored?.id ?? null };
  }

  /**
   * Undoes the whole change version `id` belongs to (its batch: a directory's delete brings every
   * file back), or with 'last' the newest change in the session's scopes, only if every file is
   * still what the change left; otherwise a conflict, and nothing changes.
   */
  async undo(id: string | 'last', session: MemorySession): Promise<UndoResult> {
    let chosen: HistoryVersion;
    if (id === 'last') {
      const newest = this.owners(session)
        .flatMap((owner) => this.store.list({ owner, limit: 1 }))
        .sort(newestFirst)[0];
      if (!newest) throw new MemoryToolError('There is no change to undo in the scopes this session sees.');
      chosen = newest;
    } else {
      chosen = this.own(id, session);
    }
    const batch = this.store.list({ batch: chosen.batch });
    const steps: UndoStep[] = batch.map((v) => {
      const before = this.bytes(v.before);
      const after = this.bytes(v.after);
      if (before === undefined || after === undefined) {
        throw new MemoryToolError(`${v.path}'s bytes ${before === undefined ? 'before' : 'after'} that change are not known, so it cannot be undone; restoring a version that is known still works.`);
      }
      return { path: v.path, ...(v.oldPath !== undefined ? { oldPath: v.oldPath } : {}), op: v.op, before, after };
    });
    const outcome = await this.service.undo(steps, `undo:${chosen.batch}`, session);
    if (outcome.status === 'conflict') return outcome;
    return { status: 'ok', version: chosen, files: batch.length, paths: outcome.paths };
  }

  /**
   * The paths a file has had, newest first: `path` itself, then each path it was renamed from,
   * each with the id of the rename that left it (that path's versions count up to it).
   */
  private formerPaths(owner: string, path: string): Array<{ path: string; before?: string }> {
    const out: Array<{ path: string; before?: string }> = [{ path }];
    let current = path;
    let before: string | undefined;
    for (let hop = 0; hop < MAX_RENAMES_FOLLOWED; hop++) {
      const into = this.store
        .list({ owner, path: current, op: 'rename' })
        .find((v) => v.path === current && v.oldPath !== undefined && (before === undefined || v.id < before));
      if (!into?.oldPath || out.some((f) => f.path === into.oldPath)) break;
      before = into.id;
      current = into.oldPath;
      out.push({ path: current, before });
    }
    return out;
  }

  /** The owners of the session's scope roots. */
  private owners(session: MemorySession): string[] {
    return SCOPES.map((scope) => scopeOwner(scope, session)).filter((o): o is string => o !== null);
  }

  /** Which owners, and which path prefix, a listing covers. */
  private where(session: MemorySession, options: ListOptions): { owners: string[]; prefix: string | undefined } {
    let owners = this.owners(session);
    let scope = options.scope;
    let prefix: string | undefined;
    if (options.path !== undefined) {
      const parsed = parseMemoryPath(options.path);
      if (parsed.kind === 'scope') {
        if (scope !== undefined && scope !== parsed.scope) throw new MemoryToolError(`${options.path} is not in the ${scope} scope.`);
        scope = parsed.scope;
        const clean = options.path.replace(/\/+$/, '');
        prefix = parsed.segments.length === 0 ? `${clean}/` : clean;
      }
    }
    if (scope !== undefined) {
      const owner = scopeOwner(scope, session);
      owners = owner === null ? [] : [owner];
    }
    return { owners, prefix };
  }

  /** A version of one of the session's scopes, or the error saying there is none. */
  private own(id: string, session: MemorySession): HistoryVersion {
    const v = this.store.get(id);
    if (!v || !this.owners(session).includes(v.owner)) {
      throw new MemoryToolError(`There is no version ${JSON.stringify(id)} in the history of the scopes this session sees (it may have been collected).`);
    }
    return v;
  }

  private row(v: HistoryVersion): VersionRow {
    const before = this.text(v.before);
    const after = this.text(v.after);
    if (before === undefined || after === undefined) return { ...v, added: null, removed: null };
    let added = 0;
    let removed = 0;
    for (const part of diffLines(before ?? '', after ?? '')) {
      if (part.added) added += part.count ?? 0;
      if (part.removed) removed += part.count ?? 0;
    }
    return { ...v, added, removed };
  }

  private bytes(sha: string | null | 'unknown'): Uint8Array | null | undefined {
    if (sha === null) return null;
    if (sha === 'unknown') return undefined;
    return this.store.readBlob(sha) ?? undefined;
  }

  private text(sha: string | null | 'unknown'): string | null | undefined {
    const bytes = this.bytes(sha);
    return bytes === null || bytes === undefined ? bytes : decoder.decode(bytes);
  }
}
