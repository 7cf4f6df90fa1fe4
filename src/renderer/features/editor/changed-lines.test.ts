// Where a followed file changed: the lines of the new text, said in words, and the lines marked.
import { describe, expect, it } from 'vitest';
import { describeLineChanges, lineChanges, markedLines } from './changed-lines';

const text = (...lines: string[]) => `${lines.join('\n')}\n`;
const base = text('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j');

describe('lines an edit changed', () => {
  it.each([
    ['two lines rewritten', text('a', 'b', 'c', 'd', 'e', 'f', 'g', 'H', 'I', 'j'), [[8, 9]], [], 'lines 8-9 changed'],
    ['one line rewritten', text('a', 'b', 'C', 'd', 'e', 'f', 'g', 'h', 'i', 'j'), [[3, 3]], [], 'line 3 changed'],
    ['two places', text('A', 'b', 'c', 'd', 'e', 'f', 'g', 'H', 'I', 'j'), [[1, 1], [8, 9]], [], 'lines 1, 8-9 changed'],
    ['a line added at the end', `${base}k\n`, [[11, 11]], [], 'line 11 changed'],
    ['lines removed', text('a', 'b', 'e', 'f', 'g', 'h', 'i', 'j'), [], [{ count: 2, before: 3 }], '2 lines removed before line 3'],
  ])('%s', (_name, after, changed, removed, words) => {
    const changes = lineChanges(base, after);
    expect(changes.changed).toEqual(changed);
    expect(changes.removed).toEqual(removed);
    expect(describeLineChanges(changes)).toBe(words);
  });

  it('marks the changed lines, and the line after a removal, within the text', () => {
    expect(markedLines({ changed: [[2, 3]], removed: [{ count: 1, before: 9 }] }, 8)).toEqual([2, 3, 8]);
    expect(describeLineChanges(lineChanges(base, base))).toBe('nothing changed in the text');
  });
});
