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
 * Invariant: nobody ever reads a half-written token. A new one is written whole to a temp file and
 * then linked (creation: racing processes agree on the first) or renamed (rotation) into place.
 * (This module sits in mcp/ for history: the MCP token came first. It imports nothing of Cairn's.)
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
  return loadOrCreateToken(home, mcpTokenFile(home), 'MCP');
}

/** The token in `<home>/web-token`, created (exclusively, so racing processes agree) when missing. */
export function loadOrCreateWebToken(home: string): string {
  return loadOrCreateToken(home, webTokenFile(home), 'web');
}

/** Replaces `<home>/web-token` with a new token and returns it; the old one opens nothing from now on. */
export function rotateWebToken(home: string): string {
  const file = webTokenFile(home);
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const token = newToken();
  const temp = writeTemp(file, token);
  try {
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
  return token;
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function writeTemp(file: string, token: string): string {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  return temp;
}

function loadOrCreateToken(home: string, file: string, what: string): string {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const token = fs.readFileSync(file, 'utf8').trim();
      if (token.length >= MIN_TOKEN_LENGTH) return token;
      // Too short to be ours: replace it with a real one.
      fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    // link fails if another process won the race; its token is then read on the next turn.
    const temp = writeTemp(file, newToken());
    try {
      fs.linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  throw new Error(`could not read or create the ${what} token in ${file}`);
}
