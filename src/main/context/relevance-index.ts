/**
 * The relevance ranking of memory files for a prompt or a search (design.md, "Relevant memories"):
 * BM25+ (k 1.2, b 0.7, d 0.5) over three fields of each file, its path and description (boost 2)
 * and its head (boost 1), each read as termsOf reads text (identifiers split into their words,
 * stopwords of four languages removed, words stemmed); a query term longer than three letters also
 * matches the longer terms it begins, at a lower weight; so do the terms a small table relates to
 * it (`db` and `database`) and, when it matches no word of the files at all, the files' words a
 * typo or two away from it (./query-expansion.ts), each at a weight below its own, each counted as
 * the query term it stands for; a file's score is multiplied by how many of the query's terms it
 * matched, then given a small bonus for a recent write. Which of the
 * ranked files a prompt is given is confidentMatches' call (a threshold, not a fixed count).
 * Terms change with the reading: the facts cache keeps them, so its format number follows it.
 *
 * Hand-written, to the formulas of MiniSearch (which the tests hold it to as the oracle): an MCP
 * session's memory_search keeps one index and changes it after every write, and MiniSearch updates
 * its radix tree once per word occurrence and tokenizes a document again to remove it, about
 * 0.5 ms for a 2 KiB note, more than the rest of a search. Here a document's words are counted
 * once, its postings touched once per distinct word, and its counts kept for its removal.
 *
 * A one-shot ranking (the prompt hook, an MCP session's start) goes through each file's words
 * counted once (wordsOf, FieldWords) and kept between processes with the rest of the file's facts
 * (./context-facts-cache.ts): rankByWords scores the same formula over them, looking only at the
 * words that match the query, so a call over 3000 unchanged files tokenizes nothing.
 */
import { deu, eng as englishStopwords, fra, spa } from 'stopword';
import { USAGE_HALF_LIFE_MS } from '../../common/memory/constants';
import type { ContextFile } from './context-file';
import { relatedTerms, RELATED_WEIGHT, TYPO_WEIGHT, typoDistance, typoMatches } from './query-expansion';

/**
 * Words that hold no topic, in English and in the languages people most often prompt in beside it
 * (French, German, Spanish: a prompt in one keeps its technical terms, and its function words
 * must not match every note); less the few that are also words of code or English ones that say
 * something (`tag`, `bin`, `man`, `die`...).
 */
const MEANINGFUL = new Set(['ab', 'bin', 'con', 'die', 'elf', 'ende', 'gott', 'gut', 'gute', 'hat', 'hin', 'jahr', 'kurz', 'lang', 'mal', 'man', 'mann', 'neue', 'pas', 'sin', 'son', 'tag', 'tage', 'teil', 'uhr', 'war', 'weg', 'will', 'zeit']);
const STOPWORDS = new Set([...englishStopwords, ...[...fra, ...deu, ...spa].filter((w) => !MEANINGFUL.has(w))]);
/** Field boosts, in field order: path, description, head. */
const BOOSTS = [2, 2, 1] as const;
const FIELDS = BOOSTS.length;
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** The weight of a word a query word begins (before the length discount). */
const PREFIX_WEIGHT = 0.375;
/** Query words at least this long also match longer words they begin. */
const PREFIX_MIN_LENGTH = 4;
/** ':' (between a word and its count in FieldWords). */
const COLON = 58;
/** ' ' (before each word in FieldWords). */
const SPACE = 32;
/** Relevance bonus for a file written recently (fades with the usage half-life). */
const RECENCY_BONUS = 0.2;

/** The words of a text as a person reads them: lowercased, split at anything but letters, digits and _, stopwords and single characters removed. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((t) => t.length > 1 && !STOPWORDS.has(t));
}

/** A word's parts where an identifier joins words: at `_` and at a change of case (`fetchUserProfile`, `HTTPServer`, `user_id`). */
const IDENTIFIER_PARTS = /_+|(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/**
 * The terms the ranking counts in a text: tokenize's words, each also split into its identifier
 * parts when it has several (the whole word kept too, so a name typed whole still matches best),
 * every one stemmed (stem). Paths, dotted and kebab names are already apart at their punctuation.
 */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(WORD_BREAKS)) if (raw.length >= 2) out.push(...termsOfWord(raw));
  return out;
}

