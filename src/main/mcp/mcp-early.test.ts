// The early answer to `initialize` (early-initialize.ts) against the SDK's own, in-process over
// real services on a sandbox home (files, pins, usage, a flagged file): for every protocol version
// the SDK speaks, and one it does not, both are the same bytes; an initialize in any doubt is left
// to the SDK, and none the SDK refuses is answered early; the official client's initialize is one
// answered early; the transport drops the server's answer the client already has (and says so if
// it differs); and reading the first line ahead gives the stream back whole and in order.
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeContextHome } from '../../../tests/support/context-home';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import type { Mode } from '../../common/memory/constants';
import { openHome, type HomeServices } from '../host/home-services';
import { ContextBuilder } from '../context/context-builder';
import { PROTOCOL_VERSIONS, initializeAnswerLine, initializeRequestOf, peekFirstLine } from './early-initialize';
import { createMemoryMcpServer, type MemoryMcpOptions } from './memory-mcp-server';
import { sessionContext } from '../context/session-context';
import { CairnStdioTransport } from './stdio-transport';

let sb: Sandbox;
let services: HomeServices;

beforeAll(async () => {
  sb = await makeSandbox();
  writeContextHome(sb);
  services = openHome(sb.home);
});
afterAll(async () => {
  await services.close();
  await sb.cleanup();
});

/** A server connected to a stdio transport on in-memory streams: what it writes, line by line. */
async function serve(mode: Mode, extra: Partial<MemoryMcpOptions> = {}) {
  const mcp = await createMemoryMcpServer({ service: services.service, builder: new ContextBuilder(services.usage), session: sb.session, mode, ...extra });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new CairnStdioTransport(stdin, stdout);
  const errors: string[] = [];
  mcp.server.server.onerror = (err) => errors.push(err.message);
  await mcp.connect(transport);
  let out = '';
  const waiting: Array<() => void> = [];
  stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of waiting.splice(0)) w();
  });
  /** The next line the server writes (without waiting on any clock: it resolves when the line is there). */
  const nextLine = async (): Promise<string> => {
    while (!out.includes('\n')) await new Promise<void>((resolve) => waiting.push(resolve));
    const line = out.slice(0, out.indexOf('\n') + 1);
    out = out.slice(line.length);
    return line;
  };
  return { mcp, transport, stdin, nextLine, errors, pending: () => out };
}

const initialize = (protocolVersion: string, id: string | number = 1, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'early-test', version: '1.0.0' }, ...params } });

