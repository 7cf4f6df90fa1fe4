/**
 * Sync as a home's services offer it: where it stands, set up, sync now, off — what the CLI and
 * the app's API both call — and, in a long-lived host, the schedule that syncs by itself after
 * changes and every few minutes (sync-schedule.ts). The remote and the workspaces whose memory
 * syncs too live in the settings (config.json `sync`); what each run did lives in the sync's state
 * (sync-run.ts). A workspace syncs by its checkout's project identity, so only a git checkout's
 * can, and only one workspace per project (two would share one folder of the repository).
 */
import { CairnError } from '../../common/errors';
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { SyncStatus } from '../../common/sync/sync-status';
import type { InboxStore } from '../inbox/inbox-store';
import { reviewKey } from '../inbox/review-mode';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession } from '../memory/session';
import type { WorkspaceRegistry } from '../workspaces/registry';
import { readSyncState, runSync, type SyncedWorkspace, type SyncServices } from './sync-run';
import { SYNC_DEBOUNCE_MS, SyncSchedule, type SyncScheduleOptions } from './sync-schedule';
import { shownRemote } from './sync-settings';

/** What sync needs of a home's services. */
export interface SyncHome {
  readonly home: string;
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  readonly registry: WorkspaceRegistry;
}

/** What a long-lived process's change feed offers the schedule (journal/change-feed.ts, which sync may not import). */
export interface ChangesToFollow {
  subscribe(listener: (event: MemoryChangeEvent) => void): () => void;
}

/** A refusal of a workspace's sync a person can act on (not a git repository, sync not set up, ...). */
export class SyncSetupError extends CairnError {
  override readonly name = 'SyncSetupError';
}

/** A sync's services from a home's: the global scope as a person sees it, the synced workspaces, and their review modes. */
export async function syncServices(home: SyncHome): Promise<SyncServices> {
  const workspaces: SyncedWorkspace[] = [];
  for (const id of home.registry.settings().sync?.workspaces ?? []) {
    // A workspace removed since, or whose checkout cannot be reached now (an SSH host down, no
    // project id known yet), sits this sync out: its memory stays here and in the repository.
    const session = home.registry.get(id) ? await home.registry.session(id).catch(() => null) : null;
    if (session?.projectId) workspaces.push({ projectId: session.projectId, session, underReview: () => reviewed(home, 'workspace', session) });
  }
  return {
    home: home.home,
    service: home.service,
    inbox: home.inbox,
    session: await home.registry.session(null),
    underReview: () => home.registry.reviewScopes().includes('global'),
    workspaces,
  };
}

function reviewed(home: SyncHome, scope: 'workspace', session: MemorySession): boolean {
  const key = reviewKey(scope, session);
  return key !== null && home.registry.reviewScopes().includes(key);
}

/** The sync settings with `remote`, the rest (workspaces, timing) kept as they are. */
export function syncSettingsWith(home: SyncHome, remote: string): NonNullable<ReturnType<WorkspaceRegistry['settings']>['sync']> {
  const current = home.registry.settings().sync;
  return { workspaces: [], afterChangeSeconds: SYNC_DEBOUNCE_MS / 1000, ...current, remote };
}

/** Where sync stands for `home`. */
export function syncStatus(home: SyncHome): SyncStatus {
  const settings = home.registry.settings().sync;
  const remote = settings?.remote ?? null;
  const state = readSyncState(home.home);
  const on = new Set(settings?.workspaces ?? []);
  return {
    remote: remote ? shownRemote(remote) : null,
    lastSyncedAt: state.lastSyncedAt,
    lastRun: state.lastRun,
    held: Object.keys(state.held).length,
    workspaces: home.registry.list().map((w) => ({ id: w.id, name: w.name, syncing: on.has(w.id) })),
  };
}

/**
 * Turns sync of a registered workspace's memory on or off in the settings. On: sync must be set up,
 * and the workspace must be a git checkout (its project identity names its folder in the repository)
 * not sharing its project with another synced workspace.
 */
export async function setWorkspaceSync(home: SyncHome, id: string, on: boolean): Promise<void> {
  const settings = home.registry.settings().sync;
  const entry = home.registry.get(id);
  if (!entry) throw new SyncSetupError(`No workspace ${id} is registered.`);
  if (!on) {
    if (settings && settings.workspaces.includes(id)) await home.registry.setSettings({ sync: { ...settings, workspaces: settings.workspaces.filter((w) => w !== id) } });
    return;
  }
  if (!settings) throw new SyncSetupError('Sync is not set up. Set it up first with: cairn sync --remote URL (a git repository you can push to)');
  if (settings.workspaces.includes(id)) return;
  const session = await home.registry.session(id);
  if (!session.projectId) {
    throw new SyncSetupError(`${entry.name} is not a git checkout (or its repository cannot be reached now), so its memory has no project identity to share with your other machines; only a git checkout's workspace memory syncs.`);
  }
  for (const other of settings.workspaces) {
    const otherSession = home.registry.get(other) ? await home.registry.session(other).catch(() => null) : null;
    if (otherSession?.projectId === session.projectId) {
      throw new SyncSetupError(`${home.registry.get(other)!.name} is a checkout of the same repository and its memory already syncs; only one workspace per repository can (they would share one folder of the sync).`);
    }
  }
  await home.registry.setSettings({ sync: { ...settings, workspaces: [...settings.workspaces, id] } });
}

export class SyncControl {
  private readonly schedule: SyncSchedule | null;
  private unfollow: (() => void) | null = null;

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
          debounceMs: schedule.debounceMs ?? (() => (this.home.registry.settings().sync?.afterChangeSeconds ?? SYNC_DEBOUNCE_MS / 1000) * 1000),
        })
      : null;
  }

  /**
   * Syncs a while after each change `changes` reports to a synced scope: the global memory, or a
   * workspace whose sync is on. A sync's own writes are not changes to send back.
   */
  follow(changes: ChangesToFollow): void {
    this.unfollow?.();
    this.unfollow = changes.subscribe((event) => {
      if (event.actor === 'sync') return;
      if (event.scope === 'global' || (event.scope === 'workspace' && event.workspaceId !== null && (this.home.registry.settings().sync?.workspaces.includes(event.workspaceId) ?? false))) this.changed();
    });
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
    await this.home.registry.setSettings({ sync: syncSettingsWith(this.home, remote) });
    return this.now();
  }

  /** Turns sync of a workspace's memory on (and syncs now) or off. */
  async setWorkspace(id: string, on: boolean): Promise<SyncStatus> {
    await setWorkspaceSync(this.home, id, on);
    return on ? this.now() : this.status();
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
    this.unfollow?.();
    this.unfollow = null;
    return this.schedule?.close() ?? Promise.resolve();
  }
}
