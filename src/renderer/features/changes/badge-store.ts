/**
 * Badges in the page: what happened to a file since the person last opened it ("agent edited",
 * "edited outside Cairn"). The truth is the server's (`memory.badges`, from the version history and
 * when the person last opened each file, kept across reloads, browsers and restarts); this store
 * shows it, and between two answers follows the change stream so a badge appears at once. Rows
 * subscribe to their own key, so a change re-renders one row. It also remembers who changed each
 * file last in this page (for the conflict banner's wording). Nothing is kept in the browser.
 *
 * A badge is also new or not: new when its change is newer than the view's "Mark all seen" (the
 * server's `lookedAt`; a view never marked shows every badge new). Marking all seen turns new badges
 * into ordinary ones; opening a file still clears its badge. A view's new badges are counted for the
 * tree's "N new · Mark all seen".
 *
 * Invariant: an answer of the server never undoes what the page did after that answer was asked
 * for (a badge from a change event, a clear from opening the file): each change here has a
 * generation, and an answer applies only to keys not changed since its request began.
 */
import { useSyncExternalStore } from 'react';
import { badgeKey, type Badge } from '../../../common/memory/badges';
import type { Actor, Scope } from '../../../common/memory/constants';

export { badgeKey, type Badge } from '../../../common/memory/badges';

/** The view a badge key belongs to: global keys (paths) belong to every view. */
const viewKey = (workspaceId: string | null) => workspaceId ?? '-';

export class BadgeStore {
  private readonly badges = new Map<string, Badge>();
  /** When each badged key's change was made (ISO time, the server's clock). */
  private readonly ats = new Map<string, string>();
  /** Each view's "Mark all seen" (see the header). */
  private readonly looked = new Map<string, string>();
  /** The generation of the last "Mark all seen" made here per view. */
  private readonly lookedTouched = new Map<string, number>();
  private readonly allListeners = new Set<() => void>();
  private allPending = false;
  private readonly lastActors = new Map<string, Actor>();
  private readonly listeners = new Map<string, Set<() => void>>();
  /** The generation of the last change made here to each key (see the header). */
  private readonly touched = new Map<string, number>();
  private generation = 0;

  get(key: string): Badge | null {
    return this.badges.get(key) ?? null;
  }

  /** Whether the key's badge is new in `workspaceId`'s view: its change is newer than the view's last "Mark all seen". */
  isNew(key: string, workspaceId: string | null): boolean {
    if (!this.badges.has(key)) return false;
    const looked = this.looked.get(viewKey(workspaceId));
    const at = this.ats.get(key);
    return looked === undefined || at === undefined || at > looked;
  }

  /** How many badges of `workspaceId`'s view are new. */
  newCount(workspaceId: string | null): number {
    const own = workspaceId === null ? null : badgeKey(workspaceId, 'project', '');
    let n = 0;
    for (const key of this.badges.keys()) if ((key.startsWith('/') || (own !== null && key.startsWith(own))) && this.isNew(key, workspaceId)) n++;
    return n;
  }

  /** "Mark all seen" in `workspaceId`'s view, as the server recorded it at `at`. */
  markLooked(workspaceId: string | null, at: string): void {
    this.lookedTouched.set(viewKey(workspaceId), ++this.generation);
    this.setLooked(workspaceId, at);
  }

  lastActor(key: string): Actor | null {
    return this.lastActors.get(key) ?? null;
  }

  /** The current generation: pass it to fromServer() with the answer of a request begun now. */
  mark(): number {
    return this.generation;
  }

