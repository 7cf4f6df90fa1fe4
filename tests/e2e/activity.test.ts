// The Activity view in real Chromium against a real `cairn serve` on a temp home, with agents as
// their own processes: `cairn tool --agent codex` and `cairn mcp` driven by the official MCP client
// under Claude Code's own client name. What a person sees: each agent's change as a row naming the
// agent, appearing live; the agent filter; "Mark all seen" moving the "New since you last looked"
// divider (kept by the server: a reload agrees); a row opening its diff; the sidebar saying which
// agent is connected or was seen, and counting another workspace's Inbox. The waits are for what
// the page shows; nothing depends on timing. Screenshots go to test-results/ (activity-*.png).
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { openPage, shot } from '../support/page';
import { CAIRN_BIN, makeCheckout, type Sandbox } from '../support/sandbox';
import { rpc, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';

let sb: Sandbox;
let served: Served;
let browser: Browser;
let gadgets: string;
let mcp: Client | undefined;

const cairn = async (cwd: string, ...args: string[]) => {
  const r = await runCairn([...args, '--home', sb.home, '--cwd', cwd]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};
const codex = (command: unknown, cwd = sb.checkout) => cairn(cwd, 'tool', '--agent', 'codex', '--agent-session', 'codex-session-1', JSON.stringify(command));

const activityRow = (page: Page, sentence: RegExp) => page.getByRole('list', { name: 'Changes by agents, newest first' }).getByRole('button', { name: sentence });
const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Workspaces' });
const divider = (page: Page) => page.getByText('New since you last looked');

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    gadgets = await makeCheckout(path.join(sb.dir, 'gadgets'), 'git@example.com:acme/gadgets.git');
  }));
  await rpc(served, 'workspaces/add', { name: 'gadgets', path: gadgets });
});
afterAll(async () => {
  await mcp?.close();
  await endSuite({ browsers: [browser], served, sb });
});

describe('the Activity view', () => {
  it('shows who changed what live, filters, sets new rows apart until Mark all seen, opens a diff; the sidebar says who is connected and counts the Inbox', async () => {
    // An agent worked before any page was open.
    await codex({ command: 'create', path: `${P}/build.md`, file_text: 'Build with make.\n' });

    const page = await openPage(browser.context, served.address, { live: false });
    await sidebar(page).getByRole('button', { name: 'Activity', exact: true }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await activityRow(page, /^Codex created \/memories\/project\/build\.md, widgets, project, session codex-se, just now/).waitFor();
    await sidebar(page).getByText('Codex seen just now').waitFor();

    // Nothing seen yet: every row is new, and no divider is needed. Mark all seen.
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Mark all seen' }).isDisabled()).toBe(true);
    expect(await divider(page).count()).toBe(0);

    // Claude Code connects over MCP (its own client name) and writes: the row appears live, above
    // the divider, and the sidebar says it is connected.
    const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
    mcp = new Client({ name: 'claude-code', version: '2.0.0' });
    await mcp.connect(transport);
    await sidebar(page).getByText('Claude Code connected').waitFor();
    await mcp.callTool({ name: 'memory', arguments: { command: 'str_replace', path: `${P}/build.md`, old_str: 'Build with make.', new_str: 'Build with make -j8.' } });
    const claudeRow = activityRow(page, /^Claude Code edited \/memories\/project\/build\.md, widgets, project, session [^,]+, just now, new$/);
    await claudeRow.waitFor();
    await divider(page).waitFor();
    const [claudeTop, dividerTop, codexTop] = await Promise.all([claudeRow, divider(page), activityRow(page, /^Codex created/)].map(async (l) => (await l.boundingBox())!.y));
    expect(claudeTop).toBeLessThan(dividerTop!);
    expect(dividerTop).toBeLessThan(codexTop!);
    await shot(page, 'activity-live');

    // The filter by agent: Codex's row alone, then all again.
    await page.getByRole('combobox', { name: /^Agent/ }).selectOption({ label: 'Codex' });
    await claudeRow.waitFor({ state: 'detached' });
    expect(await activityRow(page, /^Codex created/).count()).toBe(1);
    await page.getByRole('combobox', { name: /^Agent/ }).selectOption({ label: 'All' });
    await claudeRow.waitFor();

    // The row opens its diff: the line the agent removed and the one it added.
    await claudeRow.click();
    const diff = page.getByRole('region', { name: 'What the change did' });
    await diff.getByText(/^Added: Build with make -j8\.$/).waitFor();
    await diff.getByText(/^Removed: Build with make\.$/).waitFor();

    // Mark all seen moves the divider away; a reload agrees (the mark is the server's).
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    await divider(page).waitFor({ state: 'detached' });
    await page.reload();
    await activityRow(page, /^Claude Code edited/).waitFor();
    expect(await divider(page).count()).toBe(0);
    expect(await activityRow(page, /, new$/).count()).toBe(0);

    // Another workspace under review: Codex's change there is held, counted in that workspace's
    // Inbox in the sidebar, and listed as held.
    await cairn(gadgets, 'inbox', 'review', '--scope', 'project', '--on');
    expect(await codex({ command: 'create', path: `${P}/gadgets.md`, file_text: 'Gadgets.\n' }, gadgets)).toMatch(/review/);
    await activityRow(page, /^An agent held for review \/memories\/project\/gadgets\.md/).waitFor();
    await sidebar(page).getByRole('button', { name: /^gadgets.*1 waiting in the Inbox$/ }).waitFor();
    expect(await sidebar(page).getByRole('button', { name: /^widgets.*waiting in the Inbox/ }).count()).toBe(0);
    await divider(page).waitFor();
    await shot(page, 'activity-held');

    // The MCP session ends: Claude Code is no longer connected, but seen.
    await mcp.close();
    mcp = undefined;
    await expect.poll(async () => (await rpc(served, 'activity/overview', undefined)) as { agents: Array<{ name: string; connected: boolean }> }).toMatchObject({ agents: expect.arrayContaining([expect.objectContaining({ name: 'claude-code', connected: false })]) });
    await page.close();
  });
});
