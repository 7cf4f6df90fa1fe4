/**
 * ContextBuilder: what an agent gets without a tool call (design.md, "Context for agents"), for one
 * session: the memory index, the hot set, and the memories relevant to a prompt.
 *
 * The index reads at most INDEX_HEAD_BYTES of each file and caches what it found by (file, mtime,
 * size), so building it again over an unchanged tree costs a listing and no reads. Rendering is
 * pure (src/common/context), so the same state gives the same bytes.
 */
import { extractDescription } from './frontmatter';
import { rankHot } from '../../common/context/ranking';
import { cleanDescription, renderHotSet, renderIndex, renderRelevant, type HotFile, type RelevantFile } from '../../common/context/render';
import { INDEX_HEAD_BYTES, MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, RELEVANT_MAX_FILES, SCOPES, type Scope } from '../../common/memory/constants';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import { EMPTY_USAGE, type UsageStats } from '../../common/memory/usage';
import type { ListedEntry } from '../runtime/runtime';
import type { MemorySession, ScopeBinding } from './memory-service';
import { promptTerms, rankRelevant, tokenize, wordMatches } from './relevance-index';
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
  /** The file as last prepared, and for whom (its identity depends on the session's owners). */
  prepared?: { readonly owners: string; readonly file: PreparedFile };
}

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
    const rootKey = `${b.runtime.label}\0${b.root.path}\0`;
    const keys = listed.map((e) => rootKey + e.rel.join('/'));
    const stale: number[] = [];
    listed.forEach((e, i) => {
      const cached = this.heads.get(keys[i]!);
      if (!cached || cached.mtimeMs !== e.mtimeMs || cached.size !== e.size) stale.push(i);
    });
    const heads =
      stale.length > 0
        ? await b.runtime.readHeads(
            b.root,
            stale.map((i) => listed[i]!.rel),
            INDEX_HEAD_BYTES,
            stale.map((i) => listed[i]!),
          )
        : [];
    stale.forEach((i, n) => {
      const data = heads[n];
      if (!data) return;
      const head = lenient.decode(data.data);
      this.heads.set(keys[i]!, { mtimeMs: listed[i]!.mtimeMs, size: listed[i]!.size, description: describe(head, this.scan), head });
    });
    const owners = `${b.scope}\0${session.projectId}\0${session.workspaceId}`;
    const out: PreparedFile[] = [];
    for (const [i, entry] of listed.entries()) {
      const cached = this.heads.get(keys[i]!);
      if (!cached || cached.mtimeMs !== entry.mtimeMs || cached.size !== entry.size) continue; // unreadable
      // A file the listing before had too, unchanged: prepared as it was.
      if (cached.prepared?.owners === owners) {
        out.push(cached.prepared.file);
        continue;
      }
      const file: PreparedFile = {
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
      };
      cached.prepared = { owners, file };
      out.push(file);
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
    const key = fileVersionKey(file);
    let flags = this.flagCache.get(key);
    if (!flags) {
      flags = this.scan(file.head).map(({ kind, rule, line }) => ({ kind, rule, line }));
      this.flagCache.set(key, flags);
    }
    return flags;
  }
}

/** One version of a file, for what is cached per version (by path, mtime and size, as the heads are). */
export function fileVersionKey(file: Pick<ContextFile, 'path' | 'mtimeMs' | 'size'>): string {
  return `${file.path}\0${file.mtimeMs}\0${file.size}`;
}

/** A file's description for the index, withheld when the scanners flag it. */
function describe(head: string, scan: (text: string) => readonly ScanFinding[]): string | null {
  const description = extractDescription(head);
  if (description === null || scan(description).length === 0) return description;
  return '(description withheld: the content scanners flagged it)';
}

/** The lines of a file's head that mention the prompt's terms (a few), else its description or start. */
export function excerptFor(file: ContextFile, terms: readonly string[]): string {
  const lines = bodyLines(file);
  const matching = matchingLines(lines, terms, 4);
  const text = (matching.length > 0 ? matching : lines.slice(0, 3)).join('\n');
  return file.description ? `${cleanDescription(file.description)}\n${text}` : text;
}

/** The first line of excerptFor (a search hit's snippet), reading the head only as far as it. */
export function snippetFor(file: ContextFile, terms: readonly string[]): string {
  if (file.description) {
    const first = cleanDescription(file.description).split('\n').find((l) => l.trim() !== '');
    if (first !== undefined) return first;
  }
  let first: string | undefined;
  let match: string | undefined;
  visitBodyLines(file, (line) => {
    first ??= line;
    if (lineMatches(line, terms)) match = line;
    return match !== undefined;
  });
  return match ?? first ?? '';
}

function bodyLines(file: ContextFile): string[] {
  const lines: string[] = [];
  visitBodyLines(file, (line) => void lines.push(line));
  return lines;
}

/** Each non-blank line of a file's head after its frontmatter, in order, until `visit` returns true. */
function visitBodyLines(file: ContextFile, visit: (line: string) => boolean | void): void {
  const head = file.head;
  let start = /^\ufeff?---[\s\S]*?\n---[ \t]*\n/.exec(head)?.[0].length ?? 0;
  while (start <= head.length) {
    const newline = head.indexOf('\n', start);
    const end = newline === -1 ? head.length : newline;
    const line = head.slice(start, end);
    if (line.trim() !== '' && visit(line) === true) return;
    start = end + 1;
  }
}

/** The first `max` lines with a word that matches a term. */
function matchingLines(lines: readonly string[], terms: readonly string[], max: number): string[] {
  const matching: string[] = [];
  for (const l of lines) {
    if (matching.length >= max) break;
    if (lineMatches(l, terms)) matching.push(l);
  }
  return matching;
}

/** Whether a word of `line` matches a term; a line that does not contain a term at all cannot
 * (a word is a piece of the lowercased line), so it is not tokenized. */
function lineMatches(line: string, terms: readonly string[]): boolean {
  const lower = line.toLowerCase();
  if (!terms.some((t) => lower.includes(t))) return false;
  const words = tokenize(line);
  return terms.some((t) => words.some((w) => wordMatches(w, t)));
}
