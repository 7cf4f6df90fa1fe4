/**
 * Sync as a home's services offer it: where it stands, set up, sync now, off — what the CLI and
 * the app's API both call — and, in a long-lived host, the schedule that syncs by itself after
 * changes and every few minutes (sync-schedule.ts). The remote lives in the settings
 * (config.json `sync.remote`); what each run did lives in the sync's state (sync-run.ts).
 */
import type { SyncStatus } from '../../common/sync/sync-status';
import type { InboxStore } from '../inbox/inbox-store';
import type { MemoryService } from '../memory/memory-service';
import type { WorkspaceRegistry } from '../workspaces/registry';
import { readSyncState, runSync, type SyncServices } from './sync-run';
import { SyncSchedule, type SyncScheduleOptions } from './sync-schedule';
import { shownRemote } from './sync-settings';

/** What sync needs of a home's services. */
export interface SyncHome {
  readonly home: string;
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  readonly registry: WorkspaceRegistry;
}

/** A sync's services from a home's: the global scope as a person sees it, and its review mode. */
export async function syncServices(home: SyncHome): Promise<SyncServices> {
  return {
    home: home.home,
    service: home.service,
    inbox: home.inbox,
    session: await home.registry.session(null),
    underReview: () => home.registry.reviewScopes().includes('global'),
  };
}

/** Where sync stands for `home`. */
export function syncStatus(home: SyncHome): SyncStatus {
  const remote = home.registry.settings().sync?.remote ?? null;
  const state = readSyncState(home.home);
  return { remote: remote ? shownRemote(remote) : null, lastSyncedAt: state.lastSyncedAt, lastRun: state.lastRun, held: Object.keys(state.held).length };
}

export class SyncControl {
  private readonly schedule: SyncSchedule | null;

  constructor(
    private readonly home: SyncHome,
    /** A long-lived host's schedule (its clock, for tests); without it, sync runs only when asked. */
    schedule?: Partial<Omit<SyncScheduleOptions, 'run' | 'enabled'>>,
  ) {
    this.schedule = schedule
      ? new SyncSchedule({
          ...schedule,
          run: async () => {
            await this.runOnce();
          },
          enabled: () => this.remote() !== null,
        })
      : null;
  }

  private remote(): string | null {
    return this.home.registry.settings().sync?.remote ?? null;
  }

  private async runOnce(): Promise<void> {
    const remote = this.remote();
    if (remote) await runSync(await syncServices(this.home), remote);
  }

  status(): SyncStatus {
    return syncStatus(this.home);
  }

  /** Memory changed here (a long-lived host's change feed): sync a while later. */
  changed(): void {
    this.schedule?.changed();
  }

  async setUp(remote: string): Promise<SyncStatus> {
    await this.home.registry.setSettings({ sync: { remote } });
    return this.now();
  }

  /** Syncs now; the answer holds how it went (offline and failed runs are in lastRun). */
  async now(): Promise<SyncStatus> {
    if (this.schedule) await this.schedule.now();
    else await this.runOnce();
    return this.status();
  }

  async off(): Promise<SyncStatus> {
    await this.home.registry.setSettings({ sync: null });
    return this.status();
  }

  close(): Promise<void> {
    return this.schedule?.close() ?? Promise.resolve();
  }
}
