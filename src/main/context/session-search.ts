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
 *
 * The person's content search (the tree's "Content" filter, memory.search) ranks with the same
 * code: searchFiles below is what both call, so a person sees what an agent would find.
 */
import type { Scope } from '../../common/memory/constants';
import { cleanDescription } from '../../common/context/render';
import { excerptFor, snippetFor, type ContextBuilder } from './context-builder';
import type { ContextFile } from './context-file';
import { promptTerms, rankRelevant, RelevanceIndex, tokenize, wordMatches } from './relevance-index';
import type { MemorySession } from '../memory/session';

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
    const found = searchFiles(this.builder, current.files, terms, Date.now(), options, (files, t, now) => this.index.rank(files, t, now));
    const hits = found.map((file) => hit(file, terms));
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

/**
 * The files that match `terms`, best first, as memory_search ranks them: BM25 over path,
 * description and head with the recency bonus (`rank`: a session's kept index, or a fresh one),
 * within one scope when asked (ranked among its own files), at most `limit`, never a file the
 * scanners flag.
 */
export function searchFiles(
  builder: Pick<ContextBuilder, 'flags'>,
  files: readonly ContextFile[],
  terms: readonly string[],
  now: number,
  options: SearchOptions = {},
  rank: (files: readonly ContextFile[], terms: readonly string[], now: number) => Iterable<ContextFile> = rankRelevant,
): ContextFile[] {
  const ranked = options.scope === undefined ? rank(files, terms, now) : rankRelevant(files.filter((f) => f.scope === options.scope), terms, now);
  const found: ContextFile[] = [];
  for (const file of ranked) {
    if (found.length >= (options.limit ?? DEFAULT_SEARCH_LIMIT)) break;
    // What the scanners flag never reaches an agent from a search.
    if (builder.flags(file).length > 0) continue;
    found.push(file);
  }
  return found;
}

/**
 * Where the words of `line` that match `terms` are (the words memory_search counts: tokenize's,
 * matched by wordMatches), as [start, end) in UTF-16 units of `line`: what the UI highlights.
 */
export function matchSpans(line: string, terms: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  if (terms.length === 0) return spans;
  for (const m of line.matchAll(/[\p{L}\p{N}_]+/gu)) {
    // tokenize drops stopwords and single characters: a word it keeps is what can match.
    const [word] = tokenize(m[0]);
    if (word === undefined || word.length !== m[0].length) continue;
    if (terms.some((t) => wordMatches(word, t))) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/**
 * The line of a hit a person is shown: the first line of the file's head that holds a matching
 * word (excerptFor's lines: the body's before the description's), else memory_search's snippet;
 * cut to SNIPPET_MAX_CHARS around its first match, with the matches' spans in the line shown.
 */
export function hitLine(file: ContextFile, terms: readonly string[]): { line: string; matches: Array<[number, number]> } {
  const lines = excerptFor(file, terms).split('\n');
  const described = file.description ? cleanDescription(file.description).split('\n').length : 0;
  const ordered = [...lines.slice(described), ...lines.slice(0, described)];
  let line = ordered.find((l) => matchSpans(l, terms).length > 0) ?? snippetFor(file, terms);
  let spans = matchSpans(line, terms);
  if (line.length > SNIPPET_MAX_CHARS) {
    // Start a little before the first match, so it is in view.
    const start = Math.max(0, Math.min((spans[0]?.[0] ?? 0) - 40, line.length - SNIPPET_MAX_CHARS));
    const cut = line.slice(start, start + SNIPPET_MAX_CHARS);
    const offset = start > 0 ? 1 : 0;
    line = `${start > 0 ? '…' : ''}${cut}${start + SNIPPET_MAX_CHARS < line.length ? '…' : ''}`;
    spans = spans
      .filter(([a, b]) => a >= start && b <= start + SNIPPET_MAX_CHARS)
      .map(([a, b]): [number, number] => [a - start + offset, b - start + offset]);
  }
  return { line, matches: spans };
}
