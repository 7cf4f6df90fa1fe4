/**
 * ExternalWatcher: reports edits made outside Cairn (an editor, a plain write, `git pull`) to the
 * local scope roots of one session, as change events with actor `external`.
 *
 * - Watches each available local root with chokidar (fs.watch underneath). Names starting with '.'
 *   (Cairn's temp files, editors' swap files, locks), node_modules, and names a memory path could
 *   not hold are ignored, at any depth below the root.
 * - Files only: a change to a file is reported once its path has been quiet for `debounceMs`
 *   (default 50 ms), from what is on disk then: `create` (it appeared), `update`, or `delete`, with
 *   the sha256 of the content (null for a delete, a symlink, or a file over 4 MiB). A file that
 *   appears and vanishes within the window is not reported. A rename outside Cairn arrives as a
 *   delete and a create; directories are not reported themselves (their files are).
 * - Before a change is reported it is offered to `seen()`; true drops it (the host's record of
 *   Cairn's own recent writes: one write is one event). While a Cairn writer is at work on the
 *   scope (its lock held, or taken or released in the last 100 ms), or the file changed again
 *   within the window, the decision waits (up to ~1 s) so that the writer's event is known first.
 * - A root that does not exist yet is looked for every `rootPollMs` (default 250 ms); when it
 *   appears, the files in it are reported as created. A root that is removed is looked for again.
 *   A root that is not one Cairn can use (a symbolic link on its way, say to .git: containment's
 *   resolveRoot) is not watched, as if missing, so nothing behind such a link is ever reported.
 * - `ready()` resolves once every root is steady: watched and scanned, or missing and looked for
 *   (a watcher of a removed root closed first); `close()` stops everything (nothing is reported
 *   after it is called).
 * - `listingStamp(root)` says whether a listing of a root made earlier still holds: while the root
 *   is watched and scanned and its watcher has failed in nothing, a value that moves with every
 *   file system event heard under it (before any filtering or debounce), unique to this watcher;
 *   otherwise null (nothing may be kept).
 * SSH roots are not watched here (a remote runtime polls them in one round trip).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Scope } from '../../common/memory/constants';
import { SCOPES } from '../../common/memory/constants';
import { outsideEditEvent, type MemoryChangeEvent } from '../../common/memory/events';
import { isListedName } from '../../common/memory/paths';
import type { MemorySession, ScopeBinding } from '../memory/session';
import { lockPathFor } from '../runtime/local/file-lock';
import { resolveRoot } from '../runtime/local/containment';

export interface ExternalWatcherOptions {
  /** Receives each change made outside Cairn. */
  readonly onChange: (event: MemoryChangeEvent) => void;
  /** True when the change is one Cairn already reported (it is then dropped). */
  readonly seen?: (event: MemoryChangeEvent) => boolean;
  /** The scopes to watch (default: every available local scope of the session). */
  readonly scopes?: readonly Scope[];
  /** Quiet time per path before a change is reported, ms (default 50). */
  readonly debounceMs?: number;
  /** How often a missing root is looked for, ms (default 250). */
  readonly rootPollMs?: number;
}

type RawKind = 'add' | 'change' | 'unlink';

/** Files larger than this are reported without a sha256 (they cannot be memory files anyway). */
const MAX_HASH_BYTES = 4 * 1024 * 1024;
/** While a decision waits (see fire()), it is retried this often, this many times at most. */
const RETRY_MS = 25;
const MAX_RETRIES = 40;
/** A scope lock taken or released this recently may belong to a write whose event is on its way. */
const RECENT_LOCK_MS = 100;

/** How long after a removal chokidar may still re-open itself (see closeWatcher). */
const REMOVAL_SETTLE_MS = 300;

/**
 * Closes a chokidar watcher for good. While it handles a removal, chokidar may re-add a parent
 * directory to watch for the removed path's return, which re-opens a watcher already closed (its
 * add() clears `closed`); so after a recent removal, wait for that to settle and close it again.
 */
async function closeWatcher(w: FSWatcher, removedRecently: boolean): Promise<void> {
  await w.close();
  if (!removedRecently) return;
  await new Promise((resolve) => setTimeout(resolve, REMOVAL_SETTLE_MS));
  if (!w.closed) await w.close();
}

/** Numbers the watchers of this process, so no two watchers' listing stamps are alike. */
let watchersMade = 0;

interface Pending {
  first: RawKind;
  timer: NodeJS.Timeout;
  tries: number;
}

