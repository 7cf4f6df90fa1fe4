// Web mode in real Chromium: the page connects with the token from the address, drops the token
// from the address bar, shows every memory, and shows agents' writes live, including one made by
// another process (`bin/cairn tool`, as an agent would).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createORPCClient } from '@orpc/client';
import { RPCLink } from '@orpc/client/fetch';
import type { RouterClient } from '@orpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/main/api/router';
import { launchBrowser } from '../support/browser';
import { runCairn, runJsonl } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let server: ChildProcessWithoutNullStreams;
let address: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [
    { command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nmake test\n' },
    { command: 'create', path: '/memories/global/style.md', file_text: '---\ndescription: <b>Tabs</b>, short commits\n---\nTabs.\n' },
  ]);
  server = spawn(CAIRN_BIN, ['serve', '--port', '0', '--home', sb.home]);
  address = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (d: Buffer) => {
      const m = /running at (\S+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  const url = new URL(address);
  const api: RouterClient<AppRouter> = createORPCClient(new RPCLink({ url: `${url.origin}/api/rpc`, headers: { authorization: `Bearer ${url.hash.slice(7)}` } }));
  await api.workspaces.add({ name: 'widgets', path: sb.checkout });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  await sb?.cleanup();
});

describe('web mode in Chromium', () => {
  it('shows every memory as text, with the token gone from the address bar', async () => {
    const page = await browser.context.newPage();
    await page.goto(address);
    await page.getByText('/memories/project/build.md').waitFor();
    expect(page.url()).not.toContain('token');
    // A description is text, never markup.
    await page.getByText('<b>Tabs</b>, short commits').waitFor();
    expect(await page.locator('b').count()).toBe(0);
    await page.close();
  });

  it('shows a write made by an agent in another process, live', async () => {
    const page = await browser.context.newPage();
    await page.goto(address);
    await page.getByText('/memories/project/build.md').waitFor();
    const result = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/project/from-agent.md', file_text: 'hello\n' })]);
    expect(result.status).toBe(0);
    await page.getByText('/memories/project/from-agent.md').waitFor({ timeout: 5000 });
    await page.close();
  });

  it('shows an edit made outside Cairn, live', async () => {
    const page = await browser.context.newPage();
    await page.goto(address);
    await page.getByText('/memories/project/build.md').waitFor();
    await fs.writeFile(path.join(sb.roots.project, 'edited-in-vim.md'), 'written by hand\n');
    await page.getByText('/memories/project/edited-in-vim.md').waitFor({ timeout: 5000 });
    await page.close();
  });

  it('without the token, says how to get in', async () => {
    const page = await browser.context.newPage();
    await page.goto(new URL(address).origin);
    await page.getByText('Open the address `cairn serve` printed').waitFor();
    await page.close();
  });
});
