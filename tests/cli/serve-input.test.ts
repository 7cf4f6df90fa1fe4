// `cairn serve` facing input no browser sends: request targets with malformed percent-encodings or
// that are no URL at all (400, not 500 with a stack trace), and WebSocket connections that send
// garbage frames (closed quietly). The server says nothing on stderr and keeps serving others.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as net from 'node:net';
import { createORPCClient } from '@orpc/client';
import { RPCLink as WsLink } from '@orpc/client/websocket';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { wsProtocols } from '../../src/common/api/transport';
import { apiJsonSerializers } from '../../src/common/api/wire';
import type { AppRouter } from '../../src/main/api/router';
import { stopProcess } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let server: ChildProcessWithoutNullStreams;
let stderr: string;
let port: number;
let token: string;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  stderr = '';
  server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', sb.home]);
  server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^Cairn is running at (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const url = new URL(line);
  port = Number(url.port);
  token = url.hash.slice('#token='.length);
});
afterEach(async () => {
  await stopProcess(server);
  await sb.cleanup();
});

/** Sends `bytes` on a new connection and gives back all the server wrote before it closed. */
function exchange(bytes: string | Buffer, then?: (socket: net.Socket, received: Buffer) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      then?.(socket, Buffer.concat(chunks));
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

async function statusOf(target: string, headers = ''): Promise<string> {
  const answer = await exchange(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Connection: close\r\n\r\n`);
  return answer.toString('latin1').split('\r\n')[0]!;
}

async function healthy(): Promise<void> {
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/ws`, wsProtocols(token));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const client: RouterClient<AppRouter> = createORPCClient(new WsLink({ websocket: ws as unknown as globalThis.WebSocket, customJsonSerializers: apiJsonSerializers }));
  expect(await client.workspaces.list()).toEqual([]);
  ws.close();
  expect(server.exitCode).toBeNull();
}

describe('cairn serve, on input no browser sends', () => {
  it('answers a malformed percent-encoding or a target that is no URL with 400, and says nothing on stderr', async () => {
    for (const target of ['/%E0%A4%A', '/%E0%A4%A.js', '/assets/%ZZ', '/%']) expect(await statusOf(target), target).toBe('HTTP/1.1 400 Bad Request');
    expect(await statusOf('http://[')).toBe('HTTP/1.1 400 Bad Request');
    // Through the token-guarded API too: never a 500.
    expect(await statusOf('/api/rpc/%E0%A4%A', `Authorization: Bearer ${token}\r\n`)).not.toMatch(/ 5\d\d /);
    // A well-formed encoding still finds the shell's files.
    expect(await statusOf('/index%2Ehtml')).toBe('HTTP/1.1 200 OK');
    await healthy();
    expect(stderr).toBe('');
  });

  it('closes a WebSocket that sends garbage frames, quietly, and keeps serving the others', async () => {
    const mask = [0, 0, 0, 0];
    const garbage: Array<[string, number[]]> = [
      ['reserved bits set', [0xff, 0xff, 1, 2, 3, 4, 5]],
      ['an unmasked frame', [0x81, 0x05, ...Buffer.from('hello')]],
      ['an unknown opcode', [0x83, 0x80, ...mask]],
      ['text that is not UTF-8', [0x81, 0x82, ...mask, 0xff, 0xfe]],
      ['a length of 2^63 - 1', [0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, ...mask]],
      ['a fragmented control frame', [0x09, 0x80, ...mask]],
    ];
    for (const [what, frame] of garbage) {
      const key = Buffer.from('0123456789abcdef').toString('base64');
      const offered = wsProtocols(token).join(', ');
      const handshake = `GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ${offered}\r\n\r\n`;
      let sent = false;
      const answer = await exchange(handshake, (socket, received) => {
        if (!sent && received.includes('\r\n\r\n')) {
          sent = true;
          socket.write(Buffer.from(frame));
        }
      });
      expect(answer.toString('latin1'), what).toMatch(/^HTTP\/1\.1 101 /);
      await healthy();
    }
    expect(stderr).toBe('');
  });
});
