/** Consolidation of one scope root (`cairn consolidate`): nothing is written until apply. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { SCOPES } from '../../memory/constants';
import { consolidationCostSchema, consolidationProposalSchema, consolidationRefusalSchema, consolidationSinceSchema } from '../../consolidation/proposal';
import { changeResultSchema, memoryPath, workspaceRef } from './shared';

export const consolidationContract = {
  /** Proposes (replacing the scope's older proposal), or says there is nothing to consolidate. */
  propose: oc
    .input(z.object({ workspaceId: workspaceRef, scope: z.enum(SCOPES), days: z.number().int().min(1).max(3650).optional() }))
    .output(
      z.discriminatedUnion('status', [
        // `cost`: what asking a model sent (absent when none was asked; a proposal keeps it too).
        z.object({ status: z.literal('proposed'), proposal: consolidationProposalSchema, summary: z.string(), cost: consolidationCostSchema.optional() }),
        // `refused`: the extractor's changes the checks refused, with why (a model's answer, every change refused, is 'nothing' too).
        z.object({ status: z.literal('nothing'), since: consolidationSinceSchema, extractorCalled: z.boolean(), summary: z.string(), refused: z.array(consolidationRefusalSchema), cost: consolidationCostSchema.optional() }),
        z.object({ status: z.literal('error'), message: z.string() }),
      ]),
    ),
  /** The proposals of the workspace's scope roots, newest first (every state). */
  list: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ proposals: z.array(consolidationProposalSchema) })),
  get: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(consolidationProposalSchema),
  /** Applies all its changes, or those about `only`, as one undoable change; moved-on files are skipped (result.skipped). */
  apply: oc
    .input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64), only: z.array(memoryPath).max(200).optional() }))
    .output(z.discriminatedUnion('status', [z.object({ status: z.literal('ok'), proposal: consolidationProposalSchema }), z.object({ status: z.literal('error'), message: z.string() })])),
  discard: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(changeResultSchema),
};
