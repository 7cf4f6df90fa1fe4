// The three-way merge of a draft with the file on disk (three-way-merge.ts), table-driven: what
// merges by itself, what is left to the person as a conflict, and the text each resolution gives.
import { describe, expect, it } from 'vitest';
import { mergedText, mergeThreeWay, type Resolution } from './three-way-merge';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
const text = (ls: string[], eol = '\n') => ls.join(eol) + eol;
const edit = (ls: string[], at: number, to: string | null) => {
  const copy = [...ls];
  if (to === null) copy.splice(at - 1, 1);
  else copy[at - 1] = to;
  return copy;
};
const TWELVE = lines(12);

interface Row {
  name: string;
  base: string;
  mine: string;
  theirs: string;
  /** The merged text when nothing conflicts. */
  merged?: string;
  /** The conflicts, as [mine, theirs] lines each, when some do. */
  conflicts?: Array<[string[], string[]]>;
}

const rows: Row[] = [
  {
    name: 'edits on adjacent lines (mine on 8, theirs on 9) merge',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 8, 'line 8, mine')),
    theirs: text(edit(TWELVE, 9, 'line 9, theirs')),
    merged: text(edit(edit(TWELVE, 8, 'line 8, mine'), 9, 'line 9, theirs')),
  },
  {
    name: 'edits far apart merge',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 2, 'two')),
    theirs: text(edit(TWELVE, 11, 'eleven')),
    merged: text(edit(edit(TWELVE, 2, 'two'), 11, 'eleven')),
  },
  {
    name: 'an unchanged side takes the other',
    base: text(TWELVE),
    mine: text(TWELVE),
    theirs: text(edit(TWELVE, 5, 'five')),
    merged: text(edit(TWELVE, 5, 'five')),
  },
  {
    name: 'both making the same change is no conflict',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 4, 'four')),
    theirs: text(edit(TWELVE, 4, 'four')),
    merged: text(edit(TWELVE, 4, 'four')),
  },
  {
    name: 'edits of the same line conflict',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 8, 'line 8, mine')),
    theirs: text(edit(TWELVE, 8, 'line 8, theirs')),
    conflicts: [[['line 8, mine'], ['line 8, theirs']]],
  },
  {
    name: 'a delete against an edit of the same line conflicts',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 3, null)),
    theirs: text(edit(TWELVE, 3, 'line 3, edited')),
    conflicts: [[[], ['line 3, edited']]],
  },
  {
    name: 'a delete and an edit elsewhere merge',
    base: text(TWELVE),
    mine: text(edit(TWELVE, 3, null)),
    theirs: text(edit(TWELVE, 10, 'ten')),
    merged: text(edit(edit(TWELVE, 10, 'ten'), 3, null)),
  },
  {
    name: 'two insertions at the same place conflict (their order would be a guess)',
    base: text(['a', 'b']),
    mine: text(['a', 'mine', 'b']),
    theirs: text(['a', 'theirs', 'b']),
    conflicts: [[['mine'], ['theirs']]],
  },
  {
    name: 'an insertion next to an edited line conflicts',
    base: text(['a', 'b', 'c']),
    mine: text(['a', 'new', 'b', 'c']),
    theirs: text(['a', 'B', 'c']),
    conflicts: [[['new', 'b'], ['B']]],
  },
  {
    name: 'from an empty base, different texts conflict',
    base: '',
    mine: 'mine\n',
    theirs: 'theirs\n',
    conflicts: [[['mine'], ['theirs']]], // the shared trailing newline is no part of it
  },
  {
    name: 'from an empty base, the same text merges',
    base: '',
    mine: 'same\n',
    theirs: 'same\n',
    merged: 'same\n',
  },
  {
    name: 'a CRLF file keeps its line ends though the draft has LF (the editor normalises them)',
    base: text(TWELVE, '\r\n'),
    mine: text(edit(TWELVE, 8, 'eight')),
    theirs: text(edit(TWELVE, 9, 'nine'), '\r\n'),
    merged: text(edit(edit(TWELVE, 8, 'eight'), 9, 'nine'), '\r\n'),
  },
  {
    name: 'a trailing newline removed on one side stays removed',
    base: text(['a', 'b', 'c', 'd']),
    mine: 'a\nb\nc\nd',
    theirs: text(['A', 'b', 'c', 'd']),
    merged: 'A\nb\nc\nd',
  },
  {
    name: 'a file without a trailing newline stays without one',
    base: 'a\nb\nc\nd',
    mine: 'a\nb\nc\nD',
    theirs: 'A\nb\nc\nd',
    merged: 'A\nb\nc\nD',
  },
];

describe('three-way merge of a draft with the file on disk', () => {
  it.each(rows)('$name', ({ base, mine, theirs, merged, conflicts }) => {
    const m = mergeThreeWay(base, mine, theirs);
    if (merged !== undefined) {
      expect(m.conflicts).toBe(0);
      expect(mergedText(m, [])).toBe(merged);
    } else {
      expect(m.pieces.filter((p) => p.kind === 'conflict').map((p) => (p.kind === 'conflict' ? [p.mine, p.theirs] : null))).toEqual(conflicts);
      expect(m.conflicts).toBe(conflicts!.length);
      expect(mergedText(m, [])).toBeNull(); // never decided for the person
    }
  });
});

describe('a conflict resolved piece by piece', () => {
  // Two conflicts (lines 2 and 9) around a clean edit of line 5 by the agent.
  const base = text(TWELVE);
  const mine = text(edit(edit(TWELVE, 2, 'two, mine'), 9, 'nine, mine'));
  const theirs = text(edit(edit(edit(TWELVE, 2, 'two, theirs'), 5, 'five, theirs'), 9, 'nine, theirs'));
  const m = mergeThreeWay(base, mine, theirs);
  const resolved = (rs: Resolution[]) => mergedText(m, rs)!.split('\n');

  it('keeps the clean edit and counts two conflicts', () => {
    expect(m.conflicts).toBe(2);
    expect(mergedText(m, [{ take: 'mine' }])).toBeNull();
  });

  it.each<[string, Resolution[], Record<number, string | string[]>]>([
    ['mine, then theirs', [{ take: 'mine' }, { take: 'theirs' }], { 2: 'two, mine', 5: 'five, theirs', 9: 'nine, theirs' }],
    ['theirs, then mine', [{ take: 'theirs' }, { take: 'mine' }], { 2: 'two, theirs', 5: 'five, theirs', 9: 'nine, mine' }],
    ['both (mine first)', [{ take: 'both' }, { take: 'mine' }], { 2: ['two, mine', 'two, theirs'], 6: 'five, theirs', 10: 'nine, mine' }],
    ['text written by the person', [{ text: 'two, written' }, { text: '' }], { 2: 'two, written', 5: 'five, theirs', 9: 'line 10' }],
  ])('%s', (_, rs, expected) => {
    const out = resolved(rs);
    for (const [n, want] of Object.entries(expected)) {
      const at = Number(n) - 1;
      if (Array.isArray(want)) expect(out.slice(at, at + want.length)).toEqual(want);
      else expect(out[at]).toBe(want);
    }
    expect(out.at(-1)).toBe(''); // the trailing newline survives
  });
});
