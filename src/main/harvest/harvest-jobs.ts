/**
 * The harvest's jobs: sessions queued for a harvest, and the one worker that runs them.
 *
 * Under `<home>/harvest/`:
 *   jobs/<digest of the transcript's path>.json  one per queued session (queued, running, failed),
 *                                                written whole (runtime/local/atomic-write.ts, 0600)
 *   worker.lock                                  the worker's lease (runtime/local/file-lock.ts: one
 *                                                not refreshed for LEASE_STALE_MS is taken over)
 *   status/<workspace id>.json                   the last run's outcome, per workspace
 *
 * Invariants: at most one worker runs jobs at a time, across processes (the hook's detached
 * worker, the app, `cairn serve`); a job found `running` by a new lease holder was left by a worker
 * that died, and is run again at once (its attempt counted, so a session that kills the worker
 * every time stops after MAX_ATTEMPTS); a session queued again while it runs is kept queued once the run ends, so
 * no trigger is lost; a running job names its worker's pid, so a status never shows a dead worker
 * as harvesting; a failed job is retried with backoff, then waits for a person's Retry. A job
 * or status file that does not parse is set aside as `<name>.damaged-<time>` and reported on stderr
 * (the job is gone: the session's next hook queues it again).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HarvestStatus } from '../../common/api/contract';
import { CairnError } from '../../common/errors';
import { readOwnFileParsed, writeOwnFileSync } from '../runtime/local/atomic-write';
import { namesIn } from '../runtime/local/containment';
import { takeLease } from '../runtime/local/file-lock';
import { processRuns } from '../runtime/local/process-alive';
import type { BudgetStop, ModelCost } from './harvest-run';
import type { TranscriptAgent } from './transcript';

/** The harvest's state under `<home>`: jobs, the worker's lease, statuses, each session's last message. */
export const HARVEST_DIR = 'harvest';
/** The folders under HARVEST_DIR of the harvest's own files: sessions' progress, jobs, last runs. */
export const HARVEST_SESSIONS_DIR = 'sessions';
const HARVEST_JOBS_DIR = 'jobs';
const HARVEST_STATUS_DIR = 'status';
export const HARVEST_FILE_DIRS = [HARVEST_SESSIONS_DIR, HARVEST_JOBS_DIR, HARVEST_STATUS_DIR] as const;
/** Runs of one session before it waits for a person's Retry. */
export const MAX_ATTEMPTS = 5;
/** Wait before the next attempt, after the 1st, 2nd, ... failure. */
export const RETRY_BACKOFF_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];

export interface HarvestJob {
  readonly id: string;
  /** The transcript's absolute path on this machine. */
  readonly transcript: string;
  /** The session's working directory (the workspace comes from it), when the trigger knew it. */
  readonly cwd: string | null;
  readonly workspaceId: string;
  readonly state: 'queued' | 'running' | 'failed';
  /** When a trigger last asked for it (a run that started before this leaves it queued). */
  readonly queuedAt: string;
  readonly attempts: number;
  /** A failed job's next try; null once it waits for a person. */
  readonly retryAt: string | null;
  readonly error: string | null;
  /** While running: the session, and the chunk being extracted. */
  readonly agent?: TranscriptAgent | null;
  readonly sessionId?: string | null;
  readonly chunk?: { readonly index: number; readonly count: number } | null;
  /** While running: the worker's pid, so a status tells a worker that died from one at work. */
  readonly workerPid?: number;
}

export type JobOutcome =
  | { readonly outcome: 'succeeded' | 'nothing-found'; readonly agent: TranscriptAgent; readonly sessionId: string; readonly proposed: number; readonly skipped: Readonly<Record<string, number>>; readonly cost?: ModelCost; readonly heldBack?: number; readonly stopped?: BudgetStop }
  /** Another run holds the session (a `cairn harvest` in a terminal): try again shortly, not an attempt. */
  | { readonly outcome: 'busy' };

