// The stdio transport on in-memory streams: lines split anywhere, the size bound (and the id read
// from a too-large line's edges, never from inside it), a batch whose request is cancelled, and
// what `cairn mcp`'s early answer to initialize needs of it: a stdin read ahead and paused is read
// whole, and the server's answer the client already has is not written again.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { peekFirstLine } from './early-initialize';
import { CairnStdioTransport, idOfTooLarge } from './stdio-transport';

async function setup(maxMessageBytes?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new CairnStdioTransport(stdin, stdout, maxMessageBytes);
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  await transport.start();
  const lines = async () => {
    await new Promise((r) => setImmediate(r));
    const all = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
    out = '';
    return all;
  };
  return { stdin, transport, received, lines };
}

describe('CairnStdioTransport', () => {
  it('reads a message split into one-byte chunks, with CRLF', async () => {
    const { stdin, received } = await setup();
    for (const byte of Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n')) stdin.write(Buffer.from([byte]));
    await new Promise((r) => setImmediate(r));
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  });

  it('takes a line of exactly the limit, and answers one byte more without delivering it', async () => {
    const { stdin, received, lines } = await setup(64);
    const prefix = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"';
    const exact = `${prefix}${'x'.repeat(64 - prefix.length - 3)}"}}`;
    expect(Buffer.byteLength(exact)).toBe(64);
    stdin.write(`${exact}\n`);
    stdin.write(`${exact.replace('"p"', '"pp"')}\n`);
    expect(await lines()).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: the message is too large: 65 bytes, and the limit is 64 bytes. It was not read; send smaller messages.' } }]);
    expect(received).toHaveLength(1);
  });

  it('reads the id of a too-large line only where it is plainly the outer one', () => {
    expect(idOfTooLarge('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{', '')).toBe(7);
    expect(idOfTooLarge('{"method":"tools/call","params":{"x', 'xx"}},"jsonrpc":"2.0","id":"a-1"}')).toBe('a-1');
    // Nested ids, ids inside strings, and ids too long to be safe are not taken.
    expect(idOfTooLarge('{"params":{"id":3', 'xx","id":3}}')).toBeNull();
    expect(idOfTooLarge('{"x":"', 'text \\",\\"id\\":3}"}')).toBeNull();
    expect(idOfTooLarge('{"id":12345678901234567890,', '')).toBeNull();
    expect(idOfTooLarge('not json at all', 'either')).toBeNull();
  });

  it('answers a batch once its requests are answered, a cancelled one included', async () => {
    const { stdin, transport, received, lines } = await setup();
    stdin.write(`${JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ])}\n`);
    await new Promise((r) => setImmediate(r));
    expect(received.map((m) => ('id' in m ? m.id : null))).toEqual([1, 2]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await lines()).toEqual([]); // 2 is still awaited
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })}\n`);
    expect(await lines()).toEqual([[{ jsonrpc: '2.0', id: 1, result: {} }]]);
    // Answers to requests outside any batch go out on their own.
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    expect(await lines()).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('reads a stdin that was read ahead and paused, from its first byte', async () => {
    const stdin = new PassThrough();
    const first = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    stdin.write(`${first}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    expect(await peekFirstLine(stdin)).toEqual({ line: first, ended: false });
    const transport = new CairnStdioTransport(stdin, new PassThrough());
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await new Promise((r) => setImmediate(r));
    expect(received.map((m) => ('id' in m ? m.id : null))).toEqual([1, 2, 3]);
  });

  it("writes no answer to a request answered already, once, and says when the server's differs", async () => {
    const { transport, lines } = await setup();
    const errors: string[] = [];
    transport.onerror = (e) => errors.push(e.message);
    const answer = { jsonrpc: '2.0' as const, id: 1, result: { ok: true } };
    transport.skipAnswer(1, `${JSON.stringify(answer)}\n`);
    await transport.send(answer);
    expect(await lines()).toEqual([]);
    // Only once: a later answer with that id goes out.
    await transport.send(answer);
    expect(await lines()).toEqual([answer]);
    transport.skipAnswer('a', `${JSON.stringify({ jsonrpc: '2.0', id: 'a', result: {} })}\n`);
    await transport.send({ jsonrpc: '2.0', id: 'a', result: { other: 1 } });
    expect(await lines()).toEqual([]);
    expect(errors).toEqual(['the answer to request "a" sent early is not the one the server gives']);
  });
});