/** What separates words: anything but letters, digits and _. */
const WORD_BREAKS = /[^\p{L}\p{N}_]+/u;

/** The terms of one word of two characters or more, in the order termsOf gives them. */
function termsOfWord(raw: string): string[] {
  const out: string[] = [];
  const whole = raw.toLowerCase();
  if (!STOPWORDS.has(whole)) out.push(stem(whole));
  // Only a word with a capital or an underscore can have parts (most have neither).
  if (whole === raw && !raw.includes('_')) return out;
  const parts = raw.split(IDENTIFIER_PARTS);
  if (parts.length < 2) return out;
  for (const part of parts) {
    const word = part.toLowerCase();
    if (word.length > 1 && !STOPWORDS.has(word)) out.push(stem(word));
  }
  return out;
}

/**
 * termsOfWord's answers, kept: the words of notes repeat (within a note and across a scope), so
 * counting a scope's words reads each distinct word once. Emptied when full.
 */
const wordTerms = new Map<string, readonly string[]>();
const WORD_TERMS_KEPT = 50_000;

function keptTermsOfWord(raw: string): readonly string[] {
  let terms = wordTerms.get(raw);
  if (terms === undefined) {
    if (wordTerms.size >= WORD_TERMS_KEPT) wordTerms.clear();
    wordTerms.set(raw, (terms = termsOfWord(raw)));
  }
  return terms;
}

/** Whether the character at `i` of `w` is a vowel (y included). */
function vowelAt(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  return c === 97 || c === 101 || c === 105 || c === 111 || c === 117 || c === 121;
}

/** Whether `w` has a vowel before `end`. */
function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (vowelAt(w, i)) return true;
  return false;
}

/**
 * A light English stemmer (plural, -ing, -ed, a final -e or -y), so `migrations`, `migrated` and
 * `migrate` are one term. Its stem is always a beginning of the word, so a line that holds the
 * word holds the stem (what excerpts and highlights look for); a word with no vowel left, or too
 * short to strip, is kept as it is.
 */
export function stem(word: string): string {
  let w = word;
  let n = w.length;
  if (n > 4 && w.endsWith('ies')) return w.slice(0, -3);
  if (n > 3 && w.charCodeAt(n - 1) === 115 /* s */) {
    const before = w.charCodeAt(n - 2);
    // class, status, analysis keep their s.
    if (before !== 115 && before !== 117 /* u */ && before !== 105 /* i */) w = w.slice(0, --n);
  }
  let cut = false;
  if (n > 5 && w.endsWith('ing') && hasVowel(w, n - 3)) {
    w = w.slice(0, (n -= 3));
    cut = true;
  } else if (n > 4 && w.endsWith('ed') && !w.endsWith('eed') && hasVowel(w, n - 2)) {
    w = w.slice(0, (n -= 2));
    cut = true;
  }
  // running -> run, stopped -> stop (but pass, fill, buzz keep theirs).
  if (cut && n > 3 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1]!) && !vowelAt(w, n - 1)) w = w.slice(0, --n);
  if (n > 3 && w.charCodeAt(n - 1) === 101 /* e */) return w.slice(0, -1);
  if (n > 4 && w.charCodeAt(n - 1) === 121 /* y */ && !vowelAt(w, n - 2)) return w.slice(0, -1);
  return w;
}

/**
 * Whether a word matches a query term: the same, begun by a term of PREFIX_MIN_LENGTH letters or
 * more, or (a word as tokenize reads it) stemmed to the term.
 */
export function wordMatches(word: string, query: string): boolean {
  return word === query || (word.startsWith(query) && (query.length >= PREFIX_MIN_LENGTH || stem(word) === query));
}

/** The weight of a word a query term begins: PREFIX_WEIGHT, fading as the word grows past the term. */
function prefixWeight(word: string, term: string): number {
  return (PREFIX_WEIGHT * word.length) / (word.length + 0.3 * (word.length - term.length));
}