/** A workspace's last run, as its status line shows it. */
export interface LastRun {
  readonly at: string;
  readonly agent: TranscriptAgent;
  readonly sessionId: string;
  readonly outcome: 'succeeded' | 'nothing-found' | 'failed';
  readonly proposed: number;
  readonly skipped: Readonly<Record<string, number>>;
  /** What the run sent to a model. */
  readonly cost?: ModelCost;
  /** Candidates past the most a run proposes, kept in the inbox as held. */
  readonly heldBack?: number;
  /** The run stopped at its budget, with chunks of the session left. */
  readonly stopped?: BudgetStop;
}

/** What runs one job: reads its transcript, extracts, checks, fills the inbox. */
export type JobRunner = (job: HarvestJob, progress: JobProgress) => Promise<JobOutcome>;

interface JobProgress {
  /** The session the job turned out to be (known once its transcript is read). */
  session(agent: TranscriptAgent, sessionId: string): void;
  chunk(index: number, count: number): void;
}

function jobId(transcript: string): string {
  return createHash('sha256').update(transcript).digest('hex').slice(0, 24);
}

function writeWhole(file: string, value: unknown): void {
  writeOwnFileSync(file, `${JSON.stringify(value)}\n`);
}

const JOB_STATES: ReadonlyArray<HarvestJob['state']> = ['queued', 'running', 'failed'];

/** A job file's text as a job; throws, saying what is wrong, when it is not one. */
function parseJob(text: string): HarvestJob {
  const job = JSON.parse(text) as Partial<HarvestJob> | null;
  const ok =
    typeof job === 'object' && job !== null &&
    typeof job.id === 'string' && typeof job.transcript === 'string' && typeof job.workspaceId === 'string' &&
    JOB_STATES.includes(job.state as HarvestJob['state']) && typeof job.queuedAt === 'string' && typeof job.attempts === 'number';
  if (!ok) throw new Error('it is not a harvest job');
  return job as HarvestJob;
}

/** A status file's text; throws when it is not one. */
function parseStatus(text: string): { lastRun?: LastRun; lastProposing?: LastRun } {
  const status = JSON.parse(text) as { lastRun?: unknown; lastProposing?: unknown } | null;
  const run = (r: unknown) => r === undefined || (typeof r === 'object' && r !== null);
  if (typeof status !== 'object' || status === null || !run(status.lastRun) || !run(status.lastProposing)) throw new Error('it is not a harvest status');
  return status as { lastRun?: LastRun; lastProposing?: LastRun };
}

