/** The sync routes: where sync stands, set it up, sync now, turn it off, a workspace's switch (the host's SyncControl). */
import { ORPCError } from '@orpc/server';
import type { RouterContext, SyncControl } from '../context';
import { os } from '../base';

function syncOf(context: RouterContext): SyncControl {
  if (!context.sync) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no sync.' });
  return context.sync;
}

export const sync = {
  status: os.sync.status.handler(({ context }) => syncOf(context).status()),
  setUp: os.sync.setUp.handler(({ input, context }) => syncOf(context).setUp(input.remote)),
  now: os.sync.now.handler(({ context }) => syncOf(context).now()),
  off: os.sync.off.handler(({ context }) => syncOf(context).off()),
  setWorkspace: os.sync.setWorkspace.handler(({ input, context }) => syncOf(context).setWorkspace(input.id, input.on)),
};
