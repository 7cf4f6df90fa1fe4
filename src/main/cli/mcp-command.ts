/**
 * `cairn mcp`: a stdio MCP server for one agent session. stdout carries only protocol messages;
 * anything else goes to stderr. The workspace is --workspace, else the registered workspace whose
 * checkout contains --cwd (default: the working directory), else one registered automatically for
 * the git root of that directory. The home's services (src/main/host) are opened with a change
 * feed: resources mirror memory (this process's writes, other processes' through the journal,
 * outside edits through watchers on this session's roots). When sync is set up, it runs while the
 * session does (syncWhileRunning, below).
 * The transport is Cairn's own (src/main/mcp/stdio-transport.ts): a message too large, not JSON
 * or not JSON-RPC gets an error answer and the session goes on; each such error, and any other
 * the protocol layer reports, is one line on stderr.
 *
 * The early answer: loading the MCP SDK, zod and the home's services takes most of the
 * start, and an agent waits for the answer to `initialize` before its session begins. So, without
 * --workspace, the first line of stdin is read ahead (mcp/early-initialize.ts): when it is an
 * initialize request the SDK would take as it is, the session's context is computed with the light
 * modules only (those `cairn context` loads: the context builder over the facts cache, the local
 * runtime, the usage store) and the answer written at once. Then the rest is loaded (dynamic
 * imports: this module imports nothing heavy, so the bundle keeps it in its own small chunk), the
 * server is given the same context and the same request (put back on stdin, so it knows the
 * client), and its own answer to it is dropped. Anything else (no first line yet, a batch, an odd
 * initialize, --workspace) is answered by the SDK as before. Messages sent meanwhile wait in the
 * pipe, in order, and are read once the server is connected.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { injectionFor } from '../../common/context/injection';
import { AgentsSeen } from '../activity/agents-seen';
import { MODES, SCOPES, type Mode } from '../../common/memory/constants';
import { heldPaths } from '../memory/held-outside-edits';
import { ContextBuilder } from '../context/context-builder';
import { ContextFactsCache } from '../context/context-facts-cache';
import type { HomeServices } from '../host/home-services';
import type { MemorySession } from '../memory/session';
import { UsageStore } from '../memory/usage-store';
import { initializeAnswerLine, initializeRequestOf, peekFirstLine, type InitializeRequest } from '../mcp/early-initialize';
import { deepestContaining, mcpSession } from '../mcp/session-binding';
import { SESSION_CONTEXT_VALUES, sessionContext, type SessionContext, type SessionContextSetting } from '../context/session-context';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { findGitRoot, workspaceIdFor } from '../workspaces/identity';
import { resolveHome } from '../workspaces/home-dir';
import { assertOwnHome } from '../runtime/local/ownership';
import { readConfigFile } from '../context/injection-config';
import { resolveLocalSession } from '../workspaces/session';
import type { CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { MCP_HELP, UsageError } from './usage';

/** What was answered before the server loaded: the request, the line sent, and what it was computed for. */
interface EarlyAnswer {
  readonly request: InitializeRequest;
  readonly line: string;
  readonly session: MemorySession;
  readonly context: SessionContext;
}

