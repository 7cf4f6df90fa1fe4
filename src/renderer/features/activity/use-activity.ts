/**
 * Keeps the activity live in the page: one stream (`activity.onChange`) for the window, mounted
 * by the sidebar, which asks for the Activity view's rows and the sidebar's overview (agents seen,
 * inbox counts) again once per burst of changes (memory, the inbox, the seen mark, an agent seen). The truth is the server's; nothing is kept here.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useApi } from '../../api/api-context';

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
          } else soon();
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

export function useActivityOverview() {
  const { orpc } = useApi();
  return useQuery({ ...orpc.activity.overview.queryOptions(), refetchInterval: OVERVIEW_EVERY_MS });
}
