/** The consolidation routes: propose (cancellable), list, look at, apply and discard a scope root's consolidation. */
import { ORPCError } from '@orpc/server';
import { consolidationExtractorFor } from '../../consolidation/consolidation-backends';
import type { Consolidations } from '../../consolidation/consolidations';
import type { RouterContext } from '../context';
import { os, withSession } from '../base';

function consolidationsOf(context: RouterContext): Consolidations {
  if (!context.consolidations) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no consolidation.' });
  return context.consolidations;
}

export const consolidation = {
  propose: os.consolidation.propose.use(withSession).handler(async ({ input, context, signal }) => {
    const consolidations = consolidationsOf(context);
    // The client's Cancel aborts `signal` (oRPC passes it over HTTP, WebSocket and MessagePort):
    // the proposal stops, nothing is stored, the lease is freed; a cancel is no server error.
    try {
      // The extractor is the setting consolidationExtractor's (rules, or a model configured as the harvest's).
      const extractor = consolidationExtractorFor(context.registry.settings());
      const outcome = await consolidations.propose(context.session, { scope: input.scope, extractor, ...(input.days !== undefined ? { days: input.days } : {}), ...(signal ? { signal } : {}) });
      // "Nothing" says what the checks refused too (a model's answer, every change refused).
      return outcome.status === 'nothing' ? { ...outcome, refused: [...outcome.refused] } : outcome;
    } catch (err) {
      if (signal?.aborted) return { status: 'error' as const, message: 'Cancelled: nothing was proposed and nothing was written.' };
      throw err;
    }
  }),
  list: os.consolidation.list.use(withSession).handler(({ context }) => ({ proposals: consolidationsOf(context).list(context.session) })),
  get: os.consolidation.get.use(withSession).handler(({ input, context }) => consolidationsOf(context).get(input.id, context.session)),
  apply: os.consolidation.apply.use(withSession).handler(async ({ input, context }) => ({
    status: 'ok' as const,
    proposal: await consolidationsOf(context).apply(input.id, context.session, input.only ? { only: input.only } : {}),
  })),
  discard: os.consolidation.discard.use(withSession).handler(({ input, context }) => ({
    status: 'ok' as const,
    message: `Discarded proposal ${consolidationsOf(context).discard(input.id, context.session).id}; nothing was written.`,
  })),
};