export async function mcpCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, MCP_HELP, { cwd: { type: 'string' }, workspace: { type: 'string' }, mode: { type: 'string' }, home: { type: 'string' }, 'session-context': { type: 'string' } }, false);
  if (!parsed) return 0;
  const { values } = parsed;
  const mode = (values.mode ?? 'exec') as Mode;
  if (!MODES.includes(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}`);
  const setting = (values['session-context'] ?? 'on') as SessionContextSetting;
  if (!SESSION_CONTEXT_VALUES.includes(setting)) throw new UsageError(`--session-context must be one of ${SESSION_CONTEXT_VALUES.join(', ')}`);
  // Off: the agent's hooks hand over the index and the hot set (context/session-context.ts).
  const inInstructions = setting === 'on';
  const cwd = path.resolve(values.cwd ?? process.cwd());

  // A --workspace may be remote or named: the registry's to resolve, after the services load.
  let early: EarlyAnswer | null = null;
  let stdinEnded = false;
  if (values.workspace === undefined) {
    const home = resolveHome(values.home);
    assertOwnHome(home);
    const first = await peekFirstLine(io.stdin);
    stdinEnded = first.ended;
    const request = first.line === null ? null : initializeRequestOf(first.line);
    if (request) early = await answerEarly(request, home, cwd, mode, inInstructions, io);
  }

  const [{ homeFromFlags, reportSettingsProblems }, { openHome }, { createMemoryMcpServer }, { proposalHost }, { CairnStdioTransport }] = await Promise.all([
    import('./session-flags'),
    import('../host/home-services'),
    import('../mcp/memory-mcp-server'),
    import('../mcp/memory-propose'),
    import('../mcp/stdio-transport'),
  ]);
  const services = openHome(homeFromFlags(values), { feed: true });
  reportSettingsProblems(services.registry, (text) => io.stderr.write(text), { damaged: true });
  let mcp: Awaited<ReturnType<typeof createMemoryMcpServer>>;
  try {
    const session = await mcpSession(services.registry, cwd, values.workspace);
    if (early && !sameSession(early.session, session)) {
      // Only a registration made by another process in the last moments can do this: the client
      // keeps the context it was told (so the instructions and the index resource agree), and
      // the tools act on the session the registry gives now.
      io.stderr.write('cairn mcp: the workspace was registered anew while the server started; the instructions were computed before\n');
    }
    const proposals = proposalHost(services.registry, services.inbox, cwd);
    // The home's facts cache: the instructions' index then reads only the files changed since any
    // process last looked (context/context-facts-cache.ts).
    const builder = new ContextBuilder(services.usage, { factsCache: new ContextFactsCache(services.home), held: (s) => heldPaths(services.home, s) });
    // Without an early answer, the instructions are computed here, within the workspace's injection
    // settings as the registry gives them (as the HTTP endpoint's are).
    const context = early ? early.context : await sessionContext(builder, session, mode, { injection: injectionFor(services.registry.settings(), session.workspaceId), inInstructions });
    mcp = await createMemoryMcpServer({ service: services.service, builder, session, mode, changes: services.changes, proposals, consolidations: services.consolidations, context, presence: new AgentsSeen(services.home) });
  } catch (err) {
    await services.close();
    throw err;
  }
  const transport = new CairnStdioTransport(io.stdin, io.stdout);
  if (early) transport.skipAnswer(early.request.id, early.line);
  mcp.server.server.onerror = (err) => io.stderr.write(`cairn mcp: ${err.message.slice(0, 500)}\n`);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // Read to its end ahead of the transport: nothing more will come.
    if (stdinEnded) resolve();
    io.stdin.once('end', () => resolve());
    // `on`, not `once`: signal-exit (proper-lockfile's, loaded with the first lock) re-raises a
    // signal that has no listener but its own, which would end the process before it closes.
    process.on('SIGTERM', () => resolve());
    process.on('SIGINT', () => resolve());
  });
  await mcp.connect(transport);
  const sync = syncWhileRunning(services);
  await closed;
  await mcp.close();
  await (await sync)?.close();
  await services.close();
  return 0;
}

/**
 * While the session runs, sync runs as in the app (a while after synced memory changes, and on a
 * schedule) when it is set up: loaded once the server is connected, so the agent's start never
 * waits on it. The sync's lease keeps it to one run at a time among the home's processes.
 */
async function syncWhileRunning(services: HomeServices): Promise<{ close(): Promise<void> } | null> {
  try {
    if (!services.registry.settings().sync) return null;
  } catch {
    return null; // config.json does not parse: said on stderr at the start; no sync without its settings
  }
  const { SyncControl } = await import('../sync/sync-control');
  const control = new SyncControl(services, {});
  if (services.changes) control.follow(services.changes);
  // A sync a while after the start too: a change made before the sync was loaded and following
  // (an agent writes as soon as the server answers) would otherwise wait for the schedule.
  control.changed();
  return control;
}

/**
 * Computes the session's context with the light modules and writes the answer to `request`; null
 * (nothing written: the SDK answers) when that fails.
 */
async function answerEarly(request: InitializeRequest, home: string, cwd: string, mode: Mode, inInstructions: boolean, io: CliIo): Promise<EarlyAnswer | null> {
  try {
    // The early context reads only (its files and the facts cache); the server's writes go
    // through the home's own LocalRuntime (host/home-services.ts). A LocalRuntime keeps nothing
    // about the disk between calls, so this one sees what that one does.
    // config.json read once, without zod: the workspaces it registers and the injection settings.
    const config = readConfigFile(home);
    const session = await expectedSession(home, cwd, new LocalRuntime(), config);
    const builder = new ContextBuilder(new UsageStore(home), { factsCache: new ContextFactsCache(home), held: (s) => heldPaths(home, s) });
    // The hot set within the workspace's injection settings.
    const context = await sessionContext(builder, session, mode, { injection: injectionFor(config.settings, session.workspaceId), inInstructions });
    const line = initializeAnswerLine(request, context.instructions);
    io.stdout.write(line);
    return { request, line, session, context };
  } catch {
    return null;
  }
}

/**
 * The session mcpSession (mcp/session-binding.ts) gives an agent started in `cwd`, worked out
 * without the registry's module (which loads zod): the deepest registered local workspace
 * containing the directory, else the one its git root would be registered as, else the directory
 * alone. The registry's own answer is compared with it once loaded (sameSession).
 */
async function expectedSession(home: string, cwd: string, runtime: LocalRuntime, config: Record<string, unknown>): Promise<MemorySession> {
  const dir = path.resolve(cwd);
  const containing = deepestContaining(registeredLocal(config), dir);
  if (containing) return resolveLocalSession({ home, cwd: containing.path, workspaceId: containing.id }, runtime);
  const gitRoot = await findGitRoot(dir);
  if (gitRoot) {
    // As WorkspaceRegistry.add registers it: under its real path, with the id derived from it.
    const real = await fs.promises.realpath(gitRoot);
    return resolveLocalSession({ home, cwd: real, workspaceId: await workspaceIdFor(real) }, runtime);
  }
  return resolveLocalSession({ home, cwd: dir }, runtime);
}

/** The local workspaces `<home>/config.json` (as readConfigFile gives it) registers, read as the registry reads them (an unreadable file registers none). */
function registeredLocal(config: Record<string, unknown>): Array<{ id: string; kind: 'local'; path: string }> {
  const { workspaces } = config;
  if (!Array.isArray(workspaces)) return [];
  return workspaces.flatMap((w: unknown) => {
    if (typeof w !== 'object' || w === null) return [];
    const { id, name, kind, path: dir } = w as Record<string, unknown>;
    return kind === 'local' && typeof id === 'string' && typeof name === 'string' && typeof dir === 'string' ? [{ id, kind, path: dir }] : [];
  });
}

/** Whether two sessions are of the same workspace and project, with the same scopes where they are. */
function sameSession(a: MemorySession, b: MemorySession): boolean {
  if (a.workspaceId !== b.workspaceId || a.projectId !== b.projectId) return false;
  return SCOPES.every((scope) => {
    const x = a.scopes[scope];
    const y = b.scopes[scope];
    if (!x.available || !y.available) return !x.available && !y.available && x.reason === y.reason;
    return x.root.path === y.root.path && x.root.anchor === y.root.anchor;
  });
}
