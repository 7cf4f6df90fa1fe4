/**
 * ContextBuilder: what an agent gets without a tool call (design.md, "Context for agents"), for one
 * session: the memory index, the hot set, and the memories relevant to a prompt.
 *
 * Each snapshot lists the scopes afresh (one past the file cap, to know whether a scope holds
 * more). Of each file it reads at most INDEX_HEAD_BYTES and learns its facts (FileFacts: the
 * description, the scanners' verdicts on its names and head, its words for ranking), kept under the
 * file's version (ListedEntry.version: device, inode, size, mtime, ctime) in this process and, with
 * a facts cache (./context-facts-cache.ts), for every process of the home: building again over an
 * unchanged tree costs the listings and no reads, after one change one read. A file whose version
 * is null (changed too recently to tell a later change apart) is read every time and never kept.
 * The facts are the same whether computed now or kept, so the output is too. A caller that knows
 * when a local root changes (the change feed's watcher: `listingStamp`) lets a snapshot reuse the
 * root's last listing while the stamp it was made under still holds; a listing holding a file too
 * recently changed to have a version is never kept. Pinned files count
 * whatever the cap cuts: a capped scope's pinned files past the cut are looked up one by one.
 * Rendering is pure (src/common/context), so the same state gives the same bytes.
 *
 * What the scanners flag (written outside Cairn, say by a pull) never reaches an agent unasked: a
 * file whose head is flagged has its description withheld from the index and stays out of the
 * relevant memories (and memory_search), a file flagged anywhere stays out of the hot set, and a
 * file whose path has a flagged name (scanPath) is left out of all three, its name being the
 * injection: the index only counts it. A file held in the Inbox (memory a pull brought, waiting
 * for a person: the `held` option) is in none of the three until approved. The scanners judge the text as written and as a model
 * reads it (controls and hidden characters removed, smuggled text decoded: content-scanner.ts),
 * which covers what agents are shown (render.ts: shownText, descriptionText). Each file's verdicts
 * are part of its facts, so a kept file is not scanned again.
 *
 * The injection settings (common/context/injection.ts) are the callers' to resolve and
 * pass: the hot set's budget, and what a prompt gets (its best matches, the most recent files, or
 * nothing; the most recent when nothing matches). Their defaults are the constants, so a caller
 * that passes none gives the bytes it always did. Recent files are the clean ones only, as matches.
 */
import { frontmatterBlock } from '../../common/memory/frontmatter-block';
import { extractDescription } from '../memory/frontmatter';
import { DEFAULT_INJECTION, type InjectionSettings } from '../../common/context/injection';
import { rankHot, rankRecent } from '../../common/context/ranking';
import {
  NO_MATCH_HEADER,
  RECENT_HEADER,
  cleanDescription,
  descriptionText,
  renderHotSet,
  renderIndex,
  renderRelevant,
  type HotFile,
  type IndexEntry,
  type RelevantFile,
} from '../../common/context/render';
import { HOT_TOTAL_BYTES, INDEX_HEAD_BYTES, MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, SCOPES, type Scope } from '../../common/memory/constants';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath, isListedName } from '../../common/memory/paths';
import { withheldNames } from '../../common/memory/texts';
import { EMPTY_USAGE, type UsageStats } from '../../common/memory/usage';
import { RuntimeError, type ListedEntry } from '../runtime/runtime';
import type { ContextFactsCache, FileFacts } from './context-facts-cache';
import type { ContextFile } from './context-file';
import { confidentMatches, promptTerms, scoreByWords, tokenize, wordMatches, wordsOf, type FieldWords, type ScoredFile, type WordsOfFile } from './relevance-index';
import type { ScanFinding } from '../memory/scanners/content-scanner';
import type { AvailableScope, MemorySession } from '../memory/session';
import type { UsageStore } from '../memory/usage-store';

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
  /**
   * Folders below a scope's root that could not be read (their mode, another user's), as virtual
   * paths: what they hold is unknown, so they are named rather than taken for empty.
   */
  readonly unreadable: ReadonlyArray<{ scope: Scope; path: string }>;
  /**
   * Virtual paths of files held in the Inbox (memory a pull brought, waiting for a person): listed
   * for the person, but in no index, hot set or relevant memories until approved.
   */
  readonly held?: ReadonlySet<string>;
}

