/**
 * The loopback HTTP and WebSocket host of the oRPC router (web mode, and the Electron app's
 * endpoint for agents and browsers): oRPC over HTTP at /api/rpc and over WebSocket at /api/ws,
 * /healthz, the built renderer as a static shell, and (with `mcp`) a request handler it is given
 * for one more path: the hosts give it Cairn's MCP endpoint at /mcp (src/main/host/app-host.ts
 * wires src/main/mcp/http-endpoint.ts), so this module knows nothing of MCP but its token.
 *
 * Security (docs/architecture.md, "Security envelope"): binds loopback unless told otherwise;
 * every route but /healthz and the static shell needs the API token (`Authorization: Bearer` for
 * HTTP, a WebSocket subprotocol for /api/ws, never a query string); a Host or Origin header that is
 * not this server's own is refused, against DNS rebinding and cross-site requests. The API token is
 * the one the host gives (the hosts give the persistent web token of <home>/web-token, so a page
 * survives a restart) or else a random one for this server's life. `GET /api/rpc` itself answers
 * 204 with the token and 401 without: a page that lost its WebSocket asks it whether the server is
 * back and still takes its token (a browser never learns a refused upgrade's status).
 * The `mcp` path takes `Authorization: Bearer` with its own token (the persistent MCP token, which
 * agents' configs hold) or the API token; the same Host and Origin checks apply to it, before the
 * handler sees the request. A request with more than one Host header, or with white space after
 * its Host's value, is refused on every route (400): Node keeps the first of several and trims the
 * value, so what it checks need not be what another reader of the same bytes would see. The white
 * space is gone by the time Node hands over the headers: each connection's bytes are looked at as
 * they arrive, for a Host line that ends in it (hostLines below).
 *
 * Bodies are bounded by what a call legitimately carries (MAX_RPC_BODY_BYTES): an /api/rpc body
 * must say its length (Content-Length; 411 otherwise: every client sends one for a call), and a
 * length past the bound is answered 413 before a byte of it is read. Node's parser reads no more
 * than that length as the body, so nothing past the bound is ever held; a refused body is dropped
 * as it arrives, and the connection is kept (closing it with unread bytes would reset it, and the
 * client could lose the answer). A larger /api/ws message closes that socket (1009).
 *
 * Input from a client is never a server error: a request target that is no URL or has a malformed
 * percent-encoding is a 400, and a WebSocket that sends frames that are not WebSocket frames is
 * closed, quietly; neither reaches stderr (which is for Cairn's own failures) nor stops the server.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as path from 'node:path';
import { RPCHandler as HttpRpcHandler } from '@orpc/server/node';
import { RPCHandler as WsRpcHandler } from '@orpc/server/ws';
import { apiJsonSerializers } from '../../common/api/wire';
import { WebSocketServer } from 'ws';
import { API_HTTP_PATH, API_WS_PATH, MAX_RPC_BODY_BYTES, WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../common/api/transport';
import { router, type RouterContext } from './router';

export interface WebServerOptions {
  readonly context: RouterContext;
  readonly port: number;
  readonly host: string;
  /** The built renderer (index.html and assets), or null to serve no UI. */
  readonly staticDir: string | null;
  readonly token?: string;
  /** One more path, served by a handler the host gives (its MCP endpoint). */
  readonly mcp?: McpRoute;
}

/** A path served by the host's handler once Host, Origin and the bearer token have been checked. */
export interface McpRoute {
  /** The path, e.g. /mcp. */
  readonly path: string;
  /** The bearer token it takes, besides the API token. */
  readonly token: string;
  /** Answers one request (already checked). The host closes whatever is behind it. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void>;
}

export interface WebServer {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** The `mcp` route's address and token, when one is served. */
  readonly mcp: { readonly url: string; readonly token: string } | null;
  close(): Promise<void>;
}

const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The longest header line Node takes (its default --max-http-header-size): a longer line is no header. */
const MAX_HEADER_LINE = 16 * 1024;

/**
 * Watches the bytes `socket` receives for a Host line with white space after its value (which
 * Node's parser trims away) and adds the socket to `padded` when one comes. It runs before the
 * parser on each chunk (prepended), so by the time a request is handed over its head has been seen.
 * Lines are looked at whatever they are part of: request bodies here are JSON, where no line starts
 * with `Host:`. Gives the function that stops watching (once the socket is a WebSocket).
 */
function hostLines(socket: Socket, padded: WeakSet<Socket>): () => void {
  let line = '';
  let overlong = false;
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString('latin1');
    let from = 0;
    for (let end = text.indexOf('\n', from); end >= 0; end = text.indexOf('\n', from)) {
      if (!overlong && /^host:.*[ \t]\r?$/is.test(line + text.slice(from, end))) padded.add(socket);
      line = '';
      overlong = false;
      from = end + 1;
    }
    if (overlong) return;
    line += text.slice(from);
    if (line.length > MAX_HEADER_LINE) {
      line = '';
      overlong = true;
    }
  };
  socket.prependListener('data', onData);
  return () => socket.removeListener('data', onData);
}

