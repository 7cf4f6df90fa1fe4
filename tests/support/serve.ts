/**
 * `cairn serve` for browser tests: the built CLI on a loopback port (a free one unless given: a
 * restart keeps its port) with a temp home, its address (with the token the page reads from it),
 * what it printed, and oRPC calls over HTTP with the token, as a second client would make them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { CAIRN_BIN } from './sandbox';

export interface Served {
  server: ChildProcessWithoutNullStreams;
  /** What `cairn serve` prints: the page's address, token included. */
  address: string;
  origin: string;
  token: string;
  /** Its standard output up to the MCP line (the last one it prints on start). */
  stdout: string;
}

export interface ServeOptions {
  /** Default 0: a free port. */
  readonly port?: number;
  /** More flags (`--rotate-token`). */
  readonly args?: readonly string[];
  /**
   * Added to this process's environment for the server (where the agents' sessions are, say).
   * HOME defaults to an empty `user-home` beside the Cairn home, so the other agents' files the
   * page lists (and the sessions a harvest looks for) are the test's, never this machine's user's.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/** The user's home a served test gets unless it gives HOME: beside its Cairn home, empty until the test writes there. */
export const userHomeOf = (home: string): string => path.join(path.dirname(home), 'user-home');

/** How long `cairn serve` may take to start (it takes about a second; a loaded machine, a few). */
const SERVE_START_MS = 20_000;
/** How long one oRPC call may take before it fails (so that a suite's start fails, and ends what it made). */
const RPC_MS = 15_000;

export async function serve(home: string, options: ServeOptions = {}): Promise<Served> {
  const server = spawn(CAIRN_BIN, ['serve', '--port', String(options.port ?? 0), '--home', home, ...(options.args ?? [])], { env: { ...process.env, HOME: userHomeOf(home), ...options.env } });
  let stdout = '';
  let stderr = '';
  server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    // A server that never says where it runs is ended, well within a suite's hook timeout: a
    // suite's start that fails ends what it made, and a hung start would leave it running.
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      reject(new Error(`serve did not start in ${SERVE_START_MS} ms: ${stderr}`));
    }, SERVE_START_MS);
    server.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The MCP line comes last: by then a rotation's notice has been printed too.
      const m = /running at (\S+)/.exec(stdout);
      if (m && stdout.includes('MCP (Streamable HTTP)')) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
  const url = new URL(address);
  return { server, address, origin: url.origin, token: url.hash.slice('#token='.length), stdout };
}

/** One oRPC call (`route` like `workspaces/add`); throws unless it answers 200. */
export async function rpc(s: Pick<Served, 'origin' | 'token'>, route: string, json: unknown): Promise<unknown> {
  const res = await fetch(`${s.origin}/api/rpc/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ json }),
    signal: AbortSignal.timeout(RPC_MS),
  });
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { json: unknown }).json;
}
