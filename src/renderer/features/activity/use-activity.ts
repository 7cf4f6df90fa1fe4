/**
 * Keeps the activity live in the page: one stream (`activity.onChange`) for the window, mounted
 * by the sidebar. A memory change comes as its rows, merged into every Activity listing the page
 * holds (mergeActivityRows: the same rows and order a new listing would answer), so an agent's
 * change is painted without listing the whole history again; the listings are asked for again
 * only when the stream starts (`ready`) or says something else changed (the inbox, the seen mark),
 * and the sidebar's overview (agents seen, inbox counts) when that may have changed. The truth is
 * the server's: what is merged is what it sent.
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { mergeActivityRows, type ActivityFilterInput, type ActivityRow } from '../../../common/api/contract';
import { useApi } from '../../api/api-context';

type Listing = Parameters<typeof mergeActivityRows>[0];

/** How long a burst of changes is gathered before the queries are asked again. */
const REFRESH_DELAY_MS = 30;
/** An agent's session whose process was killed writes no end: the overview is asked again this often too. */
const OVERVIEW_EVERY_MS = 15_000;

export function useActivityStream(): void {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let attempt = 0;
    const refresh = () => {
      void queryClient.invalidateQueries({ queryKey: orpc.activity.list.key() });
      void queryClient.invalidateQueries({ queryKey: orpc.activity.overview.key() });
    };
    const overview = () => void queryClient.invalidateQueries({ queryKey: orpc.activity.overview.key() });
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = null;
        refresh();
      }, REFRESH_DELAY_MS);
    };
    const run = async () => {
      try {
        const stream = await client.activity.onChange(undefined, { signal: controller.signal });
        for await (const item of stream) {
          if (item.type === 'ready') {
            attempt = 0;
            refresh();
          } else if (item.type === 'rows') mergeRows(queryClient, orpc.activity.list.key(), item.rows);
          else if (item.type === 'overview') overview();
          else soon();
        }
      } catch {
        // Dropped: try again below.
      }
      if (controller.signal.aborted) return;
      retry = setTimeout(run, Math.min(10_000, 500 * 2 ** attempt++));
    };
    void run();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
      if (retry) clearTimeout(retry);
    };
  }, [client, orpc, queryClient]);
}

/**
 * Merges `rows` into every listing held under `key`. A listing being read meanwhile is read again
 * instead: its answer may have been made before these rows and land after them.
 */
function mergeRows(queryClient: QueryClient, key: readonly unknown[], rows: readonly ActivityRow[]): void {
  for (const query of queryClient.getQueryCache().findAll({ queryKey: key })) {
    if (query.state.fetchStatus === 'fetching') {
      void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true });
      continue;
    }
    const data = query.state.data as Listing | undefined;
    if (data === undefined) continue;
    const filter: ActivityFilterInput = (query.queryKey[1] as { input?: ActivityFilterInput } | undefined)?.input ?? {};
    const merged = mergeActivityRows(data, rows, filter);
    if (merged !== data) queryClient.setQueryData(query.queryKey, merged);
  }
}

export function useActivityOverview() {
  const { orpc } = useApi();
  return useQuery({ ...orpc.activity.overview.queryOptions(), refetchInterval: OVERVIEW_EVERY_MS });
}
