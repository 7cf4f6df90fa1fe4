// @vitest-environment happy-dom
// The harvest's status line. First each state as the view draws it, at a fixed clock in
// a fixed zone (Asia/Kolkata, +05:30, so that a local time cannot pass for UTC): off, waiting,
// harvesting chunk 2 of 4, the last run with what was skipped and why, failed with its retry time,
// failed waiting for Retry; the buttons' states. Then live in the memory pane against the real
// backend: Harvest now with a harvest command that exits 3 (a real child process) shows the failure
// and Retry; fixed, Retry shows the run and the Inbox's count goes up, without a reload.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { HarvestStatus } from '../../../common/api/contract';
import { REPO_ROOT } from '../../../../tests/support/sandbox';
import { makeBackend, renderPane } from '../../../../tests/support/ui-backend';
import { HarvestStatusView, localClock, type HarvestStatusViewProps } from './HarvestStatusLine';

afterEach(cleanup);

const NOW = Date.parse('2026-11-25T14:00:00.000Z');
const clock = localClock(NOW, { locale: 'en-GB', timeZone: 'Asia/Kolkata' });
const base: HarvestStatus = { workspaceId: 'ws', enabled: true, state: 'idle', queued: 0, current: null, lastRun: null, lastProposing: null, failure: null };
const SESSION = 'c0ffee00-0000-4000-8000-000000000001';

function draw(status: HarvestStatus | null, props: Partial<HarvestStatusViewProps> = {}) {
  const calls: string[] = [];
  render(
    <HarvestStatusView
      status={status}
      connection="live"
      error={null}
      now={NOW}
      clock={clock}
      asking={null}
      answer={null}
      onHarvestNow={() => calls.push('now')}
      onRetry={() => calls.push('retry')}
      {...props}
    />,
  );
  const line = screen.getByRole('group', { name: 'Harvest status' });
  // Each line's words (a button on the line is asked for by its role).
  const lines = () => [...line.querySelectorAll('p')].map((p) => [...p.childNodes].filter((n) => n.nodeName !== 'BUTTON').map((n) => n.textContent).join('').trim());
  return { line, lines, calls, harvestNow: within(line).getByRole('button', { name: 'Harvest now' }) as HTMLButtonElement };
}