/**
 * The distinct words of some tables that begin with `term`'s first letter and are within `edits`
 * letters of its length: every word a typo of it may have meant (typoMatches keeps the first
 * letter). Found by searching the tables' texts for a space and that letter, so a prompt's typo
 * costs one search of the words, not a list of them all.
 */
function typoCandidates(tables: Iterable<WordTable>, term: string, edits: number): Set<string> {
  const words = new Set<string>();
  const needle = ` ${term[0]!}`;
  for (const table of tables) {
    for (const text of table.texts) {
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
        // ` word:count`: the word runs from after the space to its colon.
        const colon = text.indexOf(':', at + needle.length);
        if (colon === -1) break;
        if (Math.abs(colon - at - 1 - term.length) <= edits) words.add(text.slice(at + 1, colon));
      }
    }
  }
  return words;
}

/**
 * The terms a ranking is given, as it reads them: promptTerms' (taken as they are: stemming a stem
 * again could cut it further), less anything that could not be a term of a file (a stopword, a
 * single character, anything but letters, digits and _).
 */
function queryTerms(given: readonly string[]): string[] {
  return given.map((t) => t.toLowerCase()).filter((t) => t.length > 1 && TERM.test(t) && !STOPWORDS.has(t));
}

const TERM = /^[\p{L}\p{N}_]+$/u;

/** The distinct terms of a prompt that can match (termsOf). */
export function promptTerms(prompt: string): string[] {
  return [...new Set(termsOf(prompt))];
}

/** One indexed file: what it was indexed from, and its fields' word counts (kept to remove it). */
interface IndexedDoc {
  readonly id: number;
  readonly head: string;
  readonly description: string;
  readonly counts: ReadonlyArray<ReadonlyMap<string, number>>;
}

/** Per word: for each field, the documents holding it and how often. */
type Postings = Array<Map<number, number> | undefined>;

function fieldsOf(file: Pick<ContextFile, 'path' | 'description' | 'head'>): string[] {
  return [file.path.replace(/[/_.-]+/g, ' '), file.description ?? '', file.head];
}

/** How often each word occurs in a text. */
function countWords(text: string): Map<string, number> {
  // Each distinct word is read once: its occurrences counted first, then its terms given the
  // count. Words come in the order first seen, so the terms do in termsOf's order too.
  const words = new Map<string, number>();
  for (const raw of text.split(WORD_BREAKS)) if (raw.length >= 2) words.set(raw, (words.get(raw) ?? 0) + 1);
  const counts = new Map<string, number>();
  for (const [raw, times] of words) for (const term of keptTermsOfWord(raw)) counts.set(term, (counts.get(term) ?? 0) + times);
  return counts;
}

/**
 * A BM25 index over memory files keyed by virtual path, changed in place: a long-lived reader (an
 * MCP session's memory_search) re-indexes only files whose description or head changed, and the
 * statistics are always those of exactly the files it holds.
 */
export class RelevanceIndex {
  private readonly docs = new Map<string, IndexedDoc>();
  /** By document id: its path and its fields' lengths. */
  private readonly paths: string[] = [];
  private readonly lengths: Array<readonly number[]> = [];
  private readonly postings = new Map<string, Postings>();
  /** Words of PREFIX_MIN_LENGTH letters or more, by their first PREFIX_MIN_LENGTH letters. */
  private readonly byStart = new Map<string, Set<string>>();
  /** Per field, the sum of the documents' lengths. */
  private readonly totalLengths = new Array<number>(FIELDS).fill(0);
  private readonly freeIds: number[] = [];

  /** Files that match any of `terms`, best first, after bringing the index to exactly `files`. */
  rank(files: readonly ContextFile[], terms: readonly string[], now: number): Iterable<ContextFile> {
    const current = this.update(files);
    if (terms.length === 0 || files.length === 0) return [];
    const { sums, matched } = this.scores(terms);
    return filesOf(withRecency((visit) => sums.forEach((score, id) => visit(id, score, matched.get(id)!.size)), sums.size, now, (id) => current.get(this.paths[id]!)));
  }

