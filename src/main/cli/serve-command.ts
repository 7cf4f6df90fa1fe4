/**
 * `cairn serve`: web mode. Until the oRPC host and the React UI land, it serves a read-only page
 * showing what an agent working in --cwd sees under /memories. Loopback only, a per-launch token,
 * foreign Host headers refused; the address and token are written to <home>/server.json (0600).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryService } from '../memory/memory-service';
import { resolveHome } from '../workspaces/identity';
import { resolveLocalSession } from '../workspaces/session';
import type { CliIo } from './tool-command';
import { SERVE_HELP, UsageError } from './usage';

const DEFAULT_PORT = 4873;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { port: { type: 'string' }, cwd: { type: 'string' }, home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(SERVE_HELP);
    return 0;
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a number from 0 to 65535');
  const home = resolveHome(values.home);
  const cwd = path.resolve(values.cwd ?? process.cwd());
  const token = randomBytes(24).toString('base64url');
  const service = new MemoryService();

  const server = http.createServer((req, res) => {
    void (async () => {
      const { port: bound } = server.address() as AddressInfo;
      const allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
      if (!allowedHosts.has(req.headers.host ?? '')) {
        res.writeHead(421, { 'content-type': 'text/plain' }).end('Misdirected request\n');
        return;
      }
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      if (url.pathname !== '/') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
        return;
      }
      if (url.searchParams.get('token') !== token) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Open the address cairn serve printed (it carries the access token).\n');
        return;
      }
      const session = await resolveLocalSession({ home, cwd });
      const view = await service.execute({ command: 'view', path: '/memories' }, session, { mode: 'explore', actor: 'user' });
      const body = `<!doctype html><html><head><meta charset="utf-8"><title>Cairn</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#1d232a}pre{background:#f4f6f8;padding:1rem;border-radius:6px}</style>
</head><body><h1>Cairn</h1><p>What an agent in this checkout sees under <code>/memories</code> (workspace <code>${escapeHtml(session.workspaceId ?? '')}</code>). The curation UI arrives in a later release.</p>
<pre>${escapeHtml(view.output)}</pre></body></html>`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' }).end(body);
    })().catch(() => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Cairn could not render the page.\n');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use; pass --port 0 for a free one`);
    throw err;
  });
  const { port: bound } = server.address() as AddressInfo;
  const address = `http://127.0.0.1:${bound}/?token=${token}`;
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(home, 'server.json'), `${JSON.stringify({ url: `http://127.0.0.1:${bound}`, token, pid: process.pid })}\n`, { mode: 0o600 });
  io.stdout.write(`Cairn web mode is serving at ${address}\n(Ctrl+C to stop)\n`);

  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await fs.rm(path.join(home, 'server.json'), { force: true });
  return 0;
}