describe('the harvest status line, state by state', () => {
  it('off: says so, and Harvest now is still there (a person may ask for one run)', async () => {
    const { lines, harvestNow, calls } = draw({ ...base, enabled: false, state: 'off' });
    expect(lines()).toEqual(['Harvest is off for this workspace.']);
    expect(harvestNow.disabled).toBe(false);
    await userEvent.setup().click(harvestNow);
    expect(calls).toEqual(['now']);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('waiting: how many sessions are queued', () => {
    expect(draw({ ...base, state: 'waiting', queued: 2 }).lines()).toEqual(['Waiting: 2 sessions queued.']);
  });

  it('harvesting: the agent, the session and the chunk; Harvest now waits until it is done', () => {
    const { lines, harvestNow } = draw({ ...base, state: 'harvesting', queued: 1, current: { agent: 'claude', sessionId: SESSION, chunk: 2, chunks: 4 } });
    expect(lines()).toEqual(['Harvesting Claude Code session c0ffee00, chunk 2 of 4.']);
    expect(harvestNow.disabled).toBe(true);
  });

  it('the last run: how many were proposed, how many skipped and why', () => {
    const lastRun = { at: new Date(NOW - 3 * 60 * 60_000).toISOString(), agent: 'codex' as const, sessionId: SESSION, outcome: 'succeeded' as const, proposed: 3, skipped: { 'no-evidence': 2, 'already-in-memory': 3 } };
    expect(draw({ ...base, lastRun }).lines()).toEqual(['Harvest is on: sessions are read when they end or compact.', 'Last run 3 h ago: 3 proposed, 5 skipped (2 no evidence, 3 already in memory).']);
  });

  it('failed: the reason, the retry time in local time, and Retry', async () => {
    const failure = { message: 'The harvest command failed with exit status 3.', attempts: 1, retryAt: '2026-11-25T14:01:00.000Z' };
    const { line, lines, calls } = draw({ ...base, state: 'failed', failure });
    expect(lines()).toEqual(['The last harvest failed.', 'Failed (once): The harvest command failed with exit status 3. Retrying at 19:31.']);
    await userEvent.setup().click(within(line).getByRole('button', { name: 'Retry' }));
    expect(calls).toEqual(['retry']);
  });

  it('failed for good: waits for Retry; a retry on another day says the day', () => {
    const { line, lines } = draw({ ...base, state: 'failed', failure: { message: 'the worker stopped while harvesting this session, each time', attempts: 5, retryAt: null } });
    expect(within(line).getByRole('button', { name: 'Retry' })).toBeTruthy();
    expect(lines()[1]).toBe('Failed (5 times): the worker stopped while harvesting this session, each time. Retry when it is fixed.');
    cleanup();
    // 20:00 UTC is 01:30 the next morning in Kolkata.
    expect(draw({ ...base, state: 'failed', failure: { message: 'm', attempts: 4, retryAt: '2026-11-25T20:00:00.000Z' } }).lines()[1]).toBe('Failed (4 times): m. Retrying at Thu 01:30.');
  });

  it('while a request is on its way both buttons wait; the answer is shown; a lost stream says so', () => {
    const failed = { ...base, state: 'failed' as const, failure: { message: 'm', attempts: 1, retryAt: null } };
    const { line, harvestNow } = draw(failed, { asking: 'retry', answer: { tone: 'ok', text: 'Retrying 1 session now.' } });
    expect(harvestNow.disabled).toBe(true);
    expect((within(line).getByRole('button', { name: 'Retry' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(line).getByText('Retrying 1 session now.')).toBeTruthy();
    cleanup();
    expect(draw(null, { connection: 'lost', error: 'This host runs no harvest.' }).lines()).toEqual(['The harvest\u2019s status is not available: This host runs no harvest.']);
  });
});

describe('the harvest status line, live', () => {
  it('Harvest now with a failing command shows the failure and Retry; fixed, Retry shows the run and the count goes up', async () => {
    const b = await makeBackend();
    // Where the served process finds Claude Code's transcripts (and no Codex sessions): this test's own folders.
    const claudeDir = path.join(b.sb.dir, 'claude-config');
    const project = path.join(claudeDir, 'projects', b.sb.checkout.replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(project, { recursive: true });
    const fixture = await fs.readFile(path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'claude', 'compaction-resume.jsonl'), 'utf8');
    await fs.writeFile(path.join(project, `${SESSION}.jsonl`), fixture.replaceAll('/home/dev/projects/widgets', b.sb.checkout));
    const env = { CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR, CODEX_HOME: process.env.CODEX_HOME };
    process.env.CLAUDE_CONFIG_DIR = claudeDir;
    process.env.CODEX_HOME = path.join(b.sb.dir, 'codex-home');
    try {
      await b.client.settings.set({ harvestExtractor: 'command', harvestCommand: `${JSON.stringify(process.execPath)} -e "process.stderr.write('the model is overloaded, try again later'); process.exit(3)"` });
      const user = userEvent.setup();
      await renderPane(b);
      await user.click(await screen.findByRole('button', { name: /^Inbox/ }));
      const line = await screen.findByRole('group', { name: 'Harvest status' });
      await within(line).findByText('Harvest is off for this workspace.');

      await user.click(within(line).getByRole('button', { name: 'Harvest now' }));
      const failure = await within(line).findByText(/^Failed \(once\): /);
      const status = await b.client.harvest.status({ workspaceId: b.workspaceId });
      // The reader's clock, not UTC (the CLI's).
      expect(failure.textContent).toBe(`Failed (once): The harvest command failed with exit status 3. Its stderr began: the model is overloaded, try again later. Retrying at ${localClock(Date.now())(status.failure!.retryAt!)}.`);
      expect(within(line).getByText('The last harvest failed.')).toBeTruthy();
      // The run Harvest now started has ended: its answer ("Queued 1 session for harvest; ...") is not said any more,
      // nor the failed run twice (the failure's line says it).
      expect(within(line).queryByText(/^Queued 1 session/)).toBeNull();
      expect(within(line).queryByText(/^Last run/)).toBeNull();
      expect(screen.getByRole('button', { name: 'Inbox' })).toBeTruthy();

      await b.client.settings.set({ harvestExtractor: 'rules' });
      await user.click(within(line).getByRole('button', { name: 'Retry' }));
      await within(line).findByText(/^Last run (just now|\d+ min ago): 2 proposed/);
      expect(within(line).queryByText(/^Failed/)).toBeNull();
      expect(within(line).queryByRole('button', { name: 'Retry' })).toBeNull();
      await screen.findByRole('button', { name: 'Inbox, 2 to review' });
      await within(screen.getByRole('region', { name: 'Inbox' })).findByRole('region', { name: 'From Claude Code session c0ffee00' });
    } finally {
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
