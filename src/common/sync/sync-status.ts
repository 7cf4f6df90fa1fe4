/**
 * What a sync did and where sync stands, as the sync records it (<home>/sync/state.json), the
 * CLI prints it and the app's Settings › Sync shows it. The remote is always as shown: without a
 * password or token (main/sync/sync-settings.ts).
 */
import { z } from 'zod';

export const syncRunSchema = z.object({
  at: z.string(),
  /** `offline`: the remote could not be reached (normal: this machine's commits wait for the next sync). */
  outcome: z.enum(['synced', 'offline', 'failed']),
  /** What went wrong, in words; null when nothing did. */
  error: z.string().nullable(),
  /** Memory paths sent, taken in, held in the Inbox for review, and changed on both sides (the other side in the Inbox). */
  sent: z.array(z.string()),
  received: z.array(z.string()),
  held: z.array(z.string()),
  conflicts: z.array(z.string()),
  /** Commits of this machine not on the remote yet. */
  waiting: z.number().int(),
});
export type SyncRun = z.infer<typeof syncRunSchema>;

export const syncStatusSchema = z.object({
  /** The remote as shown; null: sync is off. */
  remote: z.string().nullable(),
  lastSyncedAt: z.string().nullable(),
  lastRun: syncRunSchema.nullable(),
  /** Incoming files waiting in the Inbox for the person. */
  held: z.number().int(),
  /** The registered workspaces, each with whether its memory syncs too (off until turned on). */
  workspaces: z.array(z.object({ id: z.string(), name: z.string(), syncing: z.boolean() })).default([]),
});
export type SyncStatus = z.infer<typeof syncStatusSchema>;
