/**
 * Badges in the page: what happened to a file since the person last opened it ("agent edited",
 * "edited outside Cairn"). The truth is the server's (`memory.badges`, from the version history and
 * when the person last opened each file, kept across reloads, browsers and restarts); this store
 * shows it, and between two answers follows the change stream so a badge appears at once. Rows
 * subscribe to their own key, so a change re-renders one row. It also remembers who changed each
 * file last in this page (for the conflict banner's wording). Nothing is kept in the browser.
 *
 * Invariant: an answer of the server never undoes what the page did after that answer was asked
 * for (a badge from a change event, a clear from opening the file): each change here has a
 * generation, and an answer applies only to keys not changed since its request began.
 */
import { useSyncExternalStore } from 'react';
import { badgeKey, type Badge } from '../../../common/memory/badges';
import type { Actor, Scope } from '../../../common/memory/constants';

export { badgeKey, type Badge } from '../../../common/memory/badges';

export class BadgeStore {
  private readonly badges = new Map<string, Badge>();
  private readonly lastActors = new Map<string, Actor>();
  private readonly listeners = new Map<string, Set<() => void>>();
  /** The generation of the last change made here to each key (see the header). */
  private readonly touched = new Map<string, number>();
  private generation = 0;

  get(key: string): Badge | null {
    return this.badges.get(key) ?? null;
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
  fromServer(workspaceId: string | null, badges: ReadonlyArray<{ scope: Scope; path: string; badge: Badge }>, since: number): void {
    const next = new Map(badges.map((b) => [badgeKey(workspaceId, b.scope, b.path), b.badge] as const));
    const ownPrefix = workspaceId === null ? null : badgeKey(workspaceId, 'project', '');
    const inView = (key: string) => key.startsWith('/') || (ownPrefix !== null && key.startsWith(ownPrefix));
    const fresh = (key: string) => (this.touched.get(key) ?? -1) <= since;
    for (const key of [...this.badges.keys()]) if (inView(key) && !next.has(key) && fresh(key)) this.put(key, null);
    for (const [key, badge] of next) if (fresh(key)) this.put(key, badge);
  }

  /** Records a change by `actor`: agents and outside edits badge the file; a person's own do not. */
  changed(key: string, actor: Actor): void {
    this.lastActors.set(key, actor);
    if (actor === 'user') return;
    this.touch(key);
    this.put(key, actor === 'agent' ? 'agent' : 'external');
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
      this.put(k, null);
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

  private touch(key: string): void {
    this.touched.set(key, ++this.generation);
  }

  private put(key: string, badge: Badge | null): void {
    if ((this.badges.get(key) ?? null) === badge) return;
    if (badge === null) this.badges.delete(key);
    else this.badges.set(key, badge);
    for (const l of this.listeners.get(key) ?? []) l();
  }
}

export const badgeStore = new BadgeStore();

export function useBadge(key: string, store: BadgeStore = badgeStore): Badge | null {
  return useSyncExternalStore(
    (l) => store.subscribe(key, l),
    () => store.get(key),
  );
}
