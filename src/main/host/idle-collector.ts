/**
 * IdleCollector: runs the version history's gc (retention: HISTORY_KEEP_DAYS, the newest
 * HISTORY_KEEP_NEWEST of a path, HISTORY_MAX_BYTES_PER_SCOPE) in a long-lived host when it is
 * idle: a first time `firstMs` after the host starts, then every `everyMs`, each time only once
 * this process has made no change for `quietMs` (else it looks again `quietMs` later). A gc that
 * fails is reported on stderr and tried again at the next turn; `cairn history gc` runs one at once.
 *
 * The timers never keep the process alive; `schedule` lets tests run them on a fake clock.
 */
export interface IdleCollectorOptions {
  /** Runs one gc (HistoryStore.gc; it takes its own cross-process lock). */
  readonly collect: () => void;
  readonly now?: () => number;
  /** Runs `fn` once `ms` have passed; returns what cancels it. */
  readonly schedule?: (fn: () => void, ms: number) => () => void;
  /** After start, ms before the first gc (default 10 minutes). */
  readonly firstMs?: number;
  /** Between gcs, ms (default 6 hours). */
  readonly everyMs?: number;
  /** How long without a change counts as idle, ms (default 2 minutes). */
  readonly quietMs?: number;
}

function scheduleTimer(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

export class IdleCollector {
  private readonly now: () => number;
  private readonly schedule: (fn: () => void, ms: number) => () => void;
  private lastChange = Number.NEGATIVE_INFINITY;
  private cancel: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly options: IdleCollectorOptions) {
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? scheduleTimer;
    this.arm(options.firstMs ?? 10 * 60_000);
  }

  /** Tells the collector this process made a change (it then waits to be idle again). */
  noteChange(): void {
    this.lastChange = this.now();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.cancel = this.schedule(() => this.turn(), ms);
  }

  private turn(): void {
    this.cancel = null;
    const quietMs = this.options.quietMs ?? 2 * 60_000;
    const quietFor = this.now() - this.lastChange;
    if (quietFor < quietMs) {
      this.arm(quietMs - quietFor);
      return;
    }
    try {
      this.options.collect();
    } catch (err) {
      process.stderr.write(`cairn: the history's gc failed (it is tried again later): ${(err as Error)?.message ?? String(err)}\n`);
    }
    this.arm(this.options.everyMs ?? 6 * 60 * 60_000);
  }
}
