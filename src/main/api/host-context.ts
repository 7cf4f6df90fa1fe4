/**
 * The services one long-lived host process (the Electron app, `cairn serve`) runs with: one
 * MemoryService writing to the change journal, one usage store and registry, and one ChangeFeed
 * that combines this process's writes, other processes' (the journal) and edits made outside
 * Cairn (watchers on the roots of the sessions someone is watching).
 */
import { ChangeFeed } from '../journal/change-feed';
import { Journal } from '../journal/journal';
import { MemoryService } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { resolveHome } from '../workspaces/identity';
import { WorkspaceRegistry } from '../workspaces/registry';
import { createRouterContext, type RouterContext } from './router';

export interface HostContext extends RouterContext {
  readonly usage: UsageStore;
  /** Flushes usage and stops the feed's watchers; the host calls it on the way out. */
  close(): Promise<void>;
}

/**
 * How long the host keeps watching a workspace's roots after its last page stops looking: a reload
 * or a workspace opened again within this time starts at once instead of rescanning its roots.
 */
export const WATCH_LINGER_MS = 10 * 60_000;

export function createHostContext(home: string): HostContext {
  const usage = new UsageStore(home);
  const journal = new Journal(home);
  const service = new MemoryService({ usage, journal });
  const registry = new WorkspaceRegistry(home);
  const feed = new ChangeFeed({ home, service, journal, lingerMs: WATCH_LINGER_MS });
  // Setup lines name the home only when it is not the one Cairn finds by default.
  const context = createRouterContext({ service, registry, changes: feed, usage, ...(home !== resolveHome() ? { home } : {}) });
  return {
    ...context,
    usage,
    close: async () => {
      // Changes agents made over /mcp in the last moments still reach the journal.
      service.flushEvents();
      await feed.close();
      await usage.flush();
    },
  };
}
