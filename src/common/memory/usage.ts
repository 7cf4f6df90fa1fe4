/**
 * Pins and usage of one memory file, as the sidecar keeps them (design.md: never inside a memory
 * root, so a cloned repository cannot pin itself into an agent's context).
 */
import { z } from 'zod';

export const usageStatsSchema = z.object({
  pinned: z.boolean(),
  /** Agent views, writes and pins, each counted once. */
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: z.string().nullable(),
  lastWriteAt: z.string().nullable(),
});

export type UsageStats = z.infer<typeof usageStatsSchema>;

export const EMPTY_USAGE: UsageStats = Object.freeze({ pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null });
