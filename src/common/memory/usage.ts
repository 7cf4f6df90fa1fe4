/**
 * Pins and usage of one memory file, as the sidecar keeps them (docs/architecture.md: never inside a memory
 * root, so a cloned repository cannot pin itself into an agent's context).
 */
import { z } from 'zod';
import { ACTORS } from './constants';

export const usageStatsSchema = z.object({
  pinned: z.boolean(),
  /** Agent views and writes, each counted once (a pin or an unpin is not a use). */
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: z.string().nullable(),
  lastWriteAt: z.string().nullable(),
  /** Who made the latest write (null when unknown: recorded before Cairn kept it, or never written). */
  lastWriteBy: z.enum(ACTORS).nullable(),
});

export type UsageStats = z.infer<typeof usageStatsSchema>;

export const EMPTY_USAGE: UsageStats = Object.freeze({ pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null });
