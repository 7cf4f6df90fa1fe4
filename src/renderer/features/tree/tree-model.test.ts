import { describe, expect, it } from 'vitest';
import { allOpenState, buildForest, filesUnder, flattenTree, focusAfterDelete, initialOpenState, OPEN_TREE_MAX_FILES, withOpen, type MemoryFile, type ScopeStatus } from './tree-model';

function file(path: string, description: string | null = null): MemoryFile {
  const scope = path.split('/')[2] as MemoryFile['scope'];
  return { scope, path, description, size: 1, pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null, flags: [] };
}

const all: ScopeStatus[] = [
  { scope: 'global', available: true, reason: null },
  { scope: 'project', available: true, reason: null },
  { scope: 'workspace', available: true, reason: null },
];

const files = [
  file('/memories/project/zeta.md'),
  file('/memories/project/Alpha.md', 'Build with make'),
  file('/memories/project/notes/b.md'),
  file('/memories/project/notes/deep/c.md', 'Deploy steps'),
  file('/memories/project/api/a.md'),
  file('/memories/global/prefs.md', 'Tabs, short commits'),
];

const show = (rows: ReturnType<typeof flattenTree>) => rows.map((r) => `${'  '.repeat(r.level - 1)}${r.kind === 'scope' ? `${r.scope} (${r.count})` : r.kind === 'dir' ? `${r.name}/ (${r.count})` : r.kind === 'file' ? r.name : r.kind === 'deleted' ? `~ recently deleted (${r.count})` : r.kind === 'consolidated' ? `~ consolidated ${r.at}` : r.kind === 'consolidation-waiting' ? `~ proposed ${r.summary}` : `- ${r.text}`}`);

