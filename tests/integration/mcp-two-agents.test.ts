// Two agents at once, each its own `cairn mcp` process on one home but bound to different
// workspaces (two repositories): 2 x 200 interleaved inserts into one shared global file and a
// create in each agent's own workspace scope. Nothing is lost, and the UI's `memory.onChange`
// stream (the oRPC router of a host process, fed by the journal) sees every write with the
// workspace of the agent that made it, and only the workspace-scope writes of the workspace asked for.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRouterClient } from '@orpc/server';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { MemoryChangeEvent } from '../../src/common/memory/events';
import { openAppHost, type AppHost } from '../../src/main/host/app-host';
import { router } from '../../src/main/api/router';
import { CAIRN_BIN, makeCheckout, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let host: AppHost;
const clients: Client[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  host = openAppHost(sb.home);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await host.close();
  await sb.cleanup();
});

async function agent(workspaceId: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--workspace', workspaceId], stderr: 'pipe' });
  const client = new Client({ name: `agent-${workspaceId}`, version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The events of one onChange stream, from 'ready' until stopped. */
async function listen(workspaceId: string) {
  const ui = createRouterClient(router, { context: host });
  const controller = new AbortController();
  const stream = await ui.memory.onChange({ workspaceId }, { signal: controller.signal });
  const events: MemoryChangeEvent[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const reading = (async () => {
    try {
      for await (const item of stream) {
        if (item.type === 'ready') ready();
        else {
          const { type: _t, ...event } = item;
          events.push(event);
        }
      }
    } catch {
      // aborted
    }
  })();
  await isReady;
  return { events, stop: async () => (controller.abort(), await reading) };
}

it('two cairn mcp processes in two workspaces: 2 x 200 interleaved writes, none lost, each seen with its workspace', async () => {
  const wsA = (await host.registry.add('Widgets', sb.checkout)).id;
  const wsB = (await host.registry.add('Gadgets', await makeCheckout(path.join(sb.dir, 'b'), 'git@example.com:acme/gadgets.git'))).id;
  const [a, b] = [await agent(wsA), await agent(wsB)];
  const created = await a.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/log.md', file_text: 'start' } });
  expect(created.isError).toBeFalsy();
  const seenByA = await listen(wsA);
  const seenByB = await listen(wsB);

  const run = (client: Client, who: string) =>
    (async () => {
      for (let i = 0; i < 200; i++) {
        const r = await client.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/global/log.md', insert_line: 1, insert_text: `${who}-${i}` } });
        expect(r.isError).toBeFalsy();
        if (i === 100) await client.callTool({ name: 'memory', arguments: { command: 'create', path: `/memories/workspace/${who}.md`, file_text: who } });
      }
    })();
  await Promise.all([run(a, 'a'), run(b, 'b')]);

  const lines = (await fs.readFile(path.join(sb.roots.global, 'log.md'), 'utf8')).split('\n');
  expect(lines).toHaveLength(401);
  for (const who of ['a', 'b']) for (let i = 0; i < 200; i++) expect(lines).toContain(`${who}-${i}`);

  const globalUpdates = (events: MemoryChangeEvent[]) => events.filter((e) => e.scope === 'global' && e.op === 'update');
  const deadline = Date.now() + 10_000;
  while ((globalUpdates(seenByA.events).length < 400 || globalUpdates(seenByB.events).length < 400) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  await seenByA.stop();
  await seenByB.stop();

  for (const seen of [seenByA, seenByB]) {
    const updates = globalUpdates(seen.events);
    expect(updates).toHaveLength(400);
    expect(updates.every((e) => e.actor === 'agent' && e.path === '/memories/global/log.md')).toBe(true);
    expect(updates.filter((e) => e.workspaceId === wsA)).toHaveLength(200);
    expect(updates.filter((e) => e.workspaceId === wsB)).toHaveLength(200);
  }
  // Workspace-scope writes reach only the stream of their own workspace.
  const own = (events: MemoryChangeEvent[]) => events.filter((e) => e.scope === 'workspace').map((e) => [e.op, e.path, e.workspaceId]);
  expect(own(seenByA.events)).toEqual([['create', '/memories/workspace/a.md', wsA]]);
  expect(own(seenByB.events)).toEqual([['create', '/memories/workspace/b.md', wsB]]);
});
