/**
 * ContextBuilder: what an agent gets without a tool call (design.md, "Context for agents"), for one
 * session: the memory index, the hot set, and the memories relevant to a prompt.
 *
 * The index reads at most INDEX_HEAD_BYTES of each file and caches what it found by (file, mtime,
 * size), so building it again over an unchanged tree costs a listing and no reads. Rendering is
 * pure (src/common/context), so the same state gives the same bytes.
 */
import MiniSearch from 'minisearch';
import { eng as englishStopwords } from 'stopword';
import { extractDescription } from './frontmatter';
import { rankHot } from '../../common/context/ranking';
import { cleanDescription, renderHotSet, renderIndex, renderRelevant, type HotFile, type RelevantFile } from '../../common/context/render';
import { INDEX_HEAD_BYTES, MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, RELEVANT_MAX_FILES, SCOPES, USAGE_HALF_LIFE_MS, type Scope } from '../../common/memory/constants';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import { EMPTY_USAGE, type UsageStats } from '../../common/memory/usage';
import type { ListedEntry } from '../runtime/runtime';
import type { MemorySession, ScopeBinding } from './memory-service';
import { scanContent, type ScanFinding } from './scanners/content-scanner';
import type { UsageStore } from './usage-store';

/** One memory file as the context sees it. */
export interface ContextFile {
  readonly scope: Scope;
  readonly segments: readonly string[];
  /** Virtual path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly description: string | null;
  /** The first INDEX_HEAD_BYTES, decoded leniently (for relevance). */
  readonly head: string;
  readonly stats: UsageStats;
}

export type ScanFlag = Pick<ScanFinding, 'kind' | 'rule' | 'line'>;

export interface ContextSnapshot {
  readonly files: readonly ContextFile[];
  /** Scopes that could not be read, with the reason (shown in the index). */
  readonly unavailable: ReadonlyArray<{ scope: Scope; reason: string }>;
}

interface CachedHead {
  readonly mtimeMs: number;
  readonly size: number;
  readonly description: string | null;
  readonly head: string;
}

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const STOPWORDS = new Set(englishStopwords);
/** Relevance bonus for a file written recently (fades with the usage half-life). */
const RECENCY_BONUS = 0.2;

/** A file of a listing, ready but for its usage stats. */
interface PreparedFile {
  readonly id: string | null;
  readonly file: Omit<ContextFile, 'stats'>;
}

export class ContextBuilder {
  private readonly heads = new Map<string, CachedHead>();
  private readonly flagCache = new Map<string, readonly ScanFlag[]>();
  /** Per scope: the last listing and its prepared files, reused while the listing is the same. */
  private readonly scopes = new Map<string, { listed: readonly ListedEntry[]; files: PreparedFile[] }>();

  private readonly scan: (text: string) => readonly ScanFinding[];

  /**
   * `options.scan` replaces the content scanners; tests pass one that flags nothing to check that
   * rendering alone still holds against hostile content the scanners might miss.
   */
  constructor(
    private readonly usage?: UsageStore,
    options: { scan?: (text: string) => readonly ScanFinding[] } = {},
  ) {
    this.scan = options.scan ?? scanContent;
  }

