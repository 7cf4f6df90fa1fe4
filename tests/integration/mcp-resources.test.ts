// Per-file MCP resources of `cairn mcp`, driven by the official MCP client over stdio: listed through
// the resource template, read raw, refused outside the path rules, and followed live: updates to
// subscribed files and list changes, whether the write came from this session, another process or
// an editor outside Cairn; the instructions stay byte-identical all the while.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { memoryUri, virtualPathOfUri } from '../../src/main/mcp/resource-uri';
import { runCairn, runJsonl } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
const clients: Client[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [
    { command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and release\n---\nRun make release.\n' },
  ]);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await sb.cleanup();
});

interface Heard {
  listChanged: number;
  updated: string[];
}

async function connect(): Promise<{ client: Client; heard: Heard }> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  const heard: Heard = { listChanged: 0, updated: [] };
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    heard.listChanged++;
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.updated.push(n.params.uri);
  });
  await client.connect(transport);
  clients.push(client);
  return { client, heard };
}

/** Waits until `done()` holds: a passing wait returns at once, so the deadline is for a loaded machine. */
async function until(what: string, done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const textOf = (r: { contents: ReadonlyArray<object> }) => r.contents.map((c) => ('text' in c ? String(c.text) : '')).join('');

describe('resource URIs', () => {
  it('map virtual paths both ways, percent-encoding each segment, and refuse what the path rules refuse', () => {
    expect(memoryUri('project', ['notes', 'a b.md'])).toBe('cairn://memory/project/notes/a%20b.md');
    expect(virtualPathOfUri('cairn://memory/project/notes/a%20b.md').path).toBe('/memories/project/notes/a b.md');
    expect(virtualPathOfUri(memoryUri('global', ['ü', '100%.md'])).path).toBe('/memories/global/ü/100%.md');
    expect(() => virtualPathOfUri('cairn://memory/global/../x.md')).toThrow(/escape/);
    expect(() => virtualPathOfUri('cairn://memory/global/a%2F..%2Fb.md')).toThrow(/encoded "\/"/);
    expect(() => virtualPathOfUri('cairn://memory/etc/passwd')).toThrow(/not a memory scope/);
    expect(() => virtualPathOfUri('cairn://memory/global')).toThrow(/one memory file/);
    expect(() => virtualPathOfUri('file:///etc/passwd')).toThrow(/cairn:\/\/memory\//);
  });
});

describe('per-file resources over stdio', () => {
  it('lists one resource per memory file through the template and reads it raw', async () => {
    const { client } = await connect();
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/a b/ü.md', file_text: 'hi\n' } });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('cairn://memory/{scope}/{+path}');
    const { resources } = await client.listResources();
    const build = resources.find((r) => r.uri === 'cairn://memory/project/build.md');
    expect(build).toMatchObject({ name: '/memories/project/build.md', description: 'How to build and release', mimeType: 'text/markdown' });
    const odd = resources.find((r) => r.name === '/memories/global/a b/ü.md')!;
    expect(odd.uri).toBe(memoryUri('global', ['a b', 'ü.md']));
    expect(textOf(await client.readResource({ uri: odd.uri }))).toBe('hi\n');
    expect(textOf(await client.readResource({ uri: build!.uri }))).toBe('---\ndescription: How to build and release\n---\nRun make release.\n');
  });

  it('refuses missing files, directories and paths outside the rules with errors naming virtual paths only', async () => {
    const { client } = await connect();
    await expect(client.readResource({ uri: 'cairn://memory/global/nope.md' })).rejects.toThrow(/\/memories\/global\/nope.md does not exist/);
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/dir/x.md', file_text: 'x' } });
    await expect(client.readResource({ uri: 'cairn://memory/global/dir' })).rejects.toThrow(/\/memories\/global\/dir/);
    // URL parsing resolves dot segments before any template matches: the URI is simply unknown.
    await expect(client.readResource({ uri: 'cairn://memory/global/%2E%2E/%2E%2E/config.json' })).rejects.toThrow(/not found/);
    const smuggled = client.readResource({ uri: 'cairn://memory/global/a%2F..%2F..%2Fconfig.json' });
    await expect(smuggled).rejects.toThrow(/encoded "\/"/);
    await expect(smuggled).rejects.not.toThrow(new RegExp(sb.home));
    await expect(client.subscribeResource({ uri: 'cairn://memory/nowhere/x.md' })).rejects.toThrow(/not a memory scope/);
  });

  it('notifies subscribed resources and list changes for this session, other processes and outside edits; instructions never change', async () => {
    const { client, heard } = await connect();
    const instructions = client.getInstructions();
    const build = 'cairn://memory/project/build.md';
    await client.subscribeResource({ uri: build });

    // Another process edits the subscribed file: updated, but the list is the same.
    await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'str_replace', path: '/memories/project/build.md', old_str: 'make release', new_str: 'make ship' })]);
    await until('the update from another process', () => heard.updated.includes(build));
    expect(textOf(await client.readResource({ uri: build }))).toContain('Run make ship.');

    // An editor outside Cairn changes the subscribed file: updated. That update is heard after
    // anything the other process's edit brought (through the journal: in that flush or before;
    // through the root's watcher: this path's changes are reported in order), so the list never changed.
    heard.updated.length = 0;
    await fs.writeFile(path.join(sb.roots.project, 'build.md'), 'edited in an editor\n');
    await until('the outside edit', () => heard.updated.includes(build));
    expect(textOf(await client.readResource({ uri: build }))).toBe('edited in an editor\n');
    expect(heard.listChanged).toBe(0);

    // This session creates a file: the list changes; an unsubscribed file brings no update.
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/new.md', file_text: 'new' } });
    await until('the list change from this session', () => heard.listChanged > 0);
    expect(heard.updated.filter((u) => u !== build)).toEqual([]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('cairn://memory/global/new.md');

    // An editor outside Cairn creates another file.
    heard.listChanged = 0;
    await fs.writeFile(path.join(sb.roots.project, 'fresh.md'), 'from git pull\n');
    await until('the outside create', () => heard.listChanged > 0);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('cairn://memory/project/fresh.md');

    // A rename of the directory holding a subscribed file: the file moved, so it is updated (gone).
    const nested = 'cairn://memory/global/d/x.md';
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/d/x.md', file_text: 'x' } });
    await client.subscribeResource({ uri: nested });
    heard.updated.length = 0;
    await client.callTool({ name: 'memory', arguments: { command: 'rename', old_path: '/memories/global/d', new_path: '/memories/global/e' } });
    await until('the update of a file under a renamed directory', () => heard.updated.includes(nested));
    await expect(client.readResource({ uri: nested })).rejects.toThrow(/does not exist/);

    // Unsubscribed: no more updates for it.
    await client.unsubscribeResource({ uri: build });
    heard.updated.length = 0;
    await client.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/project/build.md', insert_line: 0, insert_text: 'top' } });
    // A write to a file still followed (the nested one, made again) must be heard, in the flush
    // that would carry build.md's update or a later one: only it is.
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/d/x.md', file_text: 'again' } });
    await until('the update of a file still followed', () => heard.updated.includes(nested));
    expect(heard.updated).toEqual([nested]);

    expect(client.getInstructions()).toBe(instructions);
  });

  it('sends list changes only once the client has used resources', async () => {
    const { client, heard } = await connect();
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/quiet.md', file_text: 'x' } });
    // Then the client follows a file (its first use of resources) and the file changes: that update
    // must be heard, and a flush sends a pending list change before updates, so a list change for
    // quiet.md would have come by then.
    const build = 'cairn://memory/project/build.md';
    await client.subscribeResource({ uri: build });
    await client.callTool({ name: 'memory', arguments: { command: 'str_replace', path: '/memories/project/build.md', old_str: 'make release', new_str: 'make ship' } });
    await until('the update of a followed file', () => heard.updated.includes(build));
    expect(heard.listChanged).toBe(0);
    await client.listResources();
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/heard.md', file_text: 'x' } });
    await until('the list change after listing', () => heard.listChanged > 0);
  });

  it('coalesces a burst of writes into few notifications', async () => {
    const { client, heard } = await connect();
    const uri = 'cairn://memory/project/build.md';
    const after = 'cairn://memory/project/after.md';
    await client.subscribeResource({ uri });
    await client.subscribeResource({ uri: after });
    // The burst, then a write to another followed file: the journal is read in order, so every
    // notification of the burst is out by the time that file's update is heard.
    await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [
      ...Array.from({ length: 50 }, (_, i) => ({ command: 'insert', path: '/memories/project/build.md', insert_line: 0, insert_text: `l${i}` })),
      { command: 'create', path: '/memories/project/after.md', file_text: 'after the burst' },
    ]);
    await until('the write after the burst', () => heard.updated.includes(after));
    const burst = heard.updated.filter((u) => u !== after);
    expect(burst.length).toBeGreaterThan(0);
    expect(burst.length).toBeLessThan(50);
    expect(new Set(burst)).toEqual(new Set([uri]));
  });
});