describe('the scope tree', () => {
  it('puts directories first, then files, alphabetically, with recursive counts', () => {
    expect(show(flattenTree(buildForest(files), all, { collapsed: new Set() }))).toEqual([
      'global (1)',
      '  prefs.md',
      'project (5)',
      '  api/ (1)',
      '    a.md',
      '  notes/ (2)',
      '    deep/ (1)',
      '      c.md',
      '    b.md',
      '  Alpha.md',
      '  zeta.md',
      'workspace (0)',
      '  - No memories yet.',
    ]);
  });

  it('orders a list as the listing sends it (by code point, directory by directory) alphabetically, case-insensitive', () => {
    // Code-point order puts capitals first; the tree does not. A directory first met through a
    // deeper file still holds the files listed directly in it later.
    const listed = [
      file('/memories/workspace/Zed/deep/x.md'),
      file('/memories/workspace/Zed/Y.md'),
      file('/memories/workspace/Zed/b.md'),
      file('/memories/workspace/a.md'),
      file('/memories/workspace/b.md'),
      file('/memories/workspace/c/d/e.md'),
    ];
    expect(show(flattenTree(buildForest(listed), all, { collapsed: new Set(), scopes: ['workspace'] }))).toEqual([
      'workspace (6)',
      '  c/ (1)',
      '    d/ (1)',
      '      e.md',
      '  Zed/ (3)',
      '    deep/ (1)',
      '      x.md',
      '    b.md',
      '    Y.md',
      '  a.md',
      '  b.md',
    ]);
  });

  it('hides what is below a collapsed directory or scope', () => {
    const rows = flattenTree(buildForest(files), all, { collapsed: new Set(['/memories/project/notes', 'scope:global']) });
    expect(show(rows).slice(0, 5)).toEqual(['global (1)', 'project (5)', '  api/ (1)', '    a.md', '  notes/ (2)']);
  });

  it('says why a scope is unavailable instead of listing it', () => {
    const statuses = all.map((s) => (s.scope === 'project' ? { ...s, available: false, reason: 'No project: this folder is not in a git repository.' } : s));
    const rows = flattenTree(buildForest([]), statuses, { collapsed: new Set(), scopes: ['project'] });
    expect(show(rows)).toEqual(['project (0)', '  - No project: this folder is not in a git repository.']);
  });

  it('filters by path and description, every word, opening the directories of matches', () => {
    const rows = flattenTree(buildForest(files), all, { collapsed: new Set(['/memories/project/notes']), filter: 'deploy STEPS' });
    expect(show(rows)).toEqual(['global (0)', '  - Nothing matches the filter.', 'project (1)', '  notes/ (1)', '    deep/ (1)', '      c.md', 'workspace (0)', '  - Nothing matches the filter.']);
  });

  it('starts a scope with its consolidation waiting for review and its last consolidation still in place, not while filtering nor when closed', () => {
    const consolidated = { project: { at: '2026-11-25T10:00:00.000Z', batch: 'b1' } };
    const rows = flattenTree(buildForest(files.filter((f) => f.scope === 'project' && !f.path.includes('/notes/'))), all, { collapsed: new Set(), consolidated });
    expect(show(rows)).toEqual(['global (0)', '  - No memories yet.', 'project (3)', '  ~ consolidated 2026-11-25T10:00:00.000Z', '  api/ (1)', '    a.md', '  Alpha.md', '  zeta.md', 'workspace (0)', '  - No memories yet.']);
    expect(rows.find((r) => r.kind === 'consolidated')).toMatchObject({ parentId: 'scope:project', batch: 'b1' });
    expect(show(flattenTree(buildForest(files), all, { collapsed: new Set(), consolidated, filter: 'zeta' })).some((l) => l.includes('consolidated'))).toBe(false);
    expect(show(flattenTree(buildForest(files), all, { collapsed: new Set(['scope:project']), consolidated })).some((l) => l.includes('consolidated'))).toBe(false);
    // A proposal waiting for review comes first.
    const waiting = { project: { at: '2026-11-27T10:00:00.000Z', summary: '2 deletions' } };
    expect(show(flattenTree(buildForest([]), all, { collapsed: new Set(), consolidated, waiting }))).toEqual(['global (0)', '  - No memories yet.', 'project (0)', '  ~ proposed 2 deletions', '  ~ consolidated 2026-11-25T10:00:00.000Z', '  - No memories yet.', 'workspace (0)', '  - No memories yet.']);
  });

  it('ends each available scope with its recently deleted files, even an empty one, but not while filtering', () => {
    const deleted = { global: 2, workspace: 1 };
    const rows = flattenTree(buildForest(files.filter((f) => f.scope !== 'project')), all, { collapsed: new Set(), deleted });
    expect(show(rows)).toEqual(['global (1)', '  prefs.md', '  ~ recently deleted (2)', 'project (0)', '  - No memories yet.', 'workspace (0)', '  - No memories yet.', '  ~ recently deleted (1)']);
    expect(rows.find((r) => r.kind === 'deleted')?.parentId).toBe('scope:global');
    // Collapsed scopes, unavailable ones and a filter show none.
    expect(show(flattenTree(buildForest(files), all, { collapsed: new Set(['scope:global']), deleted }))).not.toContain('  ~ recently deleted (2)');
    const unavailable = all.map((s) => (s.scope === 'workspace' ? { ...s, available: false, reason: 'gone' } : s));
    expect(show(flattenTree(buildForest(files), unavailable, { collapsed: new Set(), deleted }))).not.toContain('  ~ recently deleted (1)');
    expect(show(flattenTree(buildForest(files), all, { collapsed: new Set(), deleted, filter: 'prefs' })).some((l) => l.includes('recently deleted'))).toBe(false);
  });

  it('counts the files a directory delete takes with it', () => {
    expect(filesUnder(files, '/memories/project/notes')).toBe(2);
    expect(filesUnder(files, '/memories/project/not')).toBe(0);
  });
});

