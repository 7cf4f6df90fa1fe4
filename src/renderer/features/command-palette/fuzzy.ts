/**
 * The palette's fuzzy match, as editors' quick open matches: every character of the query appears
 * in the text in order (case-insensitive; spaces in the query are ignored). The score prefers
 * characters that follow each other, that start a word (after `/`, `-`, `_`, `.`, a space or a
 * lower-to-upper step), and that fall in the last path segment (the file's name); then shorter texts.
 * Pure: tested without a DOM.
 */

export interface FuzzyMatch {
  readonly score: number;
  /** Where each query character matched in the text, for highlighting. */
  readonly indices: readonly number[];
}

const BOUNDARY = new Set(['/', '-', '_', '.', ' ']);

function startsWord(text: string, i: number): boolean {
  if (i === 0) return true;
  const prev = text[i - 1]!;
  if (BOUNDARY.has(prev)) return true;
  return prev === prev.toLowerCase() && text[i] !== text[i]!.toLowerCase();
}

/** The best match of `query` in `text`, or null when some query character is missing. */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | null {
  const q = query.replace(/\s+/g, '').toLowerCase();
  if (q === '') return { score: 0, indices: [] };
  const lower = text.toLowerCase();
  const nameStart = text.lastIndexOf('/') + 1;
  // Greedy from the right end of the earliest match would miss better placements; a small dynamic
  // programme over (query index, text index) finds the best-scoring one. Texts are paths and
  // titles (short), queries a few characters.
  const n = q.length;
  const m = lower.length;
  if (n > m) return null;
  const NEG = -Infinity;
  // best[i][j]: best score with q[0..i] matched and q[i] at text position j.
  const best: Float64Array[] = [];
  const from: Int32Array[] = [];
  for (let i = 0; i < n; i++) {
    const row = new Float64Array(m).fill(NEG);
    const back = new Int32Array(m).fill(-1);
    let runBest = NEG;
    let runAt = -1;
    for (let j = 0; j < m; j++) {
      // The best previous placement strictly before j (for i > 0).
      if (i > 0 && j > 0 && best[i - 1]![j - 1]! > runBest) {
        runBest = best[i - 1]![j - 1]!;
        runAt = j - 1;
      }
      if (lower[j] !== q[i]) continue;
      let gain = 1;
      if (startsWord(text, j)) gain += 3;
      if (j >= nameStart) gain += 2;
      if (i === 0) {
        row[j] = gain - j * 0.01;
        continue;
      }
      const adjacent = best[i - 1]![j - 1] ?? NEG;
      const viaAdjacent = adjacent === NEG ? NEG : adjacent + gain + 4;
      const viaGap = runBest === NEG ? NEG : runBest + gain - 0.5;
      if (viaAdjacent >= viaGap && viaAdjacent !== NEG) {
        row[j] = viaAdjacent;
        back[j] = j - 1;
      } else if (viaGap !== NEG) {
        row[j] = viaGap;
        back[j] = runAt;
      }
    }
    best.push(row);
    from.push(back);
  }
  let end = -1;
  let score = NEG;
  for (let j = 0; j < m; j++) {
    if (best[n - 1]![j]! > score) {
      score = best[n - 1]![j]!;
      end = j;
    }
  }
  if (end < 0) return null;
  const indices: number[] = [];
  for (let i = n - 1, j = end; i >= 0; j = from[i]![j]!, i--) indices.unshift(j);
  return { score: score - m * 0.001, indices };
}

/** The items matching `query`, best first (all of them, in their order, for an empty query), at most `limit`. */
export function fuzzyFilter<T>(items: readonly T[], query: string, text: (item: T) => string, limit: number): { item: T; match: FuzzyMatch }[] {
  const matched: { item: T; match: FuzzyMatch; at: number }[] = [];
  items.forEach((item, at) => {
    const match = fuzzyMatch(query, text(item));
    if (match) matched.push({ item, match, at });
  });
  if (query.trim() !== '') matched.sort((a, b) => b.match.score - a.match.score || a.at - b.at);
  return matched.slice(0, limit).map(({ item, match }) => ({ item, match }));
}
