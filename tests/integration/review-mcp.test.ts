// Review mode seen by an agent through the official MCP client: a `cairn mcp` started
// while review is off writes as usual; a person then turns review on for the project from another
// process (`cairn inbox review`), and the same server, not restarted, holds its next writes: the
// tool's answer says the change awaits a person's review, views still show memory unchanged, and
// the change is in the inbox until a person approves it (`cairn inbox approve`).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let client: Client | null = null;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await client?.close().catch(() => {});
  client = null;
  await sb.cleanup();
});

async function call(args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client!.callTool({ name: 'memory', arguments: args });
  return { text: (result.content as Array<{ text: string }>).map((c) => c.text).join(''), isError: result.isError === true };
}

it("holds a running agent's writes once a person turns review on from another process, without a restart", async () => {
  client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' }));
  expect(await call({ command: 'create', path: '/memories/project/notes.md', file_text: 'Use make.\n' })).toEqual({ text: 'File created successfully at: /memories/project/notes.md', isError: false });

  const on = await runCairn(['inbox', 'review', '--scope', 'project', '--on', '--home', sb.home, '--cwd', sb.checkout]);
  expect(on.status, on.stderr).toBe(0);

  const held = await call({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make', new_str: 'pnpm' });
  expect(held.isError).toBe(false);
  const id = /\(item ([0-9a-z-]+)\)/.exec(held.text)?.[1];
  expect(held.text).toBe(
    `This change to /memories/project/notes.md awaits a person's review in Cairn's inbox (item ${id}); memory is unchanged until it is approved. ` +
      '/memories/project is in review mode: views show memory as it is, without this change. Do not repeat it; go on with your task.',
  );
  expect((await call({ command: 'view', path: '/memories/project/notes.md' })).text).toContain('Use make.');
  // A failing command under review fails as always, and nothing is held for it.
  expect(await call({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'yarn', new_str: 'x' })).toMatchObject({ isError: true, text: expect.stringMatching(/^Error: No replacement was performed/) });
  expect(await fs.readFile(path.join(sb.roots.project, 'notes.md'), 'utf8')).toBe('Use make.\n');

  const listed = JSON.parse((await runCairn(['inbox', 'list', '--json', '--home', sb.home])).stdout) as { items: Array<{ id: string; kind: string }> };
  expect(listed.items.map((i) => [i.id, i.kind])).toEqual([[id, 'change']]);
  expect((await runCairn(['inbox', 'approve', id!, '--home', sb.home])).status).toBe(0);
  expect(await fs.readFile(path.join(sb.roots.project, 'notes.md'), 'utf8')).toBe('Use pnpm.\n');
  expect((await call({ command: 'view', path: '/memories/project/notes.md' })).text).toContain('Use pnpm.');
});
