// `cairn mcp` (stdio) facing input no well-behaved client sends: a message over the size limit
// (answered, not held, and the session goes on), lines that are not JSON or not JSON-RPC, batches
// valid and not, requests whose params break their schema, and an old_str of megabytes. Driven by
// the official MCP client where it can send the input, else by a raw line writer on stdin.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stopProcess } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
const clients: Client[] = [];
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const child of children.splice(0)) await stopProcess(child);
  await sb.cleanup();
});

async function connect(): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'cairn-input-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
}

async function mcpErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

type Answer = { jsonrpc: '2.0'; id: string | number | null; result?: unknown; error?: { code: number; message: string } };

/** `cairn mcp` driven line by line: what is written goes to stdin as is; each stdout line is one answer. */
interface RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  /** Writes `data` to stdin, waiting while the pipe is full. */
  write(data: string | Buffer): Promise<void>;
  /** The next line on stdout, parsed. */
  next(): Promise<Answer | Answer[]>;
  stderr(): string;
}

async function rawSession(): Promise<RawSession> {
  const child = spawn(CAIRN_BIN, ['mcp', '--home', sb.home, '--cwd', sb.checkout]);
  children.push(child);
  const lines: string[] = [];
  const waiting: Array<() => void> = [];
  let out = '';
  let err = '';
  let exited = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
      lines.push(out.slice(0, nl));
      out = out.slice(nl + 1);
    }
    waiting.splice(0).forEach((wake) => wake());
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.on('exit', () => {
    exited = true;
    waiting.splice(0).forEach((wake) => wake());
  });
  const session: RawSession = {
    child,
    write: (data) =>
      new Promise<void>((resolve, reject) => {
        if (child.stdin.write(data)) resolve();
        else child.stdin.once('drain', resolve);
        child.stdin.once('error', reject);
      }),
    async next() {
      while (lines.length === 0) {
        if (exited) throw new Error(`cairn mcp exited (${child.exitCode}) without answering; stderr: ${err}`);
        await new Promise<void>((wake) => waiting.push(wake));
      }
      return JSON.parse(lines.shift()!) as Answer | Answer[];
    },
    stderr: () => err,
  };
  await session.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
  expect(await session.next()).toMatchObject({ id: 0, result: { serverInfo: { name: 'cairn' } } });
  await session.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  // initialize is answered before the server has loaded: a ping's answer says it has,
  // so what a test measures of the process (its memory) is the server's, not its start.
  await session.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'loaded', method: 'ping' })}\n`);
  expect(await session.next()).toEqual({ jsonrpc: '2.0', id: 'loaded', result: {} });
  return session;
}

const ping = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

/** The peak resident memory of a process, in bytes (Linux). */
async function peakRss(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

describe('cairn mcp over stdio, on input no client should send', () => {
  it('answers a message over 10 MiB with -32600 naming its size and the limit, for its id, and goes on serving', async () => {
    const { client } = await connect();
    const huge = 'x'.repeat(11 * 1024 * 1024);
    const err = await mcpErrorOf(client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/big.md', file_text: huge } }));
    expect(err.code).toBe(-32600);
    expect(err.message).toMatch(/the message is too large: \d{8} bytes, and the limit is 10 MiB \(10485760 bytes\)/);
    // The session goes on: the next calls are answered.
    expect((await client.listTools()).tools).toHaveLength(4);
    expect(text(await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/small.md', file_text: 'ok' } }))).toBe(
      'File created successfully at: /memories/global/small.md',
    );
    await expect(fs.access(`${sb.roots.global}/big.md`)).rejects.toThrow();
  });

  it('drops a 200 MiB line as it comes, without holding it, answers it with id null, then serves the next line', async () => {
    const raw = await rawSession();
    const before = await peakRss(raw.child.pid!);
    const mib = Buffer.alloc(1024 * 1024, 'y');
    await raw.write('{"jsonrpc":"2.0","method":"tools/call","params":{"junk":"');
    for (let i = 0; i < 200; i++) await raw.write(mib);
    // No id at either end that can be read: the answer's id is null.
    await raw.write(`"}}\n${ping(1)}`);
    const answer = (await raw.next()) as Answer;
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answer.error!.message).toMatch(/too large: 20971\d{4} bytes/);
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    // Holding the line would take 200 MiB at least; the reader keeps at most the limit (10 MiB). The
    // chunks it drops are freed only when V8 collects: the bound leaves room for that, not for the line.
    expect((await peakRss(raw.child.pid!)) - before).toBeLessThan(128 * 1024 * 1024);
    expect(raw.stderr()).toMatch(/^cairn mcp: Invalid Request: the message is too large/m);
  });

  it('answers lines that are not JSON with -32700, and JSON that is no JSON-RPC message with -32600, id null unless it has one', async () => {
    const raw = await rawSession();
    await raw.write('{not json\n');
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: the line is not valid JSON/) } });
    // A malformed batch is a line that is not JSON too.
    await raw.write('[{"jsonrpc":"2.0","id":4,"method":"ping"},\n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await raw.write('"just a string"\n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: not a JSON-RPC 2.0 message/) } });
    await raw.write('{"jsonrpc":"2.0","id":7}\n{"jsonrpc":"1.0","id":"x","method":"ping"}\n');
    expect(await raw.next()).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(await raw.next()).toMatchObject({ id: 'x', error: { code: -32600 } });
    // Blank lines and CRLF endings are fine.
    await raw.write(`\n\r\n${ping(8).replace('\n', '\r\n')}`);
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(raw.child.exitCode).toBeNull();
  });

  it('answers a batch as one array of its requests\' answers (invalid members included), and an empty or oversized batch with -32600', async () => {
    const raw = await rawSession();
    await raw.write('[]\n');
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the batch is empty.' } });
    await raw.write(`[${Array.from({ length: 101 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' })).join(',')}]\n`);
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/at most 100 messages; this one has 101/) } });

    const batch = [
      1,
      { jsonrpc: '2.0', id: 5, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'memory', arguments: 'x' } },
      { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'memory', arguments: { command: 'create', path: '/memories/global/b.md', file_text: 'b' } } },
      { jsonrpc: '2.0', id: 5, method: 'ping' },
    ];
    await raw.write(`${JSON.stringify(batch)}\n`);
    const answers = (await raw.next()) as Answer[];
    expect(Array.isArray(answers)).toBe(true);
    const byId = (id: Answer['id']) => answers.filter((a) => a.id === id);
    expect(answers).toHaveLength(5);
    expect(byId(null)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } }]);
    expect(byId(5)).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 5, result: {} },
        { jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Invalid Request: id 5 is already used by a request in progress.' } },
      ]),
    );
    expect(byId(6)).toEqual([{ jsonrpc: '2.0', id: 6, error: { code: -32602, message: 'Invalid params for tools/call: params.arguments must be an object, not a string.' } }]);
    expect(byId('c')).toEqual([{ jsonrpc: '2.0', id: 'c', result: { content: [{ type: 'text', text: 'File created successfully at: /memories/global/b.md' }], isError: false } }]);

    // A batch of notifications only has nothing to answer; the next line is answered as usual.
    await raw.write(`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]\n${ping(9)}`);
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('answers a tools/call whose arguments are not an object with -32602 and a short message', async () => {
    const { client } = await connect();
    for (const [args, kind] of [
      ['hello', 'a string'],
      [['a'], 'an array'],
      [42, 'a number'],
    ] as const) {
      const err = await mcpErrorOf(client.request({ method: 'tools/call', params: { name: 'memory', arguments: args as never } }, CallToolResultSchema));
      expect(err.code).toBe(-32602);
      expect(err.message).toBe(`MCP error -32602: Invalid params for tools/call: params.arguments must be an object, not ${kind}.`);
    }
    const missing = await mcpErrorOf(client.request({ method: 'resources/read', params: {} as never }, CallToolResultSchema));
    expect([missing.code, missing.message]).toEqual([-32602, 'MCP error -32602: Invalid params for resources/read: params.uri is missing; it must be a string.']);
    expect((await client.listTools()).tools).toHaveLength(4);
  });

  it('cuts a 5 MB old_str in the str_replace error to its first 200 characters and its length', async () => {
    const { client } = await connect();
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/a.md', file_text: 'line\n' } });
    const oldStr = 'q'.repeat(5_000_000);
    const result = await client.callTool({ name: 'memory', arguments: { command: 'str_replace', path: '/memories/global/a.md', old_str: oldStr, new_str: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Error: No replacement was performed, old_str \`${'q'.repeat(200)}…\` (5000000 characters) did not appear verbatim in /memories/global/a.md.`);
    // Ordinary ones stay the reference's text.
    const small = await client.callTool({ name: 'memory', arguments: { command: 'str_replace', path: '/memories/global/a.md', old_str: 'nope', new_str: 'x' } });
    expect(text(small)).toBe('Error: No replacement was performed, old_str `nope` did not appear verbatim in /memories/global/a.md.');
  });
});
