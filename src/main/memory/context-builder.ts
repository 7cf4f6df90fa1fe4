/**
 * ContextBuilder: what an agent gets without a tool call (design.md, "Context for agents"), for one
 * session: the memory index, the hot set, and the memories relevant to a prompt.
 *
 * Each snapshot lists the scopes afresh (one past the file cap, to know whether a scope holds
 * more). The index reads at most INDEX_HEAD_BYTES of each file and keeps what it found under the
 * file's version (ListedEntry.version: device, inode, size, mtime, ctime), so building it again
 * over an unchanged tree costs the listings and no reads; a file whose version is null (changed
 * too recently to tell a later change apart) is read every time and never kept. Pinned files count
 * whatever the cap cuts: a capped scope's pinned files past the cut are looked up one by one.
 * Rendering is pure (src/common/context), so the same state gives the same bytes.
 *
 * What the scanners flag (written outside Cairn, say by a pull) never reaches an agent unasked: a
 * file whose head is flagged has its description withheld from the index and stays out of the
 * relevant memories (and memory_search), a file flagged anywhere stays out of the hot set, and a
 * file whose path has a flagged name (scanPath) is left out of all three, its name being the
 * injection: the index only counts it. The scanners judge the text as agents would be shown it
 * (render.ts: shownText, descriptionText). The index asks for a head's verdict only for the files
 * it shows (it stops at INDEX_MAX_BYTES), and the verdict is kept like the head.
 */
import { extractDescription } from './frontmatter';
import { rankHot } from '../../common/context/ranking';
import { cleanDescription, descriptionText, renderHotSet, renderIndex, renderRelevant, shownText, type HotFile, type IndexEntry, type RelevantFile } from '../../common/context/render';
import { INDEX_HEAD_BYTES, MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, RELEVANT_MAX_FILES, SCOPES, type Scope } from '../../common/memory/constants';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath, isListedName } from '../../common/memory/paths';
import { withheldNames } from '../../common/memory/texts';
import { EMPTY_USAGE, type UsageStats } from '../../common/memory/usage';
import { RuntimeError, type ListedEntry } from '../runtime/runtime';
import type { ContextFile } from './context-file';
import { promptTerms, rankRelevant, tokenize, wordMatches } from './relevance-index';
import { scanContent, scanPath, type ScanFinding } from './scanners/content-scanner';
import type { AvailableScope, MemorySession } from './session';
import type { UsageStore } from './usage-store';

export type { ContextFile } from './context-file';

/** A scanner finding on a file: `line` 0 means the file's path (a name the scanners flag). */
export type ScanFlag = Pick<ScanFinding, 'kind' | 'rule' | 'line'>;

export interface ContextSnapshot {
  readonly files: readonly ContextFile[];
  /** Scopes that could not be read, with the reason (shown in the index). */
  readonly unavailable: ReadonlyArray<{ scope: Scope; reason: string }>;
  /**
   * Scopes holding more than MAX_FILES_PER_SCOPE files: their files are the first
   * MAX_FILES_PER_SCOPE listed, and their pinned files past those.
   */
  readonly capped: readonly Scope[];
}

/** What the index read of one version of a file. */
interface Head {
  readonly description: string | null;
  readonly head: string;
}

/** A head with the version it was read at (null: not kept, read again next time). */
interface KeptHead extends Head {
  readonly version: string | null;
}

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How many files' scanner verdicts are kept (then they are computed again as asked). */
const FLAGS_KEPT = 10_000;

