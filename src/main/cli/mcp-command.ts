/**
 * `cairn mcp`: a stdio MCP server for one agent session. stdout carries only protocol messages;
 * anything else goes to stderr. The workspace is --workspace, else the registered workspace whose
 * checkout contains --cwd (default: the working directory), else one registered automatically for
 * the git root of that directory. The home's services (src/main/host) are opened with a change
 * feed: resources mirror memory (this process's writes, other processes' through the journal,
 * outside edits through watchers on this session's roots).
 * The transport is Cairn's own (src/main/mcp/stdio-transport.ts): a message too large, not JSON
 * or not JSON-RPC gets an error answer and the session goes on; each such error, and any other
 * the protocol layer reports, is one line on stderr.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { MODES, type Mode } from '../../common/memory/constants';
import { openHome } from '../host/home-services';
import { ContextBuilder } from '../memory/context-builder';
import { ContextFactsCache } from '../memory/context-facts-cache';
import { createMemoryMcpServer, type MemoryMcp } from '../mcp/memory-mcp-server';
import { proposalHost } from '../mcp/memory-propose';
import { mcpSession } from '../mcp/session-binding';
import { sessionContext } from '../mcp/session-context';
import { CairnStdioTransport } from '../mcp/stdio-transport';
import { readInjection } from '../workspaces/injection-config';
import { homeFromFlags } from './session-flags';
import type { CliIo } from './tool-command';
import { MCP_HELP, UsageError } from './usage';

export async function mcpCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { cwd: { type: 'string' }, workspace: { type: 'string' }, mode: { type: 'string' }, home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  const mode = (values.mode ?? 'exec') as Mode;
  if (!MODES.includes(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}`);
  const services = openHome(homeFromFlags(values), { feed: true });
  let mcp: MemoryMcp;
  try {
    const cwd = path.resolve(values.cwd ?? process.cwd());
    const session = await mcpSession(services.registry, cwd, values.workspace);
    const proposals = proposalHost(services.registry, services.inbox, cwd);
    // The home's facts cache: the instructions' index then reads only the files changed since any
    // process last looked (memory/context-facts-cache.ts).
    const builder = new ContextBuilder(services.usage, { factsCache: new ContextFactsCache(services.home) });
    // The instructions' hot set within the workspace's injection settings (issue 23).
    const context = await sessionContext(builder, session, mode, { injection: readInjection(services.home, session.workspaceId) });
    mcp = await createMemoryMcpServer({ service: services.service, builder, session, mode, changes: services.changes, proposals, context });
  } catch (err) {
    await services.close();
    throw err;
  }
  const transport = new CairnStdioTransport(io.stdin, io.stdout);
  mcp.server.server.onerror = (err) => io.stderr.write(`cairn mcp: ${err.message.slice(0, 500)}\n`);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await mcp.connect(transport);
  await closed;
  await mcp.close();
  await services.close();
  return 0;
}