  /** Brings the index to exactly `files` (re-indexing what changed); returns them by virtual path. */
  update(files: readonly ContextFile[]): Map<string, ContextFile> {
    const current = new Map<string, ContextFile>();
    for (const file of files) {
      current.set(file.path, file);
      const known = this.docs.get(file.path);
      const description = file.description ?? '';
      // The builder hands out its cached head string for an unchanged file: usually the same object.
      if (known && known.head === file.head && known.description === description) continue;
      if (known) this.remove(file.path, known);
      this.add(file, description);
    }
    if (this.docs.size > current.size) {
      for (const [p, doc] of this.docs) if (!current.has(p)) this.remove(p, doc);
    }
    return current;
  }

  private add(file: ContextFile, description: string): void {
    const id = this.freeIds.pop() ?? this.paths.length;
    this.paths[id] = file.path;
    const counts = fieldsOf(file).map(countWords);
    const lengths = counts.map((c) => c.size);
    counts.forEach((words, field) => {
      this.totalLengths[field]! += lengths[field]!;
      for (const [word, count] of words) {
        let postings = this.postings.get(word);
        if (!postings) {
          postings = new Array<Map<number, number> | undefined>(FIELDS);
          this.postings.set(word, postings);
          if (word.length >= PREFIX_MIN_LENGTH) {
            const start = word.slice(0, PREFIX_MIN_LENGTH);
            let words = this.byStart.get(start);
            if (!words) this.byStart.set(start, (words = new Set()));
            words.add(word);
          }
        }
        (postings[field] ??= new Map()).set(id, count);
      }
    });
    this.lengths[id] = lengths;
    this.docs.set(file.path, { id, head: file.head, description, counts });
  }

  private remove(path: string, doc: IndexedDoc): void {
    doc.counts.forEach((words, field) => {
      this.totalLengths[field]! -= words.size;
      for (const word of words.keys()) {
        const postings = this.postings.get(word)!;
        const docs = postings[field]!;
        docs.delete(doc.id);
        if (docs.size > 0) continue;
        postings[field] = undefined;
        if (postings.some((p) => p !== undefined)) continue;
        this.postings.delete(word);
        if (word.length >= PREFIX_MIN_LENGTH) {
          const start = word.slice(0, PREFIX_MIN_LENGTH);
          const words = this.byStart.get(start)!;
          words.delete(word);
          if (words.size === 0) this.byStart.delete(start);
        }
      }
    });
    this.docs.delete(path);
    this.freeIds.push(doc.id);
  }

  /** BM25 score of each matching document (by id), times the number of distinct query words it matched (`matched`). */
  private scores(terms: readonly string[]): { sums: Map<number, number>; matched: Map<number, Set<string>> } {
    const count = this.docs.size;
    const averages = this.totalLengths.map((total) => total / count);
    const sums = new Map<number, number>();
    const matched = new Map<number, Set<string>>();
    const score = (word: string, weight: number, query: string) => {
      const postings = this.postings.get(word);
      if (!postings) return;
      for (let field = 0; field < FIELDS; field++) {
        const docs = postings[field];
        if (!docs) continue;
        const idf = Math.log(1 + (count - docs.size + 0.5) / (docs.size + 0.5));
        const boost = weight * BOOSTS[field]!;
        const average = averages[field]!;
        for (const [id, tf] of docs) {
          const length = this.lengths[id]![field]!;
          const raw = idf * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / average)));
          sums.set(id, (sums.get(id) ?? 0) + boost * raw);
          let words = matched.get(id);
          if (!words) matched.set(id, (words = new Set()));
          words.add(query);
        }
      }
    };
    // A term, its own postings and (long enough) those of the words it begins, at `weight`;
    // whether it found any word at all.
    const scoreTerm = (term: string, weight: number, query: string): boolean => {
      let hit = this.postings.has(term);
      score(term, weight, query);
      if (term.length < PREFIX_MIN_LENGTH) return hit;
      for (const word of this.byStart.get(term.slice(0, PREFIX_MIN_LENGTH)) ?? []) {
        if (word === term || !wordMatches(word, term)) continue;
        hit = true;
        score(word, weight * prefixWeight(word, term), query);
      }
      return hit;
    };
    for (const query of queryTerms(terms)) {
      const hit = scoreTerm(query, 1, query);
      for (const other of relatedTerms(query, stem)) scoreTerm(other, RELATED_WEIGHT, query);
      if (!hit) for (const word of typoMatches(query, this.postings.keys())) score(word, TYPO_WEIGHT, query);
    }
    for (const [id, sum] of sums) sums.set(id, sum * matched.get(id)!.size);
    return { sums, matched };
  }
}

