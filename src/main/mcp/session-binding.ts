/**
 * Which memory session an MCP client gets, by whichever transport it came: an explicit workspace
 * id, else the registered workspace whose checkout contains the client's directory (the deepest
 * one), else a workspace registered automatically for the git root of that directory, else a
 * session for the directory alone (global scope, and the workspace scope keyed by the directory).
 */
import * as path from 'node:path';
import type { MemorySession } from '../memory/session';
import { findGitRoot } from '../workspaces/identity';
import type { WorkspaceEntry, WorkspaceRegistry } from '../workspaces/registry';
import { resolveLocalSession } from '../workspaces/session';
import { SettingsFileError } from '../workspaces/settings-file-error';

/** The session of an agent started in `cwd` (see the module header for the rules). */
export async function mcpSession(registry: WorkspaceRegistry, cwd: string, workspaceId?: string): Promise<MemorySession> {
  if (workspaceId) return registry.session(workspaceId);
  const dir = path.resolve(cwd);
  let registered: WorkspaceEntry[];
  try {
    registered = registry.list();
  } catch (err) {
    // config.json does not parse: the checkout's own session, registered nowhere (nothing is
    // written over the file); reads work, and review mode refuses agents' writes meanwhile.
    if (err instanceof SettingsFileError) return resolveLocalSession({ home: registry.home, cwd: dir }, registry.local);
    throw err;
  }
  const containing = deepestContaining(registered, dir);
  if (containing) return registry.session(containing.id);
  const gitRoot = await findGitRoot(dir);
  if (gitRoot) {
    const entry = await registry.add(path.basename(gitRoot), gitRoot);
    return registry.session(entry.id);
  }
  return resolveLocalSession({ home: registry.home, cwd: dir }, registry.local);
}

/**
 * The deepest of `workspaces` whose checkout contains the absolute directory `dir`. Only local
 * checkouts contain a local directory: an SSH workspace's path is on another machine. Light (no
 * registry), so that `cairn mcp`'s early answer applies the same rule (cli/mcp-command.ts).
 */
export function deepestContaining<W extends { readonly kind: string; readonly path: string }>(workspaces: readonly W[], dir: string): W | undefined {
  return workspaces.filter((w) => w.kind === 'local' && (dir === w.path || dir.startsWith(`${w.path}${path.sep}`))).sort((a, b) => b.path.length - a.path.length)[0];
}
