/**
 * The harvest in a long-lived host (the app and `cairn serve`): runs the queued jobs in
 * this process, retries failed ones when due, picks up Codex sessions idle for CODEX_IDLE_MS in
 * the workspaces where harvest is on, answers "Harvest now" and Retry, and tells subscribers when
 * the inbox or a workspace's harvest changed — whichever process changed it (a hook's worker,
 * `cairn inbox approve` in a terminal), since it watches `<home>/inbox` and `<home>/harvest`.
 *
 * Invariants: the jobs' lease (harvest-jobs.ts) keeps one worker across processes; this host runs
 * at most one work() at a time and runs again when kicked meanwhile; `tick()` is what the timer
 * calls, and what a test calls with its own clock; nothing here runs after close().
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { HarvestStatus } from '../../common/api/contract';
import { harvestJobRunner } from '../harvest/harvest-file';
import { HarvestJobs, harvestStatus } from '../harvest/harvest-jobs';
import type { Extractor } from '../harvest/harvest-run';
import { INBOX_DIR } from '../inbox/inbox-store';
import { comparablePath, fileCwd, type PlacedSessionFile, type SessionFile } from '../harvest/session-files';
import { TEMP_PREFIX } from '../runtime/local/atomic-write';
import { isInside } from '../runtime/local/containment';
import type { HomeServices } from './home-services';

/** A Codex session is harvested once its rollout has not changed for this long. */
export const CODEX_IDLE_MS = 30 * 60_000;
/** The idle pickup looks at Codex's day folders of this many days (a session started earlier is harvested by its hooks or on request). */
export const CODEX_PICKUP_DAYS = 7;
/** How often the host looks for due retries and idle Codex sessions. */
const HARVEST_TICK_MS = 60_000;

export interface HarvestHostOptions {
  /** The extractor the settings name (built per run: settings may change between runs). */
  readonly extractor: () => Extractor;
  /** The sessions of agents on this machine that ran in `dir` or below (for "Harvest now"). */
  readonly sessionsIn: (dir: string) => Promise<PlacedSessionFile[]>;
  /** Codex's recent session files (the idle pickup looks at them). */
  readonly codexSessions: () => SessionFile[];
  readonly now?: () => number;
  /** Default HARVEST_TICK_MS; 0: no timer (tests call tick()). */
  readonly tickMs?: number;
}

export class HarvestHost {
  readonly jobs: HarvestJobs;
  private readonly now: () => number;
  private working: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly timer: NodeJS.Timeout | null;
  private watcher: FSWatcher | null = null;
  private readonly inboxListeners = new Set<() => void>();
  private readonly statusListeners = new Set<() => void>();
  /** Codex rollouts already queued, by path, with the mtime they had then. */
  private readonly pickedUp = new Map<string, number>();

  constructor(
    private readonly services: HomeServices,
    private readonly options: HarvestHostOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.jobs = new HarvestJobs(services.home, this.now);
    const tickMs = options.tickMs ?? HARVEST_TICK_MS;
    this.timer = tickMs > 0 ? setInterval(() => void this.tick().catch(report), tickMs) : null;
    this.timer?.unref();
  }

  status(workspaceId: string): HarvestStatus {
    return harvestStatus(this.jobs, workspaceId, this.services.registry.settings().harvestWorkspaces.includes(workspaceId));
  }

  /** "Harvest now": queues every session of the workspace's agents found on this machine, then runs them. */
  async harvestNow(workspaceId: string): Promise<number> {
    const entry = this.services.registry.get(workspaceId);
    if (!entry) throw new Error(`no workspace ${workspaceId}`);
    if (entry.kind !== 'local') return 0;
    const files = await this.options.sessionsIn(entry.path);
    for (const file of files) this.jobs.enqueue({ transcript: file.file, cwd: file.cwd, workspaceId });
    this.kick();
    return files.length;
  }

