// Review mode in real Chromium against `cairn serve` with a temp home: the person turns
// review on for the project memory with the Inbox's switch; an agent's edit and delete (cairn tool,
// its own process) then wait in the Inbox as diffs of the file now against the agent's version;
// Approve writes the edit to disk, Reject leaves the file as it was. Screenshots land under
// test-results/ (review-*.png) so a person can look at what the UI showed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { inbox, openPage, shot, shotLightAndDark, showInbox } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';


let sb: Sandbox;
let served: Served;
let browser: Browser;

const onDisk = (name: string) => fs.readFile(path.join(sb.roots.project, name), 'utf8');
const agent = async (command: unknown) => {
  const r = await runCairn(['tool', JSON.stringify(command), '--home', sb.home, '--cwd', sb.checkout]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await sb.run({ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nBuild with make.\nTest with make test.\nRelease with make release.\n' });
    await sb.run({ command: 'create', path: '/memories/project/old.md', file_text: 'An old note.\n' });
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('review mode in Chromium', () => {
  it("turns review on from the Inbox, shows an agent's held changes as diffs, approves one onto disk and rejects the other", async () => {
    const page = await openPage(browser.context, served.address, { width: 1280, height: 860 });
    await showInbox(page);

    const project = inbox(page).getByRole('group', { name: 'Hold agents’ changes for my review:' }).getByRole('checkbox', { name: 'project memory' });
    await expect(project.isChecked()).resolves.toBe(false);
    await project.click();
    await expect.poll(() => project.isChecked()).toBe(true);
    await expect.poll(async () => (await runCairn(['inbox', 'review', '--scope', 'project', '--home', sb.home, '--cwd', sb.checkout])).stdout).toContain('review on');

    expect(await agent({ command: 'str_replace', path: '/memories/project/build.md', old_str: 'make test', new_str: 'pnpm test' })).toMatch(/awaits a person's review/);
    expect(await agent({ command: 'delete', path: '/memories/project/old.md' })).toMatch(/^This deletion of \/memories\/project\/old\.md awaits/);
    expect(await onDisk('build.md')).toContain('Test with make test.');

    await inbox(page).getByRole('button', { name: 'Refresh' }).click();
    const held = inbox(page).getByRole('region', { name: 'Agents’ changes held for your review' });
    const edit = held.getByRole('listitem', { name: 'Agent’s change: Edit /memories/project/build.md' });
    const del = held.getByRole('listitem', { name: 'Agent’s change: Delete /memories/project/old.md' });
    const diff = edit.getByRole('group', { name: 'Differences between the file now and the agent’s version' });
    await diff.getByText('1 line only in the file now').waitFor();
    await diff.getByText('Removed: Test with make test.').waitFor();
    await diff.getByText('Added: Test with pnpm test.').waitFor();
    await del.getByRole('group', { name: 'Differences between the file now and the agent’s version' }).getByText('Removed: An old note.').waitFor();
    await shotLightAndDark(page, 'review-diff');

    await edit.getByRole('button', { name: 'Approve' }).click();
    const status = inbox(page).getByRole('status');
    await status.getByText('Approved: the agent’s edit of /memories/project/build.md is in memory.').waitFor();
    await edit.waitFor({ state: 'detached' });
    await status.getByRole('button', { name: 'Undo' }).waitFor();
    expect(await onDisk('build.md')).toContain('Test with pnpm test.');

    await del.getByRole('button', { name: 'Reject' }).click();
    await status.getByText('Rejected the agent’s change: Delete /memories/project/old.md. Memory is unchanged.').waitFor();
    await del.waitFor({ state: 'detached' });
    expect(await onDisk('old.md')).toBe('An old note.\n');
    await inbox(page).getByRole('heading', { name: 'Nothing to review' }).waitFor();
    await shot(page, 'review-done');
    await page.close();
  });
});