  /** Every memory file visible to the session, with its description and usage. */
  async snapshot(session: MemorySession): Promise<ContextSnapshot> {
    const usage: ReadonlyMap<string, UsageStats> = this.usage ? await this.usage.read() : new Map();
    const files: ContextFile[] = [];
    const unavailable: Array<{ scope: Scope; reason: string }> = [];
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      if (!b.available) {
        unavailable.push({ scope, reason: b.reason });
        continue;
      }
      try {
        files.push(...(await this.scopeFiles(b, session, usage)));
      } catch {
        unavailable.push({ scope, reason: 'it could not be read right now.' });
      }
    }
    return { files, unavailable };
  }

  private async scopeFiles(b: Extract<ScopeBinding, { available: true }>, session: MemorySession, usage: ReadonlyMap<string, UsageStats>): Promise<ContextFile[]> {
    const listed =
      (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true, reuse: true })) ?? [];
    const scopeKey = `${b.runtime.label}\0${b.scope}\0${b.root.path}`;
    let prepared = this.scopes.get(scopeKey);
    if (!prepared || prepared.listed !== listed) {
      prepared = { listed, files: await this.prepare(b, session, listed) };
      this.scopes.set(scopeKey, prepared);
    }
    // An explicit literal, not a spread: this runs for every file on every build.
    return prepared.files.map(({ id, file: f }) => ({
      scope: f.scope,
      segments: f.segments,
      path: f.path,
      size: f.size,
      mtimeMs: f.mtimeMs,
      description: f.description,
      head: f.head,
      stats: (id !== null && usage.get(id)) || EMPTY_USAGE,
    }));
  }

  /** Files of a listing with their descriptions, reading the heads of new or changed files only. */
  private async prepare(b: Extract<ScopeBinding, { available: true }>, session: MemorySession, listed: readonly ListedEntry[]): Promise<PreparedFile[]> {
    const keyOf = (e: ListedEntry) => `${b.runtime.label}\0${b.root.path}\0${e.rel.join('/')}`;
    const stale = listed.filter((e) => {
      const cached = this.heads.get(keyOf(e));
      return !cached || cached.mtimeMs !== e.mtimeMs || cached.size !== e.size;
    });
    const heads = stale.length > 0 ? await b.runtime.readHeads(b.root, stale.map((e) => e.rel), INDEX_HEAD_BYTES) : [];
    stale.forEach((e, i) => {
      const data = heads[i];
      if (!data) return;
      const head = lenient.decode(data.data);
      this.heads.set(keyOf(e), { mtimeMs: e.mtimeMs, size: e.size, description: describe(head, this.scan), head });
    });
    const out: PreparedFile[] = [];
    for (const entry of listed) {
      const cached = this.heads.get(keyOf(entry));
      if (!cached || cached.mtimeMs !== entry.mtimeMs || cached.size !== entry.size) continue; // unreadable
      out.push({
        id: memoryIdentity(b.scope, session, entry.rel),
        file: {
          scope: b.scope,
          segments: entry.rel,
          path: formatMemoryPath(b.scope, entry.rel),
          size: entry.size,
          mtimeMs: entry.mtimeMs,
          description: cached.description,
          head: cached.head,
        },
      });
    }
    return out;
  }

  /** Drops the cached listings of a session's runtimes (after an edit made outside Cairn). */
  forgetListings(session: MemorySession): void {
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      if (b.available) b.runtime.forget();
    }
  }

  /** The memory index of a snapshot. */
  index(snapshot: ContextSnapshot): string {
    const notes = snapshot.unavailable.map((u) => `(${formatMemoryPath(u.scope)} is unavailable: ${u.reason})`);
    return renderIndex(snapshot.files, notes);
  }

  /** The hot set of a snapshot: pinned, then most used, read whole (files over the cap are skipped). */
  async hotSet(snapshot: ContextSnapshot, session: MemorySession): Promise<string> {
    const hot: HotFile[] = [];
    for (const file of rankHot(snapshot.files)) {
      if (file.size > MAX_FILE_BYTES) continue;
      const b = session.scopes[file.scope];
      if (!b.available) continue;
      try {
        const content = strict.decode((await b.runtime.readFile(b.root, file.segments, MAX_FILE_BYTES)).data);
        // What the scanners flag (written outside Cairn, say by a pull) never reaches an agent unasked.
        if (this.scan(content).length > 0) continue;
        hot.push({ path: file.path, content });
      } catch {
        continue;
      }
    }
    return renderHotSet(hot);
  }

  /** The memories that best match `prompt`, by BM25 over path, description and the file's head. */
  relevant(snapshot: ContextSnapshot, prompt: string, now: number): string {
    const terms = promptTerms(prompt);
    const clean: RelevantFile[] = [];
    for (const file of rankRelevant(snapshot.files, terms, now)) {
      if (clean.length >= RELEVANT_MAX_FILES) break;
      if (this.flags(file).length === 0) clean.push({ path: file.path, excerpt: excerptFor(file, terms) });
    }
    return renderRelevant(clean);
  }

  /**
   * What the scanners flag in a file's head (computed when first asked, then cached with the head):
   * the UI's warning badges, and what keeps a file out of the relevant memories.
   */
  flags(file: ContextFile): readonly ScanFlag[] {
    const key = `${file.path}\0${file.mtimeMs}\0${file.size}`;
    let flags = this.flagCache.get(key);
    if (!flags) {
      flags = this.scan(file.head).map(({ kind, rule, line }) => ({ kind, rule, line }));
      this.flagCache.set(key, flags);
    }
    return flags;
  }
}

/** A file's description for the index, withheld when the scanners flag it. */
function describe(head: string, scan: (text: string) => readonly ScanFinding[]): string | null {
  const description = extractDescription(head);
  if (description === null || scan(description).length === 0) return description;
  return '(description withheld: the content scanners flagged it)';
}

function tokenize(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((t) => t.length > 1 && !STOPWORDS.has(t));
}

/** Files ranked by relevance to `prompt`, with the excerpt to show for each. */
/** The distinct words of a prompt that can match, stopwords removed. */
export function promptTerms(prompt: string): string[] {
  return [...new Set(tokenize(prompt))];
}

interface SearchDoc {
  id: string | number;
  path: string;
  description: string;
  text: string;
}

function newSearch(): MiniSearch<SearchDoc> {
  return new MiniSearch<SearchDoc>({
    fields: ['path', 'description', 'text'],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: { boost: { path: 2, description: 2 }, prefix: (term) => term.length > 3, fuzzy: false, combineWith: 'OR' },
  });
}

