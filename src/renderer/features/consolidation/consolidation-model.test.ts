// The consolidation view's words and choices (consolidation-model.ts) and the side-by-side pairing of a
// line diff (SideBySideDiff's pairRows), on a fixed clock.
import { describe, expect, it } from 'vitest';
import type { ConsolidationFile, ConsolidationProposal } from '../../../common/consolidation/proposal';
import { diffTexts, foldUnchanged } from '../history/line-diff';
import { pairRows } from './SideBySideDiff';
import { diffedFiles, fileFate, lastConsolidations, nothingWhy, resultHeadline, sinceText, skippedText, sourceOf, usageText } from './consolidation-model';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
const usage = { pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null };
const file = (path: string, extra: Partial<ConsolidationFile> = {}): ConsolidationFile => ({ path, sha256: '0'.repeat(64), usage, ...extra });

describe('the consolidation view model', () => {
  it('says what happens to each file of a change, a rename included', () => {
    expect(fileFate({ kind: 'delete', path: '/a' }, file('/a', { content: null }))).toBe('deleted');
    expect(fileFate({ kind: 'merge', path: '/a' }, file('/a', { content: 'x' }))).toBe('kept, with the lines it lacks');
    expect(fileFate({ kind: 'merge', path: '/a' }, file('/a'))).toBe('kept as it is');
    expect(fileFate({ kind: 'merge', path: '/a' }, file('/b', { content: null }))).toBe('merged away (deleted)');
    expect(fileFate({ kind: 'rewrite', path: '/a' }, file('/a', { content: 'y' }))).toBe('rewritten');
    expect(fileFate({ kind: 'rename', path: '/old' }, file('/old', { content: null }))).toBe('the old name (goes)');
    expect(fileFate({ kind: 'rename', path: '/old' }, file('/new', { content: 'x', created: true }))).toBe('the new name (created)');
  });

  it('diffs a renamed file against its old name, and a created file from nothing', () => {
    const rename = { files: [file('/old', { content: null }), file('/new', { content: 'x', created: true })] };
    expect(sourceOf(rename, rename.files[1]!)?.path).toBe('/old');
    expect(diffedFiles(rename).map((f) => f.path)).toEqual(['/new']);
    const intoNew = { files: [file('/a', { content: null }), file('/b', { content: null }), file('/ab', { content: 'x', created: true })] };
    expect(sourceOf(intoNew, intoNew.files[2]!)).toBeNull();
    expect(diffedFiles(intoNew).map((f) => f.path)).toEqual(['/a', '/b', '/ab']);
  });

  it('puts usage in words', () => {
    expect(usageText(usage, NOW)).toBe('Never used by an agent');
    expect(usageText({ ...usage, accessCount: 3, lastAccessedAt: ago(95), lastWriteAt: ago(200) }, NOW)).toBe('Used 3×, last 2026-08-25 · last written 2026-05-12');
    expect(usageText({ ...usage, pinned: true, accessCount: 1, lastAccessedAt: ago(2) }, NOW)).toBe('Pinned · used 1×, last 2 d ago');
  });

  it('says what changed since the last consolidation, and why there is nothing to do', () => {
    expect(sinceText({ last: null, changed: [], total: 0 }, NOW)).toBe('This scope was never consolidated.');
    expect(sinceText({ last: { id: 'x', at: ago(3) }, changed: [], total: 0 }, NOW)).toBe('Nothing changed since the last consolidation (3 d ago).');
    expect(sinceText({ last: { id: 'x', at: ago(3) }, changed: [], total: 1 }, NOW)).toBe('1 file changed since the last consolidation (3 d ago).');
    expect(nothingWhy('global', 60, { last: { id: 'x', at: ago(3) }, changed: [], total: 0 }, NOW)).toMatch(/^No file in global memory has gone unused for 60 days, .* Nothing changed since the last consolidation \(3 d ago\)\.$/);
  });

  it('reports an apply: applied, skipped (a conflict in words), nothing applied', () => {
    const skipped = { path: '/memories/project/a.md', file: '/memories/project/a.md', kind: 'changed' as const, message: 'changed' };
    expect(resultHeadline({ at: ago(0), batch: 'b', applied: ['x', 'y'], skipped: [] })).toBe('Applied 2 changes as one change you can undo.');
    expect(resultHeadline({ at: ago(0), batch: 'b', applied: ['x'], skipped: [skipped] })).toBe('Applied 1 change as one change you can undo. 1 change was skipped (a conflict: the file changed since the proposal).');
    expect(resultHeadline({ at: ago(0), batch: null, applied: [], skipped: [skipped] })).toMatch(/^Applied nothing: the change chosen was skipped/);
    expect(skippedText(skipped)).toBe('Skipped /memories/project/a.md: /memories/project/a.md was changed since the proposal, so this change was not applied.');
  });

  it("finds each scope's last applied consolidation that wrote something", () => {
    const p = (id: string, scope: ConsolidationProposal['scope'], state: ConsolidationProposal['state'], at: string | null, batch: string | null) =>
      ({ id, scope, state, result: at === null ? null : { at, batch, applied: [], skipped: [] } }) as unknown as ConsolidationProposal;
    const last = lastConsolidations([p('a', 'project', 'open', null, null), p('b', 'project', 'applied', ago(1), 'b1'), p('c', 'project', 'applied', ago(5), 'c1'), p('d', 'global', 'applied', ago(2), null), p('e', 'global', 'discarded', null, null)]);
    expect(last).toEqual({ project: { id: 'b', scope: 'project', at: ago(1), batch: 'b1' } });
  });

  it('pairs removed lines with the lines added in their place, side by side', () => {
    const pairs = pairRows(foldUnchanged(diffTexts('a\nb\nc\n', 'a\nB\nB2\nc\n')));
    const text = (c: { text: string } | null) => (c === null ? null : c.text);
    expect(pairs.map((p) => (p.kind === 'pair' ? [text(p.left), text(p.right)] : 'fold'))).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      [null, 'B2'],
      ['c', 'c'],
    ]);
  });
});
