/**
 * The MCP server agents connect to: the `memory` tool (the six commands, the flat input schema of
 * src/common), `memory_search`, and the memory index and hot set in the server's instructions and
 * as resources; one resource per memory file visible to the session, with change notifications;
 * and the `agent` harvest backend (./memory-propose.ts: the prompt `harvest` and the tool
 * `memory_propose`, in every mode, since it writes no memory), and the `agent` consolidation backend
 * (./memory-consolidate.ts: the prompt `consolidate` and the tool `memory_consolidate`, in every
 * mode too: it stores a proposal for a person, never memory).
 * The same server runs over stdio (`cairn mcp`) and Streamable HTTP (`/mcp`, ./http-endpoint.ts).
 *
 * Session stability: the instructions and the `cairn://index` / `cairn://hot-set` resources are
 * computed once when the server starts, so the bytes an agent sees stay identical for the whole
 * session and the provider's prompt cache holds. Every write goes through MemoryService with actor
 * `agent` (and so through the journal, where the app sees it live).
 *
 * Per-file resources (URIs: ./resource-uri.ts, `cairn://memory/<scope>/<path>`) are live, unlike
 * the index: resources/list and resources/read show memory as it is now. With `changes` given,
 * the server follows the change feed (its own writes, other processes' through the journal, and
 * outside edits through watchers on the session's roots) and tells the client:
 * `notifications/resources/list_changed` when files appear, vanish or move, and
 * `notifications/resources/updated` for each subscribed resource whose file changed (a delete or
 * rename of a directory counts for every file under it). Notifications are coalesced over a few
 * milliseconds so a burst of writes costs one message per resource, not one per write.
 * Watchers on the session's roots (outside edits) start only once the client uses resources
 * (lists, reads or subscribes), and list_changed is sent only from then on: watchers cost every
 * write some CPU, and a notification makes a client list again, which an agent that only calls the
 * tools (and never listed) has no use for. Writes by Cairn, in any process, are followed from the
 * start.
 */
import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { agentRefOf, type AgentRef } from '../../common/activity/agents';
import { SCOPES, type Mode } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { memoryToolInputSchema } from '../../common/memory/schema';
import { MEMORY_SEARCH_DESCRIPTION, MEMORY_TOOL_DESCRIPTION } from '../../common/memory/tool-description';
import { subscribeSession, type ChangeSource } from '../journal/session-changes';
import type { AgentsSeen } from '../activity/agents-seen';
import type { ContextBuilder } from '../context/context-builder';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession } from '../memory/session';
import type { Consolidations } from '../consolidation/consolidations';
import { DEFAULT_SEARCH_LIMIT, SessionSearch } from '../context/session-search';
import { registerConsolidation } from './memory-consolidate';
import { registerProposals, type ProposalHost } from './memory-propose';
import { refuseInvalidParams } from './request-guard';
import { SERVER_NAME, SERVER_VERSION, sessionContext, type SessionContext } from '../context/session-context';
import { MEMORY_URI_TEMPLATE, memoryUri, virtualPathOfUri } from './resource-uri';


export interface MemoryMcpOptions {
  readonly service: MemoryService;
  readonly builder: ContextBuilder;
  readonly session: MemorySession;
  readonly mode: Mode;
  /** Where memory changes come from; without it the server sends no resource notifications. */
  readonly changes?: ChangeSource;
  /** How long notifications are gathered before they are sent, ms (default 20). */
  readonly notifyDelayMs?: number;
  /** Where `memory_propose` puts what passes the checks; without it the tool proposes nothing. */
  readonly proposals?: ProposalHost;
  /** Where `memory_consolidate` stores its proposals (the home's); without it the tool proposes nothing. */
  readonly consolidations?: Consolidations;
  /** The session's context, when it was computed before the server (`cairn mcp` answers `initialize` early with it). */
  readonly context?: SessionContext;
  /** Where the session says its agent is connected (from the client's initialized to the close); without it, nowhere. */
  readonly presence?: AgentsSeen;
}

export interface MemoryMcp {
  readonly server: McpServer;
  /** The session's frozen context: what the instructions and resources carry. */
  readonly index: string;
  readonly hotSet: string;
  /**
   * Connects the server to `transport`, with requests whose params break their method's schema
   * answered -32602 (./request-guard.ts). Use this rather than `server.connect`.
   */
  connect(transport: Transport): Promise<void>;
  /** Stops following changes and closes the server (and its transport). */
  close(): Promise<void>;
}

/** How often, and how far apart, a connected server looks for its client's name (a client that never initializes is not "connected"). */
const CLIENT_LOOKS = 300;
const CLIENT_LOOK_MS = 10;

/** Whether virtual path `p` is `base` or inside it. */
function under(p: string, base: string): boolean {
  return p === base || p.startsWith(`${base}/`);
}

