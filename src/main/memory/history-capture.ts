/**
 * What a change did to each file, with the bytes before and after, for the version history
 * (issue 18): MemoryTool and PersonEdits capture it under the scope's lock, where the bytes are
 * exactly those the change replaced, and the change outbox hands it to the history sink.
 *
 * Invariants: captured only while the lock is held (no other Cairn writer can change the files in
 * between); a file that cannot be read whole (over the cap, unreadable) is recorded as 'unknown',
 * never guessed; capturing never fails a command (a read error makes 'unknown').
 */
import { MAX_FILE_BYTES } from '../../common/memory/constants';
import type { HistoryChange } from '../history/history-store';
import type { AvailableScope } from './session';

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

/**
 * The file at `segments`, or every file below it when it is a directory, with its bytes (for a
 * delete or a rename, read before the change). The caller holds the scope's lock.
 */
export async function filesAt(b: AvailableScope, segments: readonly string[]): Promise<Array<{ rel: readonly string[]; data: Uint8Array | 'unknown' }>> {
  const stat = await b.runtime.stat(b.root, segments, false).catch(() => null);
  if (stat === null) return [];
  if (stat.type === 'file') return [{ rel: segments, data: await readOrUnknown(b, segments) }];
  if (stat.type !== 'directory') return [];
  const listed = (await b.runtime.list(b.root, segments, { depth: Number.POSITIVE_INFINITY, limit: Number.MAX_SAFE_INTEGER, filesOnly: true }).catch(() => null)) ?? [];
  const out: Array<{ rel: readonly string[]; data: Uint8Array | 'unknown' }> = [];
  for (const entry of listed) {
    const rel = [...segments, ...entry.rel];
    out.push({ rel, data: await readOrUnknown(b, rel) });
  }
  return out;
}

async function readOrUnknown(b: AvailableScope, rel: readonly string[]): Promise<Uint8Array | 'unknown'> {
  try {
    return (await b.runtime.readFile(b.root, rel, MAX_FILE_BYTES)).data;
  } catch {
    return 'unknown';
  }
}
