/**
 * What one session hears of the change stream: the stream's shape (ChangeSource, which a
 * ChangeFeed is), which events concern a session (`concerns`), and a session's subscription
 * (`subscribeSession`). The UI's change stream (api/router.ts `onChange`) and an MCP session's
 * resource notifications (mcp/memory-mcp-server.ts) both subscribe through here, so the two
 * always agree on what a session sees.
 */
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { MemorySession } from '../memory/session';
import type { MetaChange } from './meta-watcher';

/** Where change events come from: this process's writes, other processes', outside edits. */
export interface ChangeSource {
  subscribe(listener: (event: MemoryChangeEvent) => void): () => void;
  /** Also report edits made outside Cairn to this session's roots, until the returned call. */
  watch?(session: MemorySession): () => void;
  /** Resolves when every source (journal tail, root watchers) is listening. */
  ready?(): Promise<void>;
  /**
   * What a listing of the local root at host path `root` made earlier is checked against: the
   * same value means nothing under the root has changed since (ChangeFeed.listingStamp); null
   * means a listing may not be kept.
   */
  listingStamp?(root: string): string | null;
  /** Hears when pins and usage, or the person's seen marks, change (any process). */
  onMeta?(listener: (what: MetaChange) => void): () => void;
}

/**
 * Whether an event concerns what `session` shows: every global change; a project change of the
 * session's project (any checkout of it); a workspace change of the session's workspace.
 */
function concerns(event: MemoryChangeEvent, session: MemorySession): boolean {
  switch (event.scope) {
    case 'global':
      return true;
    case 'project':
      return session.projectId !== null && event.projectId === session.projectId;
    case 'workspace':
      return session.workspaceId !== null && event.workspaceId === session.workspaceId;
  }
}

/**
 * Delivers the events of `changes` that concern `session` to `listener`, from now on; returns the
 * unsubscribe function. Outside edits are heard only for roots someone watches (`changes.watch`).
 */
export function subscribeSession(changes: ChangeSource, session: MemorySession, listener: (event: MemoryChangeEvent) => void): () => void {
  return changes.subscribe((event) => {
    if (concerns(event, session)) listener(event);
  });
}
