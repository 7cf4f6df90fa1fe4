// The tree's anchor and the new files out of view, over rows built by tree-model as the tree draws them.
import { describe, expect, it } from 'vitest';
import { anchorOf, arrivalsOutOfView, rowStarts } from './tree-anchor';
import { buildForest, flattenTree, type MemoryFile, type Row } from './tree-model';
import { ROW_HEIGHT } from './TreeRow';

const file = (name: string): MemoryFile => ({ scope: 'project', path: `/memories/project/${name}`, description: null, size: 1, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null, pinned: false, flags: [] }) as unknown as MemoryFile;
const rowsOf = (names: string[]): Row[] =>
  flattenTree(buildForest(names.map(file)), [
    { scope: 'global', available: false, reason: 'none' },
    { scope: 'project', available: true, reason: null },
    { scope: 'workspace', available: false, reason: 'none' },
  ] as never, { dirsOpen: true, collapsed: new Set(), expanded: new Set() } as never).filter((r) => r.scope === 'project');
const names = (from: number, n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${String(from + i).padStart(3, '0')}.md`);

describe('the anchor', () => {
  const before = rowsOf([...names(0, 50, 'm'), 'react.md', ...names(0, 50, 's')]);
  const starts = rowStarts(before, ROW_HEIGHT);
  const open = '/memories/project/react.md';
  const at = before.findIndex((r) => r.id === open);

  it('is the open file in view, and putting it back after rows arrive above leaves it where it was on screen', () => {
    const view = { top: starts[at]! - 200, height: 600 };
    const anchor = anchorOf(before, starts, view, open)!;
    expect(anchor).toEqual({ id: open, offset: 200 });
    const after = rowsOf([...names(0, 5, 'a'), ...names(0, 50, 'm'), 'react.md', ...names(0, 50, 's')]);
    const afterStarts = rowStarts(after, ROW_HEIGHT);
    const newTop = afterStarts[after.findIndex((r) => r.id === open)]! - anchor.offset;
    expect(newTop - view.top).toBe(5 * ROW_HEIGHT.file);
  });

  it('is the first row in view when the open file is out of it (or none is open)', () => {
    const view = { top: starts[10]! + 10, height: 300 };
    expect(anchorOf(before, starts, view, open)).toEqual({ id: before[10]!.id, offset: -10 });
    expect(anchorOf(before, starts, view, null)).toEqual({ id: before[10]!.id, offset: -10 });
    expect(anchorOf([], [0], view, null)).toBeNull();
  });
});

describe('new files out of view', () => {
  it('are counted above and below in the tree order; those in view are seen', () => {
    const rows = rowsOf([...names(0, 5, 'a'), ...names(0, 50, 'm'), ...names(0, 50, 's')]);
    const starts = rowStarts(rows, ROW_HEIGHT);
    const view = { top: starts[30]!, height: 10 * ROW_HEIGHT.file };
    const p = (n: string) => `/memories/project/${n}`;
    const arrivals = new Set([p('a-004.md'), p('a-000.md'), p('s-040.md'), p('m-030.md'), p('gone.md')]);
    const out = arrivalsOutOfView(rows, starts, view, arrivals);
    expect(out).toEqual({ above: [p('a-000.md'), p('a-004.md')], below: [p('s-040.md')], seen: [p('m-030.md')] });
  });
});
