/**
 * Badges: what happened to a file since the person last opened it ("agent edited", "edited
 * outside Cairn"), set from the change stream, cleared when the file is opened, and kept across
 * reloads (localStorage). Rows subscribe to their own key, so a change re-renders one row.
 * Also remembers who changed each file last in this session (for the conflict banner's wording).
 */
import { useSyncExternalStore } from 'react';
import type { Actor, Scope } from '../../../common/memory/constants';

export type Badge = 'agent' | 'external';

const STORAGE_KEY = 'cairn.badges';

/** The badge key of a file seen from a workspace: global files are the same file in every view. */
export function badgeKey(workspaceId: string | null, scope: Scope, path: string): string {
  return scope === 'global' ? path : `${workspaceId ?? '-'}\u0000${path}`;
}

export class BadgeStore {
  private readonly badges = new Map<string, Badge>();
  private readonly lastActors = new Map<string, Actor>();
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(private readonly storage: Storage | null = typeof localStorage === 'undefined' ? null : localStorage) {
    try {
      const saved = JSON.parse(this.storage?.getItem(STORAGE_KEY) ?? '{}') as Record<string, unknown>;
      for (const [k, v] of Object.entries(saved)) if (v === 'agent' || v === 'external') this.badges.set(k, v);
    } catch {}
  }

  get(key: string): Badge | null {
    return this.badges.get(key) ?? null;
  }

  lastActor(key: string): Actor | null {
    return this.lastActors.get(key) ?? null;
  }

  /** Records a change by `actor`: agents and outside edits badge the file; a person's own do not. */
  changed(key: string, actor: Actor): void {
    this.lastActors.set(key, actor);
    if (actor === 'user') return;
    this.set(key, actor === 'agent' ? 'agent' : 'external');
  }

  clear(key: string): void {
    if (!this.badges.has(key)) return;
    this.badges.delete(key);
    this.save();
    this.notify(key);
  }

  /** Moves badges at or below `from` to `to` (a rename). */
  move(fromKey: string, toKey: string): void {
    for (const [k, v] of [...this.badges]) {
      if (k !== fromKey && !k.startsWith(`${fromKey}/`)) continue;
      this.badges.delete(k);
      this.notify(k);
      this.set(toKey + k.slice(fromKey.length), v);
    }
  }

  /** Forgets badges at or below a deleted path. */
  forget(key: string): void {
    for (const k of [...this.badges.keys()]) if (k === key || k.startsWith(`${key}/`)) this.clear(k);
  }

  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  private set(key: string, badge: Badge): void {
    if (this.badges.get(key) === badge) return;
    this.badges.set(key, badge);
    this.save();
    this.notify(key);
  }

  private notify(key: string): void {
    for (const l of this.listeners.get(key) ?? []) l();
  }

  private save(): void {
    try {
      this.storage?.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(this.badges)));
    } catch {}
  }
}

export const badgeStore = new BadgeStore();

export function useBadge(key: string, store: BadgeStore = badgeStore): Badge | null {
  return useSyncExternalStore(
    (l) => store.subscribe(key, l),
    () => store.get(key),
  );
}