type ContentScanners = typeof import('../memory/scanners/content-scanner');

/**
 * The content scanners, loaded when a builder first has a file to judge (one to learn, a hot set
 * to read): a prompt whose files' verdicts all come from the facts cache judges none, and their
 * rules are about a quarter of the code the prompt hook would load.
 */
let loadedScanners: ContentScanners | undefined;

async function loadScanners(): Promise<ContentScanners> {
  return (loadedScanners ??= await import('../memory/scanners/content-scanner'));
}

/** The scanners, which whatever judges a file has loaded (loadScanners) before it gets here. */
function scanners(): ContentScanners {
  if (!loadedScanners) throw new Error('the content scanners were used before they were loaded');
  return loadedScanners;
}

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How many verdicts on files without facts (made elsewhere) are kept, then computed again as asked. */
const FLAGS_KEPT = 10_000;
/**
 * How many scope roots' facts and listings a builder keeps, the most recently built for: a
 * long-lived host's builder serves every workspace opened since it started (and each one removed
 * since), and a root it has not built for in a while is read again (or from the facts cache) when
 * it does.
 */
const ROOTS_KEPT = 24;

/** Sets `key` in `map` as its newest entry, dropping the oldest past ROOTS_KEPT. */
function keepRecent<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= ROOTS_KEPT) break;
    map.delete(oldest);
  }
}

export interface ContextBuilderOptions {
  /**
   * Replaces the content scanners; tests pass one that flags nothing to check that rendering alone
   * still holds against hostile content the scanners might miss.
   */
  readonly scan?: (text: string) => readonly ScanFinding[];
  /** Keeps the facts between processes (the home's cache); without it, in this process only. */
  readonly factsCache?: ContextFactsCache;
  /**
   * Starts from the facts cache but never writes it: for a long-lived host whose snapshots follow
   * every change (saving a root's cache is a whole-file write), while the processes that need it
   * between calls (the prompt hook, `cairn mcp`, the hook's host) keep it up to date.
   */
  readonly readOnlyCache?: boolean;
  /** Told when the facts cache could not be written (the next process then reads the files). */
  readonly onCacheError?: (err: Error) => void;
  /** The files of `session` held in the Inbox (memory/held-outside-edits.ts heldPaths); none without it. */
  readonly held?: (session: MemorySession) => ReadonlySet<string>;
}

const NONE_HELD: ReadonlySet<string> = new Set();

export interface SnapshotOptions {
  /**
   * For a local root (its host path): a value that stays the same exactly while nothing under the
   * root changes, or null when that is not known (ChangeSource.listingStamp).
   */
  readonly listingStamp?: (root: string) => string | null;
}

type ScopeListing = ReadonlyArray<ListedEntry>;

export class ContextBuilder {
  /**
   * Per scope root: the facts of the files its last listing held, by relative path, each under the
   * version it was learnt at. Replaced by every snapshot, so files gone from the root are forgotten;
   * only the ROOTS_KEPT roots most recently built for are kept.
   */
  private readonly facts = new Map<string, Map<string, FileFacts>>();
  /** Verdicts on files without facts: by path, with the head they were given for. */
  private readonly flagCache = new Map<string, { readonly head: string; readonly flags: readonly ScanFlag[] }>();
  private readonly nameFlagCache = new Map<string, readonly ScanFlag[]>();
  /** Per local scope root: its last listing, and the stamp it was made under (SnapshotOptions). */
  private readonly listings = new Map<string, { readonly stamp: string; readonly all: ScopeListing }>();

  private readonly cache: ContextFactsCache | undefined;

  constructor(
    private readonly usage?: UsageStore,
    private readonly options: ContextBuilderOptions = {},
  ) {
    // Facts judged by another scanner must not mix with the real ones.
    this.cache = options.scan ? undefined : options.factsCache;
  }