describe('how the tree starts, and Collapse all / Expand all', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => file(`/memories/global/topic-${i % 4}/sub/f${String(i).padStart(4, '0')}.md`));

  it('a small tree starts fully open; over OPEN_TREE_MAX_FILES files, scopes open and directories closed', () => {
    const small = many(OPEN_TREE_MAX_FILES);
    expect(flattenTree(buildForest(small), all, initialOpenState(small.length)).filter((r) => r.kind === 'file')).toHaveLength(OPEN_TREE_MAX_FILES);
    const large = many(1000);
    expect(show(flattenTree(buildForest(large), all, initialOpenState(large.length)))).toEqual([
      'global (1000)',
      '  topic-0/ (250)',
      '  topic-1/ (250)',
      '  topic-2/ (250)',
      '  topic-3/ (250)',
      'project (0)',
      '  - No memories yet.',
      'workspace (0)',
      '  - No memories yet.',
    ]);
  });

  it('a directory the person opens stays open while others are closed by default; Collapse all closes it again', () => {
    let state = initialOpenState(1000);
    state = withOpen(state, '/memories/global/topic-1', 'dir');
    const rows = flattenTree(buildForest(many(1000)), all, state);
    expect(show(rows).slice(0, 5)).toEqual(['global (1000)', '  topic-0/ (250)', '  topic-1/ (250)', '    sub/ (250)', '  topic-2/ (250)']);
    expect(show(flattenTree(buildForest(many(1000)), all, allOpenState(false))).slice(0, 3)).toEqual(['global (1000)', '  topic-0/ (250)', '  topic-1/ (250)']);
  });

  it('a directory first opened after the tree was drawn closed shows its files in the chosen order', () => {
    const used = (path: string, at: string | null) => ({ ...file(path), lastAccessedAt: at });
    const listed = [used('/memories/global/b/z.md', '2026-11-20T10:00:00.000Z'), used('/memories/global/b/Y.md', null), used('/memories/global/b/x.md', '2026-11-21T10:00:00.000Z'), used('/memories/global/a.md', null)];
    for (const [sort, order] of [
      ['name', ['x.md', 'Y.md', 'z.md']],
      ['used', ['x.md', 'z.md', 'Y.md']],
    ] as const) {
      const forest = buildForest(listed, sort);
      expect(show(flattenTree(forest, all, { ...allOpenState(false), scopes: ['global'] }))).toEqual(['global (4)', '  b/ (3)', '  a.md']);
      const opened = flattenTree(forest, all, { ...withOpen(allOpenState(false), '/memories/global/b', 'dir', true), scopes: ['global'] });
      expect(show(opened)).toEqual(['global (4)', '  b/ (3)', ...order.map((n) => `    ${n}`), '  a.md']);
    }
  });

  it('Collapse all keeps scopes open and closes directories; Expand all opens every scope and directory', () => {
    let state = withOpen(allOpenState(true), 'scope:global', 'scope', false);
    expect(show(flattenTree(buildForest(files), all, state))[0]).toBe('global (1)');
    expect(show(flattenTree(buildForest(files), all, state))[1]).toBe('project (5)');
    state = allOpenState(false);
    expect(show(flattenTree(buildForest(files), all, state))).toEqual([
      'global (1)',
      '  prefs.md',
      'project (5)',
      '  api/ (1)',
      '  notes/ (2)',
      '  Alpha.md',
      '  zeta.md',
      'workspace (0)',
      '  - No memories yet.',
    ]);
    expect(flattenTree(buildForest(files), all, allOpenState(true)).filter((r) => r.kind === 'file')).toHaveLength(6);
  });
});

describe('the focus after a delete', () => {
  const rows = flattenTree(buildForest(files), all, { collapsed: new Set() });
  const ids = (id: string) => focusAfterDelete(rows, id).slice(0, 3);

  it('goes to the next sibling, else the rows above, nearest first', () => {
    expect(ids('/memories/project/Alpha.md')[0]).toBe('/memories/project/zeta.md');
    // The last of its directory: the row above.
    expect(ids('/memories/project/zeta.md')).toEqual(['/memories/project/Alpha.md', '/memories/project/notes/b.md', '/memories/project/notes/deep/c.md']);
    // A directory's own rows go with it: its next sibling is after them.
    expect(ids('/memories/project/notes')[0]).toBe('/memories/project/Alpha.md');
    // Alone in its directory (which disappears with it): the directory, then what is above it.
    expect(ids('/memories/project/notes/deep/c.md')).toEqual(['/memories/project/notes/deep', '/memories/project/notes', '/memories/project/api/a.md']);
    expect(focusAfterDelete(rows, 'scope:project')).toEqual([]);
  });
});

