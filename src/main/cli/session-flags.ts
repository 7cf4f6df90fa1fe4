/**
 * The flags every memory command of the CLI shares (--cwd, --workspace, --home), the home they
 * name, and the session they select in that home's services (src/main/host/home-services.ts): a
 * --workspace registered with `cairn workspace add` (local or SSH) gives that workspace's session;
 * otherwise the session of --cwd's checkout.
 */
import { agentRefOf, type AgentRef } from '../../common/activity/agents';
import type { HomeServices } from '../host/home-services';
import { openMemoryHome, type MemoryHome } from '../host/memory-home';
import type { MemorySession } from '../memory/session';
import { isValidWorkspaceId, resolveHome } from '../workspaces/home-dir';
import type { WorkspaceRegistry } from '../workspaces/registry';
import { resolveLocalSession } from '../workspaces/session';
import { SettingsFileError } from '../workspaces/settings-file-error';
import { UsageError } from './usage';

export const SESSION_OPTIONS = {
  cwd: { type: 'string' },
  workspace: { type: 'string' },
  home: { type: 'string' },
} as const;

/** Which agent runs a command (`cairn tool`, a hook): recorded with its changes, and as seen. */
export const AGENT_OPTIONS = {
  agent: { type: 'string' },
  'agent-session': { type: 'string' },
} as const;

/** The agent the flags name (the hook's own session id when no --agent-session), or undefined. */
export function agentFromFlags(flags: { agent?: string | undefined; 'agent-session'?: string | undefined }, hookSession?: unknown): AgentRef | undefined {
  if (flags.agent === undefined) return undefined;
  const ref = agentRefOf(flags.agent, flags['agent-session'] ?? (typeof hookSession === 'string' ? hookSession : ''));
  if (!ref) throw new UsageError('--agent must name the agent (claude, codex, gemini, copilot, or its own name)');
  return ref;
}

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

/** Cairn's home as the flags name it (--home, else $CAIRN_HOME, else ~/.cairn), once they are checked. */
export function homeFromFlags(flags: SessionFlags): string {
  checkWorkspaceFlag(flags);
  return resolveHome(flags.home);
}

/** The session the flags select in `services`' home. */
export async function sessionFromFlags(services: Pick<MemoryHome, 'home' | 'registry' | 'runtime'>, flags: SessionFlags, fallbackCwd = process.cwd()): Promise<MemorySession> {
  checkWorkspaceFlag(flags);
  const { registry } = services;
  // A registered workspace brings its own checkout and runtime (for SSH, --cwd has no say).
  if (flags.workspace !== undefined) {
    const entry = registry.get(flags.workspace);
    if (entry && (entry.kind === 'ssh' || flags.cwd === undefined)) return registry.session(flags.workspace);
  }
  return resolveLocalSession(
    {
      home: services.home,
      cwd: flags.cwd ?? fallbackCwd,
      ...(flags.workspace ? { workspaceId: flags.workspace } : {}),
    },
    services.runtime,
  );
}

/**
 * Says on stderr which values of the home's config.json are not valid and fell back, and, with
 * `damaged`, that it does not parse (for a process that goes on without it; a command that needs it
 * fails with that message anyway, and agents' writes are refused saying so).
 */
export function reportSettingsProblems(registry: WorkspaceRegistry, write: (text: string) => void, options: { damaged?: boolean } = {}): void {
  try {
    for (const problem of registry.problems()) write(`cairn: ${registry.file}: ${problem}\n`);
  } catch (err) {
    if (!(err instanceof SettingsFileError)) throw err;
    if (options.damaged) write(`cairn: ${err.message}\n`);
  }
}

/**
 * Opens the flags' home (without a feed), runs `fn` with its services, then closes them. The
 * services are loaded when asked for: a command of the memory alone uses withMemoryHome.
 */
export async function withHome<T>(flags: SessionFlags, fn: (services: HomeServices) => Promise<T>): Promise<T> {
  const { openHome } = await import('../host/home-services');
  return opened(openHome(homeFromFlags(flags)), fn);
}

/** withHome for a command of the memory alone (host/memory-home.ts: no feed, consolidation or agents' files). */
export function withMemoryHome<T>(flags: SessionFlags, fn: (services: MemoryHome) => Promise<T>): Promise<T> {
  return opened(openMemoryHome(homeFromFlags(flags)), fn);
}

async function opened<S extends MemoryHome, T>(services: S, fn: (services: S) => Promise<T>): Promise<T> {
  reportSettingsProblems(services.registry, (text) => process.stderr.write(text));
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}
