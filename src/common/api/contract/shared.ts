/**
 * What several features of the API share: how a workspace, a memory path and a digest are given,
 * what the content scanners say, and the outcome of a change a person asked for. Results that a
 * person must act on (a refusal, a conflict on save) are typed unions, not exceptions: a
 * procedure whose answer has an `error` status answers a person-fixable error with it
 * (src/main/api/errors.ts).
 */
import { z } from 'zod';

/** A workspace id, or null for the global scope alone (the settings panel). */
export const workspaceRef = z.string().min(1).max(64).nullable();
export const memoryPath = z.string().min(1).max(1024);
export const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const scanFlagSchema = z.object({ kind: z.enum(['secret', 'injection']), rule: z.string(), line: z.number().int() });

export const scanWarningSchema = scanFlagSchema.extend({ message: z.string() });

/** The outcome of a change a person asked for. */
export const changeResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);

export const saveResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), sha256, warnings: z.array(scanWarningSchema) }),
  z.object({ status: z.literal('conflict'), kind: z.enum(['changed', 'deleted', 'exists']), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);
