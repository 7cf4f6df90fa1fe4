/**
 * The services one long-lived host process (the Electron app, `cairn serve`) runs with: one
 * MemoryService, usage store, registry and change source, shared by every client it serves.
 */
import type { MemoryChangeEvent } from '../../common/memory/events';
import { MemoryService } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { WorkspaceRegistry } from '../workspaces/registry';
import { createRouterContext, type ChangeSource, type RouterContext } from './router';

export interface HostContext extends RouterContext {
  readonly usage: UsageStore;
  /** Flushes usage and stops watchers; the host calls it on the way out. */
  close(): Promise<void>;
}

/** A change source over this process's own MemoryService (other processes arrive by the journal). */
function serviceChanges(service: MemoryService): ChangeSource {
  return { subscribe: (listener: (e: MemoryChangeEvent) => void) => service.onChange(listener) };
}

export function createHostContext(home: string): HostContext {
  const usage = new UsageStore(home);
  const service = new MemoryService({ usage });
  const registry = new WorkspaceRegistry(home);
  const context = createRouterContext({ service, registry, changes: serviceChanges(service), usage });
  return {
    ...context,
    usage,
    close: async () => {
      await usage.flush();
    },
  };
}