  /** Every memory file visible to the session, with its description and usage. */
  async snapshot(session: MemorySession, options: SnapshotOptions = {}): Promise<ContextSnapshot> {
    const usage: ReadonlyMap<string, UsageStats> = this.usage ? await this.usage.read() : new Map();
    const files: ContextFile[] = [];
    const unavailable: Array<{ scope: Scope; reason: string }> = [];
    const capped: Scope[] = [];
    const unreadable: Array<{ scope: Scope; path: string }> = [];
    const saves: Array<Promise<void>> = [];
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      if (!b.available) {
        unavailable.push({ scope, reason: b.reason });
        continue;
      }
      try {
        const found = await this.scopeFiles(b, session, usage, saves, options);
        files.push(...found.files);
        if (found.capped) capped.push(scope);
        for (const rel of found.unreadable) unreadable.push({ scope, path: formatMemoryPath(scope, rel) });
      } catch (err) {
        const detail = err instanceof RuntimeError ? err.detail : undefined;
        unavailable.push({ scope, reason: detail ?? 'it could not be read right now.' });
      }
    }
    await Promise.all(saves);
    return { files, unavailable, capped, unreadable, held: this.options.held?.(session) ?? NONE_HELD };
  }

  private async scopeFiles(
    b: AvailableScope,
    session: MemorySession,
    usage: ReadonlyMap<string, UsageStats>,
    saves: Array<Promise<void>>,
    options: SnapshotOptions,
  ): Promise<{ files: ContextFile[]; capped: boolean; unreadable: ReadonlyArray<readonly string[]> }> {
    const all = await this.listScope(b, options);
    const listed = all.filter((e) => e.type === 'file');
    const unreadable = all.filter((e) => e.type === 'directory').map((e) => e.rel);
    const capped = all.length > MAX_FILES_PER_SCOPE;
    const first = capped ? listed.slice(0, MAX_FILES_PER_SCOPE) : listed;
    const entries = capped ? [...first, ...(await pinnedPastCut(b, session, usage, first))] : first;
    const facts = await this.readFacts(b, entries, saves);
    const stats = usageByRel(b, session, usage);
    const files: ContextFile[] = [];
    entries.forEach((entry, i) => {
      const fact = facts[i];
      if (!fact) return; // unreadable
      files.push(new SnapshotFile(this, b.scope, entry, fact, (stats.size > 0 && stats.get(entry.rel.join('/'))) || EMPTY_USAGE));
    });
    return { files, capped, unreadable };
  }

  /**
   * A scope's files, one past the cap (to tell a scope at the cap from one holding more), with the
   * folders that could not be read (to be named): the root's last listing while its stamp holds,
   * else read now. The stamp is taken before the disk is read, so a change during the listing
   * leaves it kept under a stamp already gone by.
   */
  private async listScope(b: AvailableScope, options: SnapshotOptions): Promise<ScopeListing> {
    const stamp = b.runtime.label === 'local' ? (options.listingStamp?.(b.root.path) ?? null) : null;
    const key = `${b.runtime.label}\0${b.root.path}`;
    const kept = this.listings.get(key);
    if (stamp !== null && kept?.stamp === stamp) return kept.all;
    const all = (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE + 1, filesOnly: true, withUnreadable: true })) ?? [];
    if (stamp !== null && all.every((e) => e.type !== 'file' || e.version !== null)) keepRecent(this.listings, key, { stamp, all });
    else this.listings.delete(key);
    return all;
  }

  /**
   * The facts of listed files: kept ones where the version is the same (this process's, else the
   * facts cache's), learnt from their heads otherwise. The cache is written again when what it
   * should hold changed (a file learnt, changed or gone).
   */
  private async readFacts(b: AvailableScope, entries: readonly ListedEntry[], saves: Array<Promise<void>>): Promise<Array<FileFacts | null>> {
    const rootKey = `${b.runtime.label}\0${b.root.path}`;
    let before = this.facts.get(rootKey);
    if (before === undefined && this.cache) before = this.cache.load(b.runtime.label, b.root.path);
    const rels = entries.map((e) => e.rel.join('/'));
    const stale: number[] = [];
    let kept = 0;
    const facts: Array<FileFacts | null> = entries.map((e, i) => {
      const fact = e.version === null ? undefined : before?.get(rels[i]!);
      if (fact !== undefined && fact.version === e.version) {
        kept++;
        return fact;
      }
      stale.push(i);
      return null;
    });
    if (stale.length > 0) await loadScanners();
    const read = stale.length > 0 ? await b.runtime.readHeads(b.root, stale.map((i) => entries[i]!.rel), INDEX_HEAD_BYTES) : [];
    let learnt = false;
    stale.forEach((i, n) => {
      const data = read[n];
      if (!data) return;
      const fact = this.learn(b.scope, entries[i]!, data.data);
      facts[i] = fact;
      if (fact.version !== '') learnt = true;
    });
    // What is kept now: every fact with a version, in listing order; the same as before when
    // nothing was learnt and every fact kept was used (a prompt over an unchanged tree).
    const same = !learnt && before !== undefined && kept === before.size;
    const after = same && before ? before : new Map<string, FileFacts>();
    if (!same) {
      facts.forEach((fact, i) => {
        if (fact && fact.version !== '') after.set(rels[i]!, fact);
      });
    }
    keepRecent(this.facts, rootKey, after);
    if (this.cache && !this.options.readOnlyCache && !same && (learnt || after.size !== (before?.size ?? 0))) {
      const cache = this.cache;
      saves.push(
        cache.save(b.runtime.label, b.root.path, after).then((err) => {
          if (err) this.options.onCacheError?.(err);
        }),
      );
    }
    return facts;
  }

  /**
   * What one version of a file tells the context (version '' when it is not to be kept). The head's
   * verdict and words are worked out when first asked: by the index for the lines it shows, by a
   * ranking, or by the facts cache when it saves them (so a builder without one, the app's, pays
   * for them only as it needs them, as before the cache).
   */
  private learn(scope: Scope, entry: ListedEntry, data: Uint8Array): FileFacts {
    const text = lenient.decode(data);
    const path = formatMemoryPath(scope, entry.rel);
    const description = describe(text, (head) => this.scan(head));
    const scanHead = (head: string) => this.scanHead(head);
    let headFlags: readonly ScanFlag[] | undefined;
    let words: FieldWords | undefined;
    return {
      version: entry.version ?? '',
      description,
      nameFlags: this.scanNames(entry.rel),
      get headFlags() {
        return (headFlags ??= scanHead(text));
      },
      get words() {
        return (words ??= wordsOf({ path, description, head: text }));
      },
      head: () => data,
    };
  }

  /**
   * The memory index of a snapshot: files whose paths have flagged names are only counted, and a
   * file whose head the scanners flag is listed with its description withheld.
   */
  index(snapshot: ContextSnapshot): string {
    const entries: IndexEntry[] = [];
    const flagged = (file: ContextFile): boolean => this.headFlags(file).length > 0;
    const held = snapshot.held ?? NONE_HELD;
    let named = 0;
    for (const file of snapshot.files) {
      if (this.nameFlags(file).length > 0) named++;
      else if (!held.has(file.path)) entries.push(new IndexLine(file, flagged));
    }
    const withheld = named;
    const notes = snapshot.unavailable.map((u) => `(${formatMemoryPath(u.scope)} is unavailable: ${u.reason})`);
    for (const u of snapshot.unreadable) notes.push(`(${u.path}/ cannot be read: its files are not listed)`);
    if (withheld > 0) notes.push(withheldNames(withheld, 'file'));
    return renderIndex(entries, notes, snapshot.capped.map((scope) => formatMemoryPath(scope)));
  }

  /**
   * The hot set of a snapshot: pinned, then most used, read whole (files over the cap are skipped),
   * within `maxBytes` (the injection settings' hotSetMaxBytes; 0: no hot set, nothing is read).
   */
  async hotSet(snapshot: ContextSnapshot, session: MemorySession, maxBytes: number = HOT_TOTAL_BYTES): Promise<string> {
    if (maxBytes <= 0) return '';
    await loadScanners();
    const hot: HotFile[] = [];
    const held = snapshot.held ?? NONE_HELD;
    for (const file of rankHot(snapshot.files)) {
      if (file.size > MAX_FILE_BYTES || this.nameFlags(file).length > 0 || held.has(file.path)) continue;
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
    return renderHotSet(hot, maxBytes);
  }

  /**
   * What a prompt gets, by the injection settings: with `relevant`, the memories that match
   * `prompt` well enough, by BM25 over path, description and the file's head (from each file's
   * words: scoreByWords; a file made elsewhere has its words counted now), those near the best
   * one's score and none for a weak best (confidentMatches), and when none does, the most
   * recent ones if `recentWhenNoMatch`; with `recent_only`, the most recent whatever the prompt;
   * with `off`, nothing. Only clean files (nothing flagged: ScanFlag), within the budget.
   */
  relevant(snapshot: ContextSnapshot, prompt: string, now: number, injection: InjectionSettings = DEFAULT_INJECTION): string {
    if (injection.relevant === 'off') return '';
    const budget = { maxFiles: injection.relevantMaxFiles, maxBytes: injection.relevantMaxBytes };
    if (injection.relevant === 'recent_only') return renderRelevant(this.recentClean(snapshot, budget.maxFiles), budget, RECENT_HEADER);
    const terms = promptTerms(prompt);
    const clean: RelevantFile[] = confidentMatches(this.scored(snapshot, terms, now), terms.length, budget.maxFiles).map((file) => ({ path: file.path, excerpt: excerptFor(file, terms) }));
    if (clean.length === 0 && injection.recentWhenNoMatch) return renderRelevant(this.recentClean(snapshot, budget.maxFiles), budget, NO_MATCH_HEADER);
    return renderRelevant(clean, budget);
  }

  /**
   * The clean files (nothing flagged) that match `prompt`, best first, as the relevant memories
   * take them (and `make eval` measures them): BM25 over each file's words (rankByWords).
   */
  *ranked(snapshot: ContextSnapshot, prompt: string, now: number): Generator<ContextFile, void, undefined> {
    for (const { file } of this.scored(snapshot, promptTerms(prompt), now)) yield file;
  }

  /** ranked's files with their scores, for a prompt's terms (promptTerms). */
  private *scored(snapshot: ContextSnapshot, terms: readonly string[], now: number): Generator<ScoredFile, void, undefined> {
    const docs = snapshot.files.map((file): WordsOfFile => {
      const fact = this.factsOf(file);
      return fact?.wordsAt ? { file, at: fact.wordsAt } : { file, words: fact?.words ?? wordsOf(file) };
    });
    const held = snapshot.held ?? NONE_HELD;
    for (const scored of scoreByWords(docs, terms, now)) if (this.flags(scored.file).length === 0 && !held.has(scored.file.path)) yield scored;
  }

  /** The `max` most recently used or changed files that nothing flags, each with its start. */
  private recentClean(snapshot: ContextSnapshot, max: number): RelevantFile[] {
    const recent: RelevantFile[] = [];
    const held = snapshot.held ?? NONE_HELD;
    for (const file of rankRecent(snapshot.files)) {
      if (recent.length >= max) break;
      if (this.flags(file).length === 0 && !held.has(file.path)) recent.push({ path: file.path, excerpt: excerptFor(file, []) });
    }
    return recent;
  }

  /**
   * What the scanners flag in a file's path (line 0) and head: the UI's warning badges, and what
   * keeps a file out of the relevant memories and search. A file of this builder's snapshots
   * carries its verdicts; one made elsewhere (no caller makes one) would be judged now, by the
   * scanners a snapshot that learnt a file or a hot set has loaded.
   */
  flags(file: ContextFile): readonly ScanFlag[] {
    const names = this.nameFlags(file);
    const head = this.headFlags(file);
    return names.length === 0 ? head : head.length === 0 ? names : [...names, ...head];
  }

  /** The facts a file of this builder's snapshot was made from (files made elsewhere have none). */
  private factsOf(file: ContextFile): FileFacts | undefined {
    return file instanceof SnapshotFile ? file.factsFor(this) : undefined;
  }

  /** What the scanners flag in a path's names (scanPath), as flags on line 0. */
  private nameFlags(file: ContextFile): readonly ScanFlag[] {
    const fact = this.factsOf(file);
    if (fact) return fact.nameFlags;
    const kept = this.nameFlagCache.get(file.path);
    if (kept) return kept;
    const flags = this.scanNames(file.segments);
    if (this.nameFlagCache.size >= FLAGS_KEPT) this.nameFlagCache.clear();
    this.nameFlagCache.set(file.path, flags);
    return flags;
  }

  /** What the scanners flag in a file's head, as agents would be shown it. */
  private headFlags(file: ContextFile): readonly ScanFlag[] {
    const fact = this.factsOf(file);
    if (fact) return fact.headFlags;
    // Kept by the head's text itself (the verdict depends on nothing else).
    const kept = this.flagCache.get(file.path);
    if (kept && kept.head === file.head) return kept.flags;
    const flags = this.scanHead(file.head);
    if (this.flagCache.size >= FLAGS_KEPT) this.flagCache.clear();
    this.flagCache.set(file.path, { head: file.head, flags });
    return flags;
  }

  private scan(text: string): readonly ScanFinding[] {
    return (this.options.scan ?? scanners().scanContent)(text);
  }

  private scanNames(segments: readonly string[]): ScanFlag[] {
    return scanners().scanPath(segments).map(({ kind, rule }): ScanFlag => ({ kind, rule, line: 0 }));
  }

  private scanHead(head: string): ScanFlag[] {
    return this.scan(head).map(({ kind, rule, line }) => ({ kind, rule, line }));
  }
}

