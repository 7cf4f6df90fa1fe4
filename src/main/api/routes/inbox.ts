/**
 * The inbox routes: proposals and held changes, approving (as the person, undoable), rejecting, review mode.
 * A proposal waiting for a decision names the file approving it without naming one writes to
 * (default-target.ts: a category kept in a folder of its name gets that folder's file), so the card
 * never shows one file and the approval write another.
 */
import type { InboxItemView } from '../../../common/api/contract';
import { SCOPES } from '../../../common/memory/constants';
import { resolveDefaultTarget } from '../../inbox/default-target';
import { approveItem, rejectItem, rejectRestoring } from '../../inbox/inbox-review';
import { changeSummary, type ChangeSource, type InboxItem } from '../../inbox/inbox-store';
import { reviewKey } from '../../inbox/review-mode';
import type { MemorySession } from '../../memory/session';
import { os, withSession } from '../base';
import type { RouterContext } from '../context';
import { notified } from '../notified';

/** Where a change from elsewhere came from, as the API gives it. */
function fromOut(from: ChangeSource['from']): InboxItemView['from'] {
  if (!from) return null;
  return from.kind === 'pull'
    ? { kind: 'pull', remote: null, author: from.author, commit: from.commit, flag: from.flag, conflict: false }
    : { kind: 'sync', remote: from.remote, author: null, commit: from.commit, flag: from.flag, conflict: from.conflict === true };
}

/**
 * Where approving each undecided proposal writes when no file is named, by item id: resolved in
 * the session of the workspace it came from, as its approval there resolves it. A workspace that
 * cannot be opened now leaves the suggested file (the approval would say why).
 */
async function approvalTargets(items: readonly InboxItem[], context: RouterContext): Promise<Map<string, string>> {
  const sessions = new Map<string | null, Promise<MemorySession | null>>();
  const sessionOf = (workspaceId: string | null): Promise<MemorySession | null> => {
    let session = sessions.get(workspaceId);
    if (!session) {
      session = context.registry.session(workspaceId).catch(() => null);
      sessions.set(workspaceId, session);
    }
    return session;
  };
  const targets = new Map<string, string>();
  await Promise.all(
    items.map(async (item) => {
      if (item.kind !== 'memory' || (item.status !== 'pending' && item.status !== 'held')) return;
      const session = await sessionOf(item.source.workspaceId);
      if (session) targets.set(item.id, await resolveDefaultTarget(item.target, session));
    }),
  );
  return targets;
}

/** An inbox item as the API gives it (a change's sha256 and checkout stay inside); `target`: where its approval goes. */
function inboxItemOut(item: InboxItem, target?: string): InboxItemView {
  const decided = { workspaceId: item.source.workspaceId, decidedAt: item.decidedAt ?? null, approvedTo: item.approvedTo ?? null };
  if (item.kind === 'change') {
    const c = item.change;
    return {
      id: item.id,
      kind: 'change',
      createdAt: item.createdAt,
      status: item.status,
      category: null,
      text: changeSummary(c),
      scope: c.scope,
      confidence: null,
      rationale: '',
      evidence: [],
      target: c.newPath ?? c.path,
      agent: null,
      sessionId: '',
      extractor: 'review',
      ...decided,
      change: { command: c.command, path: c.path, newPath: c.newPath, before: c.before, after: c.after },
      from: fromOut(item.source.from),
    };
  }
  const c = item.candidate;
  return {
    id: item.id,
    kind: 'memory',
    createdAt: item.createdAt,
    status: item.status,
    category: c.category,
    text: c.text,
    scope: c.scope,
    confidence: c.confidence,
    rationale: c.rationale,
    evidence: c.evidence.map((e) => ({ messageId: e.messageId, quote: e.quote, speaker: e.speaker ?? null, at: e.at ?? null })),
    target: target ?? item.target,
    agent: item.source.agent,
    sessionId: item.source.sessionId,
    extractor: item.source.extractor,
    ...decided,
    change: null,
    from: null,
  };
}

export const inbox = {
  list: os.inbox.list.handler(async ({ input, context }) => {
    const { items, damaged, unread } = context.inbox.listing(input.all ? undefined : input.held ? 'held' : 'pending');
    const targets = await approvalTargets(items, context);
    return { items: items.map((item) => inboxItemOut(item, targets.get(item.id))), damaged, unread };
  }),
  approve: os.inbox.approve.use(withSession).handler(async ({ input, context }) => {
    const outcome = await approveItem(context.inbox, context.service, context.session, input.id, { to: input.to ?? undefined, text: input.text ?? undefined });
    if (outcome.status === 'conflict') return { status: 'conflict' as const, message: outcome.message };
    if (outcome.status !== 'approved') return { status: 'error' as const, message: 'Nothing was approved.' };
    const message =
      outcome.item.kind === 'change'
        ? outcome.item.source.from?.kind === 'pull'
          ? `Approved: agents get ${outcome.path} as the pull left it.`
          : `Applied: ${changeSummary(outcome.item.change)}.`
        : `Added to ${outcome.path}${outcome.created ? ' (a new file)' : ''}.`;
    return { status: 'ok' as const, message, path: outcome.path };
  }),
  reject: os.inbox.reject.use(withSession).handler(async ({ input, context }) => {
    const outcome = await rejectRestoring(context.inbox, context.service, context.session, input.id);
    if (outcome.status === 'conflict') return { status: 'error' as const, message: outcome.message };
    const pulled = outcome.status === 'rejected' && outcome.item.kind === 'change' && outcome.item.source.from?.kind === 'pull';
    return { status: 'ok' as const, message: pulled ? 'Rejected; the file has its text from before the pull again.' : 'Rejected; the same text will not be proposed again for 90 days.' };
  }),
  reviewScopes: os.inbox.reviewScopes.use(withSession).handler(({ context }) => {
    const on = new Set(context.registry.settings().reviewScopes);
    return SCOPES.map((scope) => {
      const key = reviewKey(scope, context.session);
      return { scope, key, on: key !== null && on.has(key) };
    });
  }),
  rejectSession: os.inbox.rejectSession.handler(({ input, context }) => {
    const items = context.inbox.list('pending').filter((i) => i.kind === 'memory' && i.source.sessionId === input.sessionId);
    for (const item of items) rejectItem(context.inbox, item.id);
    return { status: 'ok' as const, message: `Rejected ${items.length} proposal${items.length === 1 ? '' : 's'} from that session.` };
  }),
  onChange: os.inbox.onChange.handler(async function* ({ context, signal }) {
    yield* notified(signal, (wake) => context.harvest?.onInboxChange(wake) ?? (() => {}), () => ({ pending: context.inbox.list('pending').length }));
  }),
};
