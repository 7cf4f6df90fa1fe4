/**
 * Keeps one view (a workspace, or the global scope alone) live: subscribes to `memory.onChange`,
 * loads the list when the server says it is listening (`ready`, also after a reconnect, so nothing
 * falls in between), badges the files agents and outside edits touch, and refreshes the list once
 * per burst of changes. TanStack Query's structural sharing keeps every unchanged file object, so
 * memoized rows of untouched files do not re-render. Reconnects with backoff when the stream drops.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { ChangeStreamEvent } from '../../../common/api/contract';
import { useApi } from '../../api/api-context';
import { badgeKey, badgeStore, type BadgeStore } from './badge-store';

export type StreamState = 'connecting' | 'live' | 'lost';
export type ChangeEvent = Extract<ChangeStreamEvent, { type: 'change' }>;

type ChangeListener = (event: ChangeEvent, workspaceId: string | null) => void;
const listeners = new Set<ChangeListener>();

/** Hears every change event of every live view (the open editor listens for its file). */
export function onChangeEvent(listener: ChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** How long a burst of changes is gathered before the list is refreshed once. */
const REFRESH_DELAY_MS = 30;

export function applyBadges(store: BadgeStore, workspaceId: string | null, e: ChangeEvent): void {
  const key = badgeKey(workspaceId, e.scope, e.path);
  if (e.op === 'delete') store.forget(key);
  else if (e.op === 'rename') {
    if (e.oldPath) store.move(badgeKey(workspaceId, e.scope, e.oldPath), key);
    store.changed(key, e.actor);
  } else store.changed(key, e.actor);
}

export function useChangeStream(workspaceId: string | null): StreamState {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    let refresh: ReturnType<typeof setTimeout> | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let attempt = 0;
    const listKey = orpc.memory.list.queryKey({ input: { workspaceId } });
    const invalidate = () => void queryClient.invalidateQueries({ queryKey: listKey });
    // On `ready`: a list already on its way is let through and shown (cancelling it would make
    // the first paint wait for a second one), then the list is asked for again, since the one on
    // its way may have been read before the server was watching.
    const reload = async () => {
      if (queryClient.getQueryState(listKey)?.fetchStatus === 'fetching') await queryClient.refetchQueries({ queryKey: listKey }, { cancelRefetch: false });
      if (!controller.signal.aborted) invalidate();
    };

    const run = async () => {
      setState('connecting');
      try {
        const stream = await client.memory.onChange({ workspaceId }, { signal: controller.signal });
        for await (const item of stream) {
          if (item.type === 'ready') {
            attempt = 0;
            setState('live');
            void reload();
            continue;
          }
          applyBadges(badgeStore, workspaceId, item);
          for (const l of listeners) l(item, workspaceId);
          if (!refresh) {
            refresh = setTimeout(() => {
              refresh = null;
              invalidate();
            }, REFRESH_DELAY_MS);
          }
        }
      } catch {
        // Dropped (server restarted, socket closed): try again below.
      }
      if (controller.signal.aborted) return;
      setState('lost');
      retry = setTimeout(run, Math.min(10_000, 500 * 2 ** attempt++));
    };
    void run();
    return () => {
      controller.abort();
      if (refresh) clearTimeout(refresh);
      if (retry) clearTimeout(retry);
    };
  }, [client, orpc, queryClient, workspaceId]);

  return state;
}
