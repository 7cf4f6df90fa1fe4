/**
 * The inbox's proposals as one query shared by the pane's Inbox button (its count) and the Inbox
 * view. There is no inbox change event yet: the list is asked for when the view opens, after each
 * decision, on Refresh, when the window regains focus, and once a minute for the count.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useApi } from '../../api/api-context';
import { itemsForView, type InboxItem } from './inbox-model';

export const INBOX_POLL_MS = 60_000;

export function useInbox(workspaceId: string | null) {
  const { orpc } = useApi();
  const query = useQuery({ ...orpc.inbox.list.queryOptions({ input: {} }), refetchOnWindowFocus: true, refetchInterval: INBOX_POLL_MS });
  const items = useMemo<InboxItem[] | undefined>(() => (query.data ? itemsForView(query.data.items, workspaceId) : undefined), [query.data, workspaceId]);
  return { query, items };
}
