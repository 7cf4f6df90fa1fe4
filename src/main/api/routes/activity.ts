/**
 * The activity routes: what agents did across every workspace (activity/activity-feed.ts), each
 * row's sides, the person's "Mark all seen" (kept in seen.json by its owner, so every window and
 * reload agrees), agents seen per workspace and each workspace's pending inbox items, and a stream
 * that says when any of it may have changed (a memory change in any process, the inbox, a mark, an
 * agent seen or connecting).
 */
import { AgentsSeen } from '../../activity/agents-seen';
import { listActivity, readActivity } from '../../activity/activity-feed';
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
    let dirty = false;
    let wake: (() => void) | null = null;
    const poke = () => {
      dirty = true;
      wake?.();
    };
    const offChanges = context.changes.subscribe(poke);
    const offInbox = context.harvest?.onInboxChange(poke);
    const offAgents = new AgentsSeen(context.registry.home).watch(poke);
    const offMeta = context.changes.onMeta?.((what) => {
      if (what === 'seen') poke();
    });
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([context.changes.ready?.(), aborted]);
      if (!signal?.aborted) yield { type: 'ready' as const };
      while (!signal?.aborted) {
        if (!dirty) {
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
          continue;
        }
        dirty = false;
        yield { type: 'change' as const };
      }
    } finally {
      offChanges();
      offInbox?.();
      offMeta?.();
      offAgents();
    }
  }),
};
