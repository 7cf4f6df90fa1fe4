/** Sync of memory through the person's git remote: where it stands, set up, sync now, off, and which workspaces sync too. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { syncStatusSchema } from '../../sync/sync-status';

export type { SyncStatus } from '../../sync/sync-status';

export const syncContract = {
  status: oc.output(syncStatusSchema),
  /** Saves the remote and syncs now; the answer says how that first sync went. */
  setUp: oc.input(z.object({ remote: z.string().trim().min(1).max(2000) })).output(syncStatusSchema),
  now: oc.output(syncStatusSchema),
  off: oc.output(syncStatusSchema),
  /** Turns sync of one workspace's memory on (and syncs now) or off. */
  setWorkspace: oc.input(z.object({ id: z.string().min(1).max(64), on: z.boolean() })).output(syncStatusSchema),
};
