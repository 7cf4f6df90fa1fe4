/**
 * The persistent bearer tokens kept under a home, each in its own file (mode 0600), created on first
 * use and kept across restarts of the app and of `cairn serve`:
 * - `<home>/mcp-token` opens the `/mcp` endpoint only, never the app's API. Agents configured by URL
 *   hold it in their configs; it is rotated by deleting the file (every configured agent then needs
 *   the new one: `cairn setup ... --http`).
 * - `<home>/web-token` opens the app's API (web mode's pages). A page keeps it in the browser after
 *   its first visit, so a restart does not strand it; `cairn serve --rotate-token` replaces it, and
 *   every page that holds the old one is refused at its next connection.
 * Two files, not one, because an agent's config is a weaker place than a browser's storage: leaking
 * the MCP token must not open the curation API.
 *
 * Invariant: nobody ever reads a half-written token. A new one is written whole by the atomic write
 * (runtime/local/atomic-write.ts: temp file, fsync, then linked into place for a creation, so racing
 * processes agree on the first, or renamed for a rotation); no temp file is left on a full disk.
 * (This module sits in mcp/ for history: the MCP token came first.)
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeOwnFileSync } from '../runtime/local/atomic-write';

/** Shorter than this, a token file's content is not one of ours (truncated, or typed by hand). */
const MIN_TOKEN_LENGTH = 32;

export function mcpTokenFile(home: string): string {
  return path.join(home, 'mcp-token');
}

export function webTokenFile(home: string): string {
  return path.join(home, 'web-token');
}

/** The token in `<home>/mcp-token`, created (exclusively, so racing processes agree) when missing. */
export function loadOrCreateMcpToken(home: string): string {
  return loadOrCreateToken(mcpTokenFile(home), 'MCP');
}

/** The token in `<home>/web-token`, created (exclusively, so racing processes agree) when missing. */
export function loadOrCreateWebToken(home: string): string {
  return loadOrCreateToken(webTokenFile(home), 'web');
}

/** Replaces `<home>/web-token` with a new token and returns it; the old one opens nothing from now on. */
export function rotateWebToken(home: string): string {
  const token = newToken();
  writeOwnFileSync(webTokenFile(home), `${token}\n`);
  return token;
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function loadOrCreateToken(file: string, what: string): string {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const token = fs.readFileSync(file, 'utf8').trim();
      if (token.length >= MIN_TOKEN_LENGTH) return token;
      // Too short to be ours: replace it with a real one.
      fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // Exclusive: fails if another process won the race; its token is then read on the next turn.
    try {
      writeOwnFileSync(file, `${newToken()}\n`, { exclusive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`could not read or create the ${what} token in ${file}`);
}
