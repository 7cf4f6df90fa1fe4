/**
 * MetaWatcher: tells a long-lived host when the home's side files change, by any process: the pins
 * and usage sidecar (`memory-meta.json`: `cairn pin`, an agent's views in its own `cairn mcp`, another
 * window's pin) and the person's seen marks (`seen.json`: a file opened in another browser). Both
 * are only ever replaced whole by a rename, so a file's identity (inode, size, mtime) changes
 * exactly when its content may have: that is what is compared, never the content.
 *
 * Wakes on fs.watch events of the home directory; a slow poll (`pollMs`, default 2 s, slower than
 * the journal tail's) catches a dropped event or a home that could not be watched. A burst of
 * changes is reported once, `settleMs` (default 50 ms) after its first one, one call per file that
 * changed. Runs only while someone listens: the first subscriber starts it, the last stops it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SEEN_FILE } from '../memory/seen-store';
import { USAGE_FILE } from '../memory/usage-store';

/** Which side file changed: pins and usage, or the person's seen marks. */
export type MetaChange = 'usage' | 'seen';

const FILES: ReadonlyArray<readonly [MetaChange, string]> = [
  ['usage', USAGE_FILE],
  ['seen', SEEN_FILE],
];

export interface MetaWatcherOptions {
  /** The fallback poll's period, ms (default 2000). */
  readonly pollMs?: number;
  /** How long a burst is gathered before it is reported, ms (default 50). */
  readonly settleMs?: number;
}

export class MetaWatcher {
  private readonly listeners = new Set<(what: MetaChange) => void>();
  private readonly known = new Map<MetaChange, string>();
  private watcher: fs.FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private settle: NodeJS.Timeout | null = null;

  constructor(
    readonly home: string,
    private readonly options: MetaWatcherOptions = {},
  ) {}

  /** Calls `listener` with each side file that changes from now on; returns the unsubscribe function. */
  subscribe(listener: (what: MetaChange) => void): () => void {
    const entry = (what: MetaChange) => listener(what);
    this.listeners.add(entry);
    if (this.listeners.size === 1) this.start();
    return () => {
      if (this.listeners.delete(entry) && this.listeners.size === 0) this.stop();
    };
  }

  /** Stops watching and forgets every listener; idempotent. */
  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private start(): void {
    for (const [what, name] of FILES) this.known.set(what, this.identity(name));
    this.startWatcher();
    this.poll = setInterval(() => {
      if (!this.watcher) this.startWatcher();
      this.check();
    }, this.options.pollMs ?? 2_000);
    this.poll.unref();
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    if (this.settle) clearTimeout(this.settle);
    this.settle = null;
    this.known.clear();
  }

  private startWatcher(): void {
    try {
      const w = fs.watch(this.home, { persistent: false }, (_event, name) => {
        // Temp files and locks come and go beside the files; only the files themselves count.
        if (name === null || FILES.some(([, file]) => file === name)) this.soon();
      });
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = null;
      });
      this.watcher = w;
    } catch {
      // No home yet, or it cannot be watched: the poll looks, and tries the watch again.
    }
  }

  private soon(): void {
    if (this.settle || this.listeners.size === 0) return;
    this.settle = setTimeout(() => {
      this.settle = null;
      this.check();
    }, this.options.settleMs ?? 50);
    this.settle.unref();
  }

  private check(): void {
    for (const [what, name] of FILES) {
      const now = this.identity(name);
      if (now === this.known.get(what)) continue;
      this.known.set(what, now);
      for (const l of [...this.listeners]) {
        try {
          l(what);
        } catch (err) {
          process.stderr.write(`cairn: a listener of ${name} failed: ${(err as Error)?.stack ?? String(err)}\n`);
        }
      }
    }
  }

  private identity(name: string): string {
    try {
      const st = fs.statSync(path.join(this.home, name), { bigint: true, throwIfNoEntry: false });
      return st ? `${st.ino}:${st.size}:${st.mtimeNs}` : '';
    } catch {
      return ''; // cannot be looked at now: as if absent, and a change once it can be
    }
  }
}
