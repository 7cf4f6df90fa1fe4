import { describe, expect, it } from 'vitest';
import { memoryIdentity, withinIdentity } from './identity';

const owners = { projectId: 'p-123', workspaceId: 'ws-9' };

describe('memoryIdentity', () => {
  it.each([
    ['global', ['notes', 'a.md'], 'global:notes/a.md'],
    ['project', ['a.md'], 'project:p-123:a.md'],
    ['workspace', ['a.md'], 'workspace:ws-9:a.md'],
  ] as const)('%s %j -> %s', (scope, segments, id) => {
    expect(memoryIdentity(scope, owners, segments)).toBe(id);
  });

  it('escapes `:` and `%` so no two files share a key', () => {
    const a = memoryIdentity('project', { projectId: 'p:x', workspaceId: null }, ['y.md']);
    const b = memoryIdentity('project', { projectId: 'p', workspaceId: null }, ['x:y.md']);
    expect(a).toBe('project:p%3Ax:y.md');
    expect(b).toBe('project:p:x%3Ay.md');
    expect(a).not.toBe(b);
    expect(memoryIdentity('global', owners, ['100%3A.md'])).toBe('global:100%253A.md');
    expect(memoryIdentity('global', owners, ['100:.md'])).toBe('global:100%3A.md');
  });

  it('is null when the scope has no owner', () => {
    expect(memoryIdentity('project', { projectId: null, workspaceId: 'w' }, ['a.md'])).toBeNull();
  });

  it('a directory identity prefixes its subtree only', () => {
    expect(withinIdentity('global:notes')('global:notes/a.md')).toBe(true);
    expect(withinIdentity('global:notes')('global:notes')).toBe(true);
    expect(withinIdentity('global:notes')('global:notes2/a.md')).toBe(false);
  });
});