/** A ranked file, its score (BM25+ times the matched words, with the recency bonus) and how many distinct query words it matched. */
export interface ScoredFile {
  readonly file: ContextFile;
  readonly score: number;
  readonly matched: number;
}

/**
 * Scores with the recency bonus, best first (ties by path), as they are taken: the files are kept
 * in a heap, so a caller that takes the first few (a prompt's five memories of 3000 matches) pays
 * for a few comparisons each, not for sorting every match.
 */
function* withRecency(
  eachScore: (visit: (id: number, score: number, matched: number) => void) => void,
  most: number,
  now: number,
  fileOf: (id: number) => ContextFile | undefined,
): Generator<ScoredFile, void, undefined> {
  const files: ContextFile[] = [];
  // At most one per file scored (`most`), side by side in typed arrays: a prompt's ranking runs
  // once per process, where an iterator's [id, score] pair and a boxed number per match were most
  // of its garbage.
  const boosted = new Float64Array(most);
  const matched = new Int32Array(most);
  eachScore((id, score, words) => {
    const file = fileOf(id);
    if (!file) return;
    const written = file.stats.lastWriteAt ? Date.parse(file.stats.lastWriteAt) : file.mtimeMs;
    const age = Math.max(0, now - (Number.isNaN(written) ? file.mtimeMs : written));
    boosted[files.length] = score * (1 + RECENCY_BONUS * 0.5 ** (age / USAGE_HALF_LIFE_MS));
    matched[files.length] = words;
    files.push(file);
  });
  // Whether file a comes before file b: the higher score, then the lower path (paths are unique).
  const before = (a: number, b: number): boolean => boosted[a]! > boosted[b]! || (boosted[a] === boosted[b] && files[a]!.path < files[b]!.path);
  let size = files.length;
  const heap = new Int32Array(size);
  for (let i = 0; i < size; i++) heap[i] = i;
  const siftDown = (from: number): void => {
    for (let at = from; ; ) {
      let first = at;
      const left = 2 * at + 1;
      if (left < size && before(heap[left]!, heap[first]!)) first = left;
      if (left + 1 < size && before(heap[left + 1]!, heap[first]!)) first = left + 1;
      if (first === at) return;
      const moved = heap[at]!;
      heap[at] = heap[first]!;
      heap[first] = moved;
      at = first;
    }
  };
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
  while (size > 0) {
    const best = heap[0]!;
    heap[0] = heap[--size]!;
    siftDown(0);
    yield { file: files[best]!, score: boosted[best]!, matched: matched[best]! };
  }
}

/** The files of a scored ranking, in its order. */
function* filesOf(scored: Iterable<ScoredFile>): Generator<ContextFile, void, undefined> {
  for (const { file } of scored) yield file;
}

/** Files that match any of `terms`, best first (BM25 with a small recency bonus). */
export function rankRelevant(files: readonly ContextFile[], terms: readonly string[], now: number): Iterable<ContextFile> {
  if (terms.length === 0 || files.length === 0) return [];
  return new RelevanceIndex().rank(files, terms, now);
}

/**
 * A file's words, per field (path, description, head): each field's text is ` word:count` per
 * distinct word, in the order first seen (a word holds no space or colon: tokenize splits at
 * both); `lengths` are the fields' distinct-word counts (their BM25 lengths, as RelevanceIndex
 * counts them). What rankByWords ranks by, and what the facts cache keeps of a file for ranking.
 */
