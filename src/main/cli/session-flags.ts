/**
 * The flags every memory command of the CLI shares (--cwd, --workspace, --home), and the session
 * and services they select: a --workspace registered with `cairn workspace add` (local or SSH)
 * gives that workspace's session; otherwise the session of --cwd's checkout.
 */
import { isValidWorkspaceId, resolveHome } from '../workspaces/identity';
import { WorkspaceRegistry } from '../workspaces/registry';
import { resolveLocalSession } from '../workspaces/session';
import type { MemorySession } from '../memory/memory-service';
import { UsageError } from './usage';

export const SESSION_OPTIONS = {
  cwd: { type: 'string' },
  workspace: { type: 'string' },
  home: { type: 'string' },
} as const;

export interface SessionFlags {
  cwd?: string | undefined;
  workspace?: string | undefined;
  home?: string | undefined;
}

export function checkWorkspaceFlag(flags: SessionFlags): void {
  if (flags.workspace !== undefined && !isValidWorkspaceId(flags.workspace)) {
    throw new UsageError('--workspace must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
}

export async function sessionFromFlags(flags: SessionFlags, fallbackCwd = process.cwd()): Promise<{ home: string; session: MemorySession }> {
  checkWorkspaceFlag(flags);
  const home = resolveHome(flags.home);
  // A registered workspace brings its own checkout and runtime (for SSH, --cwd has no say).
  if (flags.workspace !== undefined) {
    const registry = new WorkspaceRegistry(home);
    const entry = registry.get(flags.workspace);
    if (entry && (entry.kind === 'ssh' || flags.cwd === undefined)) return { home, session: await registry.session(flags.workspace) };
  }
  const session = await resolveLocalSession({
    home,
    cwd: flags.cwd ?? fallbackCwd,
    ...(flags.workspace ? { workspaceId: flags.workspace } : {}),
  });
  return { home, session };
}
