// The history's wording and its line diff, without a DOM: what a version did, who made it and how,
// the lines it changed, which content a restore writes back, and a diff folded around its changes.
import { describe, expect, it } from 'vitest';
import type { Version } from '../../../common/api/contract';
import { byWords, linesShort, linesWords, opWords, restoredId, versionContent, versionLabel } from './history-words';
import { countChanges, diffTexts, foldUnchanged } from './line-diff';

const now = Date.parse('2026-11-23T12:00:00Z');
const v = (over: Partial<Version>): Version => ({
  id: 'v1',
  at: new Date(now - 5 * 60_000).toISOString(),
  batch: 'v1',
  scope: 'project',
  path: '/memories/project/notes.md',
  oldPath: null,
  op: 'update',
  actor: 'agent',
  cause: 'tool',
  added: 3,
  removed: 1,
  ...over,
});

describe('what a version says', () => {
  it('names the operation, a rename by the old name and a move by the old path', () => {
    expect(opWords(v({ op: 'create' }))).toBe('Created');
    expect(opWords(v({ op: 'update' }))).toBe('Edited');
    expect(opWords(v({ op: 'delete' }))).toBe('Deleted');
    expect(opWords(v({ op: 'rename', oldPath: '/memories/project/old.md' }))).toBe('Renamed from old.md');
    expect(opWords(v({ op: 'rename', oldPath: '/memories/project/drafts/notes.md' }))).toBe('Moved from /memories/project/drafts/notes.md');
  });

  it.each([
    [{ actor: 'person', cause: 'ui' }, 'You, saved in Cairn'],
    [{ actor: 'agent', cause: 'tool' }, 'An agent, with the memory tool'],
    [{ actor: 'external', cause: 'external' }, 'Outside Cairn (another editor, git, ...)'],
    [{ actor: 'person', cause: 'undo:abc' }, 'You, with Undo'],
    [{ actor: 'person', cause: 'harvest:0abc12345-deadbeef' }, 'You, approving a proposal from the Inbox'],
    [{ actor: 'person', cause: 'review:0abc12345-deadbeef' }, "You, approving an agent's change from the Inbox"],
    [{ actor: 'person', cause: 'restore:abc' }, 'You, restoring an earlier version'],
  ] as const)('says who and how: %o reads %s', (over, text) => expect(byWords(v(over), null, now)).toBe(text));

  it('says which version a restore brought back when it is known', () => {
    expect(restoredId('restore:0001')).toBe('0001');
    expect(restoredId('ui')).toBeNull();
    expect(byWords(v({ actor: 'person', cause: 'restore:0001' }), new Date(now - 3 * 3_600_000).toISOString(), now)).toBe('You, restoring the version of 3 h ago');
  });

  it('counts lines, and says when they are not known', () => {
    expect(linesShort(v({}))).toEqual({ added: '+3', removed: '\u22121' });
    expect(linesWords(v({ added: 1, removed: 0 }))).toBe('1 line added, 0 removed');
    expect(linesShort(v({ added: null, removed: null }))).toBeNull();
    expect(linesWords(v({ added: null, removed: null }))).toBe('lines changed not known');
  });

  it('describes a whole version in one sentence (the name a screen reader reads)', () => {
    // Every word the entry shows, in its order; the signs and the time also in words, in brackets.
    expect(versionLabel(v({}), null, false, now)).toMatch(/^Edited, \+3 \u22121 \(3 lines added, 1 removed\), An agent, with the memory tool, 5 min ago \(.+\)\.$/);
    expect(versionLabel(v({}), null, true, now)).toMatch(/^Edited, latest, \+3 /);
    expect(versionLabel(v({ added: null, removed: null }), null, false, now)).toMatch(/^Edited, An agent, with the memory tool, 5 min ago \(.+\)\. Lines changed not known\.$/);
  });

  it("stands for what it left, or for a delete what it took away, and nothing when that was not recorded", () => {
    const text = (op: Version['op'], before: string | null, after: string | null, beforeKnown = true, afterKnown = true) => ({ version: { op }, before, after, beforeKnown, afterKnown });
    expect(versionContent(text('update', 'a', 'b'))).toBe('b');
    expect(versionContent(text('delete', 'a', null))).toBe('a');
    expect(versionContent(text('update', 'a', null, true, false))).toBeUndefined();
    expect(versionContent(text('delete', null, null, false, true))).toBeUndefined();
  });
});

describe('a line diff', () => {
  it('numbers each line on its side and marks what was removed and added', () => {
    const lines = diffTexts('a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(lines).toEqual([
      { kind: 'same', text: 'a', oldNo: 1, newNo: 1 },
      { kind: 'del', text: 'b', oldNo: 2 },
      { kind: 'add', text: 'B', newNo: 2 },
      { kind: 'same', text: 'c', oldNo: 3, newNo: 3 },
      { kind: 'add', text: 'd', newNo: 4 },
    ]);
    expect(countChanges(lines)).toEqual({ added: 2, removed: 1 });
  });

  it('keeps an empty line as a line', () => {
    expect(diffTexts('', 'x\n\ny\n').map((l) => l.kind === 'add' && l.text)).toEqual(['x', '', 'y']);
  });

  it('folds long unchanged runs, keeping three lines of context around each change', () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const rows = foldUnchanged(diffTexts(old, old.replace('line 10\n', 'line ten\n')));
    const shape = rows.map((r) => (r.kind === 'fold' ? `fold ${r.lines.length}` : r.kind));
    expect(shape).toEqual(['fold 6', 'same', 'same', 'same', 'del', 'add', 'same', 'same', 'same', 'fold 7']);
    // Short runs stay as they are.
    expect(foldUnchanged(diffTexts('a\nb\nc\nd\n', 'a\nb\nc\nD\n')).some((r) => r.kind === 'fold')).toBe(false);
  });
});
