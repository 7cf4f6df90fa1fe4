/**
 * The inbox's proposals as one query shared by the pane's Inbox button (its count) and the Inbox
 * view, kept live by the server's `inbox.onChange` stream: whenever any process changes the inbox
 * (a hook's harvest, `cairn inbox approve` in a terminal, Harvest now), the list is asked for again.
 * Should the stream be down, the list is still asked for when the window regains focus, when the
 * view opens and after each decision.
 *
 * Besides the proposals: the inbox's damaged files (shown in every view) and how many older files
 * the server did not read (it reads at most MAX_INBOX_PENDING).
 *
 * Invariant: one stream per app (per QueryClient), however many components use the inbox; it ends
 * when the last of them unmounts.
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useApi, type Api } from '../../api/api-context';
import { itemsForView, type DamagedInboxItem, type InboxItem } from './inbox-model';
import { followStream } from './live-stream';

interface Follower {
  users: number;
  stop: () => void;
}
const followers = new WeakMap<QueryClient, Follower>();

function followInbox({ client, orpc }: Api, queryClient: QueryClient): () => void {
  const listKey = orpc.inbox.list.queryKey({ input: {} });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: orpc.inbox.list.key() });
  return followStream((signal) => client.inbox.onChange(undefined, { signal }), {
    onItem: ({ pending }, first) => {
      if (!first) return refresh();
      // The count when the stream (re)opens: a list read before the server listened, or while the
      // stream was down, may have missed a change. One on its way is let through, then compared.
      void (async () => {
        await queryClient.refetchQueries({ queryKey: listKey }, { cancelRefetch: false });
        const cached = queryClient.getQueryData(listKey);
        if (cached?.items.length !== pending) refresh();
      })();
    },
  });
}

/** Keeps the inbox's list live while the calling component is mounted (one stream shared by all). */
function useInboxStream(): void {
  const api = useApi();
  const queryClient = useQueryClient();
  useEffect(() => {
    let follower = followers.get(queryClient);
    if (!follower) {
      follower = { users: 0, stop: followInbox(api, queryClient) };
      followers.set(queryClient, follower);
    }
    const mine = follower;
    mine.users++;
    return () => {
      if (--mine.users > 0) return;
      mine.stop();
      if (followers.get(queryClient) === mine) followers.delete(queryClient);
    };
  }, [api, queryClient]);
}

/**
 * The candidates held back in this view (a long session's run found them past the most it
 * proposes), the surest first, kept live by the same stream.
 */
export function useHeldBack(workspaceId: string | null) {
  const { orpc } = useApi();
  useInboxStream();
  const query = useQuery({ ...orpc.inbox.list.queryOptions({ input: { held: true } }), refetchOnWindowFocus: true });
  // The surest first: the next worth a look.
  const items = useMemo<InboxItem[]>(
    () => (query.data ? itemsForView(query.data.items, workspaceId, 'held').sort((a, b) => (b.confidence ?? 0) - (a.confidence ?? 0)) : []),
    [query.data, workspaceId],
  );
  return { query, items };
}

export function useInbox(workspaceId: string | null) {
  const { orpc } = useApi();
  useInboxStream();
  const query = useQuery({ ...orpc.inbox.list.queryOptions({ input: {} }), refetchOnWindowFocus: true });
  const items = useMemo<InboxItem[] | undefined>(() => (query.data ? itemsForView(query.data.items, workspaceId) : undefined), [query.data, workspaceId]);
  // A damaged file belongs to no view: every view shows it, so that it is never out of sight.
  const damaged = useMemo<DamagedInboxItem[]>(() => query.data?.damaged ?? [], [query.data]);
  return { query, items, damaged, unread: query.data?.unread ?? 0 };
}