export class HarvestJobs {
  readonly dir: string;
  private readonly jobsDir: string;
  private readonly statusDir: string;
  private readonly leaseFile: string;

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(home, HARVEST_DIR);
    this.jobsDir = path.join(this.dir, HARVEST_JOBS_DIR);
    this.statusDir = path.join(this.dir, HARVEST_STATUS_DIR);
    this.leaseFile = path.join(this.dir, 'worker');
  }

  /** Queues a session's transcript (again: a failed one is retried now, a running one once more after). */
  enqueue(request: { transcript: string; cwd: string | null; workspaceId: string }): HarvestJob {
    const id = jobId(request.transcript);
    const existing = this.get(id);
    const job: HarvestJob = {
      id,
      transcript: request.transcript,
      cwd: request.cwd,
      workspaceId: request.workspaceId,
      state: existing?.state === 'running' ? 'running' : 'queued',
      queuedAt: new Date(this.now()).toISOString(),
      attempts: existing?.state === 'running' ? existing.attempts : 0,
      retryAt: null,
      error: null,
      ...(existing?.state === 'running' ? { agent: existing.agent ?? null, sessionId: existing.sessionId ?? null, chunk: existing.chunk ?? null } : {}),
    };
    writeWhole(this.jobFile(id), job);
    return job;
  }

  get(id: string): HarvestJob | null {
    return /^[0-9a-f]{24}$/.test(id) ? readOwnFileParsed(this.jobFile(id), parseJob) : null;
  }

  list(workspaceId?: string): HarvestJob[] {
    // None: nothing was ever queued. A folder that cannot be read is no empty queue: its jobs would
    // never run, and the status would say nothing waits.
    return namesIn(this.jobsDir, (code) => new CairnError(`Cairn cannot read its queue of harvests (${code}). Check the owner and permissions of the harvest folder in Cairn's home (it must be yours and readable by you).`))
      .filter((n) => /^[0-9a-f]{24}\.json$/.test(n))
      .map((n) => readOwnFileParsed(path.join(this.jobsDir, n), parseJob))
      .filter((j): j is HarvestJob => j !== null && (workspaceId === undefined || j.workspaceId === workspaceId))
      .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.id.localeCompare(b.id));
  }

  /** A person's Retry: the workspace's failed jobs are due now, with their attempts counted afresh. */
  retry(workspaceId: string): number {
    let n = 0;
    for (const job of this.list(workspaceId)) {
      if (job.state !== 'failed') continue;
      writeWhole(this.jobFile(job.id), { ...job, state: 'queued', attempts: 0, retryAt: null, error: null });
      n++;
    }
    return n;
  }

  lastRun(workspaceId: string): LastRun | null {
    return readOwnFileParsed(this.statusFile(workspaceId), parseStatus)?.lastRun ?? null;
  }

  /** The workspace's last run that proposed something (a later run that found nothing leaves it). */
  lastProposing(workspaceId: string): LastRun | null {
    const status = readOwnFileParsed(this.statusFile(workspaceId), parseStatus);
    return status?.lastProposing ?? (status?.lastRun && status.lastRun.proposed > 0 ? status.lastRun : null);
  }

  /** When the next failed job is due (for a host's timer), or null. */
  nextRetryAt(): number | null {
    const times = this.list()
      .filter((j) => j.state === 'failed' && j.retryAt !== null)
      .map((j) => Date.parse(j.retryAt!));
    return times.length ? Math.min(...times) : null;
  }

  /**
   * Runs every due job, one at a time, while holding the worker's lease. Answers 'busy' at once
   * when another worker holds it (it runs what is queued), else how many jobs were run.
   */
  async work(run: JobRunner): Promise<{ status: 'busy' } | { status: 'done'; ran: number }> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lease = await takeLease(this.leaseFile);
    if (!lease) return { status: 'busy' };
    let ran = 0;
    try {
      // Holding the lease, a job still marked running was left by a worker that died.
      for (const job of this.list()) {
        if (job.state !== 'running') continue;
        if (job.attempts >= MAX_ATTEMPTS) this.failed(job, 'the worker stopped while harvesting this session, each time');
        else writeWhole(this.jobFile(job.id), { ...job, state: 'queued', chunk: null, workerPid: undefined });
      }
      // Each job once per request: one queued again while it ran is run again, a failed one is not.
      const tried = new Set<string>();
      for (;;) {
        // The lease lost to a takeover (this process stalled past its stale time): the other
        // worker now owns the jobs; this one stops before its next job.
        if (lease.lost) break;
        const job = this.list().find((j) => !tried.has(`${j.id} ${j.queuedAt}`) && this.due(j));
        if (!job) break;
        tried.add(`${job.id} ${job.queuedAt}`);
        await this.runOne(job, run);
        ran++;
      }
    } finally {
      await lease.release();
    }
    return { status: 'done', ran };
  }

  private due(job: HarvestJob): boolean {
    if (job.state === 'queued') return true;
    return job.state === 'failed' && job.retryAt !== null && Date.parse(job.retryAt) <= this.now();
  }

  private async runOne(job: HarvestJob, run: JobRunner): Promise<void> {
    let current: HarvestJob = { ...job, state: 'running', attempts: job.attempts + 1, chunk: null, workerPid: process.pid };
    writeWhole(this.jobFile(job.id), current);
    const update = (patch: Partial<HarvestJob>): void => {
      current = { ...current, ...patch };
      writeWhole(this.jobFile(job.id), current);
    };
    const progress: JobProgress = {
      session: (agent, sessionId) => update({ agent, sessionId }),
      chunk: (index, count) => update({ chunk: { index, count } }),
    };
    let outcome: JobOutcome;
    try {
      outcome = await run(current, progress);
    } catch (err) {
      this.failed(current, (err as Error)?.message ?? String(err));
      return;
    }
    if (outcome.outcome === 'busy') {
      writeWhole(this.jobFile(job.id), { ...current, state: 'failed', attempts: job.attempts, chunk: null, retryAt: new Date(this.now() + RETRY_BACKOFF_MS[0]!).toISOString(), error: 'another harvest of this session was running' });
      return;
    }
    this.recordRun(job.workspaceId, { at: new Date(this.now()).toISOString(), agent: outcome.agent, sessionId: outcome.sessionId, outcome: outcome.outcome, proposed: outcome.proposed, skipped: outcome.skipped, ...(outcome.cost ? { cost: outcome.cost } : {}), ...(outcome.heldBack ? { heldBack: outcome.heldBack } : {}), ...(outcome.stopped ? { stopped: outcome.stopped } : {}) });
    const latest = this.get(job.id);
    if (latest && latest.queuedAt !== job.queuedAt) {
      // Queued again while it ran (a later hook): run once more, from where this run stopped.
      writeWhole(this.jobFile(job.id), { ...latest, state: 'queued', attempts: 0, retryAt: null, error: null, chunk: null });
    } else {
      fs.rmSync(this.jobFile(job.id), { force: true });
    }
  }

  private failed(job: HarvestJob, error: string): void {
    const attempts = Math.max(job.attempts, 1);
    const wait = attempts < MAX_ATTEMPTS ? RETRY_BACKOFF_MS[Math.min(attempts, RETRY_BACKOFF_MS.length) - 1]! : null;
    writeWhole(this.jobFile(job.id), { ...job, state: 'failed', attempts, chunk: null, error, retryAt: wait === null ? null : new Date(this.now() + wait).toISOString() });
    if (job.agent && job.sessionId) {
      this.recordRun(job.workspaceId, { at: new Date(this.now()).toISOString(), agent: job.agent, sessionId: job.sessionId, outcome: 'failed', proposed: 0, skipped: {} });
    }
  }

  /** Records a workspace's last run (the worker's, or a harvest run in a terminal). */
  recordRun(workspaceId: string, lastRun: LastRun): void {
    // A run that proposed nothing does not hide the last one that did: both are kept.
    const lastProposing = lastRun.proposed > 0 ? lastRun : this.lastProposing(workspaceId);
    writeWhole(this.statusFile(workspaceId), { lastRun, ...(lastProposing ? { lastProposing } : {}) });
  }

  private jobFile(id: string): string {
    return path.join(this.jobsDir, `${id}.json`);
  }

  private statusFile(workspaceId: string): string {
    return path.join(this.statusDir, `${createHash('sha256').update(workspaceId).digest('hex').slice(0, 24)}.json`);
  }
}

