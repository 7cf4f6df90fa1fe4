/**
 * Builds the MemorySession of an agent or a command from where it runs: the global scope under the
 * home, the workspace scope of its checkout, and the project scope at the checkout's git root, all
 * reached through the runtime it is given (the process's one LocalRuntime; see
 * src/main/host/home-services.ts). Named and remote workspaces: ./registry.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Scope } from '../../common/memory/constants';
import type { MemorySession, ScopeBinding } from '../memory/session';
import { ownershipProblem, userNameOf } from '../runtime/local/ownership';
import type { Runtime } from '../runtime/runtime';
import { findGitRoot, projectIdFor, ROOT_COMMITS_CACHE, workspaceIdFor } from './identity';

export interface SessionRequest {
  readonly home: string;
  /** Directory the agent runs in; the project is the git repository containing it. */
  readonly cwd: string;
  /** An explicit workspace id; default: derived from the checkout. */
  readonly workspaceId?: string;
}

export const NO_PROJECT_REASON =
  'the working directory is not inside a git repository, so there is no project. Project memory lives in .cairn/memory at the root of a git checkout; use /memories/workspace or /memories/global instead.';

export function globalRoot(home: string): string {
  return path.join(home, 'memory', 'global');
}

export function workspaceRoot(home: string, workspaceId: string): string {
  return path.join(home, 'workspaces', workspaceId, 'memory');
}

export function projectRoot(checkout: string): string {
  return path.join(checkout, '.cairn', 'memory');
}

/**
 * Why the checkout at `gitRoot` (or its `.git`) is not used for project memory: it belongs to
 * another user (root aside), as git's "dubious ownership" rule has it. Null when it is the person's.
 * The reason names no host path (a model reads it).
 */
function foreignCheckoutReason(gitRoot: string): string | null {
  for (const dir of [gitRoot, path.join(gitRoot, '.git')]) {
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    const problem = st ? ownershipProblem(st, { private: false }) : null;
    if (problem?.kind === 'owner') {
      const what = dir === gitRoot ? 'the git checkout containing the working directory' : "the checkout's `.git`";
      return `${what} belongs to another user (${userNameOf(problem.uid)}), not to you, so its project memory is not used: another user's folder could put memory and instructions into your context (git too refuses a repository of dubious ownership). If the checkout is yours, run \`chown -R "$(id -un)"\` on it; otherwise use /memories/workspace or /memories/global.`;
    }
  }
  return null;
}

/** The workspace a directory belongs to by default: its git checkout's (or its own outside git). */
export async function localWorkspaceId(cwd: string): Promise<string> {
  return workspaceIdFor((await findGitRoot(path.resolve(cwd))) ?? path.resolve(cwd));
}

export async function resolveLocalSession(req: SessionRequest, runtime: Runtime): Promise<MemorySession> {
  const cwd = path.resolve(req.cwd);
  const gitRoot = await findGitRoot(cwd);
  const checkout = gitRoot ?? cwd;
  // Another user's checkout gives no project: its memory is not read, nor git run in it.
  const foreign = gitRoot ? foreignCheckoutReason(gitRoot) : null;
  const [workspaceId, projectId] = await Promise.all([
    req.workspaceId ? Promise.resolve(req.workspaceId) : workspaceIdFor(checkout),
    gitRoot && !foreign ? projectIdFor(gitRoot, path.join(req.home, ROOT_COMMITS_CACHE)) : Promise.resolve(null),
  ]);
  const scopes: Record<Scope, ScopeBinding> = {
    global: { scope: 'global', available: true, runtime, root: { path: globalRoot(req.home), anchor: req.home } },
    workspace: { scope: 'workspace', available: true, runtime, root: { path: workspaceRoot(req.home, workspaceId), anchor: req.home } },
    project: foreign
      ? { scope: 'project', available: false, reason: foreign }
      : gitRoot
      ? { scope: 'project', available: true, runtime, root: { path: projectRoot(gitRoot), anchor: gitRoot } }
      : { scope: 'project', available: false, reason: NO_PROJECT_REASON },
  };
  return { workspaceId, projectId, scopes };
}
