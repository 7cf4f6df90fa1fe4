// Web mode's connection against a real loopback oRPC server over real WebSockets (`ws`), stopped
// and started again on the same port as `cairn serve` is: the oRPC client goes on over the same
// Connection, a subscription made while the server is away comes back by itself, calls made while
// it is away (or cut off by its going) fail with a sentence instead of the transport's words, and a
// rotated token is told apart from a server that is down. The server is a small one built here, with
// the same token rules as src/main/api/web-server.ts (renderer tests do not import src/main; the
// Chromium suite tests/e2e/web-restart.test.ts runs the real one). Retries run on a manual clock:
// the test fires each one, so no step depends on how fast the machine is.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventIterator, getEventIteratorSchemaDetails, oc } from '@orpc/contract';
import { implement } from '@orpc/server';
import { RPCHandler } from '@orpc/server/ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { contract } from '../../common/api/contract';
import { API_HTTP_PATH, API_WS_PATH, WS_PROTOCOL, WS_TOKEN_PREFIX, wsProtocols } from '../../common/api/transport';
import { webSocketClient } from './client';
import { Connection, ConnectionError, isSubscription, RETRY_FIRST_MS, RETRY_MAX_MS, TEXTS, type ConnectionState, type TokenCheck } from './connection';

const mini = {
  echo: oc.input(z.string()).output(z.string()),
  /** Answers only when released: a call in flight while the server goes away. */
  hang: oc.output(z.string()),
  onTick: oc.output(eventIterator(z.number())),
};
type MiniClient = {
  echo(input: string): Promise<string>;
  hang(): Promise<string>;
  onTick(input?: undefined, options?: { signal?: AbortSignal }): Promise<AsyncIterable<number>>;
};

interface Mini {
  port: number;
  hangStarted: Promise<void>;
  close(): Promise<void>;
}

/** A server taking `token` on `port` (0: a free one), with WebSocket oRPC and the token check of GET /api/rpc. */
async function startMini(token: string, port = 0): Promise<Mini> {
  let hangStarted!: () => void;
  const started = new Promise<void>((r) => (hangStarted = r));
  const os = implement(mini);
  const router = {
    echo: os.echo.handler(({ input }) => `echo:${input}`),
    hang: os.hang.handler(() => {
      hangStarted();
      return new Promise<string>(() => {});
    }),
    onTick: os.onTick.handler(async function* () {
      for (let i = 1; ; i++) {
        yield i;
        await new Promise((r) => setTimeout(r, 5));
      }
    }),
  };
  const handler = new RPCHandler(router);
  const server = http.createServer((req, res) => {
    if (req.url !== API_HTTP_PATH) return void res.writeHead(404).end();
    res.writeHead(req.headers.authorization === `Bearer ${token}` ? 204 : 401).end();
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => (p.has(WS_PROTOCOL) ? WS_PROTOCOL : false) });
  server.on('upgrade', (req, socket, head) => {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (req.url !== API_WS_PATH || !offered.includes(`${WS_TOKEN_PREFIX}${token}`)) return void socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => void handler.upgrade(ws));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hangStarted: started,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The manual clock: retries wait here until the test fires them. */
class ManualTimers {
  pending: { fn: () => void; ms: number }[] = [];
  setTimeout = (fn: () => void, ms: number) => {
    const t = { fn, ms };
    this.pending.push(t);
    return t;
  };
  clearTimeout = (h: unknown) => {
    this.pending = this.pending.filter((t) => t !== h);
  };
  /** Fires the one retry that is waiting, and says how long it asked to wait. */
  fire(): number {
    expect(this.pending).toHaveLength(1);
    const t = this.pending.shift()!;
    t.fn();
    return t.ms;
  }
}

async function checkToken(port: number, token: string): Promise<TokenCheck> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${API_HTTP_PATH}`, { headers: { authorization: `Bearer ${token}` } });
    return res.status === 401 ? 'refused' : 'accepted';
  } catch {
    return 'unreachable';
  }
}

function until(conn: Connection, state: ConnectionState): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (conn.state === state) {
        stop();
        resolve();
      }
    };
    const stop = conn.subscribe(check);
    check();
  });
}

/** Waits until the connection has asked for its next retry (after the token check, for a failed attempt). */
async function retryAsked(timers: ManualTimers): Promise<void> {
  while (timers.pending.length === 0) await new Promise((r) => setImmediate(r));
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function connect(port: () => number, token: { value: string | null }, timers: ManualTimers) {
  const storedListeners = new Set<() => void>();
  const conn = new Connection({
    token: () => token.value,
    open: (t) => new WebSocket(`ws://127.0.0.1:${port()}${API_WS_PATH}`, wsProtocols(t)) as unknown as globalThis.WebSocket,
    checkToken: (t) => checkToken(port(), t),
    onTokenStored: (l) => {
      storedListeners.add(l);
      return () => storedListeners.delete(l);
    },
    timers,
  });
  cleanups.push(() => conn.close());
  const client = webSocketClient(conn) as unknown as MiniClient;
  const storeToken = (t: string) => {
    token.value = t;
    for (const l of storedListeners) l();
  };
  return { conn, client, storeToken };
}

