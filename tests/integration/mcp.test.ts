// `cairn mcp` driven by the official MCP client over stdio: the tools and their schema, every
// command in every scope, errors as tool errors, the instructions and resources carrying the
// session's index and hot set, change notifications, search, and two agents writing at once.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/memory/constants';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { ChangeFeed } from '../../src/main/journal/change-feed';
import { runCairn, runJsonl } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
const clients: Client[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [
    { command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and release\n---\nRun make release.\n' },
    { command: 'view', path: '/memories/project/build.md' },
  ]);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await sb.cleanup();
});

async function connect(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout, ...args], stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type JsonSchema = { type?: string | string[]; anyOf?: JsonSchema[] };

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
}

describe('cairn mcp over stdio', () => {
  it('offers the memory tool with every field visible, and memory_search', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const memory = tools.find((t) => t.name === 'memory')!;
    expect(Object.keys(memory.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'old_path', 'new_path']),
    );
    expect(memory.inputSchema.required).toEqual(['command']);
    expect(memory.annotations).toMatchObject({ destructiveHint: true });
    expect(memory.description).toMatch(/Before acting on a task, check relevant memories/);
    expect(tools.map((t) => t.name).sort()).toEqual(['memory', 'memory_consolidate', 'memory_propose', 'memory_search']);
  });

  it('reads a null field as absent, in both tools, and its input schemas say the optional fields may be null', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const memory = tools.find((t) => t.name === 'memory')!;
    const search = tools.find((t) => t.name === 'memory_search')!;
    const allowsNull = (schema: JsonSchema): boolean =>
      (Array.isArray(schema.type) ? schema.type : [schema.type]).includes('null') || (schema.anyOf ?? []).some(allowsNull);
    const fields = memory.inputSchema.properties as Record<string, JsonSchema>;
    for (const [name, schema] of Object.entries(fields)) expect(allowsNull(schema), name).toBe(name !== 'command');
    const searchFields = search.inputSchema.properties as Record<string, JsonSchema>;
    expect([allowsNull(searchFields.query!), allowsNull(searchFields.scope!), allowsNull(searchFields.limit!)]).toEqual([false, true, true]);

    const call = async (args: Record<string, unknown>) => {
      const result = await client.callTool({ name: 'memory', arguments: args });
      return { isError: result.isError ?? false, text: text(result) };
    };
    const nulls = Object.fromEntries(Object.keys(fields).filter((f) => f !== 'command').map((f) => [f, null]));
    expect(await call({ ...nulls, command: 'create', path: '/memories/global/a.md', file_text: 'one\ntwo\n' })).toEqual({ isError: false, text: 'File created successfully at: /memories/global/a.md' });
    for (const args of [
      { command: 'view', path: '/memories' },
      { command: 'view', path: '/memories/global/a.md', view_range: [2, 2] },
      { command: 'create', path: '/memories/global/b.md' }, // file_text missing: the same error either way
      { command: 'rename', old_path: '/memories/global/a.md' },
    ]) {
      const omitted = await call(args);
      expect(await call({ ...args, old_str: null }), JSON.stringify(args)).toEqual(omitted);
      expect(await call({ ...nulls, ...args }), JSON.stringify(args)).toEqual(omitted);
    }
    expect((await call({ ...nulls, command: 'create', path: '/memories/global/b.md' })).text).toMatch(/^Error: Missing required parameter `file_text`/);
    expect(await call({ ...nulls, command: 'str_replace', path: '/memories/global/a.md', old_str: 'two', new_str: 'TWO' })).toMatchObject({ isError: false });
    expect(await fs.readFile(path.join(sb.roots.global, 'a.md'), 'utf8')).toBe('one\nTWO\n');

    const searched = async (args: Record<string, unknown>) => text(await client.callTool({ name: 'memory_search', arguments: args }));
    expect(await searched({ query: 'release', scope: null, limit: null })).toBe(await searched({ query: 'release' }));
  });

  it('runs every command in every scope with the protocol texts', async () => {
    const client = await connect();
    const call = async (args: Record<string, unknown>) => client.callTool({ name: 'memory', arguments: args });
    for (const scope of SCOPES) {
      const p = `/memories/${scope}/notes/a.md`;
      expect(text(await call({ command: 'create', path: p, file_text: 'line1\nline2\n' }))).toBe(`File created successfully at: ${p}`);
      expect(text(await call({ command: 'view', path: p }))).toBe(`Here's the content of ${p} with line numbers:\n     1\tline1\n     2\tline2\n     3\t`);
      expect(text(await call({ command: 'str_replace', path: p, old_str: 'line2', new_str: 'LINE2' }))).toContain('The memory file has been edited.');
      expect(text(await call({ command: 'insert', path: p, insert_line: 0, insert_text: 'top' }))).toBe(`The file ${p} has been edited.`);
      expect(text(await call({ command: 'rename', old_path: p, new_path: `/memories/${scope}/b.md` }))).toBe(`Successfully renamed ${p} to /memories/${scope}/b.md`);
      expect(await fs.readFile(path.join(sb.roots[scope], 'b.md'), 'utf8')).toBe('top\nline1\nLINE2\n');
      expect(text(await call({ command: 'delete', path: `/memories/${scope}/b.md` }))).toBe(`Successfully deleted /memories/${scope}/b.md`);
    }
    const failed = await call({ command: 'view', path: '/memories/global/nope.md' });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe('Error: The path /memories/global/nope.md does not exist. Please provide a valid path.');
    const missing = await call({ command: 'create', path: '/memories/global/x.md' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe('Error: Missing required parameter `file_text` for command `create`.');
  });

  it('has a write in the change journal by the time its answer arrives: a server killed right after loses none', async () => {
    const client = await connect();
    const pid = (client.transport as StdioClientTransport).pid!;
    const exited = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    const paths = ['/memories/global/k1.md', '/memories/global/k2.md', '/memories/global/k3.md'];
    for (const p of paths) expect((await client.callTool({ name: 'memory', arguments: { command: 'create', path: p, file_text: 'kept\n' } })).isError).toBeFalsy();
    process.kill(pid, 'SIGKILL'); // no chance to flush anything on the way out
    await exited;
    const journal = await fs.readFile(path.join(sb.home, 'journal', 'journal.jsonl'), 'utf8');
    const logged = journal.split('\n').filter(Boolean).map((l) => JSON.parse(l) as MemoryChangeEvent & { pid: number }).filter((e) => e.pid === pid);
    expect(logged.map((e) => [e.op, e.path, e.actor])).toEqual(paths.map((p) => ['create', p, 'agent']));
  });

  it('honours --mode', async () => {
    const client = await connect(['--mode', 'plan']);
    const refused = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/x.md', file_text: 'x' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/read-only in plan mode/);
    expect(client.getInstructions()).toContain('plan mode');
  });

  it('carries the index and the hot set in its instructions and resources, the same for the whole session', async () => {
    const client = await connect();
    const instructions = client.getInstructions()!;
    expect(instructions).toContain('<memory_index>');
    expect(instructions).toContain('/memories/project/build.md: How to build and release');
    expect(instructions).toContain('<hot_memories>');
    expect(instructions).toContain('Run make release.');
    const index = await client.readResource({ uri: 'cairn://index' });
    const first = (index.contents[0] as { text: string }).text;
    expect(instructions).toContain(first);
    // A memory changes during the session: what the session was given stays byte-identical.
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/new.md', file_text: '---\ndescription: New\n---\n' } });
    expect((((await client.readResource({ uri: 'cairn://index' })).contents[0]) as { text: string }).text).toBe(first);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).filter((u) => !u.startsWith('cairn://memory/')).sort()).toEqual(['cairn://hot-set', 'cairn://index']);
  });

  it('notifies the client when memory changes, also from another process', async () => {
    const client = await connect();
    let notified = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      notified++;
    });
    await client.listResources(); // a client that has a list to keep fresh
    await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/project/other.md', file_text: 'x' })]);
    const deadline = Date.now() + 15_000; // a passing wait ends at once; this is for a loaded machine
    while (notified === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(notified).toBeGreaterThan(0);
  });

  it('finds memories with memory_search', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'memory_search', arguments: { query: 'how do we release' } });
    expect(text(result)).toMatch(/^\/memories\/project\/build.md\n {2}\S/);
    const none = await client.callTool({ name: 'memory_search', arguments: { query: 'kubernetes', scope: 'global' } });
    expect(text(none)).toMatch(/^No memory file matches/);
  });

  it('two agents at once: 2 x 200 interleaved mutations, nothing lost, each seen by a subscriber with its workspace', async () => {
    const [a, b] = [await connect(), await connect()];
    await a.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/log.md', file_text: 'start' } });
    const feed = new ChangeFeed({ home: sb.home });
    const seen: MemoryChangeEvent[] = [];
    const off = feed.subscribe((e) => seen.push(e)); // its journal tail starts here, at the end of the file
    const run = (client: Client, who: string) =>
      (async () => {
        for (let i = 0; i < 200; i++) {
          const r = await client.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/project/log.md', insert_line: 1, insert_text: `${who}-${i}` } });
          expect(r.isError).toBeFalsy();
        }
      })();
    await Promise.all([run(a, 'a'), run(b, 'b')]);
    const lines = (await fs.readFile(path.join(sb.roots.project, 'log.md'), 'utf8')).split('\n');
    expect(lines).toHaveLength(401);
    for (const who of ['a', 'b']) for (let i = 0; i < 200; i++) expect(lines).toContain(`${who}-${i}`);
    const deadline = Date.now() + 15_000; // a passing wait ends at once; this is for a loaded machine
    while (seen.filter((e) => e.op === 'update').length < 400 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    off();
    await feed.close();
    const updates = seen.filter((e) => e.op === 'update' && e.path === '/memories/project/log.md');
    expect(updates).toHaveLength(400);
    expect(new Set(updates.map((e) => e.workspaceId))).toEqual(new Set([sb.session.workspaceId]));
    expect(updates.every((e) => e.actor === 'agent')).toBe(true);
  });
});
