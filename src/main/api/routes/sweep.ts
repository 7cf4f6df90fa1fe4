/** The consolidation routes: propose (cancellable), list, look at, apply and discard a scope root's sweep. */
import { ORPCError } from '@orpc/server';
import { sweepExtractorFor } from '../../sweep/sweep-backends';
import type { Sweeps } from '../../sweep/sweeps';
import type { RouterContext } from '../context';
import { os, withSession } from '../base';

function sweepsOf(context: RouterContext): Sweeps {
  if (!context.sweeps) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no consolidation.' });
  return context.sweeps;
}

export const sweep = {
  propose: os.sweep.propose.use(withSession).handler(async ({ input, context, signal }) => {
    const sweeps = sweepsOf(context);
    // The client's Cancel aborts `signal` (oRPC passes it over HTTP, WebSocket and MessagePort):
    // the proposal stops, nothing is stored, the lease is freed; a cancel is no server error.
    try {
      // The extractor is the setting sweepExtractor's (rules, or a model configured as the harvest's).
      const extractor = sweepExtractorFor(context.registry.settings());
      const outcome = await sweeps.propose(context.session, { scope: input.scope, extractor, ...(input.days !== undefined ? { days: input.days } : {}), ...(signal ? { signal } : {}) });
      // "Nothing" says what the checks refused too (a model's answer, every change refused).
      return outcome.status === 'nothing' ? { ...outcome, refused: [...outcome.refused] } : outcome;
    } catch (err) {
      if (signal?.aborted) return { status: 'error' as const, message: 'Cancelled: nothing was proposed and nothing was written.' };
      throw err;
    }
  }),
  list: os.sweep.list.use(withSession).handler(({ context }) => ({ proposals: sweepsOf(context).list(context.session) })),
  get: os.sweep.get.use(withSession).handler(({ input, context }) => sweepsOf(context).get(input.id, context.session)),
  apply: os.sweep.apply.use(withSession).handler(async ({ input, context }) => ({
    status: 'ok' as const,
    proposal: await sweepsOf(context).apply(input.id, context.session, input.only ? { only: input.only } : {}),
  })),
  discard: os.sweep.discard.use(withSession).handler(({ input, context }) => ({
    status: 'ok' as const,
    message: `Discarded proposal ${sweepsOf(context).discard(input.id, context.session).id}; nothing was written.`,
  })),
};
