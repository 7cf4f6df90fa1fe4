// The Inbox in real Chromium against `cairn serve` with a temp home: proposals come from
// `cairn harvest --transcript` on the anonymised Codex and Claude Code fixtures (moved into the
// sandbox's checkout), and are reviewed in the memory pane: approve (the file on disk, the
// confirmation opening the file), edit then approve (another text, another file), reject (from the
// keyboard, and all from one session), down to the empty state. Screenshots land under
// test-results/ (inbox-*.png, light and dark) so a person can look at what the UI showed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { editorOf, inbox, openPage, shot, shotLightAndDark, showInbox } from '../support/page';
import { REPO_ROOT, type Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';
import { InboxStore } from '../../src/main/inbox/inbox-store';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts');
const FIXTURE_CWD = '/home/dev/projects/widgets';
const CODEX = 'codex/rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl';
const CLAUDE = 'claude/compaction-resume.jsonl';
const PLAIN = 'claude/plain-session.jsonl';
// A Claude Code transcript is named after its session (<session>.jsonl); the Inbox shows 8 characters.
const COMPACTION_SESSION = 'compacti';
const PLAIN_SESSION = 'plain-se';

let sb: Sandbox;
let served: Served;
let browser: Browser;

/** Harvests a fixture transcript, its working directory moved into the sandbox's checkout. */
async function harvest(relative: string): Promise<void> {
  const text = (await fs.readFile(path.join(FIXTURES, relative), 'utf8')).replaceAll(FIXTURE_CWD, sb.checkout);
  const file = path.join(sb.dir, path.basename(relative));
  await fs.writeFile(file, text);
  const result = await runCairn(['harvest', '--transcript', file, '--home', sb.home]);
  expect(result.status, result.stderr).toBe(0);
}

const onDisk = (name: string) => fs.readFile(path.join(sb.roots.project, name), 'utf8');
const proposal = (page: Page, name: string): Locator => inbox(page).getByRole('listitem', { name, exact: true });

async function openInbox(): Promise<Page> {
  const page = await openPage(browser.context, served.address, { width: 1280 });
  await showInbox(page);
  return page;
}

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await sb.run({ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nmake test\n' });
  }));
  await harvest(CODEX);
  await harvest(CLAUDE);
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the Inbox in Chromium', () => {
  it('shows the proposals of two sessions with the count beside the tree, and approves one into its file', async () => {
    const page = await openInbox();
    await expect(page.getByRole('button', { name: 'Inbox, 4 to review' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await inbox(page).getByText('4 proposals to review. Nothing is added to memory until you approve it.').waitFor();
    await inbox(page).getByRole('region', { name: /^From Codex session / }).waitFor();
    await inbox(page).getByRole('region', { name: /^From Claude Code session / }).waitFor();
    const pnpm = proposal(page, 'Convention: We use pnpm here, not npm.');
    await pnpm.getByText('/memories/project/conventions.md').waitFor();
    await pnpm.getByRole('group', { name: 'Evidence' }).getByText('You said').waitFor();
    await shotLightAndDark(page, 'inbox-list');

    await pnpm.getByRole('button', { name: 'Approve' }).click();
    const status = inbox(page).getByRole('status');
    await status.getByText('Added to /memories/project/conventions.md (a new file).').waitFor();
    await pnpm.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Inbox, 3 to review' }).waitFor();
    await page.getByRole('treeitem', { name: '/memories/project/conventions.md', exact: true }).waitFor();
    await status.getByRole('button', { name: 'Undo' }).waitFor();
    await shot(page, 'inbox-approved');
    expect(await onDisk('conventions.md')).toContain('- We use pnpm here, not npm.\n');

    await status.getByRole('button', { name: 'Open conventions.md' }).click();
    await editorOf(page, '/memories/project/conventions.md').getByText('- We use pnpm here, not npm.').waitFor();
    await page.close();
  });

  it('edits a proposal, sends it to another file, then approves it', async () => {
    const page = await openInbox();
    const lint = proposal(page, "Convention: Always run pnpm lint before you say you're done.");
    await lint.getByRole('button', { name: 'Edit' }).click();
    const text = lint.getByRole('textbox', { name: 'Text to add' });
    await expect(text.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await text.fill('Run pnpm lint before saying a change is done.');
    const to = lint.getByRole('combobox', { name: 'Add to file' });
    await to.fill('/memories/project/workflow.md');
    await shotLightAndDark(page, 'inbox-edit');
    await lint.getByRole('button', { name: 'Approve' }).click();
    await inbox(page).getByRole('status').getByText('Added to /memories/project/workflow.md (a new file).').waitFor();
    await lint.waitFor({ state: 'detached' });
    expect(await onDisk('workflow.md')).toContain('- Run pnpm lint before saying a change is done.\n');
    await expect(fs.access(path.join(sb.roots.project, 'conventions.md'))).resolves.toBeUndefined();
    expect(await onDisk('conventions.md')).not.toContain('lint');
    await page.close();
  });

  it('rejects one from the keyboard, then all from a session after confirming, down to the empty state', async () => {
    // Another Claude Code session, harvested now: its proposals arrive when the Inbox opens.
    await harvest(PLAIN);
    const page = await openInbox();
    const compaction = inbox(page).getByRole('region', { name: `From Claude Code session ${COMPACTION_SESSION}` });
    const plain = inbox(page).getByRole('region', { name: `From Claude Code session ${PLAIN_SESSION}` });
    await plain.waitFor();
    await expect(compaction.getByRole('listitem').count()).resolves.toBe(2);
    const fresh = await plain.getByRole('listitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!));
    expect(fresh.length).toBeGreaterThan(0);
    const total = 2 + fresh.length;
    await inbox(page).getByText(`${total} proposals to review. Nothing is added to memory until you approve it.`).waitFor();

    // The first proposal is the one tab stop; r rejects it, and the focus goes on to the next.
    const first = proposal(page, fresh[0]!);
    await first.focus();
    await page.keyboard.press('r');
    await inbox(page).getByRole('status').getByText(/^Rejected: .+ It will not be proposed again for 90 days\.$/).waitFor();
    await first.waitFor({ state: 'detached' });
    await shot(page, 'inbox-rejected');

    await compaction.getByRole('button', { name: 'Reject all from this session' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject all 2 from this session?' });
    await shot(page, 'inbox-reject-session');
    await dialog.getByRole('button', { name: 'Reject all 2' }).click();
    await inbox(page).getByRole('status').getByText(`Rejected 2 proposals from Claude Code session ${COMPACTION_SESSION}. They will not be proposed again for 90 days.`).waitFor();
    await compaction.waitFor({ state: 'detached' });
    // What is left goes the same way, from the keyboard.
    for (let left = fresh.length - 1; left > 0; left--) {
      await expect(inbox(page).getByRole('listitem').count()).resolves.toBe(left);
      await inbox(page).getByRole('listitem').first().focus();
      await page.keyboard.press('r');
      await expect.poll(() => inbox(page).getByRole('listitem').count()).toBe(left - 1);
    }
    await inbox(page).getByRole('heading', { name: 'Nothing to review' }).waitFor();
    await inbox(page).getByText('cairn harvest --transcript FILE').waitFor();
    await page.getByRole('button', { name: 'Inbox', exact: true }).waitFor();
    await shotLightAndDark(page, 'inbox-empty');
    const listed = JSON.parse((await runCairn(['inbox', 'list', '--all', '--json', '--home', sb.home])).stdout) as { items: Array<{ status: string }> };
    expect(listed.items.filter((i) => i.status === 'approved')).toHaveLength(2);
    expect(listed.items.filter((i) => i.status === 'rejected')).toHaveLength(total);
    await page.close();
  });

  it("shows what a long session's run held back only when asked, and approves one of them", async () => {
    // What a run keeps past the ten it proposes, as the harvest writes it (InboxStore.hold).
    const fact = (n: number, confidence: number) => ({
      category: 'fact' as const,
      text: `The service-${n} API listens on port ${8000 + n}.`,
      scope: 'project' as const,
      evidence: [{ messageId: `m${n}`, quote: `Remember that the service-${n} API listens on port ${8000 + n}.`, speaker: 'person' as const, at: null }],
      confidence,
      rationale: 'The person stated it outright.',
    });
    new InboxStore(sb.home).hold([fact(1, 0.64), fact(2, 0.62)], { agent: 'claude', sessionId: 'long-session-0001', cwd: sb.checkout, workspaceId: null, projectId: null, extractor: 'command' });
    const page = await openInbox();
    const held = inbox(page).getByRole('region', { name: 'Held back' });
    await held.getByText('2 more were held back (less confident than those proposed).').waitFor();
    await inbox(page).getByRole('heading', { name: 'Nothing to review' }).waitFor({ state: 'detached' });
    await held.getByRole('button', { name: 'Show 2' }).click();
    await proposal(page, 'Fact: The service-1 API listens on port 8001.').waitFor();
    await shotLightAndDark(page, 'inbox-held-back');
    await proposal(page, 'Fact: The service-1 API listens on port 8001.').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => onDisk('facts.md').catch(() => '')).toContain('- The service-1 API listens on port 8001.');
    await held.getByText('1 more was held back (less confident than those proposed).').waitFor();
    await page.close();
  });
});
