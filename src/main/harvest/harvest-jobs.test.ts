// The harvest's jobs on a real temp home, with a fake clock: one run per queued session, retries
// with backoff then a person's Retry, one worker across instances (the lease), a dead worker's
// lease and job taken over, a session queued again while it runs kept for one more run.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harvestStatusText } from '../../common/api/harvest-status-text';
import { HARVEST_DIR, HarvestJobs, MAX_ATTEMPTS, RETRY_BACKOFF_MS, harvestStatus, type JobOutcome, type JobRunner } from './harvest-jobs';
import { LEASE_STALE_MS } from '../runtime/local/file-lock';

let home: string;
let clock: number;
const now = (): number => clock;

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'cairn-jobs-'));
  clock = Date.parse('2026-11-25T10:00:00Z');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const found = (proposed = 2): JobOutcome => ({ outcome: proposed > 0 ? 'succeeded' : 'nothing-found', agent: 'claude', sessionId: 'sess-1234567890', proposed, skipped: { 'no-evidence': 1 } });

function counting(outcome: () => Promise<JobOutcome> | JobOutcome): JobRunner & { runs: string[] } {
  const runs: string[] = [];
  const run = (async (job, progress) => {
    runs.push(job.transcript);
    progress.session('claude', 'sess-1234567890');
    progress.chunk(1, 2);
    return outcome();
  }) as JobRunner & { runs: string[] };
  run.runs = runs;
  return run;
}

