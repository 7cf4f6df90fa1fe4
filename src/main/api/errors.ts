/**
 * The one place the API turns an error into what the client is told (an oRPC middleware every
 * route runs inside, src/main/api/base.ts):
 *
 * - an error a person can fix (common/errors.ts, CairnError) is answered with its message as it
 *   is: as the procedure's typed refusal (`{ status: 'error', message }`) when its answer has one,
 *   else as a BAD_REQUEST;
 * - an ORPCError is already an answer (invalid input, NOT_IMPLEMENTED, a route's own BAD_REQUEST)
 *   and passes as it is;
 * - anything else is Cairn's own failure: its stack goes to the log (stderr) and the client gets
 *   a 500 whose message names nothing of it (no stack, no host path).
 *
 * The same holds for an error thrown while a stream (an event iterator) is being read.
 */
import { mapEventIterator } from '@orpc/client';
import { ORPCError, os as builder, type AnyProcedure } from '@orpc/server';
import { isPersonFixable } from '../../common/errors';

/** What the client is told of a failure that is Cairn's own. */
export const INTERNAL_FAILURE_MESSAGE = 'Cairn could not complete this; see its log.';

/** An error as the client is told it, thrown (person-fixable: BAD_REQUEST; Cairn's own: logged, 500). */
export function publicError(err: unknown): ORPCError<string, unknown> {
  if (err instanceof ORPCError) return err;
  if (isPersonFixable(err)) return new ORPCError('BAD_REQUEST', { message: err.message });
  process.stderr.write(`cairn: ${(err as Error)?.stack ?? String(err)}\n`);
  return new ORPCError('INTERNAL_SERVER_ERROR', { message: INTERNAL_FAILURE_MESSAGE });
}

/** The procedure's typed refusal carrying `message`, or null when its answer has no `error` status. */
async function refusalOf(procedure: AnyProcedure, message: string): Promise<{ status: 'error'; message: string } | null> {
  const schema = procedure['~orpc'].outputSchema;
  if (!schema) return null;
  const refusal = { status: 'error' as const, message };
  const checked = await schema['~standard'].validate(refusal);
  if (checked.issues) return null;
  // A schema that takes any object (every field defaulted) parses the refusal too, into something
  // else: only an answer that keeps the status and the message is a refusal the client reads.
  const kept = checked.value as { status?: unknown; message?: unknown } | null;
  return kept?.status === 'error' && kept.message === message ? refusal : null;
}

function isAsyncIterator(value: unknown): value is AsyncIterator<unknown, unknown, unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value && typeof (value as { next?: unknown }).next === 'function';
}

export const answerErrors = builder.middleware(async ({ next, procedure }) => {
  let result;
  try {
    result = await next();
  } catch (err) {
    if (isPersonFixable(err)) {
      const refusal = await refusalOf(procedure, err.message);
      if (refusal) return { output: refusal, context: {} };
    }
    throw publicError(err);
  }
  if (!isAsyncIterator(result.output)) return result;
  return {
    ...result,
    output: mapEventIterator(result.output, { value: async (value) => value, error: async (err) => publicError(err) }),
  };
});
