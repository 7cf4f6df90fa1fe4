/**
 * The `rules` consolidation extractor, offline and deterministic:
 * - delete each file the host found unused for `days` (ConsolidationInput.stale);
 * - merge files saying the same thing: two files whose word sets (harvest/checks.ts
 *   normalizedText) overlap by at least MERGE_MIN_OVERLAP (Jaccard: shared words over all words)
 *   are near-duplicates; each group of them keeps its most used file (pinned first, then decayed
 *   usage, uses, path), which gets the others' lines it lacks appended; the others are deleted.
 * It never rewrites (only a model can shorten or correct a file).
 *
 * Cost: words become integer ids and each file a sorted id array, so a pair costs one merge of two
 * arrays; only pairs sharing one of their rarest words are compared (prefix filtering, see
 * duplicateGroups), and of those only pairs whose sizes allow the threshold. bench/consolidation.ts has
 * the whole proposal's figures for 1000 files.
 */
import { frontmatterBody } from '../../common/memory/frontmatter-block';
import { normalizedText } from '../harvest/checks';
import type { ProposedChange, ConsolidationExtractor, ConsolidationFileInput, ConsolidationInput } from './extractor';

/** Shared words over all words of two files, at or above which they say the same thing. */
export const MERGE_MIN_OVERLAP = 0.8;
/** Files with fewer distinct words than this are never called duplicates (too little to judge). */
export const MERGE_MIN_WORDS = 4;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The day (UTC) of an ISO time. */
const dayOf = (iso: string) => iso.slice(0, 10);

/** Why a file is proposed for deletion, from its usage, as a person reads it. */
function unusedReason(file: ConsolidationFileInput, now: number, days: number): string {
  const u = file.usage;
  const last = u.lastAccessedAt;
  const used = last === null ? `never used by an agent` : `not used for ${Math.floor((now - Date.parse(last)) / DAY_MS)} days (last use ${dayOf(last)}, ${u.accessCount} ${u.accessCount === 1 ? 'use' : 'uses'} in all)`;
  const unchanged = Math.floor((now - Math.max(file.mtimeMs, u.lastWriteAt === null ? 0 : Date.parse(u.lastWriteAt))) / DAY_MS);
  return `${used}; unchanged for ${unchanged} days; not pinned (threshold: ${days} days)`;
}

/** Distinct words of a text as sorted integer ids (ids from `dict`, grown as needed). */
function wordIds(text: string, dict: Map<string, number>): Int32Array {
  const ids = new Set<number>();
  for (const word of normalizedText(text).split(' ')) {
    if (word === '') continue;
    let id = dict.get(word);
    if (id === undefined) dict.set(word, (id = dict.size));
    ids.add(id);
  }
  return Int32Array.from(ids).sort();
}

function sharedCount(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! === b[j]!) {
      n++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return n;
}

/** The lines of a text outside its frontmatter block (common/memory/frontmatter-block.ts). */
function bodyLines(text: string): string[] {
  return frontmatterBody(text).split(/\r?\n/);
}

/** Two lines this alike (shared words of all their words) say the same thing, one perhaps more fully. */
const NEAR_LINE_OVERLAP = 0.75;
/** Lines shorter than this many words are the same only when equal (headings, one-word items). */
const NEAR_LINE_MIN_WORDS = 4;

/** Whether two lines' word sets are near-identical: one holds the other, or they share NEAR_LINE_OVERLAP of all. */
function nearLines(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size < NEAR_LINE_MIN_WORDS || b.size < NEAR_LINE_MIN_WORDS) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared === Math.min(a.size, b.size) || shared / (a.size + b.size - shared) >= NEAR_LINE_OVERLAP;
}

const lineWords = (line: string): Set<string> => new Set(normalizedText(line).split(' ').filter((w) => w !== ''));

/**
 * The kept file's text with the others' lines it lacks (compared as normalised words) appended;
 * null when it lacks none. A line near-identical to one of the kept file's (one holds the other's
 * words, or most are shared) is no new line: the one with more words stays, in the kept line's
 * place, so a merge never leaves two versions of one statement side by side.
 */
export function mergedText(kept: string, others: readonly string[]): string | null {
  const lines = kept.split('\n');
  const have = new Set(lines.map(normalizedText).filter((l) => l !== ''));
  // Every line a merged line may be near: the kept file's (by index) and those appended so far.
  const keptWords = lines.map(lineWords);
  const added: Array<{ line: string; words: Set<string> }> = [];
  let replaced = false;
  for (const other of others) {
    for (const raw of bodyLines(other)) {
      const key = normalizedText(raw);
      if (key === '' || have.has(key)) continue;
      have.add(key);
      const line = raw.replace(/\s+$/, '');
      const words = lineWords(line);
      const inKept = keptWords.findIndex((k) => nearLines(k, words));
      if (inKept >= 0) {
        if (words.size > keptWords[inKept]!.size) {
          lines[inKept] = line;
          keptWords[inKept] = words;
          replaced = true;
        }
        continue;
      }
      const inAdded = added.find((a) => nearLines(a.words, words));
      if (inAdded) {
        if (words.size > inAdded.words.size) Object.assign(inAdded, { line, words });
        continue;
      }
      added.push({ line, words });
    }
  }
  if (added.length === 0 && !replaced) return null;
  const base = lines.join('\n');
  if (added.length === 0) return base;
  return `${base}${base === '' || base.endsWith('\n') ? '' : '\n'}${added.map((a) => a.line).join('\n')}\n`;
}

