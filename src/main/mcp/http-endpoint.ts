/**
 * Cairn's MCP server over Streamable HTTP, at `/mcp` on the host's loopback server (the app and
 * `cairn serve`), for agents configured by URL. The host gives `handle` to its web server as the
 * /mcp route (src/main/host/app-host.ts), which has already checked Host, Origin and the bearer
 * token when a request gets here.
 *
 * Sessions: each MCP session (an `initialize` without an `Mcp-Session-Id`) gets its own McpServer,
 * its own StreamableHTTPServerTransport and its own workspace binding, fixed at initialize from:
 *   `?workspace=ID` (or the `X-Cairn-Workspace` header): a registered workspace;
 *   `?cwd=DIR` (absolute): the workspace containing DIR, else one registered for its git root,
 *     exactly as `cairn mcp --cwd DIR` resolves it (./session-binding.ts);
 *   neither: no workspace, so only /memories/global is available (the others say why);
 *   `?mode=exec|plan|explore` (default exec), as `cairn mcp --mode`.
 * Later requests carry the session id the server issued; an unknown id is a 404, as the protocol
 * says, so the client starts a new session. All sessions share the host's MemoryService (writes
 * with actor `agent`, so the UI's onChange stream sees them), its ContextBuilder and its ChangeFeed
 * (resource notifications, outside edits).
 *
 * Limits: at most `maxSessions` live sessions, counting those being opened, so a burst of
 * initializes cannot overshoot. At the cap, a new session ends the least recently used one that
 * has no request in flight and none for IN_USE_MS (10 minutes, or `idleMs` if shorter); a session
 * used more recently is in use, and a flood of initializes must not end it: when every session is
 * in use, the new one is refused with 503 and a Retry-After for when the least recently used one
 * stops counting as in use. A session with no request for `idleMs` (default a day) is closed.
 * A session ended either way gets a 404 next time and, as the protocol says, its client starts a
 * new one.
 * Errors sent back name the fix and never a host path of a memory root. A body that is not JSON
 * is -32700 (Parse error); JSON that is no JSON-RPC message, or a batch that is empty or holds
 * one, is -32600 (Invalid Request), as JSON-RPC says. A valid batch is the SDK's to answer (one
 * SSE event per answer).
 */
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import * as path from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, JSONRPCMessageSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { injectionFor } from '../../common/context/injection';
import { MODES, type Mode } from '../../common/memory/constants';
import { AgentsSeen } from '../activity/agents-seen';
import { InboxStore } from '../inbox/inbox-store';
import type { ChangeSource } from '../journal/session-changes';
import type { ContextBuilder } from '../context/context-builder';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession } from '../memory/session';
import type { Consolidations } from '../consolidation/consolidations';
import { RegistryError, type WorkspaceRegistry } from '../workspaces/registry';
import { createMemoryMcpServer, type MemoryMcp } from './memory-mcp-server';
import { proposalHost } from './memory-propose';
import { mcpSession } from './session-binding';
import { sessionContext } from '../context/session-context';

/** The header naming a registered workspace, for clients that cannot put it in the URL. */
const WORKSPACE_HEADER = 'x-cairn-workspace';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A session with a request this recently is in use: never ended to make room for a new one. */
export const IN_USE_MS = 10 * 60 * 1000;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export interface McpHttpEndpointOptions {
  /** The host's services, shared by every session. */
  readonly service: MemoryService;
  readonly builder: ContextBuilder;
  /** Binds sessions to workspaces (and is the home of directories outside any workspace). */
  readonly registry: WorkspaceRegistry;
  readonly changes: ChangeSource;
  /** Where `memory_propose` puts what passes the checks (default: the registry's home's inbox). */
  readonly inbox?: InboxStore;
  /** Where `memory_consolidate` stores proposals (the host's); without it the tool proposes nothing. */
  readonly consolidations?: Consolidations;
  readonly maxSessions?: number;
  /** Close a session after this long without a request, ms (default one day). */
  readonly idleMs?: number;
  /** The clock idleness is measured by, ms (default Date.now; tests move a fake one and call sweep()). */
  readonly now?: () => number;
}

export interface McpHttpEndpoint {
  /** Answers one request to /mcp (already authenticated). */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void>;
  /** Closes the sessions idle for longer than `idleMs` now (also done every min(idleMs, 1 min)). */
  sweep(): Promise<void>;
  /** Live sessions: id -> the workspace they are bound to. */
  sessions(): ReadonlyMap<string, { workspaceId: string | null; mode: Mode }>;
  close(): Promise<void>;
}

