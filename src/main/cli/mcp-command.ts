/**
 * `cairn mcp`: a stdio MCP server for one agent session. stdout carries only protocol messages;
 * anything else goes to stderr. The workspace is --workspace, else the registered workspace whose
 * checkout contains --cwd (default: the working directory), else one registered automatically for
 * the git root of that directory.
 */
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MODES, type Mode } from '../../common/memory/constants';
import { ChangeFeed } from '../journal/change-feed';
import { Journal } from '../journal/journal';
import { ContextBuilder } from '../memory/context-builder';
import { MemoryService } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { createMemoryMcpServer } from '../mcp/memory-mcp-server';
import { mcpSession } from '../mcp/session-binding';
import { resolveHome } from '../workspaces/identity';
import { WorkspaceRegistry } from '../workspaces/registry';
import { checkWorkspaceFlag } from './session-flags';
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
  checkWorkspaceFlag(values);
  const home = resolveHome(values.home);
  const registry = new WorkspaceRegistry(home);
  const session = await mcpSession(registry, home, values.cwd ?? process.cwd(), values.workspace);
  const usage = new UsageStore(home);
  const journal = new Journal(home);
  const service = new MemoryService({ usage, journal });
  const builder = new ContextBuilder(usage);
  // Resources mirror memory: the feed tells the server what changed (this process's writes, other
  // processes' through the journal, outside edits through watchers on this session's roots).
  const feed = new ChangeFeed({ home, service, journal });
  const mcp = await createMemoryMcpServer({ service, builder, session, mode, changes: feed });
  const { server } = mcp;

  const transport = new StdioServerTransport(io.stdin as NodeJS.ReadStream, io.stdout as NodeJS.WriteStream);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await mcp.close();
  // The session's last changes reach the journal before the process goes.
  service.flushEvents();
  await feed.close();
  await usage.flush();
  return 0;
}
