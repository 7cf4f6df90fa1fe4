/**
 * The renderer's one way to the main process: an oRPC client over the contract. It picks its
 * transport once, at start: the MessagePort the Electron preload forwards, or, in web mode, a
 * Connection (./connection.ts: a WebSocket that reconnects by itself) carrying the web token.
 * Nothing else in the renderer knows which host it runs in.
 *
 * The web token: `cairn serve` prints it in the address's fragment (`#token=...`), which a browser
 * never sends to a server, so it reaches no log. The page moves it into localStorage and takes it
 * out of the address bar; from then on this origin (loopback, this port) has it, so a reload, a
 * bookmark or a new tab of the plain address connects, and so does the page after Cairn restarts
 * (the token is kept in <home>/web-token). localStorage rather than a cookie: a cookie for
 * 127.0.0.1 would also go to every other port's server on this machine; storage is per origin,
 * port included, and only Cairn's own scripts run here (the CSP allows no other). The token still
 * travels only as a WebSocket subprotocol or an Authorization header, never in a URL.
 */
import { createORPCClient, ORPCError } from '@orpc/client';
import { RPCLink as MessagePortLink } from '@orpc/client/message-port';
import { RPCLink as WebSocketLink } from '@orpc/client/websocket';
import type { ContractRouterClient } from '@orpc/contract';
import type { contract } from '../../common/api/contract';
import { API_HTTP_PATH, API_WS_PATH, wsProtocols } from '../../common/api/transport';
import { apiJsonSerializers } from '../../common/api/wire';
import { Connection, ConnectionError, isSubscription, TEXTS, type ConnectionState, type TokenCheck } from './connection';

export type ApiClient = ContractRouterClient<typeof contract>;

const TOKEN_KEY = 'cairn.token';

/** The web token: from `#token=...` (stored, then removed from the address bar), else this origin's storage. */
function takeToken(): void {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (!match) return;
  try {
    localStorage.setItem(TOKEN_KEY, match[1]!);
  } catch {
    // Storage refused (a private window with it off): this tab keeps it, as before.
    sessionStorage.setItem(TOKEN_KEY, match[1]!);
  }
  history.replaceState(null, '', window.location.pathname + window.location.search);
}

function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return sessionStorage.getItem(TOKEN_KEY);
  }
}

async function checkToken(token: string): Promise<TokenCheck> {
  try {
    const res = await fetch(API_HTTP_PATH, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
    return res.status === 401 ? 'refused' : 'accepted';
  } catch {
    return 'unreachable';
  }
}

function electronPort(): Promise<MessagePort> {
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window || event.data !== 'cairn:port' || !event.ports[0]) return;
      window.removeEventListener('message', onMessage);
      resolve(event.ports[0]);
    };
    window.addEventListener('message', onMessage);
  });
}

class MissingTokenError extends Error {
  override readonly name = 'MissingTokenError';
}

/** What the page shows about its connection: always online in the app, whose port never drops. */
export interface ConnectionStatus {
  readonly state: ConnectionState;
  subscribe(listener: () => void): () => void;
}

const alwaysOnline: ConnectionStatus = { state: 'online', subscribe: () => () => {} };
let status: ConnectionStatus = alwaysOnline;

export function connectionStatus(): ConnectionStatus {
  return status;
}

/**
 * An oRPC client over `connection`. A subscription made while Cairn is away waits for it; any other
 * call that fails because of the connection fails with a ConnectionError saying what to do. Errors
 * the server sent (ORPCError) and aborts are left as they are.
 */
export function webSocketClient(connection: Connection): ApiClient {
  const link = new WebSocketLink({
    websocket: connection,
    customJsonSerializers: apiJsonSerializers,
    interceptors: [
      async ({ next, path, signal }) => {
        if (isSubscription(path) && connection.state !== 'online') await connection.whenOnline(signal);
        const sentOn = connection.state === 'online' ? connection.generation : null;
        try {
          return await next();
        } catch (err) {
          if (err instanceof ORPCError || err instanceof ConnectionError || signal?.aborted) throw err;
          if (sentOn === null) throw new ConnectionError(connection.failureText());
          if (connection.state !== 'online' || connection.generation !== sentOn) throw new ConnectionError(TEXTS.interrupted);
          throw err;
        }
      },
    ],
  });
  return createORPCClient<ApiClient>(link);
}

export async function connect(): Promise<ApiClient> {
  if (window.location.protocol === 'file:') {
    const port = await electronPort();
    port.start();
    return createORPCClient<ApiClient>(new MessagePortLink({ port, customJsonSerializers: apiJsonSerializers }));
  }
  takeToken();
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const connection = new Connection({
    token: storedToken,
    open: (token) => new WebSocket(`${scheme}://${window.location.host}${API_WS_PATH}`, wsProtocols(token)),
    checkToken,
    onTokenStored: (listener) => {
      const onStorage = (e: StorageEvent) => {
        if (e.key === TOKEN_KEY && e.newValue) listener();
      };
      window.addEventListener('storage', onStorage);
      return () => window.removeEventListener('storage', onStorage);
    },
  });
  const first = await connection.settled();
  if (first !== 'online') {
    connection.close();
    if (first === 'no-token') throw new MissingTokenError(TEXTS.noToken);
    throw new ConnectionError(TEXTS.refused);
  }
  status = connection;
  return webSocketClient(connection);
}