interface LiveSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly mcp: MemoryMcp;
  readonly workspaceId: string | null;
  readonly mode: Mode;
  inFlight: number;
  lastUsed: number;
}

/** An error answered as JSON-RPC with an HTTP status, before any MCP session exists. */
class BindingError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly answer: ErrorDetails = {},
  ) {
    super(message);
  }
}

interface ErrorDetails {
  /** The JSON-RPC error code (default: -32001 for a 404, else -32600). */
  readonly code?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The id of the request refused, when it has one. */
  readonly id?: RequestId | null;
}

function sendError(res: http.ServerResponse, status: number, message: string, details: ErrorDetails = {}): void {
  if (res.headersSent) return void res.end();
  const code = details.code ?? (status === 404 ? -32001 : INVALID_REQUEST);
  res.writeHead(status, { ...details.headers, 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: details.id ?? null }));
}

const NOT_JSON_RPC = 'not a JSON-RPC 2.0 message. Send an object with "jsonrpc": "2.0" and a "method" (with an "id" for a request), or a "result" or "error" with the "id" it answers.';

/**
 * Refuses a body that is no JSON-RPC message or batch of them with -32600, as JSON-RPC says. The
 * SDK's transport answers these -32700 (Parse error, which is for text that is not JSON), and an
 * empty batch with 202 and nothing at all.
 */
