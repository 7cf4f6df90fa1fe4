/**
 * The MCP server agents connect to: the `memory` tool (the six commands, the flat input schema of
 * src/common), `memory_search`, and the memory index and hot set in the server's instructions and
 * as resources.
 *
 * Session stability: the instructions and the `cairn://index` / `cairn://hot-set` resources are
 * computed once when the server starts, so the bytes an agent sees stay identical for the whole
 * session and the provider's prompt cache holds. Every write goes through MemoryService with actor
 * `agent` (and so through the journal, where the app sees it live).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SCOPES, type Mode } from '../../common/memory/constants';
import { memoryToolInputSchema } from '../../common/memory/schema';
import { MEMORY_SEARCH_DESCRIPTION, MEMORY_TOOL_DESCRIPTION } from '../../common/memory/tool-description';
import { ContextBuilder, excerptFor, promptTerms, rankRelevant } from '../memory/context-builder';
import type { MemoryService, MemorySession } from '../memory/memory-service';

export const SERVER_NAME = 'cairn';
export const SERVER_VERSION = '0.1.0';

export interface MemoryMcpOptions {
  readonly service: MemoryService;
  readonly builder: ContextBuilder;
  readonly session: MemorySession;
  readonly mode: Mode;
}

export interface MemoryMcp {
  readonly server: McpServer;
  /** The session's frozen context: what the instructions and resources carry. */
  readonly index: string;
  readonly hotSet: string;
}

export async function createMemoryMcpServer(options: MemoryMcpOptions): Promise<MemoryMcp> {
  const { service, builder, session, mode } = options;
  const snapshot = await builder.snapshot(session);
  const index = builder.index(snapshot);
  const hotSet = await builder.hotSet(snapshot, session);
  const instructions = [
    'Cairn keeps your persistent memory. Use the `memory` tool to read and write it (see its description), and `memory_search` to find files by keywords.',
    mode === 'exec' ? null : `This session is in ${mode} mode: ${mode === 'plan' ? '/memories/project is read-only.' : 'memory is read-only.'}`,
    index,
    hotSet,
  ]
    .filter(Boolean)
    .join('\n\n');

  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions, capabilities: { resources: { listChanged: true } } });

  server.registerTool(
    'memory',
    {
      title: 'Memory',
      description: MEMORY_TOOL_DESCRIPTION,
      inputSchema: memoryToolInputSchema.shape,
      annotations: { title: 'Memory', readOnlyHint: mode === 'explore', destructiveHint: mode !== 'explore', idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const result = await service.execute(args, session, { mode, actor: 'agent' });
      return { content: [{ type: 'text', text: result.output }], isError: !result.ok };
    },
  );

  server.registerTool(
    'memory_search',
    {
      title: 'Search memory',
      description: MEMORY_SEARCH_DESCRIPTION,
      inputSchema: {
        query: z.string().min(1).max(1000).describe('Keywords to look for.'),
        scope: z.enum(SCOPES).optional().describe('Only this scope.'),
        limit: z.number().int().min(1).max(50).optional().describe('At most this many files (default 10).'),
      },
      annotations: { title: 'Search memory', readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, scope, limit }) => {
      const current = await builder.snapshot(session);
      const files = current.files.filter((f) => scope === undefined || f.scope === scope);
      const terms = promptTerms(query);
      const hits = [];
      for (const file of rankRelevant(files, terms, Date.now())) {
        if (hits.length >= (limit ?? 10)) break;
        if (builder.flags(file).length > 0) continue;
        const line = excerptFor(file, terms).split('\n').find((l) => l.trim() !== '') ?? '';
        hits.push(`${file.path}\n  ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`);
      }
      const text = hits.length > 0 ? hits.join('\n') : `No memory file matches "${query}". View /memories to browse them all.`;
      return { content: [{ type: 'text', text }] };
    },
  );

  server.registerResource('memory-index', 'cairn://index', { title: 'Memory index', description: 'Every memory file with its description (as of the start of this session).', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: index }],
  }));
  server.registerResource('hot-set', 'cairn://hot-set', { title: 'Hot memories', description: 'Pinned and most used memory files (as of the start of this session).', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: hotSet }],
  }));

  return { server, index, hotSet };
}
