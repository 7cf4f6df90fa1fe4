// The harvest's status line and the live inbox in real Chromium against `cairn serve`.
// The served process finds agents' sessions where this test puts them (CLAUDE_CONFIG_DIR and
// CODEX_HOME point at temp folders): a Claude Code transcript of the sandbox's checkout, long
// enough for four chunks. The `command` extractor runs a small script standing in for a model CLI
// (no model runs here): it answers chunk 1 with no candidates and holds chunk 2 until the test opens
// a gate, then fails with exit status 3 — so the line is seen harvesting "chunk 2 of 4", then
// failing with its reason, local retry time (the page runs in Asia/Kolkata, +05:30, so a local time
// cannot pass for UTC) and Retry; switched to the `rules` extractor, Retry shows the run and the
// count beside the tree goes up without a reload. Then the count follows another process (a
// `cairn harvest --transcript` run) while the page is open, and the keyboard approves and rejects;
// last, the line waits ("Waiting: 1 session queued.") while a terminal's `cairn harvest` of another
// workspace holds the one worker, and says what the run found once that worker took it.
// Screenshots of each state at 1400 and 800 px, light and dark, land under test-results/harvest-*.png.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { inbox, openPage, shot, showInbox, shots as pageShots } from '../support/page';
import { makeCheckout, REPO_ROOT, type Sandbox } from '../support/sandbox';
import { rpc, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts');
const FIXTURE_CWD = '/home/dev/projects/widgets';
const CODEX = 'codex/rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl';
const SESSION = 'c0ffee00-0000-4000-8000-000000000001';
const ZONE = { locale: 'en-GB', timeZone: 'Asia/Kolkata' };
/** Each padding message renders past the chunk budget (60 000 characters): a chunk of its own. */
const PAD_CHARS = 61_000;


/**
 * Stands in for a model CLI: counts its calls; chunk 1 (the conversation) gets the person's two
 * rules as candidates, quoted from the prompt's messages; chunk 2 waits for the gate file, then
 * fails as an overloaded model's CLI does (exit 3, a line on stderr).
 */
const MODEL_STAND_IN = `
const fs = require('node:fs');
const dir = process.argv[2];
const input = [];
process.stdin.on('data', (d) => input.push(d));
const calls = fs.existsSync(dir + '/calls') ? Number(fs.readFileSync(dir + '/calls', 'utf8')) + 1 : 1;
fs.writeFileSync(dir + '/calls', String(calls));
const fail = () => { process.stderr.write('the model is overloaded, try again later'); process.exit(3); };
const RULES = [
  ['From now on, keep the v1 routes working until the v3 release', 'Keep the v1 routes working until the v3 release.'],
  ['Always put code samples in TypeScript, never plain JavaScript.', 'Always put code samples in TypeScript, never plain JavaScript.'],
];
process.stdin.on('end', () => {
  if (calls !== 1) return;
  const messages = Buffer.concat(input).toString('utf8').split('\\n').filter((l) => l.startsWith('{"id"')).map((l) => JSON.parse(l));
  const candidates = [];
  for (const [quote, text] of RULES) {
    const m = messages.find((x) => x.text.includes(quote));
    if (m) candidates.push({ category: 'convention', text, scope: 'project', evidence: [{ messageId: m.id, quote }], confidence: 0.9, rationale: 'The person said so as a rule.' });
  }
  process.stdout.write(JSON.stringify({ candidates }));
  process.exit(0);
});
if (calls !== 1) {
  const gate = setInterval(() => { if (fs.existsSync(dir + '/gate')) { clearInterval(gate); fail(); } }, 20);
}
`;

/** The Claude Code fixture in this checkout, then three long answers of the agent (chunks 2 to 4). */
async function longTranscript(checkout: string): Promise<string> {
  const lines = (await fs.readFile(path.join(FIXTURES, 'claude', 'compaction-resume.jsonl'), 'utf8')).replaceAll(FIXTURE_CWD, checkout).trimEnd().split('\n');
  const last = JSON.parse(lines.findLast((l) => l.includes('"type":"assistant"'))!) as Record<string, unknown> & { uuid: string; message: Record<string, unknown> };
  let parent = last.uuid;
  for (let i = 1; i <= 3; i++) {
    const uuid = `0000000${i}-pad0-4000-8000-000000000000`;
    const text = `Part ${i} of the walkthrough of the v2 handlers. `.padEnd(PAD_CHARS, 'The handler reads the request, checks it and answers. ');
    lines.push(JSON.stringify({ ...last, parentUuid: parent, uuid, timestamp: `2026-01-20T15:0${i}:00.000Z`, message: { ...last.message, id: `msg_pad${i}`, content: [{ type: 'text', text }] } }));
    parent = uuid;
  }
  return `${lines.join('\n')}\n`;
}

let sb: Sandbox;
/** Where the agents keep their sessions, for the served process and the CLI. */
let agentsEnv: Record<string, string>;
let served: Served;
let browser: Browser;
let workspaceId: string;
let standIn: string;
/** Every stand-in made; each gate is opened at the end, so that none is left waiting. */
const standIns: string[] = [];

/** A long Claude Code session of `checkout`, where Claude Code keeps it. */
async function placeTranscript(checkout: string, session: string): Promise<void> {
  const project = path.join(agentsEnv.CLAUDE_CONFIG_DIR!, 'projects', checkout.replace(/[^a-zA-Z0-9]/g, '-'));
  await fs.mkdir(project, { recursive: true });
  await fs.writeFile(path.join(project, `${session}.jsonl`), await longTranscript(checkout));
}

/** A folder with the stand-in model (its own count of calls and its own gate). */
async function makeStandIn(name: string): Promise<string> {
  const dir = path.join(sb.dir, name);
  await fs.mkdir(dir);
  standIns.push(dir);
  await fs.writeFile(path.join(dir, 'model.cjs'), MODEL_STAND_IN);
  return dir;
}

const standInCommand = (dir: string) => `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(dir, 'model.cjs'))} ${JSON.stringify(dir)}`;

const statusLine = (page: Page): Locator => inbox(page).getByRole('group', { name: 'Harvest status' });

const open = () =>
  openPage(browser.context, served.address, {
    height: 900,
    // The person's zone and locale: the retry time is theirs.
    before: async (page) => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setTimezoneOverride', { timezoneId: ZONE.timeZone });
      await cdp.send('Emulation.setLocaleOverride', { locale: ZONE.locale });
    },
  });

