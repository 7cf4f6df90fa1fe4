/**
 * ChangeFeed: every memory change, made by any process or outside Cairn, delivered once, live.
 * A home's services (src/main/host/home-services.ts) make one for a long-lived host (the app,
 * `cairn serve`, `cairn mcp`); the API's `onChange` and MCP sessions subscribe to it per session
 * (./session-changes.ts).
 *
 *   const feed = new ChangeFeed({ home, service });   // service: the host's own MemoryService
 *   const unwatch = feed.watch(session);              // also report outside edits to its roots
 *   const unsubscribe = feed.subscribe((event, origin) => { ... });
 *   ...
 *   unsubscribe(); unwatch();                         // or: await feed.close()
 *
 * Sources, combined:
 * - `self`: the host's MemoryService.onChange (its own writes, synchronously);
 * - `journal`: the change journal, tailed, for writes by other processes (`cairn tool`, `cairn mcp`);
 * - `external`: an ExternalWatcher per watched scope root, for edits made outside Cairn. A change it
 *   finds is dropped when it matches a Cairn event of the last `dedupeMs` (default 5 s, so a busy machine cannot report one write twice): same
 *   scope, path and sha256 (create/update), a delete at or above the path, or a rename from or to
 *   it. Before deciding, the journal is read up to now, so another process's write is known.
 *
 * The sources run only while someone is subscribed: the first subscriber starts them, the last
 * unsubscribe stops them all (journal tail, fs watchers, timers) and nothing is delivered after.
 * With `lingerMs`, sources and watched roots nobody uses any more are kept that long before they
 * stop, so a page reloaded or a workspace opened again finds its roots already watched (starting
 * a watcher scans the whole root, which competes with the first requests of the page).
 * `watch(session)` registers a session's available roots: local ones are watched, SSH ones polled
 * in one round trip (SshPoller);
 * a root shared by several sessions (the global scope) is watched once, and its outside edits carry
 * the workspaceId/projectId of the first session that registered it. Filtering by workspace or
 * project is the subscriber's job. Events are MemoryChangeEvents (the journal's pid is dropped).
 * `onMeta` reports, apart, when pins and usage or the person's seen marks change (MetaWatcher).
 * `listingStamp(root)` lets a reader keep a listing of a local root for as long as it holds: while
 * the sources run and the root is watched, a value that moves with every event the root's watcher
 * hears and every change delivered from any source (so this process's own writes move it at once);
 * null when nothing may be kept.
 */
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { Scope } from '../../common/memory/constants';
import { SCOPES } from '../../common/memory/constants';
import type { MemorySession } from '../memory/session';
import { ExternalWatcher } from './external-watcher';
import { MetaWatcher, type MetaChange } from './meta-watcher';
import { SshPoller } from './ssh-poller';
import { Journal } from './journal';
import type { JournalTail } from './tail';

export type ChangeOrigin = 'self' | 'journal' | 'external';
export type ChangeListener = (event: MemoryChangeEvent, origin: ChangeOrigin) => void;

export interface ChangeFeedOptions {
  /** Cairn's home: where the journal lives. */
  readonly home: string;
  /** The host's own MemoryService (or anything with its onChange), whose changes arrive from it directly. */
  readonly service?: { onChange(listener: (event: MemoryChangeEvent) => void): () => void };
  /** The journal to tail (default: new Journal(home)); its pid is the one skipped. */
  readonly journal?: Journal;
  /** How long a Cairn event masks the same change found on disk, ms (default 5000). */
  readonly dedupeMs?: number;
  /** Quiet time per path before an outside edit is reported, ms (default 50). */
  readonly debounceMs?: number;
  /** How long sources and roots nobody uses are kept running before they stop, ms (default 0: at once). */
  readonly lingerMs?: number;
  /**
   * Runs `fn` once `ms` have passed and returns the function that cancels it: how lingering ends.
   * Default: a timer that does not keep the process alive. Tests pass one they fire themselves.
   */
  readonly schedule?: (fn: () => void, ms: number) => () => void;
  /**
   * Records an outside edit in the version history (memory/outside-edits.ts) before it is
   * delivered, which then carries the version's id; outside edits are delivered in the order found.
   */
  readonly recordOutside?: (event: MemoryChangeEvent, session: MemorySession) => Promise<string | undefined>;
}

