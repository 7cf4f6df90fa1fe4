/**
 * SshPoller: reports edits made outside Cairn (an editor or `git pull` on the remote host) to a
 * scope root reached over SSH, as change events with actor `external`, the counterpart of
 * ExternalWatcher for roots no local watcher can see.
 *
 * - Every `pollMs` (default 1 s, well inside the feed's 2 s dedupe window) the whole scope is
 *   listed in one round trip (files only, the same request as the context index). The first
 *   listing is the baseline: nothing is reported for it.
 * - A file that appeared, changed (size or mtime) or vanished since the last listing is reported as
 *   create, update or delete; the contents of changed files are fetched in one more round trip to
 *   give each event its sha256, so `seen()` can tell Cairn's own writes (reported through the
 *   journal) from outside edits. The decision waits `settleMs` (default 250 ms) first: a Cairn
 *   writer appends its event just after its remote write returns.
 * - A host that cannot be reached is skipped quietly and tried again at the next poll.
 */
import { createHash } from 'node:crypto';
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, type Scope } from '../../common/memory/constants';
import { outsideEditEvent, type MemoryChangeEvent } from '../../common/memory/events';
import type { MemorySession, ScopeBinding } from '../memory/session';
import type { ListedEntry } from '../runtime/runtime';

/** At most this many changed files are fetched (one request) to hash them, per poll. */
const HASHED_PER_POLL = 100;

export interface SshPollerOptions {
  readonly onChange: (event: MemoryChangeEvent) => void;
  readonly seen?: (event: MemoryChangeEvent) => boolean;
  readonly pollMs?: number;
  readonly settleMs?: number;
}

export class SshPoller {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private known: Map<string, ListedEntry> | null = null;
  private running: Promise<void> | null = null;
  private readonly binding: Extract<ScopeBinding, { available: true }>;

  constructor(
    private readonly session: MemorySession,
    scope: Scope,
    private readonly options: SshPollerOptions,
  ) {
    const b = session.scopes[scope];
    if (!b.available) throw new Error(`the ${scope} scope is unavailable`);
    this.binding = b;
    this.running = this.poll();
    this.schedule();
  }

  /** Resolves when the first listing (the baseline) is done, or has failed. */
  async ready(): Promise<void> {
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.running = this.poll().finally(() => this.schedule());
    }, this.options.pollMs ?? 1_000);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const b = this.binding;
    let listed: ListedEntry[] | null;
    try {
      listed = await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true });
    } catch {
      return; // unreachable now; the next poll tries again
    }
    if (this.closed) return;
    const now = new Map((listed ?? []).map((e) => [e.rel.join('/'), e]));
    const before = this.known;
    this.known = now;
    if (before === null) return;
    const changed: Array<{ rel: string; entry: ListedEntry; op: 'create' | 'update' }> = [];
    for (const [rel, entry] of now) {
      const old = before.get(rel);
      if (!old) changed.push({ rel, entry, op: 'create' });
      else if (old.size !== entry.size || old.mtimeMs !== entry.mtimeMs) changed.push({ rel, entry, op: 'update' });
    }
    const deleted = [...before.keys()].filter((rel) => !now.has(rel));
    if (changed.length === 0 && deleted.length === 0) return;
    // Contents for the sha256 of files a Cairn writer could have written (within the cap), and not
    // for more than HASHED_PER_POLL of them: a `git pull` of hundreds of files is reported without.
    const hashable = changed.filter((c) => c.entry.size <= MAX_FILE_BYTES).slice(0, HASHED_PER_POLL);
    const contents = new Map<string, Uint8Array>();
    try {
      const heads = hashable.length > 0 ? await b.runtime.readHeads(b.root, hashable.map((c) => c.entry.rel), MAX_FILE_BYTES) : [];
      hashable.forEach((c, i) => {
        const data = heads[i]?.data;
        if (data) contents.set(c.rel, data);
      });
    } catch {
      // The host did not answer the read: the edits are reported all the same, without digests.
    }
    await new Promise((resolve) => setTimeout(resolve, this.options.settleMs ?? 250));
    if (this.closed) return;
    const event = (rel: string, op: MemoryChangeEvent['op'], sha256: string | null) => outsideEditEvent(b.scope, rel.split('/'), op, sha256, this.session);
    const found = [
      ...changed.map((c) => {
        const data = contents.get(c.rel);
        return event(c.rel, c.op, data ? createHash('sha256').update(data).digest('hex') : null);
      }),
      ...deleted.map((rel) => event(rel, 'delete', null)),
    ];
    for (const e of found) if (!this.options.seen?.(e)) this.options.onChange(e);
  }
}
