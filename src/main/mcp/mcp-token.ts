/**
 * The bearer token of the `/mcp` endpoint, for agents configured by URL. Unlike the per-launch token
 * of the app's API (server.json), it is persistent: an agent's config holds it, so it must survive
 * restarts of the app and of `cairn serve`. It lives in `<home>/mcp-token` (mode 0600), is created on
 * first use, and is rotated by deleting the file (every configured agent then needs the new one:
 * `cairn setup ... --http`). It opens /mcp only, never the app's API.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export function mcpTokenFile(home: string): string {
  return path.join(home, 'mcp-token');
}

/** The token in `<home>/mcp-token`, created (exclusively, so racing processes agree) when missing. */
export function loadOrCreateMcpToken(home: string): string {
  const file = mcpTokenFile(home);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const token = fs.readFileSync(file, 'utf8').trim();
      if (token.length >= 32) return token;
      // Too short to be ours (truncated, or typed by hand): replace it with a real one.
      fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    // Written whole to a temp file, then linked into place: link fails if another process won the
    // race, and nobody ever reads a half-written token.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  throw new Error(`could not read or create the MCP token in ${file}`);
}