/** A file of a snapshot, with the facts it was made from (their verdicts are the builder's). */
class SnapshotFile implements ContextFile {
  readonly segments: readonly string[];
  readonly size: number;
  readonly mtimeMs: number;
  readonly version: string | null;
  readonly description: string | null;
  // Private fields: a file copied or serialized carries neither its builder nor its facts.
  readonly #builder: ContextBuilder;
  readonly #facts: FileFacts;
  #decoded: string | undefined;
  #path: string | undefined;

  constructor(
    builder: ContextBuilder,
    readonly scope: Scope,
    entry: ListedEntry,
    facts: FileFacts,
    readonly stats: UsageStats,
  ) {
    this.#builder = builder;
    this.#facts = facts;
    this.segments = entry.rel;
    this.size = entry.size;
    this.mtimeMs = entry.mtimeMs;
    this.version = entry.version ?? null;
    this.description = facts.description;
  }

  /** Made when first asked (a prompt's ranking needs a handful of thousands). */
  get path(): string {
    return (this.#path ??= formatMemoryPath(this.scope, this.segments));
  }

  /** Decoded when first asked (an excerpt, a search): most files of a call never are. */
  get head(): string {
    return (this.#decoded ??= lenient.decode(this.#facts.head()));
  }

  /** The facts this file was made from, for the builder that made it (another's scanners may judge otherwise). */
  factsFor(builder: ContextBuilder): FileFacts | undefined {
    return builder === this.#builder ? this.#facts : undefined;
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

/**
 * The usage of a scope's files by their path inside the root (segments joined by '/'): the usage
 * entries under the scope's identity prefix, turned back into paths, so a snapshot costs one
 * lookup per file used rather than an identity built for every file listed.
 */
function usageByRel(b: AvailableScope, session: MemorySession, usage: ReadonlyMap<string, UsageStats>): Map<string, UsageStats> {
  const byRel = new Map<string, UsageStats>();
  const prefix = memoryIdentity(b.scope, session, []);
  if (prefix === null) return byRel;
  for (const [id, stats] of usage) {
    if (id.startsWith(prefix)) byRel.set(id.slice(prefix.length).split('/').map(unescapeIdentityComponent).join('/'), stats);
  }
  return byRel;
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
  let start = frontmatterBlock(head).bodyStart;
  while (start <= head.length) {
    const newline = head.indexOf('\n', start);
    const end = newline === -1 ? head.length : newline;
    const line = head.slice(start, end).replace(/\r$/, '');
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
