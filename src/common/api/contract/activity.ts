/**
 * What agents did, for a person: the Activity view's rows across every workspace and scope (the
 * history's agents' versions, the inbox's proposals and held changes), each one's diff, the
 * person's "Mark all seen", which agents each workspace has seen, and each workspace's pending
 * inbox items (the sidebar's counts).
 */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { agentRefSchema } from '../../activity/agents';
import { SCOPES } from '../../memory/constants';

/** What a row did: a file's create, edit, rename or delete; a change held for review; a proposal into the Inbox; a sync's incoming change. */
export const ACTIVITY_KINDS = ['create', 'edit', 'rename', 'delete', 'held', 'proposal', 'sync'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const activityRowSchema = z.object({
  /** `v:<version id>` (a change made) or `i:<inbox item id>` (one waiting in the Inbox). */
  id: z.string(),
  kind: z.enum(ACTIVITY_KINDS),
  at: z.string(),
  workspaceId: z.string().nullable(),
  scope: z.enum(SCOPES),
  path: z.string(),
  /** A rename's former path. */
  oldPath: z.string().nullable(),
  /** Which agent and session (null: not recorded, as in changes made before Cairn recorded it). */
  agent: agentRefSchema.nullable(),
  /** An inbox item's state; null for a change made. */
  status: z.enum(['pending', 'held', 'approved', 'rejected']).nullable(),
  /**
   * Who made a change made: an agent; a sync bringing another machine's change; or outside Cairn
   * (a `git pull` or an editor changing project memory in the checkout). Null for an inbox item.
   */
  by: z.enum(['agent', 'sync', 'external']).nullable().default(null),
});
export type ActivityRow = z.infer<typeof activityRowSchema>;

export const activityFilterSchema = z.object({
  workspaceId: z.string().max(64).nullable().default(null),
  scope: z.enum(SCOPES).nullable().default(null),
  /** An agent's name as recorded (`claude-code`...). */
  agent: z.string().max(100).nullable().default(null),
  limit: z.number().int().min(1).max(2000).default(500),
});

export const agentSeenSchema = z.object({ workspaceId: z.string(), name: z.string(), session: z.string(), at: z.string(), connected: z.boolean() });
export type AgentSeenView = z.infer<typeof agentSeenSchema>;

export const activityContract = {
  /**
   * Rows newest first that pass the filter; the agents and workspaces met in all rows (the
   * filters' choices); and when the person last marked everything seen (null: never).
   */
  list: oc
    .input(activityFilterSchema)
    .output(z.object({ rows: z.array(activityRowSchema), agents: z.array(z.string()), workspaces: z.array(z.string().nullable()), seenAt: z.string().nullable() })),
  /** One row's two sides as text (null: nothing was, or is, there); `known` false when not recorded. */
  read: oc
    .input(z.object({ id: z.string().min(3).max(80) }))
    .output(z.object({ row: activityRowSchema, before: z.string().nullable(), after: z.string().nullable(), beforeKnown: z.boolean(), afterKnown: z.boolean() })),
  /** Marks everything up to `at` seen (a later mark already kept stays); the mark kept. */
  markSeen: oc.input(z.object({ at: z.string().max(40) })).output(z.object({ seenAt: z.string() })),
  /** Agents seen per workspace (connected now, or when last seen), and each workspace's pending inbox items. */
  overview: oc
    .input(z.void())
    .output(z.object({ agents: z.array(agentSeenSchema), inboxPending: z.array(z.object({ workspaceId: z.string().nullable(), count: z.number().int() })) })),
  /** A `change` each time something of the activity may have changed (a memory change in any process, the inbox, the seen mark), after `ready`. */
  onChange: oc.input(z.void()).output(eventIterator(z.discriminatedUnion('type', [z.object({ type: z.literal('ready') }), z.object({ type: z.literal('change') })]))),
};
