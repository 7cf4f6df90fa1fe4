/**
 * How a client reaches the API in web mode: a WebSocket at /api/ws offering the API's subprotocol
 * and the token as a second subprotocol (never in the URL, which lands in logs), or HTTP at
 * /api/rpc with `Authorization: Bearer <token>`. Agents reach the MCP endpoint on the same server
 * at /mcp (what `cairn setup --http` writes into their configs).
 */
import { MAX_FILE_BYTES } from '../memory/constants';

export const API_WS_PATH = '/api/ws';
export const API_HTTP_PATH = '/api/rpc';
export const MCP_HTTP_PATH = '/mcp';
export const WS_PROTOCOL = 'cairn.v1';
export const WS_TOKEN_PREFIX = 'cairn.token.';

export function wsProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${WS_TOKEN_PREFIX}${token}`];
}

/**
 * The largest request body /api/rpc reads, and the largest message /api/ws does: what the largest
 * call legitimately carries. That is a memory or agent file's content at its cap (MAX_FILE_BYTES)
 * as JSON at its worst, six bytes a character (`\u00XX`), and room for the rest of a call (a
 * settings patch with every list at its limit, or a consolidation's 200 paths at their longest, is under
 * 512 KiB on its own). Past it the server answers 413 and reads no further.
 */
export const MAX_RPC_BODY_BYTES = 6 * MAX_FILE_BYTES + 512 * 1024;
