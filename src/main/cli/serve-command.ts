/**
 * `cairn serve`: web mode. Serves the renderer and the oRPC API on loopback (src/main/api), prints
 * `Cairn is running at http://127.0.0.1:PORT/#token=TOKEN`, and announces the address and token in
 * <home>/server.json (host/server-info.ts: withdrawn on a clean exit; one left by a dead process is replaced).
 * The token is the persistent web token of <home>/web-token (src/main/mcp/mcp-token.ts), so a page
 * opened before a restart reconnects by itself. `--rotate-token` replaces it before serving; it is
 * refused while another server of the home runs, since that one would go on taking the old token.
 * Also serves MCP over Streamable HTTP at /mcp (src/main/mcp/http-endpoint.ts) with the persistent
 * token of <home>/mcp-token, and says so on a second line. The services and the server are
 * src/main/host/app-host.ts's, as the app's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopback } from '../api/web-server';
import { openAppHost, startWebHost } from '../host/app-host';
import { announceServer, runningServer, withdrawServer } from '../host/server-info';
import { loadOrCreateWebToken, rotateWebToken } from '../mcp/mcp-token';
import { resolveHome } from '../workspaces/home-dir';
import { assertOwnHome } from '../runtime/local/ownership';
import type { CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { SERVE_HELP, UsageError } from './usage';

const DEFAULT_PORT = 4873;

/**
 * The built renderer beside the built CLI (out/renderer next to out/main), if it is there. This
 * module may be a chunk of the build (out/main/chunks), so the folders above it are tried in turn.
 */
function rendererDir(): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 3; up++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, '..', 'renderer');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return path.resolve(candidate);
  }
  return null;
}


/** How long a graceful stop may take before the process just exits. */
const SHUTDOWN_DEADLINE_MS = 3_000;
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, SERVE_HELP, { port: { type: 'string' }, host: { type: 'string' }, home: { type: 'string' }, 'rotate-token': { type: 'boolean' } }, false);
  if (!parsed) return 0;
  const { values } = parsed;
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a number from 0 to 65535');
  const host = values.host ?? '127.0.0.1';
  const home = resolveHome(values.home);
  // Before its token is read: another user's home could hand out a token they know.
  assertOwnHome(home);
  if (!isLoopback(host)) {
    io.stderr.write(
      `\n*** WARNING: serving on ${host}, not loopback. Anyone who can reach this address and learns the token can read and change your agents' memory. ***\n\n`,
    );
  }
  let token: string;
  if (values['rotate-token']) {
    const running = runningServer(home);
    if (running && running.pid !== process.pid) {
      throw new UsageError(`Cairn is running at ${running.url} (pid ${running.pid}) and keeps the token it started with: stop it first, then run \`cairn serve --rotate-token\``);
    }
    token = rotateWebToken(home);
  } else token = loadOrCreateWebToken(home);
  const context = openAppHost(home);
  const server = await startWebHost(context, { port, host, staticDir: rendererDir(), token }).catch(async (err: NodeJS.ErrnoException) => {
    await context.close();
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use; pass --port 0 for a free one`);
    throw err;
  });

  const other = runningServer(home);
  let wroteInfo = false;
  if (other && other.pid !== process.pid) {
    io.stderr.write(`cairn: another Cairn server (pid ${other.pid}) is running at ${other.url}; leaving its server.json in place\n`);
  } else {
    announceServer(home, { url: server.url, port: server.port, token: server.token, mcpUrl: server.mcp?.url });
    wroteInfo = true;
  }
  // Listening for the signals before saying it runs: whoever reads that line may stop it at once.
  const stopped = new Promise<void>((resolve) => {
    // `on`, not `once`: signal-exit (proper-lockfile's, loaded with the first lock) re-raises a
    // signal that has no listener but its own, which would end the process before it closes.
    process.on('SIGINT', () => resolve());
    process.on('SIGTERM', () => resolve());
  });
  io.stdout.write(`Cairn is running at ${server.url}/#token=${server.token}\n`);
  if (values['rotate-token']) io.stdout.write('The access token is new: pages opened with the old one must open the address above.\n');
  if (server.mcp) io.stdout.write(`MCP (Streamable HTTP) at ${server.mcp.url}, bearer token in ${path.join(home, 'mcp-token')}\n`);

  await stopped;
  // Its address goes first: closing may be slow, or cut short below, and a server.json left
  // behind would name a server that is gone.
  if (wroteInfo) withdrawServer(home);
  // Asked to stop, it stops: if closing hangs (a watched root vanishing mid-close, say), the
  // process still ends within a few seconds rather than lingering with its port and watchers.
  setTimeout(() => {
    io.stderr.write('cairn serve: closing took too long; exiting.\n');
    process.exit(0);
  }, SHUTDOWN_DEADLINE_MS).unref();
  await server.close();
  await context.close();
  return 0;
}
