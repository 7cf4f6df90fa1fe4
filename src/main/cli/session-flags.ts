/**
 * The flags every memory command of the CLI shares (--cwd, --workspace, --home), and the session
 * and services they select.
 */
import { isValidWorkspaceId, resolveHome } from '../workspaces/identity';
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
  const session = await resolveLocalSession({
    home,
    cwd: flags.cwd ?? fallbackCwd,
    ...(flags.workspace ? { workspaceId: flags.workspace } : {}),
  });
  return { home, session };
}
