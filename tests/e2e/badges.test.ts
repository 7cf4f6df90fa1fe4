// "Agent edited" badges the server knows, and live pins and uses, in
// real Chromium against a real `cairn serve` on a temp home, with agents and the person's terminal
// as their own processes (`cairn tool`, `cairn pin`). An agent's write made while no page is open
// badges the file in every browser that opens later; opening the file clears the badge, in the
// other browser too, and it stays cleared after a reload and after a restart of the server. A pin,
// an unpin and an agent's use made in other processes show in the open page without a reload, and
// the unpin is not counted as a use. The waits below are for what the page shows (a passing wait
// ends at once); nothing depends on timing. Screenshots go to test-results/ (badges-*.png).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite, launchBrowser } from '../support/browser';
import { runCairn, stopProcess } from '../support/cli';
import { editorOf, openPage, row, shot } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import { type Served, serve } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';

let sb: Sandbox;
let served: Served;
let first: Browser;
let second: Browser;

const agentEdited = (page: Page, p: string) => row(page, p).getByText('agent edited');
const cairn = async (...args: string[]) => {
  const r = await runCairn([...args, '--home', sb.home, '--cwd', sb.checkout]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};
const agent = (command: unknown) => cairn('tool', JSON.stringify(command));
const stats = async (p: string) => (JSON.parse(await cairn('stats', '--json')) as { files: Array<{ path: string; pinned: boolean; accessCount: number }> }).files.find((f) => f.path === p)!;

const open = (browser: typeof first, address = served.address) => openPage(browser.context, address, { row: `${P}/notes.md` });

beforeAll(async () => {
  ({ sb, served, browser: first } = await openWorkspaceSuite(async (box) => {
    // Files left by an earlier session, straight on disk: no history, so no badge.
    await fs.mkdir(box.roots.project, { recursive: true });
    await fs.writeFile(path.join(box.roots.project, 'build.md'), '---\ndescription: How to build\n---\nBuild with make.\n');
    await fs.writeFile(path.join(box.roots.project, 'notes.md'), '---\ndescription: Loose notes\n---\nNothing yet.\n');
  }));
  second = await launchBrowser();
});
afterAll(() => endSuite({ browsers: [first, second], served, sb }));

describe('"agent edited" badges the server knows', () => {
  it('shows a change made while no page was open, in every browser; opening clears it for good (reload, restart)', async () => {
    // Agents work while no page is open: an edit of build.md and a new file.
    await agent({ command: 'str_replace', path: `${P}/build.md`, old_str: 'Build with make.', new_str: 'Build with make -j8.' });
    await agent({ command: 'create', path: `${P}/learned.md`, file_text: '---\ndescription: Learned today\n---\nUse -j8.\n' });

    const page = await open(first);
    await agentEdited(page, `${P}/build.md`).waitFor();
    await agentEdited(page, `${P}/learned.md`).waitFor();
    expect(await agentEdited(page, `${P}/notes.md`).count()).toBe(0);
    await shot(page, 'badges-after-agents');

    // Another browser (no storage shared with the first) sees the same.
    const other = await open(second);
    await agentEdited(other, `${P}/build.md`).waitFor();
    await agentEdited(other, `${P}/learned.md`).waitFor();

    // Opening build.md in the first browser clears its badge there, and in the other one live.
    await row(page, `${P}/build.md`).click();
    await editorOf(page, `${P}/build.md`).getByText('Build with make -j8.').first().waitFor();
    await agentEdited(page, `${P}/build.md`).waitFor({ state: 'detached' });
    await agentEdited(other, `${P}/build.md`).waitFor({ state: 'detached' });
    expect(await agentEdited(other, `${P}/learned.md`).count()).toBe(1);

    // A reload asks the server: learned.md (not opened) is badged, build.md is not. learned.md's
    // badge comes in the same answer, so once it shows, build.md's absence means something.
    await page.reload();
    await agentEdited(page, `${P}/learned.md`).waitFor();
    expect(await agentEdited(page, `${P}/build.md`).count()).toBe(0);

    // A restart of the server (same home, same port): the same.
    const port = new URL(served.origin).port;
    await stopProcess(served.server);
    served = await serve(sb.home, { port: Number(port) });
    await page.reload();
    await agentEdited(page, `${P}/learned.md`).waitFor();
    expect(await agentEdited(page, `${P}/build.md`).count()).toBe(0);
    const fresh = await open(second, served.address);
    await agentEdited(fresh, `${P}/learned.md`).waitFor();
    expect(await agentEdited(fresh, `${P}/build.md`).count()).toBe(0);
    await shot(fresh, 'badges-after-restart');

    // An agent's next change badges build.md again, live.
    await agent({ command: 'str_replace', path: `${P}/build.md`, old_str: '-j8', new_str: '-j16' });
    await agentEdited(fresh, `${P}/build.md`).waitFor();
    await Promise.all([page.close(), other.close(), fresh.close()]);
  });
});

describe('pins and uses made in other processes', () => {
  it('show in the open page without a reload, and an unpin is not a use', async () => {
    const page = await open(first);
    const notes = row(page, `${P}/notes.md`);
    expect(await notes.getByLabel('Pinned').count()).toBe(0);
    expect(await notes.getByText(/^Used /).count()).toBe(0);

    // The person pins from a terminal.
    expect(await cairn('pin', `${P}/notes.md`)).toContain(`Pinned ${P}/notes.md`);
    await notes.getByLabel('Pinned').waitFor();
    expect((await stats(`${P}/notes.md`)).accessCount).toBe(0);

    // An agent reads it in its own process: a use, shown live.
    await agent({ command: 'view', path: `${P}/notes.md` });
    await notes.getByText(/^Used 1×/).waitFor();
    await shot(page, 'badges-pinned-used');

    // Unpinned from the terminal: the pin goes, the uses stay one.
    expect(await cairn('unpin', `${P}/notes.md`)).toContain(`Unpinned ${P}/notes.md`);
    await notes.getByLabel('Pinned').waitFor({ state: 'detached' });
    expect(await notes.getByText(/^Used 1×/).count()).toBe(1);
    expect(await stats(`${P}/notes.md`)).toMatchObject({ pinned: false, accessCount: 1 });
    await page.close();
  });
});
