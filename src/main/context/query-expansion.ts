/**
 * What a prompt's term may also match beyond its own letters, for the relevance ranking
 * (relevance-index.ts): the terms a small built-in table of coding vocabulary relates to it
 * (`db` and `database`, `spec` and `test`), and, for a term that matches no word memory holds,
 * the words memory holds within a small edit distance of it (a typo: `terrafrom`, `celry`).
 *
 * Invariants:
 * - Lexical, deterministic and offline: the table is fixed text and typos are judged against the
 *   words of the files being ranked, nothing else.
 * - Everything is read as termsOf reads text (lowercased, stemmed), so a related term or a typo's
 *   match is a term a file can hold, and both rankers (RelevanceIndex and rankByWords) find it.
 * - A term is never its own relative, and typos are looked for only where the term itself found
 *   nothing: a word memory holds is taken as written.
 */

/**
 * Words that name the same thing in code and its tooling, or one thing and its usual shorthand:
 * a prompt's word finds a file's word of the same group at RELATED_WEIGHT. General developer
 * vocabulary only (no project's names), each word a single term (a phrase cannot be one).
 */
const RELATED_GROUPS: readonly string[] = [
  'test spec',
  'remove delete erase',
  'config configuration',
  'db database',
  'auth authentication',
  'login signin',
  'creds credentials',
  'env environment',
  'dir directory folder',
  'docs documentation',
  'deps dependencies dependency',
  'library package dependency',
  'image picture photo',
  'msg message',
  'exception error',
  'bug defect',
  'ram memory',
  'mac macos osx macbook',
  'iphone ios',
  'phone mobile handset smartphone',
  'app application',
  'k8s kubernetes',
  'iac terraform',
  'container docker',
  'toggle flag',
  'prod production',
  'ship deploy',
  'rollback revert',
  'hang stall freeze',
  'perf performance',
  'cron schedule recurring',
  'email mail mailbox',
  'password passphrase',
  'invoice receipt',
  'cart basket',
  'buy purchase',
  'coupon promo discount voucher',
  'cent penny',
  'i18n internationalization',
  'l10n localization',
  'font glyph typeface',
  'url link uri',
  'id identifier',
  'uuid guid',
  'cert certificate',
  'upload transfer',
  'print printf println',
  'pr pull',
  'typecheck mypy',
  'compile build',
  'ci pipeline',
  'snapshot golden',
  'fixture testdata',
  'mock stub fake',
  'clock timer',
  'race concurrency parallel mutex',
  'migration ddl',
  'ttl expiry expiration lifetime',
  'retry backoff',
  'notification notify',
  'monitoring observability metrics',
  'pager oncall',
  'incident outage downtime',
  'postmortem retro',
  'backup restore',
  'encrypt encryption',
  'vulnerability cve',
  'blob bucket s3',
  'region geography',
  'replicate replication replica',
  'duplicate copy',
  'offline connectivity',
  'frontend ui',
  'admin backoffice',
  'a11y accessibility',
  'color colour hue',
  'background backdrop',
  'timezone tz',
  'stale outdated',
  'deprecated legacy',
  'boolean bool',
  'null nil',
  'dict dictionary hashmap',
  'function func',
  'cli command',
  'terminal shell console',
  'regex regexp',
  'unicode utf8 charset encoding',
  'crlf eol newline',
];

/** The weight of a related term (before the prefix rule's own discount), below the term itself. */
export const RELATED_WEIGHT = 0.5;
/** The weight of a word within the edit distance of a term that matched nothing. */
export const TYPO_WEIGHT = 0.4;
/** Terms shorter than this are never read as typos (too many short words lie one edit apart). */
export const TYPO_MIN_LENGTH = 4;
/** Terms at least this long may be two edits from the word meant; shorter ones one. */
const TYPO_TWO_EDITS_LENGTH = 8;

/** Related terms by term (each group's terms read as termsOf reads them). */
let related: Map<string, readonly string[]> | undefined;

/**
 * The terms related to `term` (a term as termsOf gives it), in the table's order, never itself.
 * `read` is the ranking's reading of one word into a term (its stemmer), given by the ranking so
 * the table is read exactly as files are.
 */
export function relatedTerms(term: string, read: (word: string) => string): readonly string[] {
  related ??= relatedTable(read);
  return related.get(term) ?? [];
}

function relatedTable(read: (word: string) => string): Map<string, readonly string[]> {
  const table = new Map<string, string[]>();
  for (const group of RELATED_GROUPS) {
    const terms = [...new Set(group.split(' ').map(read))];
    for (const term of terms) {
      const known = table.get(term) ?? [];
      for (const other of terms) if (other !== term && !known.includes(other)) known.push(other);
      table.set(term, known);
    }
  }
  return table;
}

/** The most edits a word may be from `term` to be read as its typo (0: the term is too short). */
export function typoDistance(term: string): number {
  if (term.length < TYPO_MIN_LENGTH) return 0;
  return term.length >= TYPO_TWO_EDITS_LENGTH ? 2 : 1;
}

/**
 * Whether `a` and `b` are at most `max` edits apart (insert, delete, substitute, or swap two
 * neighbours: the optimal string alignment distance), stopping as soon as every path is past it.
 */
export function withinEdits(a: string, b: string, max: number): boolean {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return false;
  if (a === b) return true;
  // Three rows of the distance matrix: two back (for swaps), the last, the current.
  let older = new Array<number>(m + 1).fill(0);
  let previous = Array.from({ length: m + 1 }, (_, j) => j);
  let current = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    current[0] = i;
    let best = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) d = Math.min(d, older[j - 2]! + 1);
      current[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return false;
    [older, previous, current] = [previous, current, older];
  }
  return previous[m]! <= max;
}

/**
 * The words of `vocabulary` that may be typos of `term` (within typoDistance, not the term
 * itself), sorted so a ranking that adds their scores does so in one order whatever the source.
 */
export function typoMatches(term: string, vocabulary: Iterable<string>): string[] {
  const max = typoDistance(term);
  if (max === 0) return [];
  const found: string[] = [];
  const first = term.charCodeAt(0);
  for (const word of vocabulary) {
    if (word.charCodeAt(0) !== first || word === term || Math.abs(word.length - term.length) > max) continue;
    // A word the term begins is the term's root, not what it misspells (`personal` is not `person`).
    if (word.length < term.length && term.startsWith(word)) continue;
    if (withinEdits(term, word, max)) found.push(word);
  }
  return found.sort();
}