  /**
   * The server's badges of one view (`memory.badges`, asked for at generation `since`): every key of
   * the view (its global files, and its own project and workspace files) takes what the answer says,
   * unless the page changed that key since.
   */
  fromServer(workspaceId: string | null, badges: ReadonlyArray<{ scope: Scope; path: string; badge: Badge; at?: string }>, since: number, lookedAt?: string): void {
    if (lookedAt !== undefined && (this.lookedTouched.get(viewKey(workspaceId)) ?? -1) <= since) this.setLooked(workspaceId, lookedAt);
    const next = new Map(badges.map((b) => [badgeKey(workspaceId, b.scope, b.path), b.badge] as const));
    const ats = new Map(badges.map((b) => [badgeKey(workspaceId, b.scope, b.path), b.at] as const));
    const ownPrefix = workspaceId === null ? null : badgeKey(workspaceId, 'project', '');
    const inView = (key: string) => key.startsWith('/') || (ownPrefix !== null && key.startsWith(ownPrefix));
    const fresh = (key: string) => (this.touched.get(key) ?? -1) <= since;
    for (const key of [...this.badges.keys()]) if (inView(key) && !next.has(key) && fresh(key)) this.put(key, null);
    for (const [key, badge] of next) {
      if (!fresh(key)) continue;
      const at = ats.get(key);
      const was = this.ats.get(key);
      if (at !== undefined) this.ats.set(key, at);
      if (!this.put(key, badge) && was !== at) this.notify(key);
    }
  }

  /** Records a change by `actor`: agents and outside edits badge the file; a person's own do not. */
  changed(key: string, actor: Actor, at: string = new Date().toISOString()): void {
    this.lastActors.set(key, actor);
    if (actor === 'person') return;
    this.touch(key);
    const was = this.ats.get(key);
    this.ats.set(key, at);
    // The same badge with a newer change may turn new again: its row hears of it.
    if (!this.put(key, actor === 'agent' ? 'agent' : 'external') && was !== at) this.notify(key);
  }

  /** The person opened the file (the server marked it seen with the read). */
  clear(key: string): void {
    this.touch(key);
    this.put(key, null);
  }

  /** Moves badges at or below `from` to `to` (a rename). */
  move(fromKey: string, toKey: string): void {
    for (const [k, v] of [...this.badges]) {
      if (k !== fromKey && !k.startsWith(`${fromKey}/`)) continue;
      const to = toKey + k.slice(fromKey.length);
      this.touch(k);
      this.touch(to);
      const at = this.ats.get(k);
      this.put(k, null);
      if (at !== undefined) this.ats.set(to, at);
      this.put(to, v);
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

  /** Hears any change of any badge or view mark (the tree's count of new badges). */
  subscribeAll(listener: () => void): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  private touch(key: string): void {
    this.touched.set(key, ++this.generation);
  }

  private setLooked(workspaceId: string | null, at: string): void {
    const view = viewKey(workspaceId);
    if (this.looked.get(view) === at) return;
    this.looked.set(view, at);
    // Every badged row may change from new to ordinary.
    for (const key of this.badges.keys()) this.notify(key);
  }

  /** Sets a key's badge; false when it already was that. */
  private put(key: string, badge: Badge | null): boolean {
    if ((this.badges.get(key) ?? null) === badge) return false;
    if (badge === null) {
      this.badges.delete(key);
      this.ats.delete(key);
    } else this.badges.set(key, badge);
    this.notify(key);
    return true;
  }

  private notify(key: string): void {
    for (const l of this.listeners.get(key) ?? []) l();
    this.notifyAll();
  }

  /** Tells the whole-store listeners once per burst (a server answer changes thousands of keys; each listener counts them all). */
  private notifyAll(): void {
    if (this.allPending || this.allListeners.size === 0) return;
    this.allPending = true;
    queueMicrotask(() => {
      this.allPending = false;
      for (const l of this.allListeners) l();
    });
  }
}

export const badgeStore = new BadgeStore();

export function useBadge(key: string, store: BadgeStore = badgeStore): Badge | null {
  return useSyncExternalStore(
    (l) => store.subscribe(key, l),
    () => store.get(key),
  );
}

/** Whether the key's badge is new in the view (see BadgeStore.isNew). */
export function useBadgeIsNew(key: string, workspaceId: string | null, store: BadgeStore = badgeStore): boolean {
  return useSyncExternalStore(
    (l) => store.subscribe(key, l),
    () => store.isNew(key, workspaceId),
  );
}

/** How many badges of the view are new. */
export function useNewBadgeCount(workspaceId: string | null, store: BadgeStore = badgeStore): number {
  return useSyncExternalStore(
    (l) => store.subscribeAll(l),
    () => store.newCount(workspaceId),
  );
}
