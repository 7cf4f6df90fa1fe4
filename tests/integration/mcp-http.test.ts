// Cairn's MCP server over Streamable HTTP at /mcp on the host's web server, driven by the official
// MCP client (StreamableHTTPClientTransport): every command, the token (persistent MCP token or the
// per-launch one; 401 without), Host and Origin refused, one workspace binding per session, writes
// seen by the UI's onChange stream as the agent's, resource notifications, session lifecycle.
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRouterClient, type RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/memory/constants';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { openAppHost, startWebHost, type AppHost, type WebHost } from '../../src/main/host/app-host';
import { router, type AppRouter } from '../../src/main/api/router';
import { IN_USE_MS } from '../../src/main/mcp/http-endpoint';
import { loadOrCreateMcpToken, mcpTokenFile } from '../../src/main/mcp/mcp-token';
import { makeCheckout, makeSandbox, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let host: AppHost;
let web: WebHost;
let mcpToken: string;
const clients: Client[] = [];

beforeEach(async () => {
  sb = await makeSandbox();
  host = openAppHost(sb.home);
  web = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null });
  mcpToken = web.mcp!.token;
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await web.close();
  await host.close();
  await sb.cleanup();
});

async function connect(query = `cwd=${encodeURIComponent(sb.checkout)}`, token: string | null = mcpToken): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${web.mcp!.url}?${query}`), {
    requestInit: { headers: token === null ? {} : { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'cairn-http-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST (an initialize unless told), with headers as given (Host included), for what clients cannot fake. */
function rawPost(
  headers: Record<string, string>,
  pathAndQuery = '/mcp',
  body = INIT,
  port = web.port,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: pathAndQuery, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until `done()` holds: a passing wait returns at once, so the deadline is for a loaded machine. */
async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('MCP over Streamable HTTP at /mcp', () => {
  it('runs every command in every scope with the protocol texts, search, instructions and resources', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['memory', 'memory_consolidate', 'memory_propose', 'memory_search']);
    const call = async (args: Record<string, unknown>) => client.callTool({ name: 'memory', arguments: args });
    for (const scope of SCOPES) {
      const p = `/memories/${scope}/notes/a.md`;
      expect(text(await call({ command: 'create', path: p, file_text: 'line1\nline2\n' }))).toBe(`File created successfully at: ${p}`);
      expect(text(await call({ command: 'view', path: p }))).toBe(`Here's the content of ${p} with line numbers:\n     1\tline1\n     2\tline2\n     3\t`);
      expect(text(await call({ command: 'str_replace', path: p, old_str: 'line2', new_str: 'LINE2' }))).toContain('The memory file has been edited.');
      expect(text(await call({ command: 'insert', path: p, insert_line: 0, insert_text: 'top' }))).toBe(`The file ${p} has been edited.`);
      expect(text(await call({ command: 'rename', old_path: p, new_path: `/memories/${scope}/b.md` }))).toBe(`Successfully renamed ${p} to /memories/${scope}/b.md`);
      expect(await fs.readFile(path.join(sb.roots[scope], 'b.md'), 'utf8')).toBe('top\nline1\nLINE2\n');
      expect(text(await call({ command: 'delete', path: `/memories/${scope}/b.md` }))).toBe(`Successfully deleted /memories/${scope}/b.md`);
    }
    const failed = await call({ command: 'view', path: '/memories/global/nope.md' });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('Error: The path /memories/global/nope.md does not exist. Please provide a valid path.');

    await call({ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and release\n---\nRun make release.\n' });
    expect(text(await client.callTool({ name: 'memory_search', arguments: { query: 'release' } }))).toMatch(/^\/memories\/project\/build.md\n/);
    const fresh = await connect();
    expect(fresh.getInstructions()).toContain('/memories/project/build.md: How to build and release');
    const { resources } = await fresh.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['cairn://index', 'cairn://hot-set', 'cairn://memory/project/build.md']));
  });

  it('is refused without the token or with a wrong one (401), and takes the per-launch token too', async () => {
    await expect(connect(undefined, null)).rejects.toThrow(/401|Unauthorized/);
    await expect(connect(undefined, 'x'.repeat(43))).rejects.toThrow(/401|Unauthorized/);
    expect((await rawPost({})).status).toBe(401);
    expect((await rawPost({ authorization: `Bearer ${mcpToken}x` })).status).toBe(401);
    // The token is not accepted in the query string.
    expect((await rawPost({}, `/mcp?token=${mcpToken}`)).status).toBe(401);
    const viaLaunchToken = await connect(undefined, web.token);
    expect((await viaLaunchToken.listTools()).tools).toHaveLength(4);
    // The MCP token opens /mcp only, not the app's API.
    const api = await fetch(`${web.url}/api/rpc/workspaces/list`, { method: 'POST', headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json' }, body: '{}' });
    expect(api.status).toBe(401);
  });

  it('refuses a foreign Host or Origin (403), even with the token', async () => {
    const auth = { authorization: `Bearer ${mcpToken}` };
    expect((await rawPost({ ...auth, host: `evil.example:${web.port}` })).status).toBe(403);
    expect((await rawPost({ ...auth, origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost({ ...auth, origin: `http://127.0.0.1:${web.port}` })).status).toBe(200);
  });

  it('keeps the persistent token across servers, in a 0600 file', async () => {
    expect(loadOrCreateMcpToken(sb.home)).toBe(mcpToken);
    expect((await fs.stat(mcpTokenFile(sb.home))).mode & 0o777).toBe(0o600);
    const other = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null });
    try {
      expect(other.mcp!.token).toBe(mcpToken);
      expect(other.token).not.toBe(web.token);
    } finally {
      await other.close();
    }
  });

  it('binds each session to its own workspace (?cwd, ?workspace, X-Cairn-Workspace), and they stay separate', async () => {
    const otherCheckout = await makeCheckout(path.join(sb.dir, 'other'), 'git@example.com:acme/other.git');
    const a = await connect(`cwd=${encodeURIComponent(sb.checkout)}`);
    const wsA = host.registry.list().find((w) => w.path === sb.checkout)!.id;
    const wsB = (await host.registry.add('Other', otherCheckout)).id;
    const b = await connect(`workspace=${wsB}`);
    expect(wsA).not.toBe(wsB);
    await a.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/workspace/mine.md', file_text: 'A' } });
    await a.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/mine.md', file_text: 'A' } });
    await b.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/workspace/mine.md', file_text: 'B' } });
    const viewOf = async (c: Client, p: string) => text(await c.callTool({ name: 'memory', arguments: { command: 'view', path: p } }));
    expect(await viewOf(a, '/memories/workspace/mine.md')).toContain('1\tA');
    expect(await viewOf(b, '/memories/workspace/mine.md')).toContain('1\tB');
    expect(await viewOf(b, '/memories/project/mine.md')).toMatch(/^Error: The path \/memories\/project\/mine.md does not exist/);
    expect(await fs.readFile(path.join(sb.roots.workspace, 'mine.md'), 'utf8')).toBe('A');
    expect(await fs.readFile(path.join(otherCheckout, '.cairn', 'memory', 'mine.md'), 'utf8').catch(() => null)).toBeNull();

    // The header binds too; an unknown workspace or a relative cwd is refused before any session exists.
    const transport = new StreamableHTTPClientTransport(new URL(web.mcp!.url), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}`, 'X-Cairn-Workspace': wsB } } });
    const c = new Client({ name: 'hdr', version: '1' });
    await c.connect(transport);
    clients.push(c);
    expect(await viewOf(c, '/memories/workspace/mine.md')).toContain('1\tB');
    await expect(connect('workspace=nope')).rejects.toThrow(/No workspace nope is registered/);
    await expect(connect('cwd=relative/dir')).rejects.toThrow(/absolute/);
    await expect(connect(`workspace=${wsB}&cwd=${encodeURIComponent(sb.checkout)}`)).rejects.toThrow(/either workspace or cwd/);

    // No binding: the global scope only, saying why the others are unavailable.
    const bare = await connect('');
    expect(await viewOf(bare, '/memories')).toMatch(/no workspace is selected/);
  });

  it('loses nothing when several sessions write one file at once', async () => {
    const sessions = await Promise.all([connect(), connect(), connect(), connect()]);
    await sessions[0]!.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/log.md', file_text: 'start' } });
    await Promise.all(
      sessions.map(async (c, w) => {
        for (let n = 0; n < 50; n++) {
          const r = await c.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/project/log.md', insert_line: 1, insert_text: `s${w}-${n}` } });
          expect(r.isError).toBeFalsy();
        }
      }),
    );
    const lines = new Set((await fs.readFile(path.join(sb.roots.project, 'log.md'), 'utf8')).split('\n'));
    for (let w = 0; w < 4; w++) for (let n = 0; n < 50; n++) expect(lines.has(`s${w}-${n}`)).toBe(true);
  });

  it("gives a session the hot set within the workspace's injection settings, as cairn mcp does", async () => {
    const api: RouterClient<AppRouter> = createRouterClient(router, { context: host });
    const ws = (await api.workspaces.add({ name: 'w', path: sb.checkout })).id;
    await api.memory.save({ workspaceId: ws, path: '/memories/global/hot.md', content: 'a pinned note\n', expectedSha256: null });
    await api.memory.setPinned({ workspaceId: ws, path: '/memories/global/hot.md', pinned: true });
    expect((await connect()).getInstructions()).toContain('<hot_memories>');
    // This workspace's override: no hot set at all; the index stays.
    await api.settings.set({ injectionByWorkspace: { [ws]: { hotSetMaxBytes: 0 } } });
    const instructions = (await connect()).getInstructions() ?? '';
    expect(instructions).toContain('/memories/global/hot.md');
    expect(instructions).not.toContain('<hot_memories>');
  });

  it('honours ?mode', async () => {
    const client = await connect(`cwd=${encodeURIComponent(sb.checkout)}&mode=explore`);
    const refused = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/x.md', file_text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/read-only/);
    await expect(connect('mode=root')).rejects.toThrow(/mode must be one of/);
  });

  it("writes reach the UI's onChange stream as the agent's, with the session's workspace", async () => {
    const client = await connect();
    const wsA = host.registry.list().find((w) => w.path === sb.checkout)!.id;
    const ui: RouterClient<AppRouter> = createRouterClient(router, { context: host });
    const controller = new AbortController();
    const stream = await ui.memory.onChange({ workspaceId: wsA }, { signal: controller.signal });
    const events: MemoryChangeEvent[] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const reading = (async () => {
      for await (const item of stream) {
        if (item.type === 'ready') ready();
        else {
          const { type: _t, ...event } = item;
          events.push(event);
          if (events.length >= 3) break;
        }
      }
    })();
    await isReady;
    for (const scope of SCOPES) await client.callTool({ name: 'memory', arguments: { command: 'create', path: `/memories/${scope}/live.md`, file_text: 'x' } });
    // The three events end the reading at once; the deadline is for a loaded machine.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([reading, new Promise((r) => (timer = setTimeout(r, 15_000)))]);
    clearTimeout(timer);
    controller.abort();
    expect(events.map((e) => [e.op, e.path, e.actor, e.workspaceId])).toEqual(SCOPES.map((s) => ['create', `/memories/${s}/live.md`, 'agent', wsA]));
  });

  it('notifies subscribed resources over the SSE stream, including writes by another session', async () => {
    const a = await connect();
    const b = await connect();
    const updated: string[] = [];
    a.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    await b.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/shared.md', file_text: 'one' } });
    await a.subscribeResource({ uri: 'cairn://memory/project/shared.md' });
    // Notifications travel on the GET stream, which the client opens on its own after initialize:
    // b edits until one comes through, rather than guessing how long opening it takes: an edit,
    // then 200 ms for its notification, again and again for up to 20 s (a loaded machine).
    const deadline = Date.now() + 20_000;
    for (let i = 1; !updated.includes('cairn://memory/project/shared.md'); i++) {
      if (Date.now() > deadline) throw new Error(`no update notification after ${i - 1} edits in 20 s`);
      await b.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/project/shared.md', insert_line: 0, insert_text: `edit ${i}` } });
      await until('the update notification', () => updated.includes('cairn://memory/project/shared.md'), 200).catch(() => {});
    }
    const read = await a.readResource({ uri: 'cairn://memory/project/shared.md' });
    expect((read.contents[0] as { text: string }).text).toMatch(/^edit \d+\n(edit \d+\n)*one$/);
  });

  it('ends the least recently used session idle for over 10 minutes to make room beyond the cap, and sessions idle too long', async () => {
    let clock = Date.now();
    const IDLE_MS = 60 * 60_000;
    const small = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null, mcp: { maxSessions: 2, idleMs: IDLE_MS, now: () => clock } });
    try {
      const open = async () => {
        const c = new Client({ name: 'cap', version: '1' });
        await c.connect(new StreamableHTTPClientTransport(new URL(small.mcp!.url), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } }));
        clients.push(c);
        return c;
      };
      const a = await open();
      const b = await open();
      clock += IN_USE_MS + 1;
      await b.listTools(); // b is in use; a has been quiet for over 10 minutes
      await open();
      await expect(a.listTools()).rejects.toThrow(/404|unknown or has ended/);
      expect((await b.listTools()).tools).toHaveLength(4);
      expect(small.endpoint.sessions().size).toBe(2);
      // Idle for exactly idleMs: kept. A moment longer: ended by the next sweep.
      clock += IDLE_MS;
      await small.endpoint.sweep();
      expect((await b.listTools()).tools).toHaveLength(4);
      clock += IDLE_MS + 1;
      await small.endpoint.sweep();
      await expect(b.listTools()).rejects.toThrow(/404|unknown or has ended/);
    } finally {
      await small.close();
    }
  });

  it('keeps a session in use through a flood of 120 initializes: the cap holds, the rest get 503 with Retry-After, and room is made only from sessions quiet for 10 minutes', async () => {
    let clock = Date.now();
    const small = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null, mcp: { maxSessions: 3, now: () => clock } });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(small.mcp!.url), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } });
      const agent = new Client({ name: 'agent', version: '1' });
      await agent.connect(transport);
      clients.push(agent);
      await agent.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/keep.md', file_text: 'kept' } });

      // All at once: the sessions being opened count against the cap too.
      const flood = await Promise.all(Array.from({ length: 120 }, () => rawPost({ authorization: `Bearer ${mcpToken}` }, '/mcp', INIT, small.port)));
      expect(flood.filter((r) => r.status === 200)).toHaveLength(2);
      const refused = flood.filter((r) => r.status === 503);
      expect(refused).toHaveLength(118);
      expect(JSON.parse(refused[0]!.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringMatching(/already has 3 MCP sessions, each in use .* Retry in \d+ s/) } });
      expect(Number(refused[0]!.headers['retry-after'])).toBe(Math.ceil((IN_USE_MS + 1) / 1000));
      expect(small.endpoint.sessions().size).toBe(3);
      expect(small.endpoint.sessions().has(transport.sessionId!)).toBe(true);
      expect(text(await agent.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/global/keep.md' } }))).toContain('1\tkept');

      // Ten minutes on, the agent works again; the flood's sessions have been quiet: a new session
      // ends one of them (the least recently used), never the agent's.
      const floodIds = flood.filter((r) => r.status === 200).map((r) => r.headers['mcp-session-id'] as string);
      clock += IN_USE_MS + 1;
      await agent.listTools();
      const next = await rawPost({ authorization: `Bearer ${mcpToken}` }, '/mcp', INIT, small.port);
      expect(next.status).toBe(200);
      const ids = [...small.endpoint.sessions().keys()];
      expect(ids).toHaveLength(3);
      expect(ids).toContain(transport.sessionId!);
      expect(ids).toContain(next.headers['mcp-session-id']);
      expect(floodIds.filter((id) => ids.includes(id))).toHaveLength(1);
      expect((await agent.listTools()).tools).toHaveLength(4);
    } finally {
      await small.close();
    }
  });

  it('answers a body that is not JSON with -32700, one that is no JSON-RPC message or batch with -32600, and tools/call arguments that are not an object with -32602', async () => {
    const parse = await rawPost({ authorization: `Bearer ${mcpToken}` }, '/mcp', '{"jsonrpc":"2.0","id":1,"method":"initialize",');
    expect(parse.status).toBe(400);
    expect(JSON.parse(parse.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the request body is not JSON.' } });

    // Within a session: not JSON is -32700; JSON that is no JSON-RPC message, or a batch empty or
    // holding one, is -32600 (the SDK said -32700, and answered an empty batch with nothing).
    const auth = { authorization: `Bearer ${mcpToken}` };
    const session = { ...auth, 'mcp-session-id': (await rawPost(auth)).headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-06-18' };
    const refusal = async (body: string) => {
      const r = await rawPost(session, '/mcp', body);
      return { status: r.status, ...(JSON.parse(r.body) as { id: unknown; error: { code: number; message: string } }) };
    };
    expect(await refusal('{bad')).toMatchObject({ status: 400, id: null, error: { code: -32700 } });
    expect(await refusal('[{"jsonrpc":"2.0","id":2,"method":"ping"},')).toMatchObject({ status: 400, id: null, error: { code: -32700 } });
    expect(await refusal('[]')).toMatchObject({ status: 400, id: null, error: { code: -32600, message: 'Invalid Request: the batch is empty.' } });
    expect(await refusal('{"jsonrpc":"2.0","id":5}')).toMatchObject({ status: 400, id: 5, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: not a JSON-RPC 2.0 message/) } });
    expect(await refusal('[{"jsonrpc":"2.0","id":6,"method":"ping"},7]')).toMatchObject({ status: 400, id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: message 2 of the batch is not/) } });
    // A valid batch is answered, each request on the response stream.
    const batch = await rawPost(session, '/mcp', JSON.stringify([
      { jsonrpc: '2.0', id: 8, method: 'ping' },
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'memory', arguments: 'x' } },
    ]));
    expect(batch.status).toBe(200);
    const events = batch.body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { id: number });
    expect(events.sort((a, b) => a.id - b.id)).toEqual([
      { jsonrpc: '2.0', id: 8, result: {} },
      { jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Invalid params for tools/call: params.arguments must be an object, not a string.' } },
    ]);

    const client = await connect();
    for (const [args, kind] of [
      ['hello', 'a string'],
      [[1, 2], 'an array'],
    ] as const) {
      const err = await client.request({ method: 'tools/call', params: { name: 'memory', arguments: args as never } }, CallToolResultSchema).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpError);
      expect([(err as McpError).code, (err as McpError).message]).toEqual([-32602, `MCP error -32602: Invalid params for tools/call: params.arguments must be an object, not ${kind}.`]);
    }
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it('ends a session on DELETE; an unknown session id is a 404', async () => {
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const id = transport.sessionId!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await transport.terminateSession();
    const res = await fetch(web.mcp!.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'mcp-session-id': id, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/unknown or has ended/);
  });
});