/** A workspace's harvest as its status line shows it (the API's HarvestStatus). */
export function harvestStatus(jobs: HarvestJobs, workspaceId: string, enabled: boolean): HarvestStatus {
  const mine = jobs.list(workspaceId);
  // A job left running by a worker that died (killed, crashed) is not being harvested: it waits
  // for the next worker, which runs it again. (A job of an older Cairn names no worker.)
  const live = (j: HarvestJob) => j.state === 'running' && (j.workerPid === undefined || processRuns(j.workerPid));
  const running = mine.find(live);
  const failed = mine.filter((j) => j.state === 'failed').sort((a, b) => (a.retryAt ?? '~').localeCompare(b.retryAt ?? '~'))[0];
  const waiting = mine.filter((j) => j.state === 'queued' || (j.state === 'running' && !live(j))).length;
  const state: HarvestStatus['state'] = running ? 'harvesting' : waiting > 0 ? 'waiting' : failed ? 'failed' : enabled ? 'idle' : 'off';
  return {
    workspaceId,
    enabled,
    state,
    queued: mine.filter((j) => j.state !== 'failed').length,
    current:
      running && running.agent && running.sessionId
        ? { agent: running.agent, sessionId: running.sessionId, chunk: running.chunk?.index ?? 0, chunks: running.chunk?.count ?? 0 }
        : null,
    lastRun: jobs.lastRun(workspaceId),
    lastProposing: jobs.lastProposing(workspaceId),
    failure: failed ? { message: failed.error ?? 'the harvest failed', attempts: failed.attempts, retryAt: failed.retryAt } : null,
  };
}
