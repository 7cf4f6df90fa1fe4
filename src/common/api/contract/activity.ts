/**
 * What agents did, for a person: the Activity view's rows across every workspace and scope (the
 * history's agents' versions, the inbox's proposals and held changes), each one's diff, the
 * person's "Mark all seen", which agents each workspace has seen, and each workspace's pending
 * inbox items (the sidebar's counts). The rows' one order and the filter's one test live here too,
 * so the server's listing and the page's merge of rows it is sent live cannot disagree.
 */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { MAX_AGENT_NAME, MAX_AGENT_SESSION } from '../../activity/agents';
import { SCOPES } from '../../memory/constants';

const agentRefSchema = z.object({ name: z.string().min(1).max(MAX_AGENT_NAME), session: z.string().max(MAX_AGENT_SESSION) });

/** What a row did: a file's create, edit, rename or delete; a change held for review; a proposal into the Inbox; a sync's incoming change. */
const ACTIVITY_KINDS = ['create', 'edit', 'rename', 'delete', 'held', 'proposal', 'sync'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** How many rows a listing holds unless it asks for another number. */
export const ACTIVITY_LIMIT = 500;

const activityRowSchema = z.object({
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

const activityFilterSchema = z.object({
  workspaceId: z.string().max(64).nullable().default(null),
  scope: z.enum(SCOPES).nullable().default(null),
  /** An agent's name as recorded (`claude-code`...). */
  agent: z.string().max(100).nullable().default(null),
  limit: z.number().int().min(1).max(2000).default(ACTIVITY_LIMIT),
});
export type ActivityFilterInput = z.input<typeof activityFilterSchema>;

/** What a listing answers: its rows, and the agents and workspaces met in all rows (the filters' choices, each sorted). */
export interface ActivityRowsListing {
  readonly rows: readonly ActivityRow[];
  readonly agents: readonly string[];
  readonly workspaces: ReadonlyArray<string | null>;
}

/** Newest first; rows of the same time by id, descending (a version's id starts with its time). */
export function compareActivityRows(a: Pick<ActivityRow, 'at' | 'id'>, b: Pick<ActivityRow, 'at' | 'id'>): number {
  return a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The workspaces met, in one order whoever gathers them (ids sorted; no workspace last). */
export function sortedWorkspaces(ids: Iterable<string | null>): Array<string | null> {
  return [...ids].sort((a, b) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1));
}

/** Whether `row` passes `filter` (a null or absent field lets everything through). */
export function activityRowPasses(row: ActivityRow, filter: ActivityFilterInput): boolean {
  if (filter.workspaceId != null && row.workspaceId !== filter.workspaceId) return false;
  if (filter.scope != null && row.scope !== filter.scope) return false;
  if (filter.agent != null && row.agent?.name !== filter.agent) return false;
  return true;
}

/**
 * `listing` (the answer to `filter`) with `fresh` rows of changes made since it was read: each
 * new one in its place by the rows' order, those the filter leaves out only adding to the filters'
 * choices, cut to the filter's limit. The same rows in the same order as listing everything again,
 * as long as no row it holds has gone meanwhile (the history collected, an inbox item decided: those
 * are told as a change, and the listing is read again).
 */
export function mergeActivityRows<L extends ActivityRowsListing>(listing: L, fresh: readonly ActivityRow[], filter: ActivityFilterInput): L {
  const have = new Set(listing.rows.map((r) => r.id));
  const added = fresh.filter((r) => !have.has(r.id)).sort(compareActivityRows);
  if (added.length === 0) return listing;
  const agents = new Set(listing.agents);
  for (const r of added) if (r.agent) agents.add(r.agent.name);
  const workspaces = sortedWorkspaces(new Set([...listing.workspaces, ...added.map((r) => r.workspaceId)]));
  const passing = added.filter((r) => activityRowPasses(r, filter));
  if (passing.length === 0 && agents.size === listing.agents.length && workspaces.length === listing.workspaces.length) return listing;
  const rows: ActivityRow[] = [];
  let i = 0;
  let j = 0;
  while (i < listing.rows.length || j < passing.length) {
    const takeNew = j < passing.length && (i >= listing.rows.length || compareActivityRows(passing[j]!, listing.rows[i]!) < 0);
    rows.push(takeNew ? passing[j++]! : listing.rows[i++]!);
  }
  return { ...listing, rows: rows.slice(0, filter.limit ?? ACTIVITY_LIMIT), agents: [...agents].sort(), workspaces };
}

const agentSeenSchema = z.object({ workspaceId: z.string(), name: z.string(), session: z.string(), at: z.string(), connected: z.boolean() });
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
  /**
   * After `ready`, what changed: `rows`, the rows of changes made since the last event (in any
   * process), for the page to merge into the listings it holds (mergeActivityRows) rather than ask
   * for them again; `overview`, the agents seen (ask for the overview again); `change`, anything
   * else (the inbox, the seen mark, a history that no longer holds where the stream was): ask for
   * the listings and the overview again.
   */
  onChange: oc
    .input(z.void())
    .output(
      eventIterator(
        z.discriminatedUnion('type', [
          z.object({ type: z.literal('ready') }),
          z.object({ type: z.literal('rows'), rows: z.array(activityRowSchema) }),
          z.object({ type: z.literal('overview') }),
          z.object({ type: z.literal('change') }),
        ]),
      ),
    ),
};
