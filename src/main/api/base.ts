/**
 * What every route is built from: the contract's implementer over the router's context, with the
 * API's one error middleware (./errors.ts) around every procedure, and `withSession`, which gives
 * a route the memory session of its input's `workspaceId`.
 */
import { implement } from '@orpc/server';
import { contract } from '../../common/api/contract';
import type { MemorySession } from '../memory/session';
import type { RouterContext } from './context';
import { answerErrors, publicError } from './errors';

const implementer = implement(contract).$context<RouterContext>();

export const os = implementer.use(answerErrors);

/**
 * Resolves the view a request names (`workspaceId`, null: the global scope alone) into
 * `context.session`. A view that cannot be opened (no such workspace, its folder gone) is a bad
 * request, answered as such even by a route whose answer has a typed refusal: that refusal is
 * about the change asked for, not about which view it was asked in.
 */
export const withSession = implementer.middleware(async ({ context, next }, input: { readonly workspaceId: string | null }) => {
  let session: MemorySession;
  try {
    session = await context.registry.session(input.workspaceId);
  } catch (err) {
    throw publicError(err);
  }
  return next({ context: { session } });
});