function checkJsonRpc(body: unknown): void {
  if (!Array.isArray(body)) {
    if (JSONRPCMessageSchema.safeParse(body).success) return;
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
    throw new BindingError(400, `Invalid Request: ${NOT_JSON_RPC}`, { id: typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : null });
  }
  if (body.length === 0) throw new BindingError(400, 'Invalid Request: the batch is empty.');
  const bad = body.findIndex((m) => !JSONRPCMessageSchema.safeParse(m).success);
  if (bad !== -1) throw new BindingError(400, `Invalid Request: message ${bad + 1} of the batch is ${NOT_JSON_RPC}`);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BindingError(413, `The request is larger than ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BindingError(400, 'Parse error: the request body is not JSON.', { code: PARSE_ERROR });
  }
}

export function createMcpHttpEndpoint(options: McpHttpEndpointOptions): McpHttpEndpoint {
  const { service, builder, registry, changes } = options;
  const inbox = options.inbox ?? new InboxStore(registry.home);
  const live = new Map<string, LiveSession>();
  const maxSessions = options.maxSessions ?? 100;
  const idleMs = options.idleMs ?? 24 * 60 * 60 * 1000;
  const inUseMs = Math.min(IN_USE_MS, idleMs);
  /** Sessions being opened: counted against the cap from their first moment (open() awaits). */
  let opening = 0;

  const now = options.now ?? Date.now;

  const sweep = async (): Promise<void> => {
    const t = now();
    const idle = [...live].filter(([, s]) => s.inFlight === 0 && t - s.lastUsed > idleMs);
    for (const [id] of idle) live.delete(id);
    await Promise.all(idle.map(([, s]) => s.transport.close().catch(() => {})));
  };
  const sweeper = setInterval(() => void sweep(), Math.min(idleMs, 60_000));
  sweeper.unref();

  /** The session, its mode, and the directory the agent runs in (how its transcript is found), if known. */
  const bind = async (req: http.IncomingMessage, url: URL): Promise<{ session: MemorySession; mode: Mode; cwd: string | null }> => {
    const header = req.headers[WORKSPACE_HEADER];
    const workspace = url.searchParams.get('workspace') ?? (typeof header === 'string' ? header : null);
    const cwd = url.searchParams.get('cwd');
    const mode = (url.searchParams.get('mode') ?? 'exec') as Mode;
    if (!MODES.includes(mode)) throw new BindingError(400, `mode must be one of ${MODES.join(', ')}.`);
    if (workspace !== null && cwd !== null) throw new BindingError(400, 'Give either workspace or cwd, not both.');
    if (cwd !== null && !path.isAbsolute(cwd)) throw new BindingError(400, 'cwd must be an absolute directory path.');
    try {
      if (workspace !== null) {
        const entry = registry.get(workspace);
        return { session: await registry.session(workspace), mode, cwd: entry?.kind === 'local' ? entry.path : null };
      }
      if (cwd !== null) return { session: await mcpSession(registry, cwd), mode, cwd: path.resolve(cwd) };
      return { session: await registry.session(null), mode, cwd: null };
    } catch (err) {
      if (err instanceof RegistryError) throw new BindingError(400, err.message);
      throw err;
    }
  };

  /** Makes room for one more session (returning the session it ended, to close), or says why there is none. */
  const makeRoom = (): LiveSession | null => {
    if (live.size + opening < maxSessions) return null;
    const t = now();
    const quiet = [...live].filter(([, s]) => s.inFlight === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
    if (!quiet || t - quiet[1].lastUsed <= inUseMs) {
      const retryAfter = quiet ? Math.max(1, Math.ceil((quiet[1].lastUsed + inUseMs + 1 - t) / 1000)) : Math.ceil(inUseMs / 1000);
      throw new BindingError(
        503,
        `Cairn already has ${maxSessions} MCP sessions, each in use (a request in the last ${Math.round(inUseMs / 60_000)} minutes or one in flight), and ends none of them for a new one. Retry in ${retryAfter} s, or end a session you no longer need (DELETE /mcp with its Mcp-Session-Id).`,
        { headers: { 'retry-after': String(retryAfter) } },
      );
    }
    live.delete(quiet[0]);
    return quiet[1];
  };

  // Which agents are connected, for the person (activity/agents-seen.ts).
  const presence = new AgentsSeen(registry.home);
  const open = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: unknown): Promise<void> => {
    const ended = makeRoom();
    // The slot is taken before any await, so concurrent initializes each see it taken.
    opening++;
    let reserved = true;
    const release = () => {
      if (reserved) opening--;
      reserved = false;
    };
    try {
      await ended?.transport.close().catch(() => {});
      const { session, mode, cwd } = await bind(req, url);
      // The instructions' hot set within the workspace's injection settings, as cairn mcp's.
      const context = await sessionContext(builder, session, mode, { injection: injectionFor(registry.settings(), session.workspaceId) });
      const mcp = await createMemoryMcpServer({ service, builder, session, mode, changes, proposals: proposalHost(registry, inbox, cwd), ...(options.consolidations ? { consolidations: options.consolidations } : {}), context, presence });
      let entry: LiveSession | null = null;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          entry = { transport, mcp, workspaceId: session.workspaceId, mode, inFlight: 1, lastUsed: now() };
          live.set(id, entry);
          release();
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) live.delete(transport.sessionId);
        void mcp.close();
      };
      await mcp.connect(transport);
      try {
        await transport.handleRequest(req, res, body);
      } finally {
        if (entry) (entry as LiveSession).inFlight--;
      }
      // An initialize that failed leaves no session behind.
      if (!transport.sessionId || !live.has(transport.sessionId)) await mcp.close();
    } finally {
      release();
    }
  };

  return {
    async handle(req, res, url) {
      try {
        const id = req.headers['mcp-session-id'];
        if (typeof id === 'string') {
          const s = live.get(id);
          if (!s) return sendError(res, 404, 'This MCP session is unknown or has ended; start a new one (initialize).');
          // The GET stream (server-to-client notifications) stays open for the whole session: it is
          // not work in flight, so it does not keep an idle session alive.
          const busy = req.method !== 'GET';
          if (busy) s.inFlight++;
          s.lastUsed = now();
          try {
            if (req.method === 'POST') {
              const body = await readJson(req);
              checkJsonRpc(body);
              await s.transport.handleRequest(req, res, body);
            } else {
              await s.transport.handleRequest(req, res);
            }
          } finally {
            if (busy) s.inFlight--;
            s.lastUsed = now();
          }
          return;
        }
        if (req.method !== 'POST') return sendError(res, 400, 'No MCP session: send an initialize request (POST) first.');
        const body = await readJson(req);
        if (!isInitializeRequest(body)) return sendError(res, 400, 'No MCP session: send an initialize request first, then the Mcp-Session-Id it returns.');
        await open(req, res, url, body);
      } catch (err) {
        if (err instanceof BindingError) return sendError(res, err.status, err.message, err.answer);
        throw err;
      }
    },
    sweep,
    sessions: () => new Map([...live].map(([id, s]) => [id, { workspaceId: s.workspaceId, mode: s.mode }])),
    async close() {
      clearInterval(sweeper);
      const all = [...live.values()];
      live.clear();
      await Promise.all(all.map((s) => s.transport.close().catch(() => {})));
      await Promise.all(all.map((s) => s.mcp.close()));
    },
  };
}