export interface FieldWords {
  readonly text: readonly string[];
  readonly lengths: readonly number[];
}

/** The words of a file's fields (see FieldWords). */
export function wordsOf(file: Pick<ContextFile, 'path' | 'description' | 'head'>): FieldWords {
  const counts = fieldsOf(file).map(countWords);
  return {
    text: counts.map((words) => {
      let text = '';
      for (const [word, count] of words) text += ` ${word}:${count}`;
      return text;
    }),
    lengths: counts.map((words) => words.size),
  };
}

/**
 * Many files' words laid out as rankByWords searches them: per field, every file's words text
 * (FieldWords.text) in one string, files apart by a newline. The facts cache keeps its files' words
 * this way (context-facts-cache.ts), so a ranking over unchanged files joins nothing.
 */
export interface WordTable {
  /** Per field, the files' texts joined by '\n'. */
  readonly texts: readonly string[];
  /** Per field, where each file's text begins in texts[field]. */
  readonly starts: readonly Int32Array[];
  /** The files' fields' lengths (FieldWords.lengths): file i's field f at i * FIELDS + f. */
  readonly lengths: Int32Array;
}

/** The number of fields of FieldWords (path, description, head). */
export const WORD_FIELDS = FIELDS;

/** A table of the given files' words (in their order). */
export function wordTableOf(words: readonly FieldWords[]): WordTable {
  const count = words.length;
  const texts: string[] = [];
  const starts: Int32Array[] = [];
  const lengths = new Int32Array(count * FIELDS);
  for (let field = 0; field < FIELDS; field++) {
    const begin = new Int32Array(count);
    const parts = new Array<string>(count);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const w = words[i]!;
      lengths[i * FIELDS + field] = w.lengths[field]!;
      begin[i] = at;
      parts[i] = w.text[field]!;
      at += parts[i]!.length + 1;
    }
    texts.push(parts.join('\n'));
    starts.push(begin);
  }
  return { texts, starts, lengths };
}

/** One file of a table. */
export interface WordsInTable {
  readonly table: WordTable;
  readonly index: number;
}

/** The words of one file of a table, as wordsOf gave them. */
export function wordsIn({ table, index }: WordsInTable): FieldWords {
  const text: string[] = [];
  const lengths: number[] = [];
  for (let field = 0; field < FIELDS; field++) {
    const begin = table.starts[field]!;
    const all = table.texts[field]!;
    text.push(all.slice(begin[index]!, index + 1 < begin.length ? begin[index + 1]! - 1 : all.length));
    lengths.push(table.lengths[index * FIELDS + field]!);
  }
  return { text, lengths };
}

/** A file with its words, for rankByWords: counted (`words`), or found in a table (`at`). */
export type WordsOfFile = { readonly file: ContextFile; readonly words: FieldWords; readonly at?: undefined } | { readonly file: ContextFile; readonly at: WordsInTable };

/**
 * Files that match any of `terms`, best first: the same BM25+ as RelevanceIndex (fields, boosts,
 * prefix matches, the matched-words factor, the recency bonus), computed from each file's words
 * (wordsOf) by looking up the query words alone. The words a query word begins are scored in
 * sorted order, so the result depends on nothing but the files and the terms (not on which tables
 * hold their words: a file's sum is added to in the same order whichever does).
 */
export function rankByWords(docs: readonly WordsOfFile[], terms: readonly string[], now: number): Iterable<ContextFile> {
  if (terms.length === 0 || docs.length === 0) return [];
  return filesOf(scoreByWords(docs, terms, now));
}

