/**
 * When a long-lived process (the app, `cairn serve`, an MCP session) syncs by itself: a while after memory changes
 * (debounced, so an agent writing ten files in a row makes one sync, not ten), and on a schedule
 * (to take in what other machines sent), for as long as sync is set up. A sync that finds another
 * running (a terminal's `cairn sync`, another host) is skipped; an offline one is tried again at
 * the next turn of the schedule. What each run did is in the sync's state, for Settings › Sync and
 * `cairn sync --status`.
 *
 * Invariants: at most one run at a time from one schedule (a change during a run makes one more
 * after it); nothing runs after close(); the timers come from the options, so tests use their own
 * clock rather than waiting.
 */

/** How long after a change of memory the host syncs (more changes meanwhile push it back). */
export const SYNC_DEBOUNCE_MS = 30_000;
/** How often the host syncs while nothing changes here (to take in other machines' changes). */
const SYNC_EVERY_MS = 5 * 60_000;

export interface SyncScheduleOptions {
  /** Runs one sync (errors are the sync's to record; a throw here is caught and dropped). */
  readonly run: () => Promise<void>;
  /** Whether sync is set up now (read at each turn: the person may turn it on or off meanwhile). */
  readonly enabled: () => boolean;
  /** The debounce, or a function giving it (read at each change: the setting may change meanwhile). */
  readonly debounceMs?: number | (() => number);
  readonly everyMs?: number;
  readonly setTimeout?: (fn: () => void, ms: number) => unknown;
  readonly clearTimeout?: (handle: unknown) => void;
}

export class SyncSchedule {
  private debounce: unknown = null;
  private periodic: unknown;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly set: (fn: () => void, ms: number) => unknown;
  private readonly clear: (handle: unknown) => void;

  constructor(private readonly options: SyncScheduleOptions) {
    this.set = options.setTimeout ?? ((fn, ms) => setTimeout(fn, ms).unref());
    this.clear = options.clearTimeout ?? ((h) => clearTimeout(h as NodeJS.Timeout));
    const every = options.everyMs ?? SYNC_EVERY_MS;
    const tick = (): void => {
      if (this.closed) return;
      void this.now();
      this.periodic = this.set(tick, every);
    };
    this.periodic = this.set(tick, every);
  }

  /** Memory changed here: sync after the debounce (pushed back by further changes). */
  changed(): void {
    if (this.closed || !this.options.enabled()) return;
    if (this.debounce !== null) this.clear(this.debounce);
    this.debounce = this.set(() => {
      this.debounce = null;
      void this.now();
    }, typeof this.options.debounceMs === 'function' ? this.options.debounceMs() : (this.options.debounceMs ?? SYNC_DEBOUNCE_MS));
  }

  /** Syncs now (or once more after the run under way); resolves when that run is over. */
  now(): Promise<void> {
    if (this.closed || !this.options.enabled()) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.options.run().catch(() => {
            // Recorded by the sync itself (state.json); the schedule just tries again later.
          });
        } while (this.again && !this.closed);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops the timers and waits for a run under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.debounce !== null) this.clear(this.debounce);
    this.clear(this.periodic);
    await this.running;
  }
}
