// A sync conflict in real Chromium: two homes (this one, served by `cairn serve`, and another
// machine's, run by the CLI) synced through a real bare repository over file://, an agent on each
// machine editing the same lines of a global memory before they sync. The file opened in the app
// shows the conflict banner naming the remote and the commit; Compare shows this machine's text
// against the other machine's piece by piece, and nothing is written or decided until the person
// chooses; Save merged writes the choice and decides the Inbox item, and the next syncs carry it
// to the other machine. A second file decided in the Inbox loses its banner in the open editor.
// The waits are for what the page shows; nothing depends on timing. Screenshots go to
// test-results/ (sync-conflict-*.png).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { contentOf, editorOf, openPage, row, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import { rpc, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const G = '/memories/global';
const BASE = 'Use pnpm.\nRun the tests.\nShip on Fridays.\n';

let sb: Sandbox;
let served: Served;
let browser: Browser;
let remote: string;
/** The other machine's home. */
let other: string;

const cairn = async (args: string[]) => {
  const r = await runCairn(args);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return r.stdout;
};
/** An agent's edit on a machine (its home), as its own process. */
const agent = (home: string, command: object) => cairn(['tool', JSON.stringify(command), '--home', home, '--cwd', sb.checkout]);
const syncOther = () => cairn(['sync', '--home', other]);
const syncHere = () => rpc(served, 'sync/now', {});
const onDisk = (home: string, name: string) => fs.readFile(path.join(home === sb.home ? sb.roots.global : path.join(other, 'memory', 'global'), name), 'utf8');
const pending = async () => ((await rpc(served, 'inbox/list', {})) as { items: Array<{ id: string; change: { path: string } | null }> }).items;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    const bare = path.join(sb.dir, 'memory-remote.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    remote = `file://${bare}`;
    other = path.join(sb.dir, 'other-machine');
    await fs.mkdir(sb.roots.global, { recursive: true });
    for (const name of ['notes.md', 'tools.md']) await fs.writeFile(path.join(sb.roots.global, name), BASE);
  }));
  // Both machines start from the same text.
  await rpc(served, 'sync/setUp', { remote });
  await cairn(['sync', '--remote', remote, '--home', other]);
  expect(await onDisk(other, 'notes.md')).toBe(BASE);
  // Each machine's agent changes the same line of both files, the other machine's syncs first.
  for (const name of ['notes.md', 'tools.md']) {
    await agent(other, { command: 'str_replace', path: `${G}/${name}`, old_str: 'Run the tests.', new_str: 'Run the tests in CI.' });
    await agent(sb.home, { command: 'str_replace', path: `${G}/${name}`, old_str: 'Run the tests.', new_str: 'Run the tests twice.' });
  }
  await agent(other, { command: 'str_replace', path: `${G}/notes.md`, old_str: 'Ship on Fridays.', new_str: 'Ship on Fridays.\nTag the release.' });
  await syncOther();
  await syncHere();
  // Whichever sync of this host met them (this one, or its own schedule's), both wait in the Inbox.
  expect((await pending()).map((i) => i.change?.path).sort()).toEqual([`${G}/notes.md`, `${G}/tools.md`]);
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('a sync conflict in Chromium', () => {
  it('the banner names the remote and commit; Compare resolves piece by piece; Save merged decides the Inbox item and syncs to the other machine', async () => {
    const page = await openPage(browser.context, served.address, { row: `${G}/notes.md` });
    await row(page, `${G}/notes.md`).click();
    const editor = editorOf(page, `${G}/notes.md`);
    const banner = editor.getByRole('alert', { name: 'Sync conflict' });
    await banner.getByText(`changed on this machine and on another (synced from ${remote}, commit`).waitFor();
    await expect(contentOf(page, `${G}/notes.md`).textContent()).resolves.toContain('Run the tests twice.');

    await banner.getByRole('button', { name: 'Compare' }).click();
    const first = editor.getByRole('region', { name: 'Conflict 1 of 2' });
    await first.getByLabel('Lines of this machine').getByText('Run the tests twice.').waitFor();
    await first.getByLabel('Lines of the other machine').getByText('Run the tests in CI.').waitFor();
    const saveMerged = banner.getByRole('button', { name: 'Save merged' });
    expect(await saveMerged.isDisabled()).toBe(true);
    await shots(page, 'sync-conflict-compare', { ready: () => first.waitFor() });

    await first.getByRole('button', { name: 'Take theirs' }).click();
    // Both sides are kept until every piece is chosen and saved.
    expect(await onDisk(sb.home, 'notes.md')).toBe('Use pnpm.\nRun the tests twice.\nShip on Fridays.\n');
    expect((await pending()).map((i) => i.change?.path).sort()).toEqual([`${G}/notes.md`, `${G}/tools.md`]);
    // The other machine's added line is left out: the merge is neither side's text.
    await editor.getByRole('region', { name: 'Conflict 2 of 2' }).getByRole('button', { name: 'Take mine' }).click();
    await saveMerged.click();
    await editor.getByRole('status').getByText('Saved the merge of both machines.').waitFor();
    await banner.waitFor({ state: 'detached' });
    const merged = 'Use pnpm.\nRun the tests in CI.\nShip on Fridays.\n';
    expect(await onDisk(sb.home, 'notes.md')).toBe(merged);
    expect((await pending()).map((i) => i.change?.path)).toEqual([`${G}/tools.md`]);

    // The choice travels: this machine sends it, the other takes it in.
    await syncHere();
    await syncOther();
    expect(await onDisk(other, 'notes.md')).toBe(merged);
    await page.close();
  });

  it('deciding the item in the Inbox clears the open editor\'s banner, and the editor shows the choice', async () => {
    const page = await openPage(browser.context, served.address, { row: `${G}/tools.md` });
    await row(page, `${G}/tools.md`).click();
    const editor = editorOf(page, `${G}/tools.md`);
    const banner = editor.getByRole('alert', { name: 'Sync conflict' });
    await banner.waitFor();
    const [item] = await pending();
    expect(item?.change?.path).toBe(`${G}/tools.md`);
    await rpc(served, 'inbox/approve', { workspaceId: null, id: item!.id });
    await banner.waitFor({ state: 'detached' });
    await expect.poll(() => contentOf(page, `${G}/tools.md`).textContent()).toContain('Run the tests in CI.');
    expect(await onDisk(sb.home, 'tools.md')).toBe('Use pnpm.\nRun the tests in CI.\nShip on Fridays.\n');
    await page.close();
  });
});
