/**
 * One memory file as the context for agents sees it (context-builder.ts builds them, the relevance
 * index and memory_search rank them). Its own module, so that the builder and the index can both
 * name it without importing each other.
 */
import type { Scope } from '../../common/memory/constants';
import type { UsageStats } from '../../common/memory/usage';

export interface ContextFile {
  readonly scope: Scope;
  readonly segments: readonly string[];
  /** Virtual path. */
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * This version of the file, as its listing gave it (ListedEntry.version): what is cached of the
   * file (its head, the scanners' verdict) is kept under it. Null when it cannot be trusted yet (a
   * file changed within the last moments), or was not listed (a pinned file past the scope's cap):
   * then nothing of the file is cached.
   */
  readonly version: string | null;
  readonly description: string | null;
  /** The first INDEX_HEAD_BYTES, decoded leniently (for relevance). */
  readonly head: string;
  readonly stats: UsageStats;
}
