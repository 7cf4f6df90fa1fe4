/** Memory grown from agents' sessions: where one workspace's harvest stands, and running it now. */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { changeResultSchema, workspaceRef } from './shared';

/** One harvest run of a session, as a workspace's status records it. */
const harvestRunSchema = z.object({
  at: z.string(),
  agent: z.enum(['claude', 'codex', 'copilot', 'gemini']),
  sessionId: z.string(),
  outcome: z.enum(['succeeded', 'nothing-found', 'failed']),
  proposed: z.number().int(),
  /** Candidates the checks refused, by reason (only reasons that refused some). */
  skipped: z.record(z.string(), z.number().int()),
  /** What the run sent to a model (calls, characters, and tokens when the API reported them); absent before it was recorded. */
  cost: z.object({ calls: z.number().int(), chars: z.number().int(), inputTokens: z.number().int().nullable(), outputTokens: z.number().int().nullable() }).optional(),
  /** Candidates that passed past the most a run proposes, kept in the inbox as held. */
  heldBack: z.number().int().optional(),
  /** The run stopped at its budget: the chunks of the session left for the next run, and the budget. */
  stopped: z.object({ chunksLeft: z.number().int(), budget: z.object({ calls: z.number().int(), chars: z.number().int() }) }).optional(),
});

/**
 * Where one workspace's harvest stands, as its status line shows it: off; idle; waiting (sessions
 * queued); harvesting (a session, chunk i of n); the last run's outcome; a failure with its
 * reason and when it is retried.
 */
const harvestStatusSchema = z.object({
  workspaceId: z.string(),
  enabled: z.boolean(),
  state: z.enum(['off', 'idle', 'waiting', 'harvesting', 'failed']),
  /** Sessions queued for this workspace, the one running included. */
  queued: z.number().int(),
  current: z.object({ agent: z.enum(['claude', 'codex', 'copilot', 'gemini']), sessionId: z.string(), chunk: z.number().int(), chunks: z.number().int() }).nullable(),
  lastRun: harvestRunSchema.nullable(),
  /** The last run that proposed something, kept when a later run proposed nothing. */
  lastProposing: harvestRunSchema.nullable().default(null),
  failure: z.object({ message: z.string(), attempts: z.number().int(), retryAt: z.string().nullable() }).nullable(),
});
export type HarvestStatus = z.infer<typeof harvestStatusSchema>;

export const harvestContract = {
  status: oc.input(z.object({ workspaceId: workspaceRef })).output(harvestStatusSchema),
  /** Queues the workspace's recent sessions (Claude Code and Codex) and harvests them now. */
  now: oc.input(z.object({ workspaceId: workspaceRef })).output(changeResultSchema),
  /** Retries a failed harvest now instead of at its retry time. */
  retry: oc.input(z.object({ workspaceId: workspaceRef })).output(changeResultSchema),
  /** The workspace's status, then again each time it changes. */
  onStatus: oc.input(z.object({ workspaceId: workspaceRef })).output(eventIterator(harvestStatusSchema)),
};
