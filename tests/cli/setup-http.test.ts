// `cairn setup <agent> --http --print`: URL configurations that parse as each agent's format, take
// the token from the environment (never print it), bind the session to the project, follow a
// running server's address, and work: the printed URL and header reach the running `cairn serve`.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeCheckout, requireBuiltCli } from '../support/sandbox';

let dir: string;
let home: string;
let project: string;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-http-')));
  home = path.join(dir, 'home');
  project = await makeCheckout(dir);
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

/** The JSON document printed after the `# ...: merge into <file>` line. */
function jsonAfter(stdout: string, file: string): unknown {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.endsWith(`merge into ${file}`));
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('}', start);
  return JSON.parse(lines.slice(start + 1, end + 1).join('\n'));
}

const setup = (agent: string, extra: string[] = []) => runCairn(['setup', agent, '--http', '--print', '--cwd', path.join(project, '.git'), '--home', home, ...extra]);

it('prints URL configurations that parse, bound to the project, with the token from the environment', async () => {
  const url = `http://127.0.0.1:4873/mcp?cwd=${encodeURIComponent(project)}`;
  const claude = await setup('claude');
  expect(claude.status).toBe(0);
  expect(jsonAfter(claude.stdout, path.join(project, '.mcp.json'))).toEqual({
    mcpServers: { cairn: { type: 'http', url, headers: { Authorization: 'Bearer ${CAIRN_MCP_TOKEN}' } } },
  });
  expect(claude.stdout).toContain(`claude mcp add --scope project --transport http cairn '${url}' --header 'Authorization: Bearer \${CAIRN_MCP_TOKEN}'`);
  const cursor = await setup('cursor');
  expect(jsonAfter(cursor.stdout, path.join(project, '.cursor', 'mcp.json'))).toEqual({
    mcpServers: { cairn: { url, headers: { Authorization: 'Bearer ${env:CAIRN_MCP_TOKEN}' } } },
  });
  const codex = await setup('codex');
  expect(parseToml(codex.stdout)).toEqual({ mcp_servers: { cairn: { url, bearer_token_env_var: 'CAIRN_MCP_TOKEN' } } });

  // The token exists (so the printed `cat` works) and is never printed.
  const token = (await fs.readFile(path.join(home, 'mcp-token'), 'utf8')).trim();
  for (const out of [claude.stdout, cursor.stdout, codex.stdout]) {
    expect(out).not.toContain(token);
    expect(out).toContain(`export CAIRN_MCP_TOKEN="$(cat ${path.join(home, 'mcp-token')})"`);
  }
  // Writing is refused: a URL configuration is printed only.
  const write = await runCairn(['setup', 'cursor', '--http', '--cwd', project, '--home', home]);
  expect(write.status).toBe(2);
  expect(write.stderr).toMatch(/--http only prints/);
  await expect(fs.access(path.join(project, '.cursor'))).rejects.toThrow();
});

it("follows a running server's address, and the printed configuration connects", async () => {
  const server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', home]);
  try {
    const mcpUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^MCP \(Streamable HTTP\) at (\S+),/m.exec(out);
        if (m) resolve(m[1]!);
      });
      server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const cursor = await setup('cursor');
    const entry = (jsonAfter(cursor.stdout, path.join(project, '.cursor', 'mcp.json')) as { mcpServers: { cairn: { url: string; headers: Record<string, string> } } }).mcpServers.cairn;
    expect(entry.url).toBe(`${mcpUrl}?cwd=${encodeURIComponent(project)}`);
    // What Cursor would do with it: expand ${env:CAIRN_MCP_TOKEN}, connect.
    const token = (await fs.readFile(path.join(home, 'mcp-token'), 'utf8')).trim();
    const headers = Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k, v.replace('${env:CAIRN_MCP_TOKEN}', token)]));
    const client = new Client({ name: 'as-cursor', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } }));
    try {
      const r = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/by-url.md', file_text: 'hi' } });
      expect(r.isError).toBeFalsy();
      expect(await fs.readFile(path.join(project, '.cairn', 'memory', 'by-url.md'), 'utf8')).toBe('hi');
    } finally {
      await client.close();
    }
  } finally {
    const closed = new Promise((r) => server.once('close', r));
    server.kill('SIGTERM');
    await closed;
  }
});
