/**
 * The harvest's status line of one workspace, in the Inbox's header: the state now (off,
 * on, waiting, harvesting session X chunk 2 of 4, failed), the last run (N proposed, M skipped and
 * why), a failure with its reason and when it is tried again, with Retry, and Harvest now. Live: it
 * follows the server's status stream (use-harvest-status.ts). The sentences are the CLI's own
 * (common/api/harvest-status-text.ts); only clock times are written in the reader's local time.
 *
 * HarvestStatusView draws one status at a given `now` (tests give it each state and a fixed clock);
 * HarvestStatusLine feeds it the live status and the time, and sends Harvest now and Retry.
 */
import { AlertTriangle, CircleCheck, CirclePause, Clock, Loader2, RotateCw, Sparkles } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { HarvestStatus } from '../../../common/api/contract';
import { harvestFailureText, harvestHeadline, harvestLastRunText, type TimeFormatter } from '../../../common/api/harvest-status-text';
import { errorMessage, useApi } from '../../api/api-context';
import type { LiveState } from './live-stream';
import { useHarvestStatus } from './use-harvest-status';

/** How often "5 min ago" is written again. */
const NOW_TICK_MS = 30_000;

/**
 * A clock time in the reader's zone: "14:05" (or "2:05 PM", as their locale writes it) today, with
 * the weekday on another day, since a retry after the longest backoff can fall tomorrow.
 */
export function localClock(now: number, zone: { locale?: string; timeZone?: string } = {}): TimeFormatter {
  const options = { timeZone: zone.timeZone } as const;
  const day = new Intl.DateTimeFormat(zone.locale, { ...options, year: 'numeric', month: 'numeric', day: 'numeric' });
  const time = new Intl.DateTimeFormat(zone.locale, { ...options, hour: 'numeric', minute: '2-digit' });
  const dated = new Intl.DateTimeFormat(zone.locale, { ...options, weekday: 'short', hour: 'numeric', minute: '2-digit' });
  return (iso) => {
    const t = Date.parse(iso);
    if (Number.isNaN(t)) return iso;
    return day.format(t) === day.format(now) ? time.format(t) : dated.format(t);
  };
}

/** The answer to the person's last Harvest now or Retry. */
export interface HarvestAnswer {
  readonly tone: 'ok' | 'error';
  readonly text: string;
}

/** What a run changes when it ends: the last run, or the failure. */
function outcomeOf(status: HarvestStatus | null): string {
  return JSON.stringify([status?.lastRun?.at ?? null, status?.failure?.attempts ?? null, status?.failure?.retryAt ?? null]);
}

export interface HarvestStatusViewProps {
  readonly status: HarvestStatus | null;
  readonly connection: LiveState;
  readonly error: string | null;
  readonly now: number;
  readonly clock: TimeFormatter;
  /** Which request is on its way, if any. */
  readonly asking: 'now' | 'retry' | null;
  readonly answer: HarvestAnswer | null;
  readonly onHarvestNow: () => void;
  readonly onRetry: () => void;
}

const STATE_ICONS: Record<HarvestStatus['state'], React.ReactNode> = {
  off: <CirclePause size={14} aria-hidden />,
  idle: <CircleCheck size={14} aria-hidden />,
  waiting: <Clock size={14} aria-hidden />,
  harvesting: <Loader2 size={14} className="spin" aria-hidden />,
  failed: <AlertTriangle size={14} aria-hidden />,
};

export function HarvestStatusView({ status, connection, error, now, clock, asking, answer, onHarvestNow, onRetry }: HarvestStatusViewProps) {
  // A failed last run is said by the failure's own line, with its reason.
  const lastRun = status && !(status.failure && status.lastRun?.outcome === 'failed') ? harvestLastRunText(status, now) : null;
  const failure = status && harvestFailureText(status, clock);
  const harvesting = status?.state === 'harvesting';
  return (
    <div className="harvest-status" role="group" aria-label="Harvest status">
      <div className="hs-top">
        {status ? (
          <p className={`hs-head hs-${status.state}`} aria-live="polite">
            {STATE_ICONS[status.state]}
            <span>{harvestHeadline(status)}</span>
          </p>
        ) : (
          <p className="hs-head muted" aria-live="polite">
            {connection === 'lost' ? `The harvest\u2019s status is not available${error ? `: ${error}` : '.'}` : 'Asking for the harvest\u2019s status\u2026'}
          </p>
        )}
        <button
          type="button"
          className="btn small"
          onClick={onHarvestNow}
          disabled={asking !== null || harvesting || status === null}
          title="Read this workspace's Claude Code and Codex sessions on this machine now; what they propose arrives here"
        >
          {asking === 'now' ? <Loader2 size={13} className="spin" aria-hidden /> : <Sparkles size={13} aria-hidden />} Harvest now
        </button>
      </div>
      <div className="hs-lines" aria-live="polite">
        {answer && <p className={answer.tone === 'error' ? 'hs-answer error-text' : 'hs-answer'}>{answer.text}</p>}
        {lastRun && <p className="hs-last">{lastRun}</p>}
        {failure && (
          <p className="hs-failure">
            <span>{failure}</span>
            <button type="button" className="btn small" onClick={onRetry} disabled={asking !== null} title="Harvest the failed sessions again now">
              {asking === 'retry' ? <Loader2 size={13} className="spin" aria-hidden /> : <RotateCw size={13} aria-hidden />} Retry
            </button>
          </p>
        )}
        {status && connection === 'lost' && <p className="hs-last">Not live: reconnecting{error ? ` (${error})` : ''}.</p>}
      </div>
    </div>
  );
}

/** Draws the calling component again every `tickMs` (so that "5 min ago" moves on). */
function useTick(tickMs: number): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
}

export function HarvestStatusLine({ workspaceId }: { workspaceId: string }) {
  const { client } = useApi();
  const live = useHarvestStatus(workspaceId);
  useTick(NOW_TICK_MS);
  const now = Date.now();
  const [asking, setAsking] = useState<'now' | 'retry' | null>(null);
  // With the outcome the status had when it was asked: "Queued 1 session ..." is said until that
  // run has ended (its last run or failure shows then); what went wrong stays until the next request.
  const [answer, setAnswer] = useState<(HarvestAnswer & { before: string }) | null>(null);
  const shown = answer && (answer.tone === 'error' || outcomeOf(live.status) === answer.before) ? answer : null;

  useEffect(() => setAnswer(null), [workspaceId]);

  const ask = async (what: 'now' | 'retry') => {
    const before = outcomeOf(live.status);
    setAsking(what);
    setAnswer(null);
    try {
      const result = what === 'now' ? await client.harvest.now({ workspaceId }) : await client.harvest.retry({ workspaceId });
      setAnswer({ tone: result.status === 'ok' ? 'ok' : 'error', text: result.message, before });
    } catch (err) {
      setAnswer({ tone: 'error', text: `${what === 'now' ? 'Harvest now' : 'Retry'} failed: ${errorMessage(err)}`, before });
    } finally {
      setAsking(null);
    }
  };

  return (
    <HarvestStatusView
      status={live.status}
      connection={live.connection}
      error={live.error}
      now={now}
      clock={localClock(now)}
      asking={asking}
      answer={shown}
      onHarvestNow={() => void ask('now')}
      onRetry={() => void ask('retry')}
    />
  );
}
