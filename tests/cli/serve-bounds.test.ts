// `cairn serve` against a client with the token that sends what no page sends: a 200 MB
// body to /api/rpc is answered 413 without the server holding it (its resident memory does not
// follow the body), a WebSocket message past the same bound closes that socket, and a normal save
// goes on working; a request with two Host headers, or a Host with white space after its value, is
// refused on every route (the static shell, /healthz, /api/rpc, /mcp, the WebSocket upgrade), also
// later on a kept-alive connection. The Host cases go through raw sockets: HTTP clients would
// normalize the headers. A real server, real HTTP.
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import * as net from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MAX_RPC_BODY_BYTES, wsProtocols } from '../../src/common/api/transport';
import { MAX_FILE_BYTES } from '../../src/common/memory/constants';
import { stopProcess } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { rpc, serve, type Served } from '../support/serve';

let sb: Sandbox;
let served: Served;
let port: number;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  served = await serve(sb.home);
  port = Number(new URL(served.origin).port);
});
afterEach(async () => {
  await stopProcess(served.server);
  await sb.cleanup();
});

/** A process's resident memory now and at its peak, in bytes (Linux). */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * POSTs a body of `total` bytes to `route` as an authenticated client, with a Content-Length or
 * chunked, one MiB at a time as the socket takes them. `flood`: as fast as it can, never waiting
 * (the server may then close the connection before the client reads its answer: status 0);
 * otherwise the head and the first bytes, then the answer is waited for, as a client that reads
 * answers does. Gives the status, the answer's body, and how much had been sent by then.
 */
function upload(route: string, total: number, options: { chunked: boolean; flood: boolean }): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' };
    if (!options.chunked) headers['content-length'] = total;
    // A connection of its own (agent: false), dropped once the answer is in.
    const req = http.request(`${served.origin}/api/rpc/${route}`, { method: 'POST', headers, agent: false }, (res) => {
      const at = sent;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sent: at });
      });
      res.on('error', reject);
    });
    req.on('error', () => {});
    req.on('close', () => resolve({ status: 0, body: '', sent }));
    const mib = Buffer.alloc(1024 * 1024, 'x');
    const pump = (): void => {
      while (sent < total && !req.destroyed) {
        const part = sent === 0 ? Buffer.from(`{"json":{"workspaceId":null,"path":"/memories/global/huge.md","expectedSha256":null,"content":"`) : mib;
        sent += part.length;
        if (!req.write(part) || !options.flood) return;
      }
      if (sent >= total) req.end();
    };
    if (options.flood) req.on('drain', pump);
    pump();
  });
}

