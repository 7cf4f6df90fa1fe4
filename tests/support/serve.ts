/**
 * `cairn serve` for browser tests: the built CLI on a free loopback port with a temp home, its
 * address (with the token the page reads from it), and oRPC calls over HTTP with the token, as a
 * second client would make them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CAIRN_BIN } from './sandbox';

export interface Served {
  server: ChildProcessWithoutNullStreams;
  /** What `cairn serve` prints: the page's address, token included. */
  address: string;
  origin: string;
  token: string;
}

export async function serve(home: string): Promise<Served> {
  const server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', home]);
  const address = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (d: Buffer) => {
      const m = /running at (\S+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const url = new URL(address);
  return { server, address, origin: url.origin, token: url.hash.slice('#token='.length) };
}

/** One oRPC call (`route` like `workspaces/add`); throws unless it answers 200. */
export async function rpc(s: Served, route: string, json: unknown): Promise<unknown> {
  const res = await fetch(`${s.origin}/api/rpc/${route}`, { method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ json }) });
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { json: unknown }).json;
}