/** Why a call's body is not read (its length unsaid, or past the bound), or null to read it. */
function bodyRefusal(req: http.IncomingMessage): { code: string; status: number; message: string } | null {
  if (req.headers['transfer-encoding'] !== undefined) {
    return { code: 'LENGTH_REQUIRED', status: 411, message: `Send the call's body with a Content-Length (at most ${MAX_RPC_BODY_BYTES} bytes).` };
  }
  const length = Number(req.headers['content-length'] ?? 0);
  if (length > MAX_RPC_BODY_BYTES) {
    return { code: 'PAYLOAD_TOO_LARGE', status: 413, message: `The call's body is ${length} bytes; a call carries at most ${MAX_RPC_BODY_BYTES}.` };
  }
  return null;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const httpRpc = new HttpRpcHandler(router, { customJsonSerializers: apiJsonSerializers });
  const wsRpc = new WsRpcHandler(router, { customJsonSerializers: apiJsonSerializers });
  let port = options.port;
  const mcp = options.mcp ?? null;

  const hostAllowed = (hostHeader: string | undefined): boolean => {
    if (!hostHeader) return false;
    const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    if (!isLoopback(options.host)) allowed.add(`${options.host}:${port}`);
    return allowed.has(hostHeader.toLowerCase());
  };
  const originAllowed = (origin: string | undefined, hostHeader: string | undefined): boolean =>
    origin === undefined || origin === `http://${hostHeader}`;
  /** Connections that sent a Host line with white space after its value (hostLines). */
  const paddedHost = new WeakSet<Socket>();
  const stopWatching = new WeakMap<Socket, () => void>();
  /** Why a request's Host header is malformed (more than one, or padded), or null. */
  const badHost = (req: http.IncomingMessage): string | null => {
    let hosts = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
    if (hosts > 1) return 'Bad request: send one Host header.\n';
    if (paddedHost.has(req.socket)) return 'Bad request: the Host header has white space after its value.\n';
    return null;
  };

  const sendStatic = (pathname: string, res: http.ServerResponse): boolean => {
    if (!options.staticDir) return false;
    let rel: string;
    try {
      rel = pathname === '/' ? 'index.html' : decodeURIComponent(pathname.slice(1));
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request: the path has a malformed percent-encoding.\n');
      return true;
    }
    const file = path.resolve(options.staticDir, rel);
    if (!file.startsWith(path.resolve(options.staticDir) + path.sep)) return false;
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      return false; // no such page: the caller answers 404
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': rel === 'index.html' ? 'no-store' : 'public, max-age=31536000, immutable',
    });
    res.end(body);
    return true;
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = URL.parse(req.url ?? '/', 'http://placeholder');
      if (!url) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request: the request target is not a URL.\n');
        return;
      }
      const malformed = badHost(req);
      if (malformed !== null) {
        res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end(malformed);
        return;
      }
      if (url.pathname === '/healthz') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
        return;
      }
      if (!hostAllowed(req.headers.host) || !originAllowed(req.headers.origin, req.headers.host)) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden: this server only answers its own address.\n');
        return;
      }
      if (mcp && url.pathname === mcp.path) {
        const auth = req.headers.authorization ?? '';
        const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
        if (!sameToken(given, mcp.token) && !sameToken(given, token)) {
          res
            .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
            .end('Unauthorized: send Authorization: Bearer <token>, the token in Cairn\'s mcp-token file (`cairn setup <agent> --http --print` shows it).\n');
          return;
        }
        await mcp.handle(req, res, url);
        return;
      }
      if (url.pathname === API_HTTP_PATH || url.pathname.startsWith(`${API_HTTP_PATH}/`)) {
        const auth = req.headers.authorization ?? '';
        if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7), token)) {
          res
            .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
            .end('Unauthorized: open the address `cairn serve` printed, or run `cairn serve` again to see it.\n');
          return;
        }
        if (url.pathname === API_HTTP_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
          res.writeHead(204, { 'cache-control': 'no-store' }).end();
          return;
        }
        const unreadable = bodyRefusal(req);
        if (unreadable !== null) {
          // In oRPC's error shape, so a client reads it as a call's error; its body is never read.
          res.writeHead(unreadable.status, { 'content-type': 'application/json' }).end(JSON.stringify({ json: { defined: false, ...unreadable } }));
          return;
        }
        const { matched } = await httpRpc.handle(req, res, { prefix: API_HTTP_PATH, context: options.context });
        if (matched) return;
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
        return;
      }
      if (req.method === 'GET' && sendStatic(url.pathname, res)) return;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
    })().catch((err: unknown) => {
      process.stderr.write(`cairn: ${(err as Error)?.stack ?? String(err)}\n`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('Cairn could not answer this request.\n');
    });
  });

  server.on('connection', (socket: Socket) => stopWatching.set(socket, hostLines(socket, paddedHost)));

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_RPC_BODY_BYTES,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  server.on('upgrade', (req, socket, head) => {
    // A client that resets its connection mid-handshake must not take the server down with it.
    socket.on('error', () => socket.destroy());
    const url = URL.parse(req.url ?? '/', 'http://placeholder');
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    const given = offered.find((p) => p.startsWith(WS_TOKEN_PREFIX))?.slice(WS_TOKEN_PREFIX.length) ?? '';
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    };
    // A WebSocket's frames are not HTTP: its Host lines are no longer looked for.
    stopWatching.get(socket as Socket)?.();
    if (!url || badHost(req) !== null) return refuse('400 Bad Request');
    if (url.pathname !== API_WS_PATH) return refuse('404 Not Found');
    if (!hostAllowed(req.headers.host) || !originAllowed(req.headers.origin, req.headers.host)) return refuse('403 Forbidden');
    if (!sameToken(given, token)) return refuse('401 Unauthorized');
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Frames that break the protocol (reserved bits, an unmasked frame, a bad opcode or length,
      // text that is not UTF-8) come as an 'error' on this socket after ws has begun closing it;
      // without a listener that error was thrown, and ended the process. The socket is dropped.
      ws.on('error', () => ws.terminate());
      wsRpc.upgrade(ws, { context: options.context }).catch(() => ws.terminate());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    token,
    mcp: mcp ? { url: `http://${shownHost}:${port}${mcp.path}`, token: mcp.token } : null,
    close: async () => {
      await new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
