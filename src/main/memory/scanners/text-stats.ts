/**
 * Small, allocation-free measures of a candidate string that the secret rules use to tell a real
 * credential from a placeholder, a name or a prose word. Only called for regex matches, which are
 * rare in a typical note, so none of this is on the hot path.
 */

// Scratch counts for shannonEntropy; reset on every call, so the functions stay pure.
const counts = new Uint16Array(128);

/** Shannon entropy in bits per character; non-ASCII characters count as one shared symbol. */
export function shannonEntropy(s: string, start = 0, end = s.length): number {
  const n = end - start;
  if (n <= 0) return 0;
  counts.fill(0);
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    counts[c < 128 ? c : 0]!++;
  }
  let e = 0;
  for (let c = 0; c < 128; c++) {
    const k = counts[c]!;
    if (k === 0) continue;
    const p = k / n;
    e -= p * Math.log2(p);
  }
  return e;
}

export const LOWER = 1;
export const UPPER = 2;
export const DIGIT = 4;
export const SYMBOL = 8;

function classOf(c: number): number {
  if (c >= 97 && c <= 122) return LOWER;
  if (c >= 65 && c <= 90) return UPPER;
  if (c >= 48 && c <= 57) return DIGIT;
  return SYMBOL;
}

/** Bit set of the character classes present (LOWER | UPPER | DIGIT | SYMBOL). */
export function charClasses(s: string, start = 0, end = s.length): number {
  let set = 0;
  for (let i = start; i < end; i++) set |= classOf(s.charCodeAt(i));
  return set;
}

/** Number of classes in a bit set from charClasses. */
export function classCount(set: number): number {
  return (set & 1) + ((set >> 1) & 1) + ((set >> 2) & 1) + ((set >> 3) & 1);
}

/**
 * Fraction of adjacent pairs whose character classes differ. Random base64 switches class about 60%
 * of the time; camelCase identifiers, paths and words about 10-25%.
 */
export function classSwitchRatio(s: string, start = 0, end = s.length): number {
  if (end - start < 2) return 0;
  let switches = 0;
  let prev = classOf(s.charCodeAt(start));
  for (let i = start + 1; i < end; i++) {
    const c = classOf(s.charCodeAt(i));
    if (c !== prev) switches++;
    prev = c;
  }
  return switches / (end - start - 1);
}

/** Number of distinct characters (ASCII; anything else counts as one). */
function distinctChars(s: string, start = 0, end = s.length): number {
  counts.fill(0);
  let d = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    const k = c < 128 ? c : 0;
    if (counts[k] === 0) d++;
    counts[k] = 1;
  }
  return d;
}

/** Longest run of consecutive ascending (abcd, 1234) or repeated (aaaa) characters. */
function longestTrivialRun(s: string, start = 0, end = s.length): number {
  let best = 1;
  let asc = 1;
  let same = 1;
  for (let i = start + 1; i < end; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1);
    asc = d === 1 ? asc + 1 : 1;
    same = d === 0 ? same + 1 : 1;
    if (asc > best) best = asc;
    if (same > best) best = same;
  }
  return best;
}

// Words and marks that show a value is an example, not a credential. Case-insensitive.
const PLACEHOLDER_MARKS = /x{4}|\*{3}|\.{3}|…|example|sample|dummy|placeholder|your[_-]?|redacted|changeme|change[_-]me|replace[_-]?me|insert[_-]|fake|foobar|lorem|<[^>]*>|\{\{|\$\{/i;

/**
 * Whether a token-shaped value is evidently a placeholder: marked as an example, made of one or two
 * repeated characters, or a run like abcdef / 123456 that a random secret essentially never holds.
 */
export function looksLikePlaceholder(value: string, start = 0, end = value.length): boolean {
  const s = start === 0 && end === value.length ? value : value.slice(start, end);
  if (PLACEHOLDER_MARKS.test(s)) return true;
  const n = s.length;
  if (n === 0) return true;
  if (distinctChars(s) < Math.min(8, Math.ceil(n / 3))) return true;
  // A run only marks a placeholder when it is most of the value: a real token may hold one
  // ("ghp_R8xk...1234567890abcdef...gD0") and still have a secret's worth of characters besides.
  return longestTrivialRun(s) >= 6 && n - trivialRunsLength(s) < MIN_SECRET_REST;
}

/** The fewest characters outside trivial runs that still make a value a secret (a 64-bit random part at base64). */
const MIN_SECRET_REST = 12;

/** How many characters of `s` are in trivial runs (ascending or repeated) of four or more. */
function trivialRunsLength(s: string): number {
  let total = 0;
  let asc = 1;
  let same = 1;
  const close = (run: number) => (run >= 4 ? run : 0);
  for (let i = 1; i <= s.length; i++) {
    const d = i < s.length ? s.charCodeAt(i) - s.charCodeAt(i - 1) : NaN;
    if (d === 1) asc++;
    else {
      total += close(asc);
      asc = 1;
    }
    if (d === 0) same++;
    else {
      total += close(same);
      same = 1;
    }
  }
  return total;
}

/**
 * Fraction of letters that sit in word-like pieces: a lower-case run of 3+ (optionally after one
 * capital) or an all-capital letter run of 2+ (NODE_DIR, GLOBAL). About 1 for identifiers and paths
 * (createRulePresetContext, docs/Web/JavaScript, MAX_FILES_PER_SCOPE), about 0.4 for random base64
 * (at or above 0.88 in fewer than 1 in 1000 random 32-character strings).
 */
export function wordyFraction(s: string, start = 0, end = s.length): number {
  let letters = 0;
  let wordy = 0;
  let piece = 0; // current lower-case word piece (with its capital)
  let run = 0; // current letter run
  let runUpper = true;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      letters++;
      piece++;
      run++;
      runUpper = false;
      continue;
    }
    if (piece >= 3) wordy += piece;
    piece = 0;
    if (c >= 65 && c <= 90) {
      letters++;
      run++;
      const n = i + 1 < end ? s.charCodeAt(i + 1) : 0;
      if (n >= 97 && n <= 122) piece = 1;
      continue;
    }
    if (run >= 2 && runUpper) wordy += run;
    run = 0;
    runUpper = true;
  }
  if (piece >= 3) wordy += piece;
  if (run >= 2 && runUpper) wordy += run;
  return letters === 0 ? 0 : Math.min(1, wordy / letters);
}
