/** The harvest routes: where a workspace's harvest stands, running it now, retrying a failure. */
import { ORPCError } from '@orpc/server';
import type { HarvestControl, RouterContext } from '../context';
import { os } from '../base';
import { notified } from '../notified';

function harvestOf(context: RouterContext): HarvestControl {
  if (!context.harvest) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no harvest.' });
  return context.harvest;
}

function workspaceIdOf(workspaceId: string | null): string {
  if (workspaceId === null) throw new ORPCError('BAD_REQUEST', { message: 'Choose a workspace first: harvest works per workspace.' });
  return workspaceId;
}

export const harvest = {
  status: os.harvest.status.handler(({ input, context }) => harvestOf(context).status(workspaceIdOf(input.workspaceId))),
  now: os.harvest.now.handler(async ({ input, context }) => {
    const n = await harvestOf(context).harvestNow(workspaceIdOf(input.workspaceId));
    const message = n === 0 ? 'No session of Claude Code, Codex, Gemini CLI or Copilot CLI was found for this workspace on this machine.' : `Queued ${n} session${n === 1 ? '' : 's'} for harvest; proposals arrive in the inbox.`;
    return { status: 'ok' as const, message };
  }),
  retry: os.harvest.retry.handler(({ input, context }) => {
    const n = harvestOf(context).retry(workspaceIdOf(input.workspaceId));
    return { status: 'ok' as const, message: n === 0 ? 'No failed harvest to retry.' : `Retrying ${n} session${n === 1 ? '' : 's'} now.` };
  }),
  onStatus: os.harvest.onStatus.handler(async function* ({ input, context, signal }) {
    const control = harvestOf(context);
    const workspaceId = workspaceIdOf(input.workspaceId);
    yield* notified(signal, (wake) => control.onStatusChange(wake), () => control.status(workspaceId));
  }),
};
