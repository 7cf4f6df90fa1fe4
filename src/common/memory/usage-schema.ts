/**
 * The zod schema of UsageStats (./usage.ts), for code that validates usage from outside. Its own
 * module so that what only needs the type and EMPTY_USAGE (the prompt hook, through the context
 * builder and the usage store) does not load zod (~70 ms of CPU at each `cairn context`).
 */
import { z } from 'zod';
import { ACTORS } from './constants';
import type { UsageStats } from './usage';

export const usageStatsSchema = z.object({
  pinned: z.boolean(),
  /** Agent views and writes, each counted once (a pin or an unpin is not a use). */
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: z.string().nullable(),
  lastWriteAt: z.string().nullable(),
  /** Who made the latest write (null when unknown: recorded before Cairn kept it, or never written). */
  lastWriteBy: z.enum(ACTORS).nullable(),
});

/** The schema and the interface say the same (checked by the compiler, both ways). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesType: Same<z.infer<typeof usageStatsSchema>, UsageStats> = true;
void schemaMatchesType;