async function openInbox(page: Page): Promise<void> {
  await showInbox(page);
  await statusLine(page).waitFor();
}

/** The Inbox's header in each width and theme, then the whole page at 1400 px, light. */
async function shots(page: Page, name: string): Promise<void> {
  await pageShots(page, `harvest-${name}`, { of: inbox(page).locator('header').first() });
  await shot(page, `harvest-${name}-page`);
}

beforeAll(async () => {
  ({ sb, served, browser, workspaceId } = await openWorkspaceSuite(
    async (box) => {
      sb = box;
      agentsEnv = { CLAUDE_CONFIG_DIR: path.join(sb.dir, 'claude-config'), CODEX_HOME: path.join(sb.dir, 'codex-home') };
      await placeTranscript(sb.checkout, SESSION);
      standIn = await makeStandIn('model');
    },
    () => ({ env: agentsEnv }),
  ));
  await rpc(served, 'settings/set', { harvestExtractor: 'command', harvestCommand: standInCommand(standIn) });
});
afterAll(async () => {
  for (const dir of standIns) await fs.writeFile(path.join(dir, 'gate'), '').catch(() => {});
  await endSuite({ browsers: [browser], served, sb });
});

describe('the harvest status line in Chromium', () => {
  it('harvests chunk 2 of 4, fails with the reason, the local retry time and Retry; fixed, Retry brings the proposals, the count goes up', async () => {
    const page = await open();
    await openInbox(page);
    const line = statusLine(page);
    await line.getByText('Harvest is off for this workspace.').waitFor();
    await page.getByRole('button', { name: 'Inbox', exact: true }).waitFor();
    await shots(page, 'off');

    await line.getByRole('button', { name: 'Harvest now' }).click();
    await line.getByText('Queued 1 session for harvest; proposals arrive in the inbox.').waitFor();
    await line.getByText('Harvesting Claude Code session c0ffee00, chunk 2 of 4.').waitFor();
    await expect(line.getByRole('button', { name: 'Harvest now' }).isDisabled()).resolves.toBe(true);
    await shots(page, 'harvesting');

    await fs.writeFile(path.join(standIn, 'gate'), '');
    const failure = line.getByText(/^Failed \(once\): /);
    await failure.waitFor();
    const status = (await rpc(served, 'harvest/status', { workspaceId })) as { failure: { retryAt: string } };
    const local = new Intl.DateTimeFormat(ZONE.locale, { timeZone: ZONE.timeZone, hour: 'numeric', minute: '2-digit' }).format(Date.parse(status.failure.retryAt));
    // The weekday comes first only when the retry falls on another day than today (the component test pins that).
    expect(await failure.textContent()).toMatch(
      new RegExp(`^Failed \\(once\\): Chunk 2 of 4: The harvest command failed with exit status 3\\. Its stderr began: the model is overloaded, try again later\\. Retrying at (\\w{3} )?${local}\\.$`),
    );
    expect(await failure.textContent()).not.toContain('UTC');
    await line.getByText('The last harvest failed.').waitFor();
    await expect(line.getByRole('button', { name: 'Harvest now' }).isEnabled()).resolves.toBe(true);
    // That run has ended: Harvest now's answer is not said any more, nor the failed run twice.
    await expect(line.getByText(/^Queued 1 session/).count()).resolves.toBe(0);
    await expect(line.getByText(/^Last run/).count()).resolves.toBe(0);
    await shots(page, 'failed');

    // The person fixes it (another extractor) and retries: the run goes on after chunk 1, which the
    // model had answered (its two candidates kept), and the rules read the rest.
    await rpc(served, 'settings/set', { harvestExtractor: 'rules' });
    // (The host's own timer retries a minute after the failure; whichever comes first, it runs once.)
    await line.getByRole('button', { name: 'Retry' }).click();
    await line.getByText(/^Last run (just now|\d+ min ago): 2 proposed/).waitFor();
    await failure.waitFor({ state: 'detached' });
    await expect(line.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    // The count beside the tree and the list, without a reload.
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await inbox(page).getByRole('region', { name: 'From Claude Code session c0ffee00' }).waitFor();
    await shots(page, 'last-run');
    await page.close();
  });

  it('follows another process: a terminal harvest raises the count and fills the open list, without a reload', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await openInbox(page);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const file = path.join(sb.dir, path.basename(CODEX));
    await fs.writeFile(file, (await fs.readFile(path.join(FIXTURES, CODEX), 'utf8')).replaceAll(FIXTURE_CWD, sb.checkout));
    const run = await runCairn(['harvest', '--transcript', file, '--home', sb.home]);
    expect(run.status, run.stderr).toBe(0);

    await page.getByRole('button', { name: 'Inbox, 4 to review' }).waitFor();
    await inbox(page).getByRole('region', { name: /^From Codex session / }).waitFor();
    await inbox(page).getByText('4 proposals to review. Nothing is added to memory until you approve it.').waitFor();
    await expect(page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).resolves.toBe(true);
    await page.close();
  });

  it('approves with a and rejects with r, the count following each', async () => {
    const page = await open();
    await openInbox(page);
    const codex = inbox(page).getByRole('region', { name: /^From Codex session / });
    const items = codex.getByRole('listitem');
    await expect.poll(() => items.count(), { timeout: 30_000 }).toBe(2);
    const [first, second] = await items.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!));
    const text = first!.slice(first!.indexOf(': ') + 2);

    await codex.getByRole('listitem', { name: first!, exact: true }).focus();
    await page.keyboard.press('a');
    const notice = inbox(page).getByRole('status');
    await notice.getByText(/^Added to \/memories\/.+\.$/).waitFor();
    await page.getByRole('button', { name: 'Inbox, 3 to review' }).waitFor();
    const approved = (await notice.getByText(/^Added to /).textContent())!.match(/^Added to (\S+?)( \(a new file\))?\.$/)![1]!;
    const scope = approved.split('/')[2] as 'global' | 'project' | 'workspace';
    expect(await fs.readFile(path.join(sb.roots[scope], approved.split('/').slice(3).join('/')), 'utf8')).toContain(`- ${text}`);

    // The focus went on to the next proposal: r rejects it.
    await expect(codex.getByRole('listitem', { name: second!, exact: true }).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('r');
    await notice.getByText(/^Rejected: .+ It will not be proposed again for 90 days\.$/).waitFor();
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await codex.waitFor({ state: 'detached' });
    await page.close();
  });

  it('waits while another process holds the one worker, and says what that run found once it ends', async () => {
    // Another workspace's session, harvested in a terminal (`cairn harvest`, the foreground worker),
    // is held at chunk 2 by a second stand-in: that process has the lease.
    const other = await makeCheckout(path.join(sb.dir, 'other'), 'git@example.com:acme/gadgets.git');
    await rpc(served, 'workspaces/add', { name: 'gadgets', path: other });
    await placeTranscript(other, 'd00dfeed-0000-4000-8000-000000000002');
    const held = await makeStandIn('model-2');
    await rpc(served, 'settings/set', { harvestExtractor: 'command', harvestCommand: standInCommand(held) });
    const terminal = runCairn(['harvest', '--home', sb.home, '--cwd', other], { env: agentsEnv });
    onTestFinished(async () => {
      // Whatever happened, the held stand-in is let go and the terminal's process has ended.
      await fs.writeFile(path.join(held, 'gate'), '').catch(() => {});
      await terminal;
    });
    const page = await open();
    await openInbox(page);
    const line = statusLine(page);
    // (A bound on a failure only: the terminal's worker reaches chunk 2 when it does.)
    await expect.poll(async () => fs.readFile(path.join(held, 'calls'), 'utf8').catch(() => ''), { timeout: 30_000 }).toBe('2');

    // This workspace's session is queued behind it.
    await line.getByRole('button', { name: 'Harvest now' }).click();
    await line.getByText('Waiting: 1 session queued.').waitFor();
    await line.getByText('Queued 1 session for harvest; proposals arrive in the inbox.').waitFor();
    await shots(page, 'waiting');

    // The held run fails; the same worker then takes this workspace's session, read before (by
    // the rules, in the first test): nothing new, and no extractor is asked.
    await fs.writeFile(path.join(held, 'gate'), '');
    const run = await terminal;
    // The terminal's own session failed: its command says so by its exit status.
    expect(run.status, run.stderr).toBe(1);
    // This run found nothing; the first test's run, which proposed, is still said.
    await line.getByText(/^Last run (just now|\d+ min ago): nothing to propose\. The last run that proposed something, (just now|\d+ min ago): \d+ proposed\.$/).waitFor();
    await line.getByText('Harvest is off for this workspace.').waitFor();
    expect(await fs.readFile(path.join(held, 'calls'), 'utf8')).toBe('2');
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await page.close();
  });
});