function searchDoc(file: ContextFile, id: string | number): SearchDoc {
  return { id, path: file.path.replace(/[/_.-]+/g, ' '), description: file.description ?? '', text: file.head };
}

/** BM25 scores of `search` for `terms`, with the recency bonus, best first (ties by path). */
function rankHits(search: MiniSearch<SearchDoc>, terms: readonly string[], now: number, fileOf: (id: string | number) => ContextFile | undefined): ContextFile[] {
  const scored: { file: ContextFile; score: number }[] = [];
  for (const hit of search.search(terms.join(' '))) {
    const file = fileOf(hit.id as string | number);
    if (!file) continue;
    const written = file.stats.lastWriteAt ? Date.parse(file.stats.lastWriteAt) : file.mtimeMs;
    const age = Math.max(0, now - (Number.isNaN(written) ? file.mtimeMs : written));
    scored.push({ file, score: hit.score * (1 + RECENCY_BONUS * 0.5 ** (age / USAGE_HALF_LIFE_MS)) });
  }
  scored.sort((a, b) => b.score - a.score || (a.file.path < b.file.path ? -1 : 1));
  return scored.map(({ file }) => file);
}

/** Files that match any of `terms`, best first (BM25 with a small recency bonus). */
export function rankRelevant(files: readonly ContextFile[], terms: readonly string[], now: number): ContextFile[] {
  if (terms.length === 0 || files.length === 0) return [];
  const search = newSearch();
  search.addAll(files.map((f, id) => searchDoc(f, id)));
  return rankHits(search, terms, now, (id) => files[id as number]);
}

/**
 * rankRelevant for a long-lived reader (an MCP session's memory_search): the same ranking, but the
 * search index is kept between calls and only files whose path, description or head changed are
 * re-indexed, so a search over an unchanged or slightly changed tree does not tokenize every file
 * again. Documents are keyed by virtual path; removed exactly (MiniSearch.remove), so the BM25
 * statistics are those of a fresh index over the same files.
 */
export class RelevanceIndex {
  private readonly search = newSearch();
  private readonly docs = new Map<string, SearchDoc>();

  rank(files: readonly ContextFile[], terms: readonly string[], now: number): ContextFile[] {
    const current = this.update(files);
    if (terms.length === 0 || files.length === 0) return [];
    return rankHits(this.search, terms, now, (id) => current.get(id as string));
  }

  /** Brings the index to exactly `files` (re-indexing what changed); returns them by virtual path. */
  update(files: readonly ContextFile[]): Map<string, ContextFile> {
    const current = new Map<string, ContextFile>();
    for (const file of files) {
      current.set(file.path, file);
      const known = this.docs.get(file.path);
      // The builder hands out its cached head string for an unchanged file: usually the same object.
      if (known && known.text === file.head && known.description === (file.description ?? '')) continue;
      if (known) this.search.remove(known);
      const doc = searchDoc(file, file.path);
      this.search.add(doc);
      this.docs.set(file.path, doc);
    }
    for (const [p, doc] of this.docs) {
      if (current.has(p)) continue;
      this.search.remove(doc);
      this.docs.delete(p);
    }
    return current;
  }
}

/** The lines of a file's head that mention the prompt's terms (a few), else its description or start. */
export function excerptFor(file: ContextFile, terms: readonly string[]): string {
  const lines = bodyLines(file);
  const matching = matchingLines(lines, terms, 4);
  const text = (matching.length > 0 ? matching : lines.slice(0, 3)).join('\n');
  return file.description ? `${cleanDescription(file.description)}\n${text}` : text;
}

/** The first line of excerptFor (a search hit's snippet), without finding the lines after it. */
export function snippetFor(file: ContextFile, terms: readonly string[]): string {
  if (file.description) {
    const first = cleanDescription(file.description).split('\n').find((l) => l.trim() !== '');
    if (first !== undefined) return first;
  }
  const lines = bodyLines(file);
  return matchingLines(lines, terms, 1)[0] ?? lines[0] ?? '';
}

function bodyLines(file: ContextFile): string[] {
  const body = file.head.replace(/^\ufeff?---[\s\S]*?\n---[ \t]*\n/, '');
  return body.split('\n').filter((l) => l.trim() !== '');
}

/** The first `max` lines with a word that matches a term; a line that does not contain a term at
 * all cannot match (a word is a piece of the lowercased line), so it is not tokenized. */
function matchingLines(lines: readonly string[], terms: readonly string[], max: number): string[] {
  const matching: string[] = [];
  for (const l of lines) {
    if (matching.length >= max) break;
    const lower = l.toLowerCase();
    if (!terms.some((t) => lower.includes(t))) continue;
    const words = tokenize(l);
    if (terms.some((t) => words.some((w) => w === t || (t.length > 3 && w.startsWith(t))))) matching.push(l);
  }
  return matching;
}
