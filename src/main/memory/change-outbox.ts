/**
 * The change outbox: every change MemoryService makes becomes one MemoryChangeEvent (the sha256 of
 * the bytes written, the actor, the session's workspace and project, the time), delivered first to
 * this process's listeners (onChange), then to the sink (the journal, which other processes tail).
 * Before both, what the change did to each file, with its bytes, goes to the history sink when
 * there is one (history-capture.ts).
 *
 * Invariants: an event is delivered, to the listeners and in one sink append, before the command
 * that made it resolves, so events keep the order of the commands and none waits in memory for a
 * crash to drop. A listener that throws is reported and skipped: the write it reports has been
 * made, the other listeners and the sink still hear of it.
 */
import { createHash } from 'node:crypto';
import type { Actor } from '../../common/memory/constants';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import type { FileChange, HistorySink } from './history-capture';
import type { MemorySession } from './session';

/** Where change events go for other processes to see (the Journal is one). Must not throw. */
export interface ChangeSink {
  append(...events: MemoryChangeEvent[]): void;
}

/** What a command changed: its scope, path(s) and operation. */
export type Change = Pick<MemoryChangeEvent, 'scope' | 'path' | 'op'> & { readonly oldPath?: string };

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export class ChangeOutbox {
  private readonly listeners = new Set<(event: MemoryChangeEvent) => void>();

  constructor(
    private readonly sink?: ChangeSink,
    private readonly history?: HistorySink,
  ) {}

  /** Whether changes are recorded in a history (then commands capture the bytes they replace). */
  get recordsHistory(): boolean {
    return this.history !== undefined;
  }

  /** Subscribes to every change; returns the unsubscribe function. */
  onChange(listener: (event: MemoryChangeEvent) => void): () => void {
    // A wrapper, so the same function subscribed twice hears each change twice and `off` removes one.
    const entry = (event: MemoryChangeEvent) => listener(event);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  /**
   * Delivers the event of a change made by `actor` in `session`. `content`: the bytes written, or
   * their sha256 when the caller has it already; null when no file content results (a delete, a
   * rename). `files`: what the change did to each file, recorded first in the history (one batch)
   * with its `cause` ('tool', 'ui').
   */
  emit(session: MemorySession, actor: Actor, change: Change, content: Uint8Array | string | null, files: readonly FileChange[] = [], cause = 'tool'): void {
    this.emitBatch(session, actor, [{ change, content, files }], cause);
  }

  /**
   * Several changes made together (an undo of a batch): their files are recorded as ONE history
   * batch, then each change's event is delivered, in order.
   */
  emitBatch(session: MemorySession, actor: Actor, changes: ReadonlyArray<{ change: Change; content: Uint8Array | string | null; files: readonly FileChange[] }>, cause: string): void {
    // The history id each change's event carries: its first file's version (undo takes the batch).
    const historyIds: Array<string | undefined> = changes.map(() => undefined);
    if (this.history) {
      const owners = changes.map(({ change }) => scopeOwner(change.scope, session));
      const recorded = changes.flatMap(({ change, files }, i) => {
        const owner = owners[i];
        if (owner === null || owner === undefined) return [];
        return files.map((f) => ({
          owner,
          scope: change.scope,
          path: formatMemoryPath(change.scope, f.rel),
          ...(f.oldRel ? { oldPath: formatMemoryPath(change.scope, f.oldRel) } : {}),
          op: change.op,
          before: f.before,
          after: f.after,
          actor,
          cause,
          workspaceId: session.workspaceId,
          projectId: session.projectId,
        }));
      });
      if (recorded.length > 0) {
        const ids = this.history.record(recorded);
        let next = 0;
        changes.forEach(({ files }, i) => {
          if (owners[i] === null || files.length === 0) return;
          historyIds[i] = ids[next];
          next += files.length;
        });
      }
    }
    changes.forEach(({ change, content }, i) => this.deliver(session, actor, change, content, historyIds[i]));
  }

  private deliver(session: MemorySession, actor: Actor, change: Change, content: Uint8Array | string | null, historyId: string | undefined): void {
    const event: MemoryChangeEvent = {
      ...change,
      ...(historyId ? { historyId } : {}),
      sha256: content === null || typeof content === 'string' ? content : sha256(content),
      actor,
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      at: new Date().toISOString(),
    };
    // A copy: a listener that subscribes or unsubscribes another changes the next delivery, not this one.
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        process.stderr.write(`cairn: a change listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
      }
    }
    this.sink?.append(event);
  }
}
