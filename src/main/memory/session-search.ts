/**
 * SessionSearch: `memory_search` for one agent session (an MCP server's). It owns the session's
 * RelevanceIndex and, once the session has searched, keeps it current in idle moments: after a
 * change that concerns the session (its own write, another process's, an outside edit), once no
 * request has come for IDLE_REFRESH_MS, it takes a snapshot, re-indexes what changed and scans the
 * heads it has not scanned yet. An agent's next search then usually pays for the query alone. A
 * session that never searches never builds an index.
 *
 * Invariant: a search never answers from a stale index. It always takes a fresh snapshot first (a
 * listing check when nothing changed) and brings the index to exactly those files before the
 * query; the idle refresh only moves work earlier, it decides nothing.
 */
import type { Scope } from '../../common/memory/constants';
import { snippetFor, type ContextBuilder } from './context-builder';
import type { ContextFile } from './context-file';
import { promptTerms, rankRelevant, RelevanceIndex } from './relevance-index';
import type { MemorySession } from './session';

/** How long the session must be quiet (no request) before the index is refreshed, ms. */
const IDLE_REFRESH_MS = 5;
/** Hits a search returns when the caller gives no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** A hit's snippet is cut to this many characters. */
const SNIPPET_MAX_CHARS = 200;

export interface SearchOptions {
  /** Only this scope, ranked among its own files (its own BM25 statistics). */
  readonly scope?: Scope;
  readonly limit?: number;
}

export class SessionSearch {
  private readonly index = new RelevanceIndex();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Whether the session has searched (only then is there an index worth keeping current). */
  private searched = false;

  constructor(
    private readonly builder: ContextBuilder,
    private readonly session: MemorySession,
    private readonly idleMs = IDLE_REFRESH_MS,
  ) {}

  /** Memory that concerns the session changed: refresh once the session is quiet. */
  changed(): void {
    if (this.searched && !this.closed) this.arm();
  }

  /** A request arrived: a pending refresh waits for the next quiet moment. */
  busy(): void {
    if (this.timer) this.arm();
  }

  /** The best matches for `query`, one per line pair: the virtual path, then a snippet. */
  async search(query: string, options: SearchOptions = {}): Promise<string> {
    this.searched = true;
    const current = await this.builder.snapshot(this.session);
    const terms = promptTerms(query);
    const now = Date.now();
    const ranked =
      options.scope === undefined ? this.index.rank(current.files, terms, now) : rankRelevant(current.files.filter((f) => f.scope === options.scope), terms, now);
    const hits: string[] = [];
    for (const file of ranked) {
      if (hits.length >= (options.limit ?? DEFAULT_SEARCH_LIMIT)) break;
      // What the scanners flag never reaches an agent from a search.
      if (this.builder.flags(file).length > 0) continue;
      hits.push(hit(file, terms));
    }
    return hits.length > 0 ? hits.join('\n') : `No memory file matches "${query}". View /memories to browse them all.`;
  }

  /** Brings the index and the scanners' verdicts up to date with memory as it is now. */
  async refresh(): Promise<void> {
    const current = await this.builder.snapshot(this.session);
    if (this.closed) return;
    this.index.update(current.files);
    for (const file of current.files) this.builder.flags(file);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      // A failed refresh costs nothing: the next search takes its own snapshot.
      this.refresh().catch(() => {});
    }, this.idleMs);
    this.timer.unref();
  }
}

/** A file's hit for these terms: its path, then its snippet (cut to SNIPPET_MAX_CHARS). */
function hit(file: ContextFile, terms: readonly string[]): string {
  const line = snippetFor(file, terms);
  return `${file.path}\n  ${line.length > SNIPPET_MAX_CHARS ? `${line.slice(0, SNIPPET_MAX_CHARS - 1)}…` : line}`;
}
