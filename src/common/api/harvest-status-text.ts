/**
 * A workspace's harvest status in words: what the app's status line and
 * `cairn harvest --status` say, from one HarvestStatus, and the agents' names and short session ids
 * every view of the harvest and the inbox uses. Pure; times are relative to `now`.
 *
 * Invariant: one sentence per fact, the same in the CLI and the app; only how a clock time is
 * written differs (the CLI says UTC, the app gives its reader's local time: `TimeFormatter`).
 */
import type { HarvestStatus } from './contract';

export type HarvestAgent = 'claude' | 'codex' | 'copilot' | 'gemini';

/** The agents' names as people know them. */
export const AGENT_NAMES: Readonly<Record<HarvestAgent, string>> = { claude: 'Claude Code', codex: 'Codex', copilot: 'Copilot CLI', gemini: 'Gemini CLI' };

/** A short session id, as a person can match it with the agent's own. */
export function shortSession(sessionId: string): string {
  return sessionId.length > 8 ? sessionId.slice(0, 8) : sessionId;
}

/** Writes an ISO time as a clock time for the reader, e.g. "14:05 UTC" or, in the app, "14:05". */
export type TimeFormatter = (iso: string) => string;

/** The CLI's clock: UTC, since a terminal's reader may be anywhere and the log lines say UTC too. */
const utcClock: TimeFormatter = (iso) => `${new Date(iso).toISOString().slice(11, 16)} UTC`;

function ago(at: string, now: number): string {
  const minutes = Math.round((now - Date.parse(at)) / 60_000);
  if (!Number.isFinite(minutes)) return '';
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** A message as the start of a sentence that the caller ends: without its own final full stop. */
function clause(message: string): string {
  return message.trim().replace(/\.+$/, '');
}

/** The state now: off, on and idle, waiting, harvesting (session, chunk), failed. */
export function harvestHeadline(status: HarvestStatus): string {
  const queued = status.queued === 1 ? '1 session' : `${status.queued} sessions`;
  switch (status.state) {
    case 'off':
      return 'Harvest is off for this workspace.';
    case 'idle':
      return 'Harvest is on: sessions are read when they end or compact.';
    case 'waiting':
      return `Waiting: ${queued} queued.`;
    case 'harvesting': {
      const c = status.current;
      if (!c) return `Harvesting (${queued} queued).`;
      const chunk = c.chunks > 1 ? `, chunk ${c.chunk} of ${c.chunks}` : '';
      return `Harvesting ${AGENT_NAMES[c.agent]} session ${shortSession(c.sessionId)}${chunk}.`;
    }
    case 'failed':
      return 'The last harvest failed.';
  }
}

/** The last run's outcome, with what was skipped and why; null before any run. */
export function harvestLastRunText(status: HarvestStatus, now: number): string | null {
  const run = status.lastRun;
  if (!run) return null;
  const when = ago(run.at, now);
  if (run.outcome === 'failed') return `Last run ${when}: failed.`;
  const skipped = Object.entries(run.skipped).filter(([, n]) => n > 0);
  const total = skipped.reduce((sum, [, n]) => sum + n, 0);
  const why = skipped.length ? `, ${total} skipped (${skipped.map(([reason, n]) => `${n} ${reason.replace(/-/g, ' ')}`).join(', ')})` : '';
  const proposed = run.outcome === 'nothing-found' && total === 0 ? 'nothing to propose' : `${run.proposed} proposed`;
  const sent = run.cost && run.cost.calls > 0 ? ` ${costText(run.cost)}` : '';
  const held = run.heldBack ? ` ${heldBackText(run.heldBack)}` : '';
  const stopped = run.stopped ? ` ${budgetStopText(run.stopped)}` : '';
  const earlier = status.lastProposing;
  const kept = run.proposed === 0 && earlier && earlier.at !== run.at ? ` The last run that proposed something, ${ago(earlier.at, now)}: ${earlier.proposed} proposed.` : '';
  return `Last run ${when}: ${proposed}${why}.${held}${stopped}${sent}${kept}`;
}

/**
 * A failure's reason and when it is tried again (or that it waits for Retry); null when none. The
 * reason is the extractor's own sentence, which may end in a full stop: it is not doubled.
 */
export function harvestFailureText(status: HarvestStatus, clock: TimeFormatter = utcClock): string | null {
  const f = status.failure;
  if (!f) return null;
  const tries = f.attempts === 1 ? 'once' : `${f.attempts} times`;
  return f.retryAt ? `Failed (${tries}): ${clause(f.message)}. Retrying at ${clock(f.retryAt)}.` : `Failed (${tries}): ${clause(f.message)}. Retry when it is fixed.`;
}

/** Every line of the status, as the CLI prints it. */
export function harvestStatusText(status: HarvestStatus, now: number, clock: TimeFormatter = utcClock): string {
  return [harvestHeadline(status), harvestLastRunText(status, now), harvestFailureText(status, clock)].filter((l): l is string => l !== null).join('\n');
}

/** "Sent to the model: 3 calls, 41,200 characters (10,250 tokens in, 812 out)." */
export function costText(cost: { readonly calls: number; readonly chars: number; readonly inputTokens: number | null; readonly outputTokens: number | null }): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const tokens = cost.inputTokens !== null && cost.outputTokens !== null ? ` (${n(cost.inputTokens)} tokens in, ${n(cost.outputTokens)} out)` : '';
  return `Sent to the model: ${cost.calls === 1 ? '1 call' : `${n(cost.calls)} calls`}, ${n(cost.chars)} characters${tokens}.`;
}

/** "Stopped at the run's budget (20 calls, 1,500,000 characters): 29 chunks of the session wait for the next harvest." */
export function budgetStopText(stop: { readonly chunksLeft: number; readonly budget: { readonly calls: number; readonly chars: number } }): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const left = stop.chunksLeft === 1 ? '1 chunk of the session waits' : `${n(stop.chunksLeft)} chunks of the session wait`;
  return `Stopped at the run's budget (${stop.budget.calls === 1 ? '1 call' : `${n(stop.budget.calls)} calls`}, ${n(stop.budget.chars)} characters): ${left} for the next harvest.`;
}

/**
 * Candidates a long session's run found past the most it proposes: "3 more were held back (less
 * confident than those proposed)." The caller says where to see them.
 */
export function heldBackText(count: number): string {
  return `${count === 1 ? '1 more was' : `${count} more were`} held back (less confident than those proposed).`;
}
