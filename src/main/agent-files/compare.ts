/**
 * Compare: what two or more files (other agents' files, Cairn memory files) state, side
 * by side, as rows of statements. A statement is what statements.ts reads (a list item, a paragraph,
 * or a line of a paragraph of one sentence per line; one line, with the line it starts at). Statements
 * of different sides are the same when their words are (harvest/checks.ts normalizedText, how the
 * inbox finds repeats), and about the same thing when they share most of their words (at least two,
 * and at least 60% of the shorter one's, memory_search's words: relevance-index.ts tokenize), so
 * "Use pnpm, not npm." and "Use npm, not pnpm.", or "Indent with 2 spaces." and "Indent with 4
 * spaces.", are one row that `differs`.
 *
 * Invariants: a row holds at most one statement per side; a statement is in one row; rows every
 * side states in the same words are only counted (`same`); the rest are `differs` (sides state it
 * in different words), `missing` (the sides that state it agree, some side does not), `only` (one
 * side states it); rows are listed differs first, then missing, then only, each by the first side
 * that states it and its line.
 */
import type { CompareResult, CompareRow } from '../../common/agent-files/schema';
import { normalizedText } from '../harvest/checks';
import { tokenize } from '../context/relevance-index';
import { statementsOf as entriesOf } from './statements';

/** The share of the shorter statement's words two statements about the same thing have in common. */
const SAME_TOPIC_OVERLAP = 0.6;
const SAME_TOPIC_MIN_WORDS = 2;

export interface CompareSide {
  readonly id: string;
  readonly label: string;
  readonly content: string;
}

interface Statement {
  readonly side: number;
  readonly line: number;
  readonly text: string;
  readonly key: string;
  readonly words: ReadonlySet<string>;
}

function statementsOf(side: number, content: string): Statement[] {
  return entriesOf(content)
    .map((e) => ({ side, line: e.line, text: e.text, key: normalizedText(e.text), words: new Set(tokenize(e.text)) }))
    .filter((s) => s.key.length > 0);
}

/** How much two statements are about the same thing: 0 (not) to 1. */
function topic(a: Statement, b: Statement): number {
  let shared = 0;
  for (const w of a.words) if (b.words.has(w)) shared++;
  if (shared < SAME_TOPIC_MIN_WORDS) return 0;
  const overlap = shared / Math.min(a.words.size, b.words.size);
  return overlap >= SAME_TOPIC_OVERLAP ? overlap : 0;
}

export function compareSides(sides: readonly CompareSide[]): CompareResult {
  const groups: Array<Array<Statement | null>> = [];
  for (let side = 0; side < sides.length; side++) {
    for (const s of statementsOf(side, sides[side]!.content)) {
      const open = groups.filter((g) => g[side] === null);
      let target = open.find((g) => g.some((c) => c !== null && c.key === s.key));
      if (!target) {
        let best = 0;
        for (const g of open) {
          const score = Math.max(...g.map((c) => (c === null ? 0 : topic(s, c))));
          if (score > best) {
            best = score;
            target = g;
          }
        }
      }
      if (!target) groups.push((target = new Array<Statement | null>(sides.length).fill(null)));
      target[side] = s;
    }
  }
  let same = 0;
  const rows: Array<CompareRow & { order: [number, number, number] }> = [];
  const rank = { differs: 0, missing: 1, only: 2 } as const;
  for (const g of groups) {
    const present = g.filter((c): c is Statement => c !== null);
    const keys = new Set(present.map((c) => c.key));
    if (present.length === sides.length && keys.size === 1) {
      same++;
      continue;
    }
    const kind = keys.size > 1 ? 'differs' : present.length === 1 ? 'only' : 'missing';
    rows.push({ kind, cells: g.map((c) => (c === null ? null : { line: c.line, text: c.text })), order: [rank[kind], present[0]!.side, present[0]!.line] });
  }
  rows.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2]);
  return { sides: sides.map(({ id, label }) => ({ id, label })), rows: rows.map(({ kind, cells }) => ({ kind, cells })), same };
}
