/**
 * `<home>/server.json`: the announcement of the loopback server a long-lived host runs (the app's,
 * `cairn serve`'s), its address, token and pid, for `cairn setup` (which points agents at its MCP
 * endpoint) and for a second server of the same home (which leaves it in place).
 *
 * Invariants: written whole, 0600 (runtime/local/atomic-write.ts: it holds the token); a server
 * withdraws only its own announcement; one left behind by a dead process names no running server
 * (its pid is checked), and a torn or foreign file reads as none. Kept free of the host's
 * services, so a command that only reads it loads nothing else.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import { processRuns } from '../runtime/local/process-alive';

export interface ServerInfo {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly pid: number;
  /** The MCP endpoint (Streamable HTTP), when the server has one. */
  readonly mcpUrl?: string;
}

function infoFile(home: string): string {
  return path.join(home, 'server.json');
}

/** The server announced in `home` if its process still runs, else null. */
export function runningServer(home: string): ServerInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(infoFile(home), 'utf8')) as ServerInfo;
    return processRuns(info.pid) ? info : null;
  } catch {
    return null; // no server.json (or a torn one): no server announced itself
  }
}

/** Announces this process's server in `home` (replacing any announcement). */
export function announceServer(home: string, info: Omit<ServerInfo, 'pid'>): void {
  const { url, port, token, mcpUrl } = info;
  writeOwnFileSync(infoFile(home), `${JSON.stringify({ url, port, token, pid: process.pid, mcpUrl })}\n`);
}

/** Withdraws this process's announcement from `home`; another process's is left in place. */
export function withdrawServer(home: string): void {
  try {
    const info = JSON.parse(fs.readFileSync(infoFile(home), 'utf8')) as { pid?: number };
    if (info.pid === process.pid) fs.rmSync(infoFile(home), { force: true });
  } catch {
    // Gone, or another server's now: one left behind names no running server (runningServer checks its pid).
  }
}
