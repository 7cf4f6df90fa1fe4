/**
 * What a change did to each file, with the bytes before and after, for the version history
 * (issue 18): MemoryTool and PersonEdits capture it under the scope's lock, where the bytes are
 * exactly those the change replaced, and the change outbox hands it to the history sink.
 *
 * Invariants: captured only while the lock is held (no other Cairn writer can change the files in
 * between); a file that cannot be read whole (over the cap, unreadable) is recorded as 'unknown',
 * never guessed; capturing never fails a command (a read error makes 'unknown').
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

/** Where changes are recorded with their bytes, as one batch per call. Never throws. */
export interface HistorySink {
  record(changes: readonly HistoryChange[]): string[];
}