/** rankByWords with each file's score. */
export function scoreByWords(docs: readonly WordsOfFile[], terms: readonly string[], now: number): Iterable<ScoredFile> {
  if (terms.length === 0 || docs.length === 0) return [];
  const count = docs.length;
  // The tables to search, each with the doc id of each of its files (-1: not among the docs);
  // files with counted words get a table of their own.
  const searched = new Map<WordTable, Int32Array>();
  const loose: number[] = [];
  const totals = new Array<number>(FIELDS).fill(0);
  const lengths = new Int32Array(count * FIELDS);
  for (let id = 0; id < count; id++) {
    const doc = docs[id]!;
    if (doc.at === undefined) {
      loose.push(id);
      continue;
    }
    const { table, index } = doc.at;
    let ids = searched.get(table);
    if (!ids) searched.set(table, (ids = new Int32Array(table.starts[0]!.length).fill(-1)));
    ids[index] = id;
    for (let field = 0; field < FIELDS; field++) lengths[id * FIELDS + field] = table.lengths[index * FIELDS + field]!;
  }
  if (loose.length > 0) {
    const table = wordTableOf(loose.map((id) => (docs[id] as { words: FieldWords }).words));
    searched.set(table, Int32Array.from(loose));
    loose.forEach((id, i) => {
      for (let field = 0; field < FIELDS; field++) lengths[id * FIELDS + field] = table.lengths[i * FIELDS + field]!;
    });
  }
  for (let id = 0; id < count; id++) for (let field = 0; field < FIELDS; field++) totals[field]! += lengths[id * FIELDS + field]!;
  const averages = totals.map((total) => total / count);
  const sums = new Float64Array(count);
  // Per file, the distinct query words it matched (a query word given twice counts once): a bit
  // per distinct query word while they fit in one, else a set.
  const queries = queryTerms(terms);
  const distinct = [...new Set(queries)];
  const bits = distinct.length <= 30 ? new Int32Array(count) : null;
  const sets: Array<Set<string> | undefined> = bits ? [] : new Array<Set<string> | undefined>(count);
  // Per word found (a term itself, or one it begins), per field: the files and their counts, side
  // by side (numbers only: a common word is found in thousands of files).
  const lookUp = (term: string): Map<string, Array<{ ids: ArrayLike<number>; counts: ArrayLike<number> }>> => {
    const found = new Map<string, Array<{ ids: ArrayLike<number>; counts: ArrayLike<number> }>>();
    const prefixes = term.length >= PREFIX_MIN_LENGTH;
    // The term's own hits, the most of a common word's, go straight into arrays of one number per
    // file (a file's words are distinct, so it holds the term at most once in a field).
    const exactIds = Array.from({ length: FIELDS }, () => new Int32Array(count));
    const exactCounts = Array.from({ length: FIELDS }, () => new Int32Array(count));
    const exactFound = new Int32Array(FIELDS);
    for (const [table, ids] of searched) {
      for (let field = 0; field < FIELDS; field++) {
        const text = table.texts[field]!;
        const end = text.length;
        const begin = table.starts[field]!;
        const files = begin.length;
        const hitIds = exactIds[field]!;
        const hitCounts = exactCounts[field]!;
        let hits = exactFound[field]!;
        // The file holding the hit, and where the next one begins: hits come in order, so the
        // file only moves forward.
        let file = 0;
        let next = files > 1 ? begin[1]! : end;
        // The term is looked for without the space before every word: a search for a space first
        // stops at every word, one for the term's first letter far less often.
        for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
          if (text.charCodeAt(at - 1) !== SPACE) continue;
          const after = at + term.length;
          // The term itself (a colon right after it) needs no slicing; a longer word only counts
          // when the term may begin others.
          const exact = text.charCodeAt(after) === COLON;
          if (!exact && !prefixes) continue;
          while (next <= at) next = ++file + 1 < files ? begin[file + 1]! : end;
          const id = ids[file]!;
          if (id < 0) continue;
          const colon = exact ? after : text.indexOf(':', after);
          let tf = 0;
          for (let i = colon + 1, digit = text.charCodeAt(i) - 48; digit >= 0 && digit <= 9; digit = text.charCodeAt(++i) - 48) tf = tf * 10 + digit;
          if (exact) {
            if (hits === count) continue;
            hitIds[hits] = id;
            hitCounts[hits++] = tf;
            continue;
          }
          const word = text.slice(at, colon);
          let perField = found.get(word) as Array<{ ids: number[]; counts: number[] }> | undefined;
          if (!perField) found.set(word, (perField = Array.from({ length: FIELDS }, () => ({ ids: [], counts: [] }))));
          perField[field]!.ids.push(id);
          perField[field]!.counts.push(tf);
        }
        exactFound[field] = hits;
      }
    }
    if (exactFound.some((n) => n > 0)) {
      found.set(
        term,
        exactIds.map((ids, field) => ({ ids: ids.subarray(0, exactFound[field]), counts: exactCounts[field]!.subarray(0, exactFound[field]) })),
      );
    }
    return found;
  };
  for (const query of queries) {
    const bit = 1 << distinct.indexOf(query);
    const score = (found: ReturnType<typeof lookUp>, word: string, weight: number) => {
      const perField = found.get(word);
      if (!perField) return;
      for (let field = 0; field < FIELDS; field++) {
        const { ids, counts } = perField[field]!;
        if (ids.length === 0) continue;
        const idf = Math.log(1 + (count - ids.length + 0.5) / (ids.length + 0.5));
        const scale = weight * BOOSTS[field]! * idf;
        const average = averages[field]!;
        for (let h = 0; h < ids.length; h++) {
          const id = ids[h]!;
          const tf = counts[h]!;
          sums[id]! += scale * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * lengths[id * FIELDS + field]!) / average)));
        }
        if (bits) for (let h = 0; h < ids.length; h++) bits[ids[h]!]! |= bit;
        else for (let h = 0; h < ids.length; h++) (sets[ids[h]!] ??= new Set()).add(query);
      }
    };
    // A term and the words it begins, at `weight`; whether it found any word at all.
    const scoreTerm = (term: string, weight: number): boolean => {
      const found = lookUp(term);
      score(found, term, weight);
      for (const word of [...found.keys()].sort()) if (word !== term) score(found, word, weight * prefixWeight(word, term));
      return found.size > 0;
    };
    const hit = scoreTerm(query, 1);
    for (const other of relatedTerms(query, stem)) scoreTerm(other, RELATED_WEIGHT);
    const edits = typoDistance(query);
    if (!hit && edits > 0) {
      for (const word of typoMatches(query, typoCandidates(searched.keys(), query, edits))) score(lookUp(word), word, TYPO_WEIGHT);
    }
  }
  const eachScore = (visit: (id: number, score: number, matched: number) => void): void => {
    for (let id = 0; id < count; id++) {
      const words = bits ? popCount(bits[id]!) : (sets[id]?.size ?? 0);
      if (words > 0) visit(id, sums[id]! * words, words);
    }
  };
  return withRecency(eachScore, count, now, (id) => docs[id]?.file);
}

