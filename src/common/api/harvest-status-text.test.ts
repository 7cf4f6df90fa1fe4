// The harvest's status in words, as `cairn harvest --status` prints it and the app's
// status line shows it: each state, the last run with what was skipped and why, a failure with its
// retry time (UTC for the CLI, the reader's clock in the app) or waiting for Retry. A fixed clock.
import { describe, expect, it } from 'vitest';
import type { HarvestStatus } from './contract';
import { AGENT_NAMES, harvestFailureText, harvestHeadline, harvestLastRunText, harvestStatusText, shortSession } from './harvest-status-text';

const NOW = Date.parse('2026-11-25T14:00:00.000Z');
const base: HarvestStatus = { workspaceId: 'ws', enabled: true, state: 'idle', queued: 0, current: null, lastRun: null, lastProposing: null, failure: null };

describe('the harvest status in words', () => {
  it('says each state', () => {
    expect(harvestHeadline({ ...base, enabled: false, state: 'off' })).toBe('Harvest is off for this workspace.');
    expect(harvestHeadline(base)).toBe('Harvest is on: sessions are read when they end or compact.');
    expect(harvestHeadline({ ...base, state: 'waiting', queued: 1 })).toBe('Waiting: 1 session queued.');
    expect(harvestHeadline({ ...base, state: 'waiting', queued: 3 })).toBe('Waiting: 3 sessions queued.');
    const current = { agent: 'claude' as const, sessionId: 'c0ffee00-0000-4000-8000-000000000001', chunk: 2, chunks: 4 };
    expect(harvestHeadline({ ...base, state: 'harvesting', queued: 1, current })).toBe('Harvesting Claude Code session c0ffee00, chunk 2 of 4.');
    expect(harvestHeadline({ ...base, state: 'harvesting', queued: 1, current: { ...current, agent: 'codex', chunk: 1, chunks: 1 } })).toBe('Harvesting Codex session c0ffee00.');
    expect(harvestHeadline({ ...base, state: 'failed' })).toBe('The last harvest failed.');
  });

  it('says the last run, with every reason something was skipped', () => {
    const run = { at: new Date(NOW - 5 * 60_000).toISOString(), agent: 'codex' as const, sessionId: 's', outcome: 'succeeded' as const, proposed: 3, skipped: { 'no-evidence': 2, 'already-in-memory': 3, 'low-confidence': 0 } };
    expect(harvestLastRunText(base, NOW)).toBeNull();
    expect(harvestLastRunText({ ...base, lastRun: run }, NOW)).toBe('Last run 5 min ago: 3 proposed, 5 skipped (2 no evidence, 3 already in memory).');
    expect(harvestLastRunText({ ...base, lastRun: { ...run, outcome: 'nothing-found', proposed: 0, skipped: {} } }, NOW)).toBe('Last run 5 min ago: nothing to propose.');
    // A run that found nothing does not hide the last one that proposed something.
    const earlier = { ...run, at: new Date(NOW - 3 * 60 * 60_000).toISOString() };
    expect(harvestLastRunText({ ...base, lastRun: { ...run, outcome: 'nothing-found', proposed: 0, skipped: {} }, lastProposing: earlier }, NOW)).toBe(
      'Last run 5 min ago: nothing to propose. The last run that proposed something, 3 h ago: 3 proposed.',
    );
    expect(harvestLastRunText({ ...base, lastRun: { ...run, at: new Date(NOW - 20_000).toISOString(), outcome: 'failed' } }, NOW)).toBe('Last run just now: failed.');
  });

  it("says what a long session's run held back and that it stopped at its budget, with what waits", () => {
    const run = { at: new Date(NOW - 5 * 60_000).toISOString(), agent: 'claude' as const, sessionId: 's', outcome: 'succeeded' as const, proposed: 10, skipped: {} };
    const cost = { calls: 20, chars: 1_200_000, inputTokens: null, outputTokens: null };
    expect(harvestLastRunText({ ...base, lastRun: { ...run, heldBack: 4, stopped: { chunksLeft: 29, budget: { calls: 20, chars: 1_500_000 } }, cost } }, NOW)).toBe(
      "Last run 5 min ago: 10 proposed. 4 more were held back (less confident than those proposed). Stopped at the run's budget (20 calls, 1,500,000 characters): 29 chunks of the session wait for the next harvest. Sent to the model: 20 calls, 1,200,000 characters.",
    );
    expect(harvestLastRunText({ ...base, lastRun: { ...run, heldBack: 1, stopped: { chunksLeft: 1, budget: { calls: 1, chars: 60_000 } } } }, NOW)).toBe(
      "Last run 5 min ago: 10 proposed. 1 more was held back (less confident than those proposed). Stopped at the run's budget (1 call, 60,000 characters): 1 chunk of the session waits for the next harvest.",
    );
  });

  it('says a failure, its retry time in UTC by default or in the clock given, and never doubles its full stop', () => {
    const failure = { message: 'The harvest command failed with exit status 3.', attempts: 1, retryAt: '2026-11-25T14:01:00.000Z' };
    expect(harvestFailureText(base)).toBeNull();
    expect(harvestFailureText({ ...base, state: 'failed', failure })).toBe('Failed (once): The harvest command failed with exit status 3. Retrying at 14:01 UTC.');
    expect(harvestFailureText({ ...base, state: 'failed', failure }, (iso) => `[${iso.slice(11, 16)} here]`)).toBe('Failed (once): The harvest command failed with exit status 3. Retrying at [14:01 here].');
    expect(harvestFailureText({ ...base, state: 'failed', failure: { message: 'the worker stopped', attempts: 5, retryAt: null } })).toBe('Failed (5 times): the worker stopped. Retry when it is fixed.');
    expect(harvestStatusText({ ...base, state: 'failed', failure }, NOW).split('\n')).toEqual(['The last harvest failed.', 'Failed (once): The harvest command failed with exit status 3. Retrying at 14:01 UTC.']);
  });

  it('names the agents and shortens session ids the one way', () => {
    expect(AGENT_NAMES).toEqual({ claude: 'Claude Code', codex: 'Codex', copilot: 'Copilot CLI', gemini: 'Gemini CLI' });
    expect(shortSession('0199d5e2-7a41-7c30')).toBe('0199d5e2');
    expect(shortSession('short')).toBe('short');
  });
});
