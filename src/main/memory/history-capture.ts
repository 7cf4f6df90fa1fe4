/**
 * What a change does to each file, with the bytes before and after, for the version history
 *: MemoryTool and PersonEdits capture it under the scope's lock, where the bytes are
 * exactly those the change replaces, and the change outbox's ChangeRecord hands it to the history
 * sink before the change is made (a change the history cannot take is not made).
 *
 * Invariants: captured only while the lock is held (no other Cairn writer can change the files in
 * between); a file that cannot be read whole (over the cap, unreadable) is recorded as 'unknown',
 * never guessed; capturing never fails a command (a read error makes 'unknown'); recording does,
 * when the history cannot take the change.
 */
import type { HistoryChange } from '../history/history-store';

export type { HistoryChange } from '../history/history-store';

/** One file a change touched: where it is now (and was, for a rename), and its bytes before and after. */
export interface FileChange {
  readonly rel: readonly string[];
  readonly oldRel?: readonly string[];
  /** null: nothing was there; 'unknown': something was, but it could not be read. */
  readonly before: Uint8Array | null | 'unknown';
  /** null: nothing is there now (a delete); 'unknown': a file that could not be read was moved. */
  readonly after: Uint8Array | null | 'unknown';
}

/**
 * Where changes are recorded with their bytes, as one batch per call, BEFORE they are made
 * (HistoryStore.prepare, abandon; change-outbox.ts ChangeRecord says when).
 */
export interface HistorySink {
  /**
   * Records changes about to be made (after taking back `supersedes`, an earlier batch not made);
   * their ids, the first the batch's. Throws (an Error with the OS `code`) when it cannot: then
   * nothing of it counts, and the change must not be made.
   */
  prepare(changes: readonly HistoryChange[], supersedes: string | null): string[];
  /** The change of batch `batch` was not made: it no longer counts. Never throws. */
  abandon(batch: string): void;
}
