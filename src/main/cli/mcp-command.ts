/**
 * `cairn mcp`: a stdio MCP server for one agent session. stdout carries only protocol messages;
 * anything else goes to stderr. The workspace is --workspace, else the registered workspace whose
 * checkout contains --cwd (default: the working directory), else one registered automatically for
 * the git root of that directory.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MODES, type Mode } from '../../common/memory/constants';
import { concerns } from '../api/router';
import { ChangeFeed } from '../journal/change-feed';
import { Journal } from '../journal/journal';
import { ContextBuilder } from '../memory/context-builder';
import { MemoryService, type MemorySession } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { createMemoryMcpServer } from '../mcp/memory-mcp-server';
import { findGitRoot, resolveHome } from '../workspaces/identity';
import { WorkspaceRegistry } from '../workspaces/registry';
import { resolveLocalSession } from '../workspaces/session';
import { checkWorkspaceFlag } from './session-flags';
import type { CliIo } from './tool-command';
import { MCP_HELP, UsageError } from './usage';

/** The session of an agent started in `cwd` (see the module header for the rules). */
export async function mcpSession(registry: WorkspaceRegistry, home: string, cwd: string, workspaceId?: string): Promise<MemorySession> {
  if (workspaceId) return registry.session(workspaceId);
  const dir = path.resolve(cwd);
  const containing = registry
    .list()
    .filter((w) => dir === w.path || dir.startsWith(`${w.path}${path.sep}`))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (containing) return registry.session(containing.id);
  const gitRoot = await findGitRoot(dir);
  if (gitRoot) {
    const entry = await registry.add(path.basename(gitRoot), gitRoot);
    return registry.session(entry.id);
  }
  return resolveLocalSession({ home, cwd: dir });
}

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
  const { server } = await createMemoryMcpServer({ service, builder, session, mode });
  const feed = new ChangeFeed({ home, service, journal });
  // Resources mirror memory: tell the client when what this session sees changes.
  const unsubscribe = feed.subscribe((event) => {
    if (concerns(event, session) && server.isConnected()) server.sendResourceListChanged();
  });

  const transport = new StdioServerTransport(io.stdin as NodeJS.ReadStream, io.stdout as NodeJS.WriteStream);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.stdin.once('end', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await server.connect(transport);
  await closed;
  unsubscribe();
  await feed.close();
  await usage.flush();
  await server.close().catch(() => {});
  return 0;
}