describe('the web-mode connection', () => {
  it('survives a restart of the server on the same port: calls work again, a subscription made meanwhile resumes', async () => {
    let server = await startMini('tok-1');
    const port = server.port;
    cleanups.push(() => server.close());
    const timers = new ManualTimers();
    const { conn, client } = connect(() => port, { value: 'tok-1' }, timers);
    await until(conn, 'online');
    await expect(client.echo('a')).resolves.toBe('echo:a');

    await server.close();
    await until(conn, 'reconnecting');
    // Made while the server is away: a person's call fails with a sentence, a subscription waits.
    const error = await client.echo('b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(TEXTS.unreachable);
    expect((error as Error).message).not.toMatch(/WebSocket/);
    const ticks = client.onTick().then(async (stream) => {
      for await (const n of stream) return n;
      return null;
    });

    // One retry fails while the server is still down (the check finds nobody), then it comes back.
    expect(timers.fire()).toBe(RETRY_FIRST_MS);
    await retryAsked(timers);
    expect(conn.state).toBe('reconnecting');
    server = await startMini('tok-1', port);
    timers.fire();
    await until(conn, 'online');
    await expect(client.echo('c')).resolves.toBe('echo:c');
    await expect(ticks).resolves.toBe(1);
  });

  it('says a call cut off by the server going away may not have been done', async () => {
    const server = await startMini('tok-1');
    cleanups.push(() => server.close());
    const { conn, client } = connect(() => server.port, { value: 'tok-1' }, new ManualTimers());
    await until(conn, 'online');
    const inFlight = client.hang().catch((e: unknown) => e);
    await server.hangStarted;
    await server.close();
    const error = await inFlight;
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(TEXTS.interrupted);
  });

  it('backs off while the server stays away: 250 ms, then doubling, never over 5 s', async () => {
    const server = await startMini('tok-1');
    const port = server.port;
    const timers = new ManualTimers();
    const { conn } = connect(() => port, { value: 'tok-1' }, timers);
    await until(conn, 'online');
    await server.close();
    await until(conn, 'reconnecting');
    const waits = [timers.fire()];
    for (let i = 0; i < 7; i++) {
      await retryAsked(timers);
      waits.push(timers.fire());
    }
    expect(waits).toEqual([RETRY_FIRST_MS, 250, 500, 1000, 2000, 4000, RETRY_MAX_MS, RETRY_MAX_MS]);
    expect(conn.state).toBe('reconnecting');
  });

  it('tells a rotated token from a server that is down, says what to do, and comes back when a new token is stored', async () => {
    let server = await startMini('tok-1');
    const port = server.port;
    cleanups.push(() => server.close());
    const timers = new ManualTimers();
    const { conn, client, storeToken } = connect(() => port, { value: 'tok-1' }, timers);
    await until(conn, 'online');
    await server.close();
    server = await startMini('tok-2', port); // `cairn serve --rotate-token`
    await until(conn, 'reconnecting');
    timers.fire();
    await until(conn, 'refused');
    const error = await client.echo('x').catch((e: unknown) => e);
    expect((error as Error).message).toBe(TEXTS.refused);
    expect(TEXTS.refused).toContain('Open the address `cairn serve` printed');
    // It keeps trying, slowly, with what it has...
    await retryAsked(timers);
    expect(timers.pending[0]!.ms).toBe(RETRY_MAX_MS);
    // ...and at once when another tab opened the new address and stored its token.
    storeToken('tok-2');
    await until(conn, 'online');
    expect(timers.pending).toHaveLength(0);
    await expect(client.echo('y')).resolves.toBe('echo:y');
  });

  it('has nothing to offer without a token, and says so', async () => {
    const server = await startMini('tok-1');
    cleanups.push(() => server.close());
    const { conn, client } = connect(() => server.port, { value: null }, new ManualTimers());
    await expect(conn.settled()).resolves.toBe('no-token');
    await expect(client.echo('x')).rejects.toThrow(TEXTS.noToken);
  });
});

describe('subscriptions', () => {
  it('are exactly the procedures of the contract that stream, as isSubscription tells them by name', () => {
    const streaming: string[] = [];
    const named: string[] = [];
    for (const [group, procedures] of Object.entries(contract)) {
      for (const [name, procedure] of Object.entries(procedures as Record<string, { '~orpc': { outputSchema?: unknown } }>)) {
        if (getEventIteratorSchemaDetails(procedure['~orpc'].outputSchema as never)) streaming.push(`${group}.${name}`);
        if (isSubscription([group, name])) named.push(`${group}.${name}`);
      }
    }
    expect(streaming).toContain('memory.onChange');
    expect(named).toEqual(streaming);
  });
});