  /** A person's Retry of the workspace's failed harvests. */
  retry(workspaceId: string): number {
    const n = this.jobs.retry(workspaceId);
    if (n > 0) this.kick();
    return n;
  }

  /** Runs what is due; runs again after, if kicked meanwhile. Resolves when this host is idle. */
  kick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.working) {
      this.again = true;
      return this.working;
    }
    this.working = (async () => {
      try {
        do {
          this.again = false;
          await this.jobs.work(harvestJobRunner(this.services, this.options.extractor));
        } while (this.again && !this.closed);
      } finally {
        this.working = null;
      }
    })();
    return this.working;
  }

  /** What the timer runs: idle Codex sessions of workspaces with harvest on are queued; due jobs run. */
  async tick(): Promise<void> {
    if (this.closed) return;
    const on = new Set(this.services.registry.settings().harvestWorkspaces);
    if (on.size > 0) {
      const now = this.now();
      const workspaces = await Promise.all(
        this.services.registry
          .list()
          .filter((w) => w.kind === 'local' && on.has(w.id))
          .map(async (w) => ({ id: w.id, dir: await comparablePath(w.path) })),
      );
      for (const file of this.options.codexSessions()) {
        if (now - file.mtimeMs < CODEX_IDLE_MS || this.pickedUp.get(file.file) === file.mtimeMs) continue;
        this.pickedUp.set(file.file, file.mtimeMs);
        const cwd = await fileCwd(file);
        const workspaceId = cwd === null ? null : workspaceOf(workspaces, await comparablePath(cwd));
        if (workspaceId !== null) this.jobs.enqueue({ transcript: file.file, cwd, workspaceId });
      }
    }
    await this.kick();
  }

  /** Calls `listener` after anything in the inbox changed (debounced). */
  onInboxChange(listener: () => void): () => void {
    this.watch();
    this.inboxListeners.add(listener);
    return () => this.inboxListeners.delete(listener);
  }

  /** Calls `listener` after any workspace's harvest changed (jobs, last runs, the switch; debounced). */
  onStatusChange(listener: () => void): () => void {
    this.watch();
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.watcher?.close();
    this.watcher = null;
    await this.working;
  }

  private watch(): void {
    if (this.watcher || this.closed) return;
    const inbox = path.join(this.services.home, INBOX_DIR);
    const harvest = this.jobs.dir;
    for (const dir of [inbox, harvest]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    let inboxTimer: NodeJS.Timeout | null = null;
    let statusTimer: NodeJS.Timeout | null = null;
    const later = (timer: NodeJS.Timeout | null, listeners: Set<() => void>): NodeJS.Timeout => {
      if (timer) clearTimeout(timer);
      return setTimeout(() => {
        for (const l of [...listeners]) l();
      }, 30);
    };
    // config.json: the harvest switch lives in the settings, and a status says whether it is on.
    const config = path.join(this.services.home, 'config.json');
    this.watcher = watch([inbox, harvest, config], { ignoreInitial: true, depth: 2, ignored: (p) => p.endsWith('.tmp') || path.basename(p).startsWith(TEMP_PREFIX) || path.basename(p).startsWith('worker') || p.includes(`${path.sep}sessions`) });
    this.watcher.on('all', (_event, file) => {
      if (file.startsWith(inbox + path.sep)) inboxTimer = later(inboxTimer, this.inboxListeners);
      else statusTimer = later(statusTimer, this.statusListeners);
    });
    this.watcher.on('error', report);
  }
}

/** The workspace whose checkout holds `cwd` (the deepest one), if any. */
function workspaceOf(workspaces: ReadonlyArray<{ id: string; dir: string }>, cwd: string): string | null {
  let best: { id: string; dir: string } | null = null;
  for (const w of workspaces) {
    if (isInside(cwd, w.dir) && (best === null || w.dir.length > best.dir.length)) best = w;
  }
  return best?.id ?? null;
}

function report(err: unknown): void {
  process.stderr.write(`cairn: harvest: ${(err as Error)?.message ?? String(err)}\n`);
}
