/**
 * Logical identities of memory files, the keys of the pins and usage sidecar: `global:<rel>`,
 * `project:<projectId>:<rel>`, `workspace:<workspaceId>:<rel>`. They follow the project and the
 * workspace, not a checkout path, so clones share pins. Components are escaped (`%` and `:`) so no
 * two files share a key whatever their names; `/` is kept, so a directory's entries share the
 * prefix `<identity of the directory>/`.
 */
import type { Scope } from './constants';

export interface ScopeOwners {
  readonly projectId: string | null;
  readonly workspaceId: string | null;
}

function escapeComponent(text: string): string {
  return text.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/** The identity of `segments` in `scope`, or null when the scope's owner is unknown. */
export function memoryIdentity(scope: Scope, owners: ScopeOwners, segments: readonly string[]): string | null {
  const owner = scopeOwner(scope, owners);
  return owner === null ? null : `${owner}:${segments.map(escapeComponent).join('/')}`;
}

/**
 * Whose scope root this is, as the prefix of its files' identities: `global`, `project:<projectId>`
 * or `workspace:<workspaceId>`; null when the session has no such owner.
 */
export function scopeOwner(scope: Scope, owners: ScopeOwners): string | null {
  switch (scope) {
    case 'global':
      return 'global';
    case 'project':
      return owners.projectId === null ? null : `project:${escapeComponent(owners.projectId)}`;
    case 'workspace':
      return owners.workspaceId === null ? null : `workspace:${escapeComponent(owners.workspaceId)}`;
  }
}

/** Whether a key is `identity` itself or lies below it (for a directory's subtree): a test for many keys. */
export function withinIdentity(identity: string): (key: string) => boolean {
  const below = `${identity}/`;
  return (key) => key === identity || key.startsWith(below);
}
