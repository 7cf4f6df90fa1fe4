/**
 * Pins and usage of one memory file, as the sidecar keeps them (docs/architecture.md: never inside a memory
 * root, so a cloned repository cannot pin itself into an agent's context). Plain types, no zod: the
 * prompt hook loads this module.
 */
import type { Actor } from './constants';

export interface UsageStats {
  readonly pinned: boolean;
  /** Agent views and writes, each counted once (a pin or an unpin is not a use). */
  readonly accessCount: number;
  readonly lastAccessedAt: string | null;
  readonly lastWriteAt: string | null;
  /** Who made the latest write (null when unknown: recorded before Cairn kept it, or never written). */
  readonly lastWriteBy: Actor | null;
}

export const EMPTY_USAGE: UsageStats = Object.freeze({ pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null });
