import { describe, expect, it } from 'vitest';
import { buildForest, filesUnder, flattenTree, type MemoryFile, type ScopeStatus } from './tree-model';

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

const show = (rows: ReturnType<typeof flattenTree>) => rows.map((r) => `${'  '.repeat(r.level - 1)}${r.kind === 'scope' ? `${r.scope} (${r.count})` : r.kind === 'dir' ? `${r.name}/ (${r.count})` : r.kind === 'file' ? r.name : r.kind === 'deleted' ? `~ recently deleted (${r.count})` : `- ${r.text}`}`);

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
