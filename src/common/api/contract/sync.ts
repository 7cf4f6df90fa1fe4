/** Sync of the global memory through the person's git remote: where it stands, set up, sync now, off. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { syncStatusSchema } from '../../sync/sync-status';

export { syncStatusSchema, type SyncStatus, type SyncRun } from '../../sync/sync-status';

export const syncContract = {
  status: oc.output(syncStatusSchema),
  /** Saves the remote and syncs now; the answer says how that first sync went. */
  setUp: oc.input(z.object({ remote: z.string().trim().min(1).max(2000) })).output(syncStatusSchema),
  now: oc.output(syncStatusSchema),
  off: oc.output(syncStatusSchema),
};
