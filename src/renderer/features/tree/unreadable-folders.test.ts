// A folder Cairn cannot read (the server's ScopeStatus.unreadableFolders) is a row of its own in
// the tree, marked unreadable, never left out as if absent nor shown as an empty folder; a scope
// holding nothing else does not say "No memories yet."
import { describe, expect, it } from 'vitest';
import { buildForest, flattenTree, type MemoryFile, type ScopeStatus } from './tree-model';

function file(path: string): MemoryFile {
  const scope = path.split('/')[2] as MemoryFile['scope'];
  return { scope, path, description: null, size: 1, pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null, flags: [] };
}

const statuses: ScopeStatus[] = [
  { scope: 'global', available: true, reason: null },
  { scope: 'project', available: true, reason: null, unreadableFolders: ['/memories/project/notes/secret'] },
  { scope: 'workspace', available: true, reason: null, unreadableFolders: ['/memories/workspace/locked'] },
];
const unreadable = statuses.flatMap((s) => s.unreadableFolders ?? []);

const show = (rows: ReturnType<typeof flattenTree>) =>
  rows.map((r) => `${'  '.repeat(r.level - 1)}${r.kind === 'scope' ? `${r.scope} (${r.count})` : r.kind === 'dir' ? `${r.name}/ ${r.unreadable ? '(cannot read)' : `(${r.count})`}` : r.kind === 'file' ? r.name : r.kind === 'note' ? `- ${r.text}` : r.kind}`);

describe('a folder Cairn cannot read, in the tree', () => {
  it('is a row marked unreadable under its parents, and its scope is not "No memories yet."', () => {
    const forest = buildForest([file('/memories/project/notes/a.md'), file('/memories/project/b.md')], 'name', unreadable);
    expect(show(flattenTree(forest, statuses, { collapsed: new Set() }))).toEqual([
      'global (0)',
      '  - No memories yet.',
      'project (2)',
      '  notes/ (1)',
      '    secret/ (cannot read)',
      '    a.md',
      '  b.md',
      'workspace (0)',
      '  locked/ (cannot read)',
    ]);
  });

  it('matches no filter (nothing of it is known) and is absent without the server saying so', () => {
    const forest = buildForest([file('/memories/project/notes/a.md')], 'name', unreadable);
    expect(show(flattenTree(forest, statuses, { collapsed: new Set(), scopes: ['workspace'], filter: 'locked' }))).toEqual(['workspace (0)', '  - Nothing matches the filter.']);
    expect(show(flattenTree(buildForest([file('/memories/project/notes/a.md')]), statuses, { collapsed: new Set(), scopes: ['workspace'] }))).toEqual(['workspace (0)', '  - No memories yet.']);
  });
});
