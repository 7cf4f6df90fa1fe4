/**
 * What an MCP session is told once, at its start: the server's name, and the instructions that
 * carry the memory index and the hot set. Light on purpose (no MCP SDK, no home services), so that
 * `cairn mcp` can compute it, and answer `initialize` with it, before the rest of the server has
 * loaded (./early-initialize.ts); memory-mcp-server.ts uses the same function, so both say the
 * same bytes.
 *
 * An agent whose hooks already hand the model the index and the hot set at the start of a session
 * (Claude Code's SessionStart, set up by `cairn setup claude`) is started with
 * `cairn mcp --session-context off`: its instructions then leave both out, so the model reads them
 * once, not twice (up to twice the hot set's budget, every session). A server set up by hand,
 * without hooks, keeps the default and still gets them through its instructions. The resources
 * cairn://index and cairn://hot-set carry them either way: they are read only when asked for.
 */
import type { InjectionSettings } from '../../common/context/injection';
import type { Mode } from '../../common/memory/constants';
import type { ContextBuilder } from './context-builder';
import type { MemorySession } from '../memory/session';

export const SERVER_NAME = 'cairn';
export const SERVER_VERSION = '0.1.0';

/** A session's frozen context: computed once, so its bytes stay the same for the whole session. */
export interface SessionContext {
  readonly index: string;
  readonly hotSet: string;
  readonly instructions: string;
}

export interface SessionContextOptions {
  /** The workspace's injection settings (context/injection-config.ts): the hot set's budget. Default: the defaults. */
  readonly injection?: InjectionSettings;
  /** Whether the instructions carry the index and the hot set (default true; false when the agent's hooks deliver them). */
  readonly inInstructions?: boolean;
}

/** The values of `cairn mcp --session-context`: `off` when the agent's hooks deliver the session's context. */
export const SESSION_CONTEXT_VALUES = ['on', 'off'] as const;
export type SessionContextSetting = (typeof SESSION_CONTEXT_VALUES)[number];

export async function sessionContext(builder: ContextBuilder, session: MemorySession, mode: Mode, options: SessionContextOptions = {}): Promise<SessionContext> {
  const snapshot = await builder.snapshot(session);
  const index = builder.index(snapshot);
  const hotSet = await builder.hotSet(snapshot, session, options.injection?.hotSetMaxBytes);
  const instructions = [
    'Cairn keeps your persistent memory. Use the `memory` tool to read and write it (see its description), and `memory_search` to find files by keywords.',
    mode === 'exec' ? null : `This session is in ${mode} mode: ${mode === 'plan' ? '/memories/project is read-only.' : 'memory is read-only.'}`,
    options.inInstructions === false ? null : index,
    options.inInstructions === false ? null : hotSet,
  ]
    .filter(Boolean)
    .join('\n\n');
  return { index, hotSet, instructions };
}