describe('the early answer to initialize', () => {
  it('knows the protocol versions the SDK speaks, newest first', () => {
    expect([...PROTOCOL_VERSIONS]).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it.each([...PROTOCOL_VERSIONS, '2099-01-01'])('is the SDK answer byte for byte, for version %s', async (version) => {
    for (const [mode, id] of [['exec', 1], ['plan', 'a-7'], ['explore', 0]] as const) {
      // The server that does not answer early, as `cairn mcp --workspace` runs it.
      const { mcp, stdin, nextLine, errors } = await serve(mode);
      const line = initialize(version, id);
      stdin.write(`${line}\n`);
      const sdk = await nextLine();
      // The early answer: the context computed as `cairn mcp` does before the server loads.
      const early = initializeAnswerLine(initializeRequestOf(line)!, (await sessionContext(new ContextBuilder(services.usage), sb.session, mode)).instructions);
      expect(early).toBe(sdk);
      expect(JSON.parse(sdk).result.instructions).toContain('<memory_index>');
      expect(errors).toEqual([]);
      await mcp.close();
    }
  });

  it('is given to every initialize the SDK takes as it is, and to none it refuses', async () => {
    const base = JSON.parse(initialize('2025-06-18')) as { params: Record<string, unknown> };
    // What each is: answered early, left to the SDK which takes it, or refused by the SDK.
    const variants: Array<[string, string, 'early' | 'sdk' | 'refused']> = [
      ['capabilities clients send', initialize('2025-06-18', 2, { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {}, experimental: { x: {} } } }), 'early'],
      ['elicitation with its form', initialize('2025-06-18', 3, { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } }), 'early'],
      ['a client title and site', initialize('2025-06-18', 4, { clientInfo: { name: 'c', version: '1', title: 'C', websiteUrl: 'https://example.com' } }), 'early'],
      ['a capability Cairn does not know', initialize('2025-06-18', 5, { capabilities: { future: { x: 1 } } }), 'early'],
      // Left to the SDK: deep shapes, icons, _meta, a batch (the SDK may take them; declining costs only time).
      ['a batch', `[${initialize('2025-06-18', 15)}]`, 'sdk'],
      ['tasks', initialize('2025-06-18', 6, { capabilities: { tasks: { list: {} } } }), 'sdk'],
      ['icons', initialize('2025-06-18', 7, { clientInfo: { name: 'c', version: '1', icons: [{ src: 'https://example.com/i.png' }] } }), 'sdk'],
      ['_meta', initialize('2025-06-18', 8, { _meta: { progressToken: 1 } }), 'sdk'],
      // Refused by the SDK: never answered early.
      ['roots.listChanged not a boolean', initialize('2025-06-18', 9, { capabilities: { roots: { listChanged: 'yes' } } }), 'refused'],
      ['a capability that is not an object', initialize('2025-06-18', 10, { capabilities: { sampling: true } }), 'refused'],
      ['clientInfo without a version', initialize('2025-06-18', 11, { clientInfo: { name: 'c' } }), 'refused'],
      ['protocolVersion not a string', initialize('2025-06-18', 12, { protocolVersion: 20250618 }), 'refused'],
      ['a member JSON-RPC does not have', JSON.stringify({ ...base, jsonrpc: '2.0', id: 13, method: 'initialize', extra: true }), 'refused'],
      ['an id that is not an integer', initialize('2025-06-18', 1.5), 'refused'],
      ['no params', JSON.stringify({ jsonrpc: '2.0', id: 14, method: 'initialize' }), 'refused'],
    ];
    for (const [what, line, kind] of variants) {
      const request = initializeRequestOf(line);
      expect(request !== null, what).toBe(kind === 'early');
      const { mcp, stdin, nextLine } = await serve('exec');
      stdin.write(`${line}\n`);
      const sdk = await nextLine();
      if (request) expect(initializeAnswerLine(request, (await sessionContext(new ContextBuilder(services.usage), sb.session, 'exec')).instructions), what).toBe(sdk);
      else expect(JSON.stringify(JSON.parse(sdk)), what).toContain(kind === 'sdk' ? '"result":{"protocolVersion"' : '"error":{');
      await mcp.close();
    }
  });

  it("is given to the official MCP client's initialize", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent = new Promise<JSONRPCMessage>((resolve) => (serverSide.onmessage = resolve));
    await serverSide.start();
    const client = new Client({ name: 'official', version: '1.2.3' }, { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } });
    const connecting = client.connect(clientSide).catch(() => {});
    const request = initializeRequestOf(JSON.stringify(await sent));
    expect(request).toMatchObject({ id: 0, protocolVersion: LATEST_PROTOCOL_VERSION });
    await clientSide.close();
    await connecting;
  });

  it('makes the server drop its own answer to the request, and say so when it differs', async () => {
    const context = await sessionContext(new ContextBuilder(services.usage), sb.session, 'exec');
    const line = initialize('2025-06-18', 1);
    const early = initializeAnswerLine(initializeRequestOf(line)!, context.instructions);

    const same = await serve('exec', { context });
    same.transport.skipAnswer(1, early);
    same.stdin.write(`${line}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    expect(JSON.parse(await same.nextLine())).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(same.pending()).toBe('');
    expect(same.errors).toEqual([]);
    // The server knows the client from the request it was given.
    expect(same.mcp.server.server.getClientVersion()).toEqual({ name: 'early-test', version: '1.0.0' });
    await same.mcp.close();

    const differing = await serve('exec', { context });
    differing.transport.skipAnswer(1, early.replace('"cairn"', '"other"'));
    differing.stdin.write(`${line}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    expect(JSON.parse(await differing.nextLine())).toMatchObject({ id: 2 });
    expect(differing.errors).toEqual(['the answer to request 1 sent early is not the one the server gives']);
    await differing.mcp.close();
  });
});

describe('reading the first line ahead', () => {
  /** Everything `input` gives a reader from now on, until it ends. */
  const rest = (input: PassThrough) =>
    new Promise<string>((resolve) => {
      const all: Buffer[] = [];
      input.on('data', (d: Buffer) => all.push(d));
      input.once('end', () => resolve(Buffer.concat(all).toString()));
      // As the transport does: the read ahead paused the stream, and a listener does not end a pause.
      input.resume();
    });

  it('gives the line, and the whole stream back, in order, to the next reader', async () => {
    const input = new PassThrough();
    const bytes = '{"a":1}\r\n{"b":2}\n{"c":';
    const peeked = peekFirstLine(input);
    // Split anywhere, a multibyte character across chunks included.
    const data = Buffer.from(`${bytes}"é"}\n`);
    for (let i = 0; i < data.length; i += 3) input.write(data.subarray(i, i + 3));
    expect(await peeked).toEqual({ line: '{"a":1}', ended: false });
    // Paused until the next reader: what comes meanwhile waits behind what was read.
    input.end('{"d":4}\n');
    expect(await rest(input)).toBe(`${bytes}"é"}\n{"d":4}\n`);
  });

  it('gives no line for a stream that ends before its newline, or one past the limit', async () => {
    const ended = new PassThrough();
    const peeked = peekFirstLine(ended);
    ended.end('{"no newline":true}');
    expect(await peeked).toEqual({ line: null, ended: true });

    const long = new PassThrough();
    const peekedLong = peekFirstLine(long, 16);
    long.write('x'.repeat(10));
    long.write(`${'y'.repeat(10)}\n{"next":1}\n`);
    expect(await peekedLong).toEqual({ line: null, ended: false });
    long.end();
    expect(await rest(long)).toBe(`${'x'.repeat(10)}${'y'.repeat(10)}\n{"next":1}\n`);
  });
});
