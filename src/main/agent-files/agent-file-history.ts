/**
 * The history of other agents' files: every save a person makes through Cairn, and every
 * change Cairn sees between two of its looks at a file it has a history of, with the bytes before
 * and after. Kept by the version history's store (history/history-store.ts) in a home of its own,
 * `<home>/agent-files/` (so `<home>/agent-files/history/`), never mixed with memory's history: no
 * memory view, undo, badge or gc of memory ever sees these versions.
 *
 * A file is keyed in that store as the store's rules require, a virtual path of a scope: a file
 * of the home as `/memories/global/<path below the home>` (owner `global`), a file of a checkout as
 * `/memories/workspace/<path below the checkout>` (owner `workspace:<workspaceId>`). Ids' segments
 * already pass the path rules' name check (discovery.ts parseId), so every id has its key.
 * Retention is the store's (90 days, the newest 20 of each file always kept), collected by a
 * process at its first save and then at most once a day.
 */
import * as path from 'node:path';
import type { AgentFileVersion } from '../../common/agent-files/schema';
import { HistoryStore, type HistoryVersion } from '../history/history-store';

const lenient = new TextDecoder('utf-8', { fatal: false });

/** Cairn's own folder for other agents' files, under its home: the history, the saves' lock. */
export const AGENT_FILES_DIR = 'agent-files';

/** Where a file's versions are kept: the store's owner, scope and path. */
export interface HistoryKey {
  readonly owner: string;
  readonly scope: 'global' | 'workspace';
  readonly path: string;
  readonly workspaceId: string | null;
}

export function historyKey(place: 'global' | 'checkout', rel: readonly string[], workspaceId: string | null): HistoryKey {
  if (place === 'global') return { owner: 'global', scope: 'global', path: `/memories/global/${rel.join('/')}`, workspaceId };
  return { owner: `workspace:${workspaceId ?? 'none'}`, scope: 'workspace', path: `/memories/workspace/${rel.join('/')}`, workspaceId };
}

/** How often a process collects what retention no longer keeps (at its first save, then at most once a day). */
const COLLECT_EVERY_MS = 24 * 60 * 60 * 1000;

export class AgentFileHistory {
  private readonly store: HistoryStore;
  private readonly now: () => number;
  private collectedAt: number | null = null;

  constructor(home: string, now: () => number = Date.now) {
    this.store = new HistoryStore(path.join(home, AGENT_FILES_DIR), { now });
    this.now = now;
  }

  /** The store's retention (90 days, always the newest 20 of a file, 64 MiB per owner), applied now and then. */
  private collect(): void {
    const now = this.now();
    if (this.collectedAt !== null && now - this.collectedAt < COLLECT_EVERY_MS) return;
    this.collectedAt = now;
    try {
      this.store.gc();
    } catch {
      // A gc that cannot run (another process's holds the lock) loses nothing; the next one collects.
    }
  }

  /** The newest version of the file, if any. */
  private newest(key: HistoryKey): HistoryVersion | null {
    return this.store.list({ owner: key.owner, path: key.path, limit: 1 })[0] ?? null;
  }

  /**
   * Notes what the file holds now (null: nothing): when Cairn keeps a history of it and the newest
   * version left other bytes, the difference is recorded as a change made outside Cairn.
   */
  observe(key: HistoryKey, bytes: Uint8Array | null, sha: string | null): void {
    const last = this.newest(key);
    if (!last || last.after === sha) return;
    if (last.after === null && bytes === null) return;
    const before = last.after === null || last.after === 'unknown' ? last.after : (this.store.readBlob(last.after) ?? 'unknown');
    this.store.record([
      {
        owner: key.owner,
        scope: key.scope,
        path: key.path,
        op: bytes === null ? 'delete' : last.after === null ? 'create' : 'update',
        before,
        after: bytes,
        actor: 'external',
        cause: 'external',
        workspaceId: key.workspaceId,
        projectId: null,
      },
    ]);
  }

  /** Records a person's save through Cairn. */
  recordSave(key: HistoryKey, before: Uint8Array | null, after: Uint8Array): void {
    this.store.record([
      { owner: key.owner, scope: key.scope, path: key.path, op: before === null ? 'create' : 'update', before, after, actor: 'person', cause: 'ui', workspaceId: key.workspaceId, projectId: null },
    ]);
    this.collect();
  }

  /** The file's versions, newest first, with both sides' text (null: no file then, or no longer known). */
  list(key: HistoryKey, limit: number): AgentFileVersion[] {
    return this.store.list({ owner: key.owner, path: key.path, limit }).map((v) => ({
      id: v.id,
      at: v.at,
      op: v.op,
      actor: v.actor,
      cause: v.cause,
      before: this.text(v.before),
      after: this.text(v.after),
    }));
  }

  private text(sha: string | null): string | null {
    if (sha === null || sha === 'unknown') return null;
    const bytes = this.store.readBlob(sha);
    return bytes === null ? null : lenient.decode(bytes);
  }
}