describe('HarvestJobs', () => {
  it('lists no jobs before any was queued, and says so when their folder cannot be read', () => {
    const jobs = new HarvestJobs(home, now);
    expect(jobs.list()).toEqual([]);
    // A file where the folder of jobs should be: reading it fails (ENOTDIR), as an unreadable folder does (EACCES).
    fs.mkdirSync(path.join(home, HARVEST_DIR), { recursive: true });
    fs.writeFileSync(path.join(home, HARVEST_DIR, 'jobs'), '');
    expect(() => jobs.list()).toThrow(/^Cairn cannot read its queue of harvests \(ENOTDIR\)/);
    expect(() => jobs.list()).not.toThrow(home);
  });

  it('runs each queued session once, then records the outcome for the workspace', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' }); // two triggers, one job
    jobs.enqueue({ transcript: '/t/b.jsonl', cwd: '/w', workspaceId: 'ws1' });
    expect(harvestStatus(jobs, 'ws1', true)).toMatchObject({ state: 'waiting', queued: 2 });
    const run = counting(() => found());
    expect(await jobs.work(run)).toEqual({ status: 'done', ran: 2 });
    expect(run.runs.sort()).toEqual(['/t/a.jsonl', '/t/b.jsonl']);
    expect(jobs.list()).toEqual([]);
    const status = harvestStatus(jobs, 'ws1', true);
    expect(status).toMatchObject({ state: 'idle', queued: 0, failure: null, lastRun: { outcome: 'succeeded', proposed: 2, sessionId: 'sess-1234567890', skipped: { 'no-evidence': 1 } } });
    clock += 5 * 60_000;
    expect(harvestStatusText(status, clock)).toBe('Harvest is on: sessions are read when they end or compact.\nLast run 5 min ago: 2 proposed, 1 skipped (1 no evidence).');
    // Nothing queued: a second worker runs nothing.
    expect(await jobs.work(run)).toEqual({ status: 'done', ran: 0 });
    expect(run.runs).toHaveLength(2);
  });

  it('retries a failed session with backoff, then waits for a person', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    const run = counting(() => {
      throw new Error('the command exited with status 2');
    });
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await jobs.work(run);
      expect(run.runs).toHaveLength(attempt);
      const status = harvestStatus(jobs, 'ws1', true);
      expect(status.state).toBe('failed');
      expect(status.failure).toMatchObject({ message: 'the command exited with status 2', attempts: attempt });
      if (attempt === MAX_ATTEMPTS) {
        expect(status.failure!.retryAt).toBeNull();
        expect(harvestStatusText(status, clock)).toContain('Retry when it is fixed.');
        break;
      }
      const wait = RETRY_BACKOFF_MS[attempt - 1]!;
      expect(Date.parse(status.failure!.retryAt!) - clock).toBe(wait);
      // Not due a moment before its time; due at it.
      clock += wait - 1;
      await jobs.work(run);
      expect(run.runs).toHaveLength(attempt);
      clock += 1;
    }
    // Given up: time alone does not run it again; a person's Retry does.
    clock += 24 * 60 * 60_000;
    await jobs.work(run);
    expect(run.runs).toHaveLength(MAX_ATTEMPTS);
    expect(jobs.retry('ws1')).toBe(1);
    expect(jobs.retry('other')).toBe(0);
    const ok = counting(() => found(0));
    await jobs.work(ok);
    expect(ok.runs).toHaveLength(1);
    expect(harvestStatus(jobs, 'ws1', true)).toMatchObject({ state: 'idle', failure: null, lastRun: { outcome: 'nothing-found' } });
  });

  it('lets one worker run at a time: a second one answers busy and runs nothing', async () => {
    const a = new HarvestJobs(home, now);
    const b = new HarvestJobs(home, now);
    a.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const runA = counting(async () => {
      started();
      await gate;
      return found();
    });
    const runB = counting(() => found());
    const first = a.work(runA);
    await running;
    expect(harvestStatus(b, 'ws1', true)).toMatchObject({ state: 'harvesting', current: { agent: 'claude', sessionId: 'sess-1234567890', chunk: 1, chunks: 2 } });
    expect(await b.work(runB)).toEqual({ status: 'busy' });
    release();
    expect(await first).toEqual({ status: 'done', ran: 1 });
    expect(runA.runs).toHaveLength(1);
    expect(runB.runs).toHaveLength(0);
  });

  it('takes over the lease and the job of a worker that died', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    // What a worker killed mid-run leaves: its lease (not refreshed since) and its job running.
    const dead = jobs.list()[0]!;
    fs.writeFileSync(path.join(home, HARVEST_DIR, 'jobs', `${dead.id}.json`), JSON.stringify({ ...dead, state: 'running', attempts: 1 }));
    const lease = path.join(home, HARVEST_DIR, 'worker.lock');
    fs.mkdirSync(lease);
    const past = new Date(Date.now() - LEASE_STALE_MS - 60_000);
    fs.utimesSync(lease, past, past);
    const run = counting(() => found());
    expect(await jobs.work(run)).toEqual({ status: 'done', ran: 1 });
    expect(run.runs).toEqual(['/t/a.jsonl']);
    expect(jobs.list()).toEqual([]);
  });

  it("says a worker that died is not harvesting: its session waits for the next worker (no phantom \"chunk 26 of 49\")", async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    const job = jobs.list()[0]!;
    const file = path.join(home, HARVEST_DIR, 'jobs', `${job.id}.json`);
    const runningBy = (workerPid: number) =>
      fs.writeFileSync(file, JSON.stringify({ ...job, state: 'running', attempts: 1, agent: 'claude', sessionId: 'sess-1234567890', chunk: { index: 26, count: 49 }, workerPid }));
    // A worker at work (this process) is harvesting, at its chunk.
    runningBy(process.pid);
    expect(harvestStatus(jobs, 'ws1', true)).toMatchObject({ state: 'harvesting', current: { chunk: 26, chunks: 49 } });
    // A worker that is gone (a real process that has ended): nothing is harvesting; the session waits.
    const ended = spawnSync(process.execPath, ['-e', '0']);
    runningBy(ended.pid!);
    const status = harvestStatus(jobs, 'ws1', true);
    expect(status).toMatchObject({ state: 'waiting', current: null, queued: 1 });
    expect(harvestStatusText(status, clock)).not.toContain('26');
  });

  it('does not take over a live lease', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    fs.mkdirSync(path.join(home, HARVEST_DIR, 'worker.lock'));
    const run = counting(() => found());
    expect(await jobs.work(run)).toEqual({ status: 'busy' });
    expect(run.runs).toHaveLength(0);
  });

  it('keeps a session queued again while it ran, for one more run', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    let runs = 0;
    const run: JobRunner = async () => {
      runs++;
      if (runs === 1) {
        clock += 1000;
        jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' }); // a later hook
      }
      return found();
    };
    expect(await jobs.work(run)).toEqual({ status: 'done', ran: 2 });
    expect(runs).toBe(2);
    expect(jobs.list()).toEqual([]);
  });

  it('puts a busy session back without counting an attempt', async () => {
    const jobs = new HarvestJobs(home, now);
    jobs.enqueue({ transcript: '/t/a.jsonl', cwd: '/w', workspaceId: 'ws1' });
    await jobs.work(async () => ({ outcome: 'busy' }));
    const [job] = jobs.list();
    expect(job).toMatchObject({ state: 'failed', attempts: 0 });
    clock += RETRY_BACKOFF_MS[0]!;
    const run = counting(() => found());
    await jobs.work(run);
    expect(run.runs).toHaveLength(1);
  });

  it('says off for a workspace with harvest off and nothing queued', () => {
    const jobs = new HarvestJobs(home, now);
    const status = harvestStatus(jobs, 'ws1', false);
    expect(status).toEqual({ workspaceId: 'ws1', enabled: false, state: 'off', queued: 0, current: null, lastRun: null, lastProposing: null, failure: null });
    expect(harvestStatusText(status, clock)).toBe('Harvest is off for this workspace.');
  });
});