/** Which of two files a merge keeps: pinned, then most used (decayed), then most uses, then path. */
function keptFirst(a: ConsolidationFileInput, b: ConsolidationFileInput): number {
  if (a.usage.pinned !== b.usage.pinned) return a.usage.pinned ? -1 : 1;
  if (a.score !== b.score) return b.score - a.score;
  if (a.usage.accessCount !== b.usage.accessCount) return b.usage.accessCount - a.usage.accessCount;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Groups of near-duplicate files (each of at least two), with the lowest overlap inside each. */
export function duplicateGroups(files: readonly ConsolidationFileInput[]): Array<{ files: ConsolidationFileInput[]; overlap: number }> {
  const dict = new Map<string, number>();
  const sets = files.map((f) => ({ f, ids: wordIds(f.content, dict) })).filter((x) => x.ids.length >= MERGE_MIN_WORDS);
  // Prefix filtering: with each set's words ordered rarest first, two sets sharing at least
  // MERGE_MIN_OVERLAP of their words share one of the first |set| - ceil(t * |set|) + 1 of them
  // (a set missing all of those lacks more than a 1 - t share). Only pairs found through such a
  // word are compared, so unrelated files cost nothing.
  const df = new Int32Array(dict.size);
  for (const { ids } of sets) for (const id of ids) df[id]!++;
  const byWord = new Map<number, number[]>();
  const parent = sets.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const minOverlap = new Map<number, number>();
  const seenWith = new Int32Array(sets.length).fill(-1);
  sets.forEach(({ ids }, i) => {
    const rarest = [...ids].sort((a, b) => df[a]! - df[b]! || a - b);
    const prefix = rarest.slice(0, ids.length - Math.ceil(MERGE_MIN_OVERLAP * ids.length) + 1);
    for (const word of prefix) {
      const others = byWord.get(word) ?? byWord.set(word, []).get(word)!;
      for (const j of others) {
        if (seenWith[j] === i) continue;
        seenWith[j] = i;
        const other = sets[j]!.ids;
        const [small, large] = other.length < ids.length ? [other, ids] : [ids, other];
        if (small.length < MERGE_MIN_OVERLAP * large.length) continue;
        const shared = sharedCount(ids, other);
        const overlap = shared / (ids.length + other.length - shared);
        if (overlap < MERGE_MIN_OVERLAP) continue;
        const ri = find(i);
        const rj = find(j);
        const low = Math.min(overlap, minOverlap.get(ri) ?? 1, minOverlap.get(rj) ?? 1);
        parent[rj] = ri;
        minOverlap.set(ri, low);
      }
      others.push(i);
    }
  });
  const groups = new Map<number, ConsolidationFileInput[]>();
  sets.forEach((s, i) => {
    const root = find(i);
    (groups.get(root) ?? groups.set(root, []).get(root)!).push(s.f);
  });
  return [...groups.entries()].filter(([, g]) => g.length >= 2).map(([root, g]) => ({ files: g.sort(keptFirst), overlap: minOverlap.get(root) ?? 1 }));
}

const percent = (x: number) => `${Math.floor(x * 100)}%`;
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

export function rulesProposals(input: ConsolidationInput): ProposedChange[] {
  const out: ProposedChange[] = [];
  const merged = new Set<string>();
  for (const { files, overlap } of duplicateGroups(input.files)) {
    // Never merge a pinned file away: a group keeps its first (pinned or most used) file, and
    // other pinned ones stay out of the merge.
    const [keep, ...rest] = files;
    const others = rest.filter((f) => !f.usage.pinned);
    if (!keep || others.length === 0) continue;
    const content = mergedText(keep.content, others.map((f) => f.content));
    const same = others.every((f) => f.sha256 === keep.sha256);
    const uses = keep.usage.accessCount;
    out.push({
      kind: 'merge',
      keep: keep.path,
      others: others.map((f) => f.path),
      ...(content === null ? {} : { content }),
      reason: `${others.map((f) => nameOf(f.path)).join(', ')} ${others.length === 1 ? 'says' : 'say'} the same as ${nameOf(keep.path)} (${same ? 'identical' : `${percent(overlap)} of words shared`}); keeps ${nameOf(keep.path)}, ${keep.usage.pinned ? 'pinned' : uses === 0 ? 'none of them used (the first by name)' : `the most used (${uses} ${uses === 1 ? 'use' : 'uses'})`}${content === null ? '' : ', with the lines it lacks'}`,
    });
    merged.add(keep.path);
    for (const f of others) merged.add(f.path);
  }
  const byPath = new Map(input.files.map((f) => [f.path, f]));
  for (const path of input.stale) {
    const file = byPath.get(path);
    if (!file || merged.has(path)) continue;
    out.push({ kind: 'delete', path, reason: unusedReason(file, input.now, input.days) });
  }
  return out;
}

export const rulesExtractor: ConsolidationExtractor = {
  name: 'rules',
  offline: true,
  propose: (input) => Promise.resolve({ changes: rulesProposals(input) }),
};
