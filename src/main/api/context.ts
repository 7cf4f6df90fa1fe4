/**
 * What every route of the API is given: a host's services (one set per process: see
 * src/main/host), and what the router asks of a host's harvest.
 */
import type { HarvestStatus } from '../../common/api/contract';
import type { ChangeSource } from '../journal/session-changes';
import type { ContextBuilder } from '../context/context-builder';
import type { MemoryService } from '../memory/memory-service';
import type { SeenStore } from '../memory/seen-store';
import type { VersionHistory } from '../memory/version-history';
import type { InboxStore } from '../inbox/inbox-store';
import type { Consolidations } from '../consolidation/consolidations';
import type { AgentFiles } from '../agent-files/agent-files';
import type { WorkspaceRegistry } from '../workspaces/registry';
import type { SyncStatus } from '../../common/sync/sync-status';

export interface RouterContext {
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  readonly versions: VersionHistory;
  /** When the person last opened each file: the badges. */
  readonly seen: SeenStore;
  readonly registry: WorkspaceRegistry;
  readonly builder: ContextBuilder;
  readonly changes: ChangeSource;
  /** Cairn's home when it is not the default one (setup lines then name it); else undefined. */
  readonly setupHome?: string | undefined;
  /** The harvest's jobs and the inbox's events, in a long-lived host (host/harvest-host.ts). */
  readonly harvest?: HarvestControl | undefined;
  /** Consolidation proposals; a host without them answers NOT_IMPLEMENTED. */
  readonly consolidations?: Consolidations | undefined;
  /** Other agents' files; a host without them answers NOT_IMPLEMENTED. */
  readonly agentFiles?: AgentFiles | undefined;
  /** Sync through the person's git remote; a host without it answers NOT_IMPLEMENTED. */
  readonly sync?: SyncControl | undefined;
}

/** What the router asks of a host's sync (sync/sync-control.ts). */
export interface SyncControl {
  status(): SyncStatus;
  setUp(remote: string): Promise<SyncStatus>;
  now(): Promise<SyncStatus>;
  off(): Promise<SyncStatus>;
  setWorkspace(id: string, on: boolean): Promise<SyncStatus>;
}

/** What the router asks of a host's harvest. */
export interface HarvestControl {
  status(workspaceId: string): HarvestStatus;
  /** Queues the workspace's sessions on this machine and runs them; how many were queued. */
  harvestNow(workspaceId: string): Promise<number>;
  /** Failed harvests of the workspace due now; how many. */
  retry(workspaceId: string): number;
  onInboxChange(listener: () => void): () => void;
  onStatusChange(listener: () => void): () => void;
}

/** The router's context from a host's services (one set per process: see src/main/host). */
export function createRouterContext(options: RouterContext): RouterContext {
  return {
    service: options.service,
    inbox: options.inbox,
    versions: options.versions,
    seen: options.seen,
    registry: options.registry,
    builder: options.builder,
    changes: options.changes,
    setupHome: options.setupHome,
    harvest: options.harvest,
    consolidations: options.consolidations,
    agentFiles: options.agentFiles,
    sync: options.sync,
  };
}
