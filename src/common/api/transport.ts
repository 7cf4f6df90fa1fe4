/**
 * How a client reaches the API in web mode: a WebSocket at /api/ws offering the API's subprotocol
 * and the token as a second subprotocol (never in the URL, which lands in logs), or HTTP at
 * /api/rpc with `Authorization: Bearer <token>`.
 */
export const API_WS_PATH = '/api/ws';
export const API_HTTP_PATH = '/api/rpc';
export const WS_PROTOCOL = 'cairn.v1';
export const WS_TOKEN_PREFIX = 'cairn.token.';

export function wsProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${WS_TOKEN_PREFIX}${token}`];
}