/** The number of bits set in `n`. */
function popCount(n: number): number {
  let count = 0;
  for (let x = n; x !== 0; x &= x - 1) count++;
  return count;
}

/** Files scoring below this fraction of the best match's score are not worth a prompt's budget. */
const RELATIVE_THRESHOLD = 0.15;
/**
 * A best match that holds a single word of a prompt of several, and scores less than this many
 * times the next one, is no match: one everyday word ("write", "list", "server") shared by a few
 * files alike is what a prompt about something memory does not hold looks like.
 */
const STANDS_OUT = 1.2;

/**
 * The files worth injecting for a prompt of `termCount` distinct terms, from its ranking (best
 * first, what may be shown only): at most `max`, each scoring at least RELATIVE_THRESHOLD of the
 * best; none when the best is weak (one word of several, not standing out from the next).
 */
export function confidentMatches(ranked: Iterable<ScoredFile>, termCount: number, max: number): ContextFile[] {
  const top: ScoredFile[] = [];
  for (const scored of ranked) {
    top.push(scored);
    if (top.length >= Math.max(2, max)) break;
  }
  const best = top[0];
  if (!best || max <= 0) return [];
  const next = top[1]?.score ?? 0;
  if (best.matched < 2 && termCount >= 2 && best.score < STANDS_OUT * next) return [];
  return top
    .slice(0, max)
    .filter((s) => s.score >= RELATIVE_THRESHOLD * best.score)
    .map((s) => s.file);
}
