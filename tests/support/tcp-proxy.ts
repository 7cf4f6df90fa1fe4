/**
 * An in-process TCP proxy in front of a server (the test sshd), for faults and measurements:
 * - `delayMs`: each chunk is held this long in each direction (the round trip grows by 2x);
 * - `turns`: round trips as the client sees them, counted, not assumed: a turn is a burst of
 *   client->server data that follows server->client data (or starts the connection);
 * - `killAll()` cuts every connection (a dropped link); `blackhole` keeps connections open but
 *   delivers nothing either way (a host that went silent mid-command);
 * - `swallowed(bytes)` resolves once that many client->server bytes have been dropped by the
 *   blackhole: the client has sent its request and it is in flight, so a test can cut or time it
 *   out then, on that event rather than after a guessed delay.
 */
import * as net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  delayMs: number;
  blackhole: boolean;
  readonly stats: { turns: number; up: number; down: number; connections: number; swallowedUp: number };
  resetStats(): void;
  swallowed(bytes: number): Promise<void>;
  killAll(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number, options: { delayMs?: number } = {}): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const stats = { turns: 0, up: 0, down: 0, connections: 0, swallowedUp: 0 };
  const swallowWaiters: { bytes: number; resolve: () => void }[] = [];
  const onSwallowed = (n: number) => {
    stats.swallowedUp += n;
    for (const w of swallowWaiters.splice(0)) {
      if (stats.swallowedUp >= w.bytes) w.resolve();
      else swallowWaiters.push(w);
    }
  };
  const proxy: TcpProxy = {
    port: 0,
    delayMs: options.delayMs ?? 0,
    blackhole: false,
    stats,
    resetStats() {
      stats.turns = 0;
      stats.up = 0;
      stats.down = 0;
      stats.swallowedUp = 0;
    },
    swallowed(bytes) {
      if (stats.swallowedUp >= bytes) return Promise.resolve();
      return new Promise<void>((resolve) => swallowWaiters.push({ bytes, resolve }));
    },
    killAll() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.killAll();
        server.close(() => resolve());
      }),
  };
  const forward = (from: net.Socket, to: net.Socket, onChunk: (n: number) => void, onDropped?: (n: number) => void) => {
    from.on('data', (chunk: Buffer) => {
      if (proxy.blackhole) {
        onDropped?.(chunk.length);
        return;
      }
      onChunk(chunk.length);
      if (proxy.delayMs > 0) setTimeout(() => to.writable && to.write(chunk), proxy.delayMs);
      else if (to.writable) to.write(chunk);
    });
  };
  const server = net.createServer((client) => {
    stats.connections++;
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    // Whether the server spoke since the client last did: the next client data starts a turn.
    let serverSpoke = true;
    forward(client, upstream, (n) => {
      stats.up += n;
      if (serverSpoke) stats.turns++;
      serverSpoke = false;
    }, onSwallowed);
    forward(upstream, client, (n) => {
      stats.down += n;
      serverSpoke = true;
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { port: number }).port = (server.address() as net.AddressInfo).port;
  return proxy;
}
