/**
 * The activity routes: what agents did across every workspace (activity/activity-feed.ts), each
 * row's sides, the person's "Mark all seen" (kept in seen.json by its owner, so every window and
 * reload agrees), agents seen per workspace and each workspace's pending inbox items, and a stream
 * that says what changed: a memory change in any process as the rows it added (the page merges
 * them: listing everything again per change is what a busy home cannot afford), an agent seen or
 * connecting as the overview's, and the inbox or a mark as a change to ask for again.
 */
import { AgentsSeen } from '../../activity/agents-seen';
import { ActivityFollower, listActivity, readActivity } from '../../activity/activity-feed';
import { MemoryToolError } from '../../../common/memory/errors';
import { os } from '../base';

/** The name of the Activity view's mark among the person's seen marks. */
export const ACTIVITY_VIEW = 'activity';

export const activity = {
  list: os.activity.list.handler(({ input, context }) => {
    const listing = listActivity(context.versions.store, context.inbox, input);
    return { ...listing, seenAt: context.seen.lookedAt(ACTIVITY_VIEW) };
  }),
  read: os.activity.read.handler(({ input, context }) => {
    const sides = readActivity(context.versions.store, context.inbox, input.id);
    if (!sides) throw new MemoryToolError('That change is no longer in the history or the inbox (it may have been collected).');
    return { row: sides.row, before: sides.before ?? null, after: sides.after ?? null, beforeKnown: sides.before !== undefined, afterKnown: sides.after !== undefined };
  }),
  markSeen: os.activity.markSeen.handler(async ({ input, context }) => {
    const at = Number.isNaN(Date.parse(input.at)) ? context.seen.stamp() : new Date(input.at).toISOString();
    return { seenAt: await context.seen.markLooked(ACTIVITY_VIEW, at) };
  }),
  overview: os.activity.overview.handler(({ context }) => {
    const counts = new Map<string | null, number>();
    for (const item of context.inbox.list('pending')) counts.set(item.source.workspaceId, (counts.get(item.source.workspaceId) ?? 0) + 1);
    return {
      agents: new AgentsSeen(context.registry.home).list(),
      inboxPending: [...counts].map(([workspaceId, count]) => ({ workspaceId, count })),
    };
  }),
  onChange: os.activity.onChange.handler(async function* ({ context, signal }) {
    // What is due: rows of memory changes to look for, the overview, everything.
    let rowsDue = false;
    let overviewDue = false;
    let changeDue = false;
    let wake: (() => void) | null = null;
    const poke = (what: 'rows' | 'overview' | 'change') => () => {
      if (what === 'rows') rowsDue = true;
      else if (what === 'overview') overviewDue = true;
      else changeDue = true;
      wake?.();
    };
    const offChanges = context.changes.subscribe(poke('rows'));
    const offInbox = context.harvest?.onInboxChange(poke('change'));
    const offAgents = new AgentsSeen(context.registry.home).watch(poke('overview'));
    const seenChanged = poke('change');
    const offMeta = context.changes.onMeta?.((what) => {
      if (what === 'seen') seenChanged();
    });
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([context.changes.ready?.(), aborted]);
      // From here on: the page lists after `ready`, so every version recorded later reaches it as rows (a row listed too is merged once).
      const follower = new ActivityFollower(context.versions.store);
      if (!signal?.aborted) yield { type: 'ready' as const };
      while (!signal?.aborted) {
        if (!rowsDue && !overviewDue && !changeDue) {
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
          continue;
        }
        if (rowsDue) {
          rowsDue = false;
          const rows = follower.next();
          if (rows === null) changeDue = true;
          else if (rows.length > 0 && !changeDue) yield { type: 'rows' as const, rows };
        }
        if (changeDue) {
          changeDue = false;
          overviewDue = false;
          yield { type: 'change' as const };
        } else if (overviewDue) {
          overviewDue = false;
          yield { type: 'overview' as const };
        }
      }
    } finally {
      offChanges();
      offInbox?.();
      offMeta?.();
      offAgents();
    }
  }),
};
