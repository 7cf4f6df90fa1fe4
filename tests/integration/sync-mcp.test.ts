// An MCP session syncs while it runs, as the app does: with sync set up (a bare repository over
// file://, and the setting's shortest wait after a change, one second), an agent's write through
// `cairn mcp` (the built CLI) reaches the remote with no `cairn sync` run by anyone, and the
// session's start does not wait for it. The test waits for the commit to appear on the remote.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { openHome } from '../../src/main/host/home-services';
import { CAIRN_BIN, makeCheckout, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { bareRepository } from '../support/sync-machines';

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

/** The remote's version of `file` on its sync branch, or null while it has none. */
function onRemote(bare: string, file: string): string | null {
  try {
    return execFileSync('git', ['--git-dir', bare, 'show', `main:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** A bare repository over file:// set up as the home's sync remote (one second after a change), and a checkout. */
async function syncedHome(): Promise<{ bare: string; checkout: string }> {
  const bare = bareRepository(path.join(sb.dir, 'memory.git'));
  const home = openHome(sb.home);
  await home.registry.setSettings({ sync: { remote: `file://${bare}`, workspaces: [], afterChangeSeconds: 1 } });
  await home.close();
  const checkout = await makeCheckout(sb.dir);
  return { bare, checkout };
}

it("sends an MCP session's write to the remote a while after it, with no cairn sync run", async () => {
  const { bare, checkout } = await syncedHome();

  client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', checkout], stderr: 'pipe' }));
  const created = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/deploy.md', file_text: '- Deploys go out on Tuesdays.\n' } });
  expect(created.isError).toBeFalsy();

  // Waits on the remote itself (the debounce is real time in a separate process); the test's own
  // timeout bounds it.
  while (onRemote(bare, 'global/deploy.md') === null) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(onRemote(bare, 'global/deploy.md')).toBe('- Deploys go out on Tuesdays.\n');
  const log = execFileSync('git', ['--git-dir', bare, 'log', '--format=%s', 'main'], { encoding: 'utf8' });
  expect(log).toContain('Cairn: 1 change of the global memory');
}, 60_000);

it('sends what changed before the session started (a write its sync could not have seen) a while after the start', async () => {
  const { bare, checkout } = await syncedHome();
  // Written by another process before the session, so no change of the session's own reports it.
  execFileSync(CAIRN_BIN, ['tool', '--home', sb.home, '--cwd', checkout, JSON.stringify({ command: 'create', path: '/memories/global/release.md', file_text: '- Releases are cut on Mondays.\n' })]);
  expect(onRemote(bare, 'global/release.md')).toBeNull();

  client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', checkout], stderr: 'pipe' }));
  // Waits on the remote itself; without a sync at the start, the next would be the schedule's, minutes away.
  while (onRemote(bare, 'global/release.md') === null) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(onRemote(bare, 'global/release.md')).toBe('- Releases are cut on Mondays.\n');
}, 60_000);
