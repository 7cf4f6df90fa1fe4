// The built `cairn serve` serves MCP at /mcp: the line it prints, the persistent token file, a
// session bound by ?cwd doing real writes, and a write by another process (`cairn tool`) reaching
// the session as a resource notification through the journal.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let server: ChildProcessWithoutNullStreams;
let mcpUrl: string;
let tokenFile: string;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', sb.home]);
  [mcpUrl, tokenFile] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^MCP \(Streamable HTTP\) at (http:\/\/127\.0\.0\.1:\d+\/mcp), bearer token in (\S+)$/m.exec(out);
      if (m) resolve([m[1]!, m[2]!]);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
});
afterEach(async () => {
  if (server.exitCode === null && server.signalCode === null) {
    const closed = new Promise((r) => server.once('close', r));
    server.kill('SIGTERM');
    await closed;
  }
  await sb.cleanup();
});

it('serves MCP at /mcp with the token of <home>/mcp-token, live across processes', async () => {
  expect(tokenFile).toBe(path.join(sb.home, 'mcp-token'));
  const token = (await fs.readFile(tokenFile, 'utf8')).trim();
  const transport = new StreamableHTTPClientTransport(new URL(`${mcpUrl}?cwd=${encodeURIComponent(sb.checkout)}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'serve-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    const created = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/http.md', file_text: 'one\n' } });
    expect(created.isError).toBeFalsy();
    expect(await fs.readFile(path.join(sb.roots.project, 'http.md'), 'utf8')).toBe('one\n');
    await client.subscribeResource({ uri: 'cairn://memory/project/http.md' });
    // Another process edits the file. Notifications travel on the GET stream, which the client
    // opens on its own after initialize: edit until one comes through, rather than guessing when.
    let edits = 0;
    for (let deadline = Date.now() + 30_000; !updated.includes('cairn://memory/project/http.md'); ) {
      if (Date.now() > deadline) throw new Error(`no update notification after ${edits} edits`);
      const other = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'insert', path: '/memories/project/http.md', insert_line: 0, insert_text: 'zero' })]);
      expect(other.status).toBe(0);
      edits++;
      for (const wait = Date.now() + 500; !updated.includes('cairn://memory/project/http.md') && Date.now() < wait; ) await new Promise((r) => setTimeout(r, 20));
    }
    const read = await client.readResource({ uri: 'cairn://memory/project/http.md' });
    expect((read.contents[0] as { text: string }).text).toBe(`${'zero\n'.repeat(edits)}one\n`);
  } finally {
    await client.close();
  }
});