class RootWatcher {
  private watcher: FSWatcher | null = null;
  /** A watcher of a removed root, being closed. */
  private closing: Promise<void> | null = null;
  private poll: NodeJS.Timeout | null = null;
  private readonly pending = new Map<string, Pending>();
  private closed = false;
  /** Whether the current watcher has finished its initial scan. */
  private scanned = false;
  /** Callers of ready() waiting for the next change of state. */
  private readonly wakers: Array<() => void> = [];
  private readonly lockPath: string;
  private readonly debounceMs: number;
  /** When chokidar last reported a removal (Date.now()). */
  private lastRemoval = 0;
  /** This watcher's number (see watchersMade), and how many events it has heard: its listing stamp. */
  private readonly id = ++watchersMade;
  private heard = 0;
  /** Set when the watcher reported an error: an event may have been missed, so no listing is kept. */
  private failed = false;

  constructor(
    private readonly binding: Extract<ScopeBinding, { available: true }>,
    private readonly session: MemorySession,
    private readonly options: ExternalWatcherOptions,
  ) {
    this.lockPath = lockPathFor(binding.root.path);
    this.debounceMs = options.debounceMs ?? 50;
    this.start(false);
  }

  get root(): string {
    return this.binding.root.path;
  }

  /**
   * Resolves once the root is steady: watched and scanned, or missing and looked for, with the
   * watcher of a removed root closed. Without it a caller could only guess (sleep) how long a root
   * that appeared or vanished takes to be noticed; the tests of the change feed wait on it.
   */
  async ready(): Promise<void> {
    while (!this.steady()) await new Promise<void>((resolve) => this.wakers.push(resolve));
  }

  /** See the header: null unless the root is watched, scanned, and its watcher never failed. */
  listingStamp(): string | null {
    return this.watcher !== null && this.scanned && !this.closed && !this.failed ? `${this.id}.${this.heard}` : null;
  }

  private steady(): boolean {
    if (this.closed) return true;
    if (this.closing) return false;
    // A watcher whose root is gone has yet to hear so (then it restarts); a missing root that
    // exists now has yet to be found by the poll.
    return this.watcher ? this.scanned && this.rootExists() : !this.rootExists();
  }

  private wake(): void {
    for (const wake of this.wakers.splice(0)) wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake();
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    const w = this.watcher;
    this.watcher = null;
    await Promise.all([w ? closeWatcher(w, Date.now() - this.lastRemoval < 1_000) : undefined, this.closing]);
  }

  /** Whether the root is there, and a root Cairn can use (no link on its way: resolveRoot). */
  private rootExists(): boolean {
    try {
      return resolveRoot(this.binding.root, false) !== null;
    } catch {
      return false; // a root Cairn cannot use (a link on its way) is not watched
    }
  }

  /** Watches the root if it exists (reporting what is in it as new when `appeared`), else waits for it. */
  private start(appeared: boolean): void {
    if (this.closed) return;
    if (!this.rootExists()) {
      this.waitForRoot();
      this.wake();
      return;
    }
    const w = watch(this.root, {
      ignoreInitial: !appeared,
      // Our own debounce reads the disk; chokidar's 100 ms hold on unlinks would only add latency.
      atomic: false,
      followSymlinks: false,
      ignored: (p: string) => this.ignored(p),
    });
    this.watcher = w;
    this.scanned = false;
    this.heard++;
    // Every event of the file system under the root, before chokidar filters or throttles it.
    w.on('raw', () => this.heard++);
    w.on('all', () => this.heard++);
    w.on('add', (p: string) => this.raw('add', p));
    w.on('change', (p: string) => this.raw('change', p));
    w.on('unlink', (p: string) => {
      this.lastRemoval = Date.now();
      this.raw('unlink', p);
    });
    w.on('unlinkDir', (p: string) => {
      this.lastRemoval = Date.now();
      if (path.resolve(p) === path.resolve(this.root)) void this.restart(w);
    });
    w.on('error', (err: unknown) => {
      this.failed = true;
      process.stderr.write(`cairn: watching ${this.binding.scope} memory for outside edits failed: ${(err as NodeJS.ErrnoException)?.code ?? String(err)}\n`);
    });
    w.once('ready', () => {
      if (this.watcher === w) this.scanned = true;
      this.wake();
    });
  }

  /** The root was removed: stop watching it and look for it again. */
  private async restart(w: FSWatcher): Promise<void> {
    if (this.watcher !== w) return;
    this.watcher = null;
    const closing = closeWatcher(w, true);
    this.closing = closing;
    await closing;
    if (this.closing === closing) this.closing = null;
    if (!this.closed) this.waitForRoot();
    this.wake();
  }