/** Sends `bytes` on a new connection; gives all the server wrote until it closed (or `until` says enough). */
function raw(bytes: string, until?: (received: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (until?.(received)) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

const statusLine = (answer: string): string => answer.split('\r\n')[0]!;
/** Every status line in what a connection got (one per request it answered). */
const statusLines = (answer: string): string[] => answer.match(/^HTTP\/1\.1 \d{3} [^\r]*/gm) ?? [];

describe('cairn serve: request bodies', () => {
  it('answers a 200 MB body to /api/rpc with 413 (411 when it does not say its length), without holding it, and a normal save still works', async () => {
    for (const [chunked, status] of [
      [false, 413],
      [true, 411],
    ] as const) {
      const answer = await upload('memory/save', 200 * 1024 * 1024, { chunked, flood: false });
      expect(answer.status, answer.body).toBe(status);
      expect(JSON.parse(answer.body)).toMatchObject({ json: { status, message: expect.stringContaining(String(MAX_RPC_BODY_BYTES)) } });
    }
    // A client that sends the 200 MB without waiting: the server reads none of it past the head and
    // ends the connection; its resident memory does not follow the body.
    const pid = served.server.pid!;
    const before = await memoryOf(pid);
    for (const chunked of [false, true]) {
      const flood = await upload('memory/save', 200 * 1024 * 1024, { chunked, flood: true });
      expect([0, chunked ? 411 : 413]).toContain(flood.status);
      expect(flood.sent).toBeLessThan(64 * 1024 * 1024);
    }
    // Holding the body would take 200 MB at least; dropping it as it comes takes nothing.
    expect((await memoryOf(pid)).peak - before.peak).toBeLessThan(64 * 1024 * 1024);

    // A file at the cap whose every character JSON escapes (quotes, backslashes, newlines) fits.
    const content = '"\\\n'.repeat(MAX_FILE_BYTES / 3);
    expect(JSON.stringify({ json: { workspaceId: null, path: '/memories/global/quoted.md', content, expectedSha256: null } }).length).toBeGreaterThan(2 * MAX_FILE_BYTES);
    expect(await rpc(served, 'memory/save', { workspaceId: null, path: '/memories/global/quoted.md', content, expectedSha256: null })).toMatchObject({ status: 'ok' });
    expect(await fs.readFile(`${sb.roots.global}/quoted.md`, 'utf8')).toBe(content);
    expect(served.server.exitCode).toBeNull();
  });

  it('closes a WebSocket that sends a message past the bound, and keeps serving', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws`, wsProtocols(served.token));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => {});
    ws.send(Buffer.alloc(MAX_RPC_BODY_BYTES + 1, 'x'));
    // 1009: message too big.
    expect(await closed).toBe(1009);
    expect((await fetch(`${served.origin}/healthz`)).status).toBe(200);
    expect(served.server.exitCode).toBeNull();
  });
});

describe('cairn serve: the Host header', () => {
  const good = () => `127.0.0.1:${port}`;
  const auth = () => `Authorization: Bearer ${served.token}\r\n`;
  const requests = (host: string): Array<[string, string]> => [
    ['the shell', `GET / HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ['/healthz', `GET /healthz HTTP/1.1\r\n${host}Connection: close\r\n\r\n`],
    ['/api/rpc', `GET /api/rpc HTTP/1.1\r\n${host}${auth()}Connection: close\r\n\r\n`],
    ['/api/rpc call', `POST /api/rpc/workspaces/list HTTP/1.1\r\n${host}${auth()}Content-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"json":{}}`],
    [
      '/mcp',
      `POST /mcp HTTP/1.1\r\n${host}${auth()}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    ],
    [
      '/api/ws',
      `GET /api/ws HTTP/1.1\r\n${host}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${wsProtocols(served.token).join(', ')}\r\n\r\n`,
    ],
  ];

  it('answers each route with one clean Host header', async () => {
    const expected: Record<string, RegExp> = {
      'the shell': /^HTTP\/1\.1 (200|404) /,
      '/healthz': /^HTTP\/1\.1 200 /,
      '/api/rpc': /^HTTP\/1\.1 204 /,
      '/api/rpc call': /^HTTP\/1\.1 200 /,
      '/mcp': /^HTTP\/1\.1 400 /,
      '/api/ws': /^HTTP\/1\.1 101 /,
    };
    for (const [route, request] of requests(`Host: ${good()}\r\n`)) {
      const answer = await raw(request, (got) => route === '/api/ws' && got.includes('\r\n\r\n'));
      expect(statusLine(answer), route).toMatch(expected[route]!);
    }
  });

  it('refuses two Host headers, and a Host with white space after its value, on every route', async () => {
    const hosts = [
      `Host: ${good()}\r\nHost: evil.example\r\n`,
      `Host: ${good()}\r\nHost: ${good()}\r\n`,
      `Host: ${good()} \r\n`,
      `Host: ${good()}\t\r\n`,
      `host: ${good()}  \r\n`,
    ];
    for (const host of hosts) {
      for (const [route, request] of requests(host)) {
        const answer = await raw(request);
        expect(statusLine(answer), `${route} with ${JSON.stringify(host)}`).toMatch(/^HTTP\/1\.1 400 /);
      }
    }
    // Nothing reached a route: the MCP endpoint opened no session, the server is well.
    expect((await fetch(`${served.origin}/healthz`)).status).toBe(200);
  });

  it('refuses a padded Host that comes later on a kept-alive connection', async () => {
    const clean = `GET /api/rpc HTTP/1.1\r\nHost: ${good()}\r\n${auth()}\r\n`;
    const padded = `GET /api/rpc HTTP/1.1\r\nHost: ${good()} \r\n${auth()}Connection: close\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(clean));
      let received = '';
      socket.on('data', (d: Buffer) => {
        received += d.toString('latin1');
        // The first answer is in: the same connection sends the next request.
        if (statusLines(received).length === 1 && received.endsWith('\r\n\r\n')) socket.write(padded);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
    });
    expect(statusLines(answer)).toEqual(['HTTP/1.1 204 No Content', 'HTTP/1.1 400 Bad Request']);
  });
});
