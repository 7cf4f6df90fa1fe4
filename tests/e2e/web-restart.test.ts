// Web mode across restarts of `cairn serve`, in real Chromium against real server processes on one
// temp home and one port: the open page reconnects by itself and a save then
// works; a save while the server is down says so in a sentence and loses nothing; a reload keeps
// the unsaved text; a new tab of the plain address (no token in it) gets in after the first visit;
// a rotated token makes the old page say what to do; a browser that never had the token is told
// how to get in. The waits below are for events on the page (a passing wait ends at once); the
// connection's retries are its own (250 ms doubling), nothing here depends on them being quick.
// Screenshots go to test-results/ so a person can look at the reconnecting and refused states.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite, launchBrowser } from '../support/browser';
import { runCairn, runJsonl, stopProcess } from '../support/cli';
import { contentOf, editorOf, openPage, row, shots, typeAtEnd } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import { type Served, serve } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';


let sb: Sandbox;
let served: Served;
let port: number;
let browser: Browser;

const onDisk = (name: string) => fs.readFile(path.join(sb.roots.project, name), 'utf8');

async function restart(...extra: string[]): Promise<void> {
  await stopProcess(served.server);
  served = await serve(sb.home, { port, args: extra });
}

const open = (address = served.address) => openPage(browser.context, address, { width: 1280, height: 760, row: '/memories/project/notes.md' });

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite((box) =>
    runJsonl(['--home', box.home, '--cwd', box.checkout], [{ command: 'create', path: '/memories/project/notes.md', file_text: 'first line\n' }]),
  ));
  port = Number(new URL(served.origin).port);
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('web mode across restarts of cairn serve', () => {
  it('keeps the token in <home>/web-token (0600) and serves the same one after a restart', async () => {
    const file = path.join(sb.home, 'web-token');
    expect((await fs.readFile(file, 'utf8')).trim()).toBe(served.token);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const before = served.token;
    await restart();
    expect(served.token).toBe(before);
  });

  it('reconnects by itself after a restart; a save while the server is down says so and loses nothing; the save then works', async () => {
    const page = await open();
    await typeAtEnd(page, '/memories/project/notes.md', 'typed while it runs');
    await stopProcess(served.server);

    const banner = page.getByRole('status').filter({ hasText: 'Reconnecting to Cairn…' });
    await banner.waitFor();
    await shots(page, 'web-restart-reconnecting');

    await page.keyboard.press('Control+s');
    const editor = editorOf(page, '/memories/project/notes.md');
    const error = editor.getByRole('alert');
    await error.getByText('Cairn is not reachable right now, so this was not done. Nothing you typed is lost').waitFor();
    expect(await error.textContent()).not.toContain('WebSocket');
    await shots(page, 'web-restart-save-while-down');
    await expect(contentOf(page, '/memories/project/notes.md').textContent()).resolves.toContain('typed while it runs');
    expect(await onDisk('notes.md')).toBe('first line\n');

    served = await serve(sb.home, { port });
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByTitle("Agents' edits show up here as they happen").waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+s');
    await editor.getByRole('status').getByText('Saved.').waitFor();
    expect(await onDisk('notes.md')).toBe('first line\ntyped while it runs');

    // The change stream is live again: an agent's write after the restart shows up by itself.
    const agent = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/project/after-restart.md', file_text: 'hello\n' })]);
    expect(agent.status).toBe(0);
    await row(page, '/memories/project/after-restart.md').getByText('agent edited').waitFor({ timeout: 15_000 });
    await page.close();
  });

  it('keeps unsaved text across a reload, offers it back, and drops it once saved', async () => {
    const page = await open();
    await typeAtEnd(page, '/memories/project/notes.md', ' and a draft');
    await page.reload();
    const p = '/memories/project/notes.md';
    // The editor opens again where it was, with the text and the notice.
    await row(page, p).waitFor();
    if (!(await editorOf(page, p).isVisible())) await row(page, p).click();
    const notice = editorOf(page, p).getByRole('status').filter({ hasText: 'Your unsaved text' });
    await notice.getByText('is back. It is not saved yet.').waitFor();
    await expect(contentOf(page, p).textContent()).resolves.toContain('typed while it runs and a draft');
    await editorOf(page, p).getByLabel('Unsaved changes').waitFor();
    await shots(page, 'web-restart-draft-restored');
    await editorOf(page, p).getByRole('button', { name: 'Save' }).click();
    await editorOf(page, p).getByRole('status').getByText('Saved.').waitFor();
    expect(await onDisk('notes.md')).toBe('first line\ntyped while it runs and a draft');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('cairn.draft:')))).toEqual([]);
    await page.reload();
    await row(page, p).waitFor();
    if (!(await editorOf(page, p).isVisible())) await row(page, p).click();
    await contentOf(page, p).waitFor();
    await expect(editorOf(page, p).getByText('Your unsaved text').count()).resolves.toBe(0);
    await page.close();
  });

  it('brings a kept draft back on the version it was based on: a file changed meanwhile is a conflict, never clobbered', async () => {
    await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'create', path: '/memories/project/shared.md', file_text: 'base\n' }]);
    const page = await open();
    await typeAtEnd(page, '/memories/project/shared.md', 'mine');
    await page.close(); // the tab is closed with the text unsaved
    await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'str_replace', path: '/memories/project/shared.md', old_str: 'base', new_str: 'agent' }]);
    const again = await open();
    const p = '/memories/project/shared.md';
    await row(again, p).click();
    await editorOf(again, p).getByText('but the file has changed since: saving will ask what to keep.').waitFor();
    await expect(contentOf(again, p).textContent()).resolves.toContain('mine');
    await shots(again, 'web-restart-draft-changed-since');
    await editorOf(again, p).getByRole('button', { name: 'Save' }).click();
    // This tab never saw the agent's write, so the banner cannot say who: only that it changed.
    await editorOf(again, p).getByRole('alert').getByText(/This file was changed .*since you opened it/).waitFor();
    // Mine is kept: in the merge with the agent's line that the editor shows before any save.
    await expect(editorOf(again, p).textContent()).resolves.toContain('mine');
    expect(await onDisk('shared.md')).toBe('agent\n');
    await again.close();
  });

  it('lets a new tab of the plain address in, with no token in it, after the first visit', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${served.origin}/`);
    await row(page, '/memories/project/notes.md').waitFor();
    expect(page.url()).toBe(`${served.origin}/`);
    await page.close();
  });

  it('after `cairn serve --rotate-token`, the old page says what to do, and the old token opens nothing', async () => {
    const page = await open();
    const old = served.token;
    await typeAtEnd(page, '/memories/project/notes.md', ' kept through a rotation');
    await restart('--rotate-token');
    expect(served.token).not.toBe(old);
    expect(served.stdout).toContain('The access token is new');
    expect((await fs.readFile(path.join(sb.home, 'web-token'), 'utf8')).trim()).toBe(served.token);

    // The banner over the window (the editor's save error, below, says the same once a save is tried).
    const alert = page.locator('.connection-banner[role="alert"]');
    await alert.getByText("Cairn no longer accepts this page's access token").waitFor({ timeout: 30_000 });
    await alert.getByText('Open the address `cairn serve` printed, or run `cairn serve` again to see it.').waitFor({ timeout: 30_000 });
    await shots(page, 'web-restart-token-rotated');
    await page.keyboard.press('Control+s');
    await editorOf(page, '/memories/project/notes.md').getByRole('alert').getByText("Cairn no longer accepts this page's access token").waitFor();
    await expect(contentOf(page, '/memories/project/notes.md').textContent()).resolves.toContain('kept through a rotation');
    const refused = await fetch(`${served.origin}/api/rpc/workspaces/list`, { method: 'POST', headers: { authorization: `Bearer ${old}`, 'content-type': 'application/json' }, body: '{"json":null}' });
    expect(refused.status).toBe(401);

    // Opening the new address (another tab) stores the new token; the old page comes back by itself.
    const fresh = await open(served.address);
    await alert.waitFor({ state: 'detached', timeout: 30_000 });
    await page.keyboard.press('Control+s');
    await editorOf(page, '/memories/project/notes.md').getByRole('status').getByText('Saved.').waitFor();
    expect(await onDisk('notes.md')).toContain('kept through a rotation');
    await fresh.close();
    await page.close();
  });

  it('refuses --rotate-token while a server of the home runs, naming it', async () => {
    const result = await runCairn(['serve', '--rotate-token', '--port', '0', '--home', sb.home]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`Cairn is running at ${served.origin}`);
    expect(result.stderr).toContain('stop it first');
    expect((await fs.readFile(path.join(sb.home, 'web-token'), 'utf8')).trim()).toBe(served.token);
  });

  it('tells a browser that never had the token, and one holding a stale token, what to do', async () => {
    const other = await launchBrowser();
    try {
      const page = await openPage(other.context, `${served.origin}/`, { width: 1280, height: 760, live: false });
      await page.getByText('This page has no access token. Open the address `cairn serve` printed').waitFor();
      await page.evaluate(() => localStorage.setItem('cairn.token', 'stale-token-from-before-a-rotation'));
      await page.reload();
      await page.getByText("Cairn no longer accepts this page's access token").waitFor();
      await page.getByText('Open the address `cairn serve` printed, or run `cairn serve` again to see it.').waitFor();
      await shots(page, 'web-restart-stale-token-boot');
      await page.close();
    } finally {
      await other.close();
    }
  });
});