function scheduleTimer(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

interface WatchedRoot {
  readonly session: MemorySession;
  readonly scope: Scope;
  refs: number;
  watcher: (Pick<ExternalWatcher, 'ready' | 'close'> & Partial<Pick<ExternalWatcher, 'listingStamp'>>) | null;
  /** Cancels the end of the root's linger, while it lingers unused (see ChangeFeedOptions.lingerMs). */
  linger: (() => void) | null;
}

/** Whether `p` is `base` or inside it. */
function under(p: string, base: string): boolean {
  return p === base || p.startsWith(`${base}/`);
}

/** Whether the Cairn event `known` accounts for the change `found` on disk. */
function accountsFor(known: MemoryChangeEvent, found: MemoryChangeEvent): boolean {
  if (known.scope !== found.scope) return false;
  switch (known.op) {
    case 'rename':
      if (found.op === 'delete') return known.oldPath !== undefined && under(found.path, known.oldPath);
      return under(found.path, known.path);
    case 'delete':
      return found.op === 'delete' && under(found.path, known.path);
    case 'create':
    case 'update':
      return found.op !== 'delete' && found.path === known.path && found.sha256 !== null && found.sha256 === known.sha256;
  }
}

export class ChangeFeed {
  private readonly journal: Journal;
  private readonly listeners = new Set<ChangeListener>();
  private readonly roots = new Map<string, WatchedRoot>();
  private readonly recent: { event: MemoryChangeEvent; t: number }[] = [];
  private readonly closing = new Set<Promise<void>>();
  private tail: JournalTail | null = null;
  /** Outside edits being recorded, one after another (see outside()). */
  private outsideChain: Promise<void> = Promise.resolve();
  private unhook: (() => void) | null = null;
  /** Cancels the end of the sources' linger, while they linger with no subscriber. */
  private stopTimer: (() => void) | null = null;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private readonly meta: MetaWatcher;
  /** Changes found or delivered so far, from any source: part of every listing stamp. */
  private changesSeen = 0;

  constructor(private readonly options: ChangeFeedOptions) {
    this.journal = options.journal ?? new Journal(options.home);
    this.schedule = options.schedule ?? scheduleTimer;
    this.meta = new MetaWatcher(options.home);
  }

  /** Hears when pins and usage, or the person's seen marks, change (any process); returns the unsubscribe function. */
  onMeta(listener: (what: MetaChange) => void): () => void {
    return this.meta.subscribe(listener);
  }

  /** See the header: what a kept listing of the local root at host path `root` is checked against. */
  listingStamp(root: string): string | null {
    if (!this.tail) return null;
    for (const watched of this.roots.values()) {
      const stamp = watched.watcher?.listingStamp?.(root);
      if (stamp != null) return `${this.changesSeen}:${stamp}`;
    }
    return null;
  }

  /** Delivers every change from now on; returns the unsubscribe function (idempotent). */
  subscribe(listener: ChangeListener): () => void {
    // A wrapper, so the same function subscribed twice is two subscriptions.
    const entry: ChangeListener = (e, o) => listener(e, o);
    this.listeners.add(entry);
    if (this.listeners.size === 1) {
      if (this.stopTimer) {
        this.stopTimer();
        this.stopTimer = null;
      } else this.start();
    }
    return () => {
      if (!this.listeners.delete(entry) || this.listeners.size > 0) return;
      const linger = this.options.lingerMs ?? 0;
      if (linger <= 0) return this.stop();
      this.stopTimer = this.schedule(() => {
        this.stopTimer = null;
        if (this.listeners.size === 0) this.stop();
      }, linger);
    };
  }

  /** Reports outside edits to `session`'s local roots too; returns the function that stops that. */
  watch(session: MemorySession): () => void {
    const keys: string[] = [];
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      if (!b.available || (b.runtime.label !== 'local' && !b.runtime.label.startsWith('ssh:'))) continue;
      const key = `${scope}\0${b.runtime.label}\0${b.root.path}`;
      keys.push(key);
      const known = this.roots.get(key);
      if (known) {
        known.refs++;
        if (known.linger) {
          known.linger();
          known.linger = null;
        }
      } else {
        const root: WatchedRoot = { session, scope, refs: 1, watcher: null, linger: null };
        this.roots.set(key, root);
        if (this.listeners.size > 0) this.startRoot(root);
      }
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const key of keys) {
        const root = this.roots.get(key);
        if (!root || --root.refs > 0) continue;
        const linger = this.options.lingerMs ?? 0;
        if (linger <= 0) {
          this.forgetRoot(key, root);
          continue;
        }
        root.linger = this.schedule(() => {
          root.linger = null;
          if (root.refs === 0 && this.roots.get(key) === root) this.forgetRoot(key, root);
        }, linger);
      }
    };
  }

  /**
   * Resolves when the watched roots are steady (scanned, or missing and looked for, a root that
   * appeared or vanished included) and watchers being closed are closed.
   */
  async ready(): Promise<void> {
    await Promise.all([...[...this.roots.values()].map((r) => r.watcher?.ready()), ...this.closing]);
  }

  /** Unsubscribes everyone, forgets every watched session, and waits until all is closed. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.meta.close();
    this.stopTimer?.();
    this.stopTimer = null;
    this.stop();
    for (const root of this.roots.values()) {
      root.linger?.();
      this.stopRoot(root);
    }
    this.roots.clear();
    while (this.closing.size > 0) await Promise.all(this.closing);
  }

  private start(): void {
    this.unhook = this.options.service?.onChange((e) => this.deliver(e, 'self')) ?? null;
    this.tail = this.journal.openTail((e) => {
      const { pid: _pid, ...event } = e;
      this.deliver(event, 'journal');
    });
    for (const root of this.roots.values()) this.startRoot(root);
  }

  private stop(): void {
    this.unhook?.();
    this.unhook = null;
    this.tail?.close();
    this.tail = null;
    for (const root of this.roots.values()) this.stopRoot(root);
    this.recent.length = 0;
  }

  private startRoot(root: WatchedRoot): void {
    if (root.watcher) return;
    const b = root.session.scopes[root.scope];
    const found = (e: MemoryChangeEvent) => this.outside(e, root.session);
    if (b.available && b.runtime.label.startsWith('ssh:')) {
      root.watcher = new SshPoller(root.session, root.scope, { onChange: found, seen: (e) => this.seen(e) });
      return;
    }
    root.watcher = new ExternalWatcher(root.session, {
      scopes: [root.scope],
      onChange: found,
      seen: (e) => this.seen(e),
      ...(this.options.debounceMs !== undefined ? { debounceMs: this.options.debounceMs } : {}),
    });
  }

  private forgetRoot(key: string, root: WatchedRoot): void {
    this.roots.delete(key);
    this.stopRoot(root);
  }

  private stopRoot(root: WatchedRoot): void {
    const w = root.watcher;
    root.watcher = null;
    if (!w) return;
    const p = w.close().finally(() => this.closing.delete(p));
    this.closing.add(p);
  }

  private prune(now: number): void {
    const window = this.options.dedupeMs ?? 5_000;
    let drop = 0;
    while (drop < this.recent.length && now - this.recent[drop]!.t > window) drop++;
    if (drop > 0) this.recent.splice(0, drop);
  }

  /** Whether a change found on disk is one Cairn has reported (reading the journal up to now first). */
  private seen(found: MemoryChangeEvent): boolean {
    this.tail?.check();
    this.prune(performance.now());
    return this.recent.some((r) => accountsFor(r.event, found));
  }

  /** An outside edit: recorded in the history (when asked), then delivered with its version's id. */
  private outside(event: MemoryChangeEvent, session: MemorySession): void {
    this.changesSeen++;
    const record = this.options.recordOutside;
    if (!record) {
      this.deliver(event, 'external');
      return;
    }
    this.outsideChain = this.outsideChain.then(async () => {
      const historyId = await record(event, session);
      this.deliver(historyId ? { ...event, historyId } : event, 'external');
    });
  }

  private deliver(event: MemoryChangeEvent, origin: ChangeOrigin): void {
    this.changesSeen++;
    if (this.listeners.size === 0) return;
    if (origin !== 'external') {
      const now = performance.now();
      this.prune(now);
      this.recent.push({ event, t: now });
    }
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue; // unsubscribed by an earlier listener
      try {
        listener(event, origin);
      } catch (err) {
        process.stderr.write(`cairn: a change listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
      }
    }
  }
}