  private waitForRoot(): void {
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => {
      if (!this.rootExists()) return;
      if (this.poll) clearInterval(this.poll);
      this.poll = null;
      this.start(true);
    }, this.options.rootPollMs ?? 250);
  }

  /** Segments of `p` below the root, or null when `p` is the root or outside it. */
  private segments(p: string): string[] | null {
    const rel = path.relative(this.root, p);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep);
  }

  private ignored(p: string): boolean {
    const segs = this.segments(p);
    return segs !== null && segs.some((s) => !isListedName(s));
  }

  private raw(kind: RawKind, p: string): void {
    if (this.closed || this.segments(p) === null) return;
    const prior = this.pending.get(p);
    if (prior) clearTimeout(prior.timer);
    const entry: Pending = { first: prior?.first ?? kind, tries: 0, timer: setTimeout(() => this.fire(p), this.debounceMs) };
    this.pending.set(p, entry);
  }

  /**
   * The path has been quiet: report what is on disk now, unless it is Cairn's own change. The
   * decision waits (retried every 25 ms, up to ~1 s) while the file changed again within the
   * debounce window (its fs event is still on its way) or a Cairn writer holds the scope's lock
   * or has just taken or released it (its event follows its write by a moment).
   */
  private fire(p: string): void {
    const entry = this.pending.get(p);
    if (!entry || this.closed) return;
    const found = this.describe(p, entry.first);
    if (found === null || this.options.seen?.(found.event)) {
      this.pending.delete(p);
      return;
    }
    const now = Date.now();
    const unsettled = (found.changedAt !== null && now - found.changedAt < this.debounceMs) || this.cairnBusy(now);
    if (unsettled && entry.tries < MAX_RETRIES) {
      entry.tries++;
      entry.timer = setTimeout(() => this.fire(p), RETRY_MS);
      return;
    }
    this.pending.delete(p);
    this.options.onChange(found.event);
  }

  /** Whether a Cairn writer holds the scope's lock, or took or released it a moment ago. */
  private cairnBusy(now: number): boolean {
    try {
      // The lock is a file beside the root: its parent's mtime moves when it comes and goes.
      return fs.existsSync(this.lockPath) || now - fs.statSync(path.dirname(this.lockPath)).mtimeMs < RECENT_LOCK_MS;
    } catch {
      return false; // the root's parent is gone: no writer of Cairn's is busy there
    }
  }

  /** The change at `p` as found on disk, and when the file last changed (null for a delete). */
  private describe(p: string, first: RawKind): { event: MemoryChangeEvent; changedAt: number | null } | null {
    const segs = this.segments(p);
    if (segs === null) return null;
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(p);
    } catch {
      // Nothing there now (or nothing that can be looked at): a delete, as below.
    }
    let op: MemoryChangeEvent['op'];
    let sha256: string | null = null;
    if (st === null) {
      if (first === 'add') return null; // came and went within the window
      op = 'delete';
    } else if (st.isFile() || st.isSymbolicLink()) {
      op = first === 'add' ? 'create' : 'update';
      if (st.isFile() && st.size <= MAX_HASH_BYTES) {
        try {
          sha256 = createHash('sha256').update(fs.readFileSync(p)).digest('hex');
        } catch {
          return null; // vanished or unreadable between the lstat and the read
        }
      }
    } else {
      return null;
    }
    const event = outsideEditEvent(this.binding.scope, segs, op, sha256, this.session);
    return { event, changedAt: st === null ? null : st.ctimeMs };
  }
}

export class ExternalWatcher {
  private readonly roots: RootWatcher[] = [];

  constructor(session: MemorySession, options: ExternalWatcherOptions) {
    const scopes = options.scopes ?? SCOPES;
    for (const scope of scopes) {
      const b = session.scopes[scope];
      if (!b.available || b.runtime.label !== 'local') continue;
      this.roots.push(new RootWatcher(b, session, options));
    }
  }

  /** The listing stamp of the root at host path `root` (RootWatcher.listingStamp); null when it is not one of these. */
  listingStamp(root: string): string | null {
    return this.roots.find((r) => r.root === root)?.listingStamp() ?? null;
  }

  /** Host paths of the roots watched (or waited for). */
  get rootPaths(): string[] {
    return this.roots.map((r) => r.root);
  }

  /** Resolves when every root is steady: scanned, or missing and looked for (see RootWatcher.ready). */
  async ready(): Promise<void> {
    await Promise.all(this.roots.map((r) => r.ready()));
  }

  /** Stops watching; resolves when every watcher is closed. */
  async close(): Promise<void> {
    await Promise.all(this.roots.map((r) => r.close()));
  }
}