export class ContextBuilder {
  /**
   * Per scope root: the heads of the files its last listing held, by relative path, each with the
   * version it was read at. Replaced by every snapshot, so files gone from the root are forgotten.
   */
  private readonly heads = new Map<string, Map<string, KeptHead>>();
  /** The scanners' verdict on each file's head, with the head it was given for. */
  private readonly flagCache = new Map<string, { readonly head: string; readonly flags: readonly ScanFlag[] }>();
  /** The scanners' verdict on each path's names (a path's names never change). */
  private readonly nameFlagCache = new Map<string, readonly ScanFlag[]>();

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
    const capped: Scope[] = [];
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      if (!b.available) {
        unavailable.push({ scope, reason: b.reason });
        continue;
      }
      try {
        const found = await this.scopeFiles(b, session, usage);
        files.push(...found.files);
        if (found.capped) capped.push(scope);
      } catch (err) {
        const detail = err instanceof RuntimeError ? err.detail : undefined;
        unavailable.push({ scope, reason: detail ?? 'it could not be read right now.' });
      }
    }
    return { files, unavailable, capped };
  }

  private async scopeFiles(b: AvailableScope, session: MemorySession, usage: ReadonlyMap<string, UsageStats>): Promise<{ files: ContextFile[]; capped: boolean }> {
    // One past the cap, to tell a scope at the cap from one holding more.
    const listed = (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE + 1, filesOnly: true })) ?? [];
    const capped = listed.length > MAX_FILES_PER_SCOPE;
    const first = capped ? listed.slice(0, MAX_FILES_PER_SCOPE) : listed;
    const entries = capped ? [...first, ...(await pinnedPastCut(b, session, usage, first))] : first;
    const heads = await this.readHeads(b, entries);
    const files: ContextFile[] = [];
    entries.forEach((entry, i) => {
      const head = heads[i];
      if (!head) return; // unreadable
      const id = memoryIdentity(b.scope, session, entry.rel);
      files.push({
        scope: b.scope,
        segments: entry.rel,
        path: formatMemoryPath(b.scope, entry.rel),
        size: entry.size,
        mtimeMs: entry.mtimeMs,
        version: entry.version ?? null,
        description: head.description,
        head: head.head,
        stats: (id !== null && usage.get(id)) || EMPTY_USAGE,
      });
    });
    return { files, capped };
  }

  /** The heads of listed files: kept ones where the version is the same, read from disk otherwise. */
  private async readHeads(b: AvailableScope, entries: readonly ListedEntry[]): Promise<Array<Head | null>> {
    const rootKey = `${b.runtime.label}\0${b.root.path}`;
    const before = this.heads.get(rootKey);
    const after = new Map<string, KeptHead>();
    const rels = entries.map((e) => e.rel.join('/'));
    const stale: number[] = [];
    const heads: Array<Head | null> = entries.map((e, i) => {
      const kept = e.version === null ? undefined : before?.get(rels[i]!);
      if (kept !== undefined && kept.version === e.version) {
        after.set(rels[i]!, kept);
        return kept;
      }
      stale.push(i);
      return null;
    });
    const read = stale.length > 0 ? await b.runtime.readHeads(b.root, stale.map((i) => entries[i]!.rel), INDEX_HEAD_BYTES) : [];
    stale.forEach((i, n) => {
      const data = read[n];
      if (!data) return;
      const head = lenient.decode(data.data);
      const version = entries[i]!.version;
      const fresh: KeptHead = { description: describe(head, this.scan), head, version };
      heads[i] = fresh;
      if (version !== null) after.set(rels[i]!, fresh);
    });
    this.heads.set(rootKey, after);
    return heads;
  }

  /**
   * The memory index of a snapshot: files whose paths have flagged names are only counted, and a
   * file whose head the scanners flag is listed with its description withheld.
   */
  index(snapshot: ContextSnapshot): string {
    const entries: IndexEntry[] = [];
    const flagged = (file: ContextFile): boolean => this.headFlags(file.path, file.head).length > 0;
    for (const file of snapshot.files) if (this.nameFlags(file).length === 0) entries.push(new IndexLine(file, flagged));
    const withheld = snapshot.files.length - entries.length;
    const notes = snapshot.unavailable.map((u) => `(${formatMemoryPath(u.scope)} is unavailable: ${u.reason})`);
    if (withheld > 0) notes.push(withheldNames(withheld, 'file'));
    return renderIndex(entries, notes, snapshot.capped.map((scope) => formatMemoryPath(scope)));
  }

  /** The hot set of a snapshot: pinned, then most used, read whole (files over the cap are skipped). */
  async hotSet(snapshot: ContextSnapshot, session: MemorySession): Promise<string> {
    const hot: HotFile[] = [];
    for (const file of rankHot(snapshot.files)) {
      if (file.size > MAX_FILE_BYTES || this.nameFlags(file).length > 0) continue;
      const b = session.scopes[file.scope];
      if (!b.available) continue;
      try {
        const content = strict.decode((await b.runtime.readFile(b.root, file.segments, MAX_FILE_BYTES)).data);
        // What the scanners flag (written outside Cairn, say by a pull) never reaches an agent unasked.
        if (this.scan(shownText(content)).length > 0) continue;
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
   * What the scanners flag in a file's path (line 0) and head (computed when first asked, then
   * kept): the UI's warning badges, and what keeps a file out of the relevant memories and search.
   */
  flags(file: ContextFile): readonly ScanFlag[] {
    const names = this.nameFlags(file);
    const head = this.headFlags(file.path, file.head);
    return names.length === 0 ? head : head.length === 0 ? names : [...names, ...head];
  }

  /** What the scanners flag in a path's names (scanPath), as flags on line 0. */
  private nameFlags(file: ContextFile): readonly ScanFlag[] {
    const kept = this.nameFlagCache.get(file.path);
    if (kept) return kept;
    const flags = scanPath(file.segments).map(({ kind, rule }): ScanFlag => ({ kind, rule, line: 0 }));
    if (this.nameFlagCache.size >= FLAGS_KEPT) this.nameFlagCache.clear();
    this.nameFlagCache.set(file.path, flags);
    return flags;
  }

  /** What the scanners flag in a file's head, as agents would be shown it. */
  private headFlags(path: string, head: string): readonly ScanFlag[] {
    // Kept by the head's text itself (the verdict depends on nothing else): sound for a file whose
    // version is not known yet, which is read again every time until it settles.
    const kept = this.flagCache.get(path);
    if (kept && kept.head === head) return kept.flags;
    const flags = this.scan(shownText(head)).map(({ kind, rule, line }) => ({ kind, rule, line }));
    if (this.flagCache.size >= FLAGS_KEPT) this.flagCache.clear();
    this.flagCache.set(path, { head, flags });
    return flags;
  }
}

/**
 * A file's line in the index. renderIndex reads the description only of the lines it shows (it
 * stops at INDEX_MAX_BYTES), so the head's verdict is asked for those alone.
 */
class IndexLine implements IndexEntry {
  constructor(
    private readonly file: ContextFile,
    private readonly flagged: (file: ContextFile) => boolean,
  ) {}

  get path(): string {
    return this.file.path;
  }

  get description(): string | null {
    const { description } = this.file;
    return description === null || !this.flagged(this.file) ? description : DESCRIPTION_WITHHELD;
  }
}

/**
 * The pinned files of a capped scope that its listing cut off, as listed entries (version null:
 * not listed, so nothing of them is cached), in the listing's order. Pins are identities
 * (src/common/memory/identity.ts); one that names no listable file (gone, a directory, an unsafe
 * name, outside the root) is skipped.
 */
async function pinnedPastCut(b: AvailableScope, session: MemorySession, usage: ReadonlyMap<string, UsageStats>, listed: readonly ListedEntry[]): Promise<ListedEntry[]> {
  const prefix = memoryIdentity(b.scope, session, []);
  if (prefix === null) return [];
  const known = new Set(listed.map((e) => e.rel.join('/')));
  const rels: string[][] = [];
  for (const [id, stats] of usage) {
    if (!stats.pinned || !id.startsWith(prefix)) continue;
    const rel = id.slice(prefix.length).split('/').map(unescapeIdentityComponent);
    if (rel.every(isListedName) && !known.has(rel.join('/'))) rels.push(rel);
  }
  const found = await Promise.all(
    rels.map(async (rel): Promise<ListedEntry | null> => {
      const st = await b.runtime.stat(b.root, rel, true).catch(() => null);
      return st?.type === 'file' ? { rel, type: 'file', size: st.size, mtimeMs: st.mtimeMs, version: null } : null;
    }),
  );
  return found.filter((e): e is ListedEntry => e !== null).sort((x, y) => compareRels(x.rel, y.rel));
}

/** Undoes memoryIdentity's escaping of one path component (`%25` is `%`, `%3A` is `:`). */
function unescapeIdentityComponent(text: string): string {
  return text.replace(/%25|%3A/g, (m) => (m === '%25' ? '%' : ':'));
}

/** The order of a depth-first listing sorted by name at each level. */
function compareRels(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

export const DESCRIPTION_WITHHELD = '(description withheld: the content scanners flagged this file)';

/**
 * A file's description, withheld when the scanners flag it as written or as the index shows it
 * (one line, controls and invisible characters as spaces: `previous\0instructions` is shown as
 * `previous instructions`, which the scanners flag though they pass the raw value). The index also
 * withholds the description of a file whose head is flagged (ContextBuilder.index).
 */
function describe(head: string, scan: (text: string) => readonly ScanFinding[]): string | null {
  const description = extractDescription(head);
  if (description === null) return null;
  const shown = descriptionText(description);
  if (scan(description).length === 0 && (shown === description || scan(shown).length === 0)) return description;
  return DESCRIPTION_WITHHELD;
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
