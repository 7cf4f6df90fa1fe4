/**
 * The renderer's one way to the main process: an oRPC client over the contract. It picks its
 * transport once, at start: the MessagePort the Electron preload forwards, or, in web mode, a
 * WebSocket carrying the token from the address's fragment. Nothing else in the renderer knows
 * which host it runs in.
 */
import { createORPCClient } from '@orpc/client';
import { RPCLink as MessagePortLink } from '@orpc/client/message-port';
import { RPCLink as WebSocketLink } from '@orpc/client/websocket';
import type { ContractRouterClient } from '@orpc/contract';
import type { contract } from '../../common/api/contract';
import { API_WS_PATH, wsProtocols } from '../../common/api/transport';
import { apiJsonSerializers } from '../../common/api/wire';

export type ApiClient = ContractRouterClient<typeof contract>;

const TOKEN_KEY = 'cairn.token';

/** The web-mode token: from `#token=...` (then removed from the address bar), else this tab's memory. */
function takeToken(): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]!);
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1]!;
  }
  return sessionStorage.getItem(TOKEN_KEY);
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

export class MissingTokenError extends Error {
  override readonly name = 'MissingTokenError';
}

export async function connect(): Promise<ApiClient> {
  if (window.location.protocol === 'file:') {
    const port = await electronPort();
    port.start();
    return createORPCClient<ApiClient>(new MessagePortLink({ port, customJsonSerializers: apiJsonSerializers }));
  }
  const token = takeToken();
  if (!token) throw new MissingTokenError('Open the address `cairn serve` printed: it carries the access token.');
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const websocket = new WebSocket(`${scheme}://${window.location.host}${API_WS_PATH}`, wsProtocols(token));
  await new Promise<void>((resolve, reject) => {
    websocket.addEventListener('open', () => resolve(), { once: true });
    websocket.addEventListener('error', () => reject(new Error('Cairn refused the connection: the token may be stale. Open the address `cairn serve` printed.')), { once: true });
  });
  return createORPCClient<ApiClient>(new WebSocketLink({ websocket, customJsonSerializers: apiJsonSerializers }));
}