export async function createMemoryMcpServer(options: MemoryMcpOptions): Promise<MemoryMcp> {
  const { service, builder, session, mode } = options;
  const { index, hotSet, instructions } = options.context ?? (await sessionContext(builder, session, mode));

  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions, capabilities: { resources: { subscribe: true, listChanged: true } } });
  // Who makes this session's changes: the client's own name (initialize's clientInfo) and an id
  // of this session, recorded with each version (the Activity view shows them).
  const agentSession = randomUUID();
  const agent = (): AgentRef | undefined => agentRefOf(server.server.getClientVersion()?.name, agentSession);
  let disconnected: (() => void) | undefined;
  // The session is "connected" once the client's name is known: at its initialized notification,
  // or once the server has taken its initialize (see connect), or at its first tool call.
  const markConnected = () => {
    const ref = agent();
    if (ref && options.presence && !disconnected && !closed) disconnected = options.presence.connected(session.workspaceId, ref);
  };
  server.server.oninitialized = markConnected;

  server.registerTool(
    'memory',
    {
      title: 'Memory',
      description: MEMORY_TOOL_DESCRIPTION,
      inputSchema: memoryToolInputSchema.shape,
      annotations: { title: 'Memory', readOnlyHint: mode === 'explore', destructiveHint: mode !== 'explore', idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      search.busy();
      markConnected();
      // `args` as validated by the schema above; MemoryService validates again, and reads a null
      // field as absent (strict-mode providers send null for every field a command does not use).
      const result = await service.execute(args, session, { mode, actor: 'agent', agent: agent() });
      return { content: [{ type: 'text', text: result.output }], isError: !result.ok };
    },
  );

  // Kept for the session, and refreshed when it is idle (see SessionSearch).
  const search = new SessionSearch(builder, session);
  server.registerTool(
    'memory_search',
    {
      title: 'Search memory',
      description: MEMORY_SEARCH_DESCRIPTION,
      // Null means absent here too, as in the memory tool's schema.
      inputSchema: {
        query: z.string().min(1).max(1000).describe('Keywords to look for.'),
        scope: z.enum(SCOPES).nullish().describe('Only this scope.'),
        limit: z.number().int().min(1).max(50).nullish().describe(`At most this many files (default ${DEFAULT_SEARCH_LIMIT}).`),
      },
      annotations: { title: 'Search memory', readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, scope, limit }) => {
      search.busy();
      return { content: [{ type: 'text', text: await search.search(query, { scope: scope ?? undefined, limit: limit ?? undefined }) }] };
    },
  );

  registerProposals(server, { host: options.proposals, service, session });
  registerConsolidation(server, { consolidations: options.consolidations, session });

  server.registerResource('memory-index', 'cairn://index', { title: 'Memory index', description: 'Every memory file with its description (as of the start of this session).', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: index }],
  }));
  server.registerResource('hot-set', 'cairn://hot-set', { title: 'Hot memories', description: 'Pinned and most used memory files (as of the start of this session).', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: hotSet }],
  }));

  server.registerResource(
    'memory-file',
    new ResourceTemplate(MEMORY_URI_TEMPLATE, {
      list: async () => {
        watchRoots();
        const current = await builder.snapshot(session);
        return {
          resources: current.files.map((f) => ({
            uri: memoryUri(f.scope, f.segments),
            name: f.path,
            ...(f.description ? { description: f.description } : {}),
            mimeType: 'text/markdown',
            size: f.size,
          })),
        };
      },
    }),
    { title: 'Memory file', description: 'One memory file, as it is now (cairn://memory/<scope>/<path> is /memories/<scope>/<path>).', mimeType: 'text/markdown' },
    async (uri) => {
      watchRoots();
      try {
        const { path } = virtualPathOfUri(uri.href);
        const { content } = await service.read(path, session);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: content }] };
      } catch (err) {
        if (err instanceof MemoryToolError) throw new McpError(ErrorCode.InvalidParams, err.message);
        throw err;
      }
    },
  );

  // Subscriptions: the URIs the client asked to hear about (any memory file URI, existing or not).
  const subscribed = new Map<string, string>(); // uri -> virtual path
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    watchRoots();
    try {
      subscribed.set(request.params.uri, virtualPathOfUri(request.params.uri).path);
    } catch (err) {
      if (err instanceof MemoryToolError) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  let listChanged = false;
  /** Whether the client has used resources (listed, read or subscribed) in this session. */
  let resourcesUsed = false;
  const updated = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    if (!server.isConnected()) return;
    const sendList = listChanged;
    listChanged = false;
    const uris = [...updated];
    updated.clear();
    const failed = (err: unknown) => process.stderr.write(`cairn: a resource notification was not sent: ${String(err)}\n`);
    if (sendList) server.sendResourceListChanged();
    for (const uri of uris) if (subscribed.has(uri)) server.server.sendResourceUpdated({ uri }).catch(failed);
  };
  const onChange = (event: MemoryChangeEvent) => {
    search.changed();
    const touched = event.op === 'rename' && event.oldPath !== undefined ? [event.path, event.oldPath] : [event.path];
    for (const [uri, p] of subscribed) if (touched.some((t) => under(p, t))) updated.add(uri);
    if (event.op !== 'update' && resourcesUsed) listChanged = true;
    if ((listChanged || updated.size > 0) && timer === null) timer = setTimeout(flush, options.notifyDelayMs ?? 20);
  };
  const unsubscribe = options.changes ? subscribeSession(options.changes, session, onChange) : undefined;
  let unwatch: (() => void) | undefined;
  let closed = false;
  function watchRoots(): void {
    resourcesUsed = true;
    if (!closed && unwatch === undefined) unwatch = options.changes?.watch?.(session) ?? (() => {});
  }

  return {
    server,
    index,
    hotSet,
    connect: async (transport) => {
      await server.connect(transport);
      refuseInvalidParams(transport);
      // The client's name is known once the server has taken its initialize (which `cairn mcp`
      // hands it again after answering it early, with the client's initialized read at once):
      // looked for a few times after the connect, without holding the process open.
      let looks = 0;
      const lookForClient = () => {
        if (disconnected || closed) return;
        if (agent()) return markConnected();
        if (++looks < CLIENT_LOOKS) setTimeout(lookForClient, CLIENT_LOOK_MS).unref();
      };
      lookForClient();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      unsubscribe?.();
      unwatch?.();
      disconnected?.();
      search.close();
      if (timer) clearTimeout(timer);
      timer = null;
      await server.close().catch(() => {});
    },
  };
}
