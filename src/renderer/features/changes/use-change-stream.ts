/**
 * Keeps one view (a workspace, or the global scope alone) live: subscribes to `memory.onChange`,
 * loads the list and the badges (`memory.badges`, the server's truth) when the server says it is
 * listening (`ready`, also after a reconnect, so nothing falls in between), badges the files agents
 * and outside edits touch as their changes arrive, and refreshes the list once per burst of
 * changes. `memory.onMetaChange` says when pins and uses changed in any process (the list is
 * refreshed: the pin icon, "Used 12x") or the person opened a file in another window (the badges
 * are asked for again). TanStack Query's structural sharing keeps every unchanged file object, so
 * memoized rows of untouched files do not re-render. Each stream reconnects with backoff when it
 * drops.
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

/**
 * Calls `onBurst` once per burst of changes in `workspaceId`'s view (gathered for 50 ms): for
 * queries a change may touch but no event names (what was recently deleted, the consolidations).
 * `onBurst` must be stable (useCallback), or the listener is set again at each render.
 */
export function useChangeBurst(workspaceId: string | null, onBurst: () => void): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = onChangeEvent((_event, view) => {
      if (view !== workspaceId || timer) return;
      timer = setTimeout(() => {
        timer = null;
        onBurst();
      }, 50);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [onBurst, workspaceId]);
}

/** How long a burst of changes is gathered before the list is refreshed once. */
const REFRESH_DELAY_MS = 30;

function applyBadges(store: BadgeStore, workspaceId: string | null, e: ChangeEvent): void {
  const key = badgeKey(workspaceId, e.scope, e.path);
  if (e.op === 'delete') store.forget(key);
  else if (e.op === 'rename') {
    if (e.oldPath) store.move(badgeKey(workspaceId, e.scope, e.oldPath), key);
    store.changed(key, e.actor, e.at);
  } else store.changed(key, e.actor, e.at);
}

export function useChangeStream(workspaceId: string | null): StreamState {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    let refresh: ReturnType<typeof setTimeout> | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let metaRetry: ReturnType<typeof setTimeout> | null = null;
    let attempt = 0;
    let metaAttempt = 0;
    /** Whether the change stream is listening (its `ready` came, and it has not dropped since). */
    let live = false;
    /** The latest badges request: an older answer arriving after it is dropped. */
    let badgesAsked = 0;
    const listKey = orpc.memory.list.queryKey({ input: { workspaceId } });
    const invalidate = () => void queryClient.invalidateQueries({ queryKey: listKey });
    // On `ready`: a list already on its way is let through and shown (cancelling it would make
    // the first paint wait for a second one), then the list is asked for again, since the one on
    // its way may have been read before the server was watching.
    const reload = async () => {
      if (queryClient.getQueryState(listKey)?.fetchStatus === 'fetching') await queryClient.refetchQueries({ queryKey: listKey }, { cancelRefetch: false });
      if (!controller.signal.aborted) invalidate();
    };

    const refreshSoon = () => {
      if (refresh) return;
      refresh = setTimeout(() => {
        refresh = null;
        invalidate();
      }, REFRESH_DELAY_MS);
    };
    const loadBadges = async () => {
      const asked = ++badgesAsked;
      const since = badgeStore.mark();
      try {
        const { badges, lookedAt } = await client.memory.badges({ workspaceId }, { signal: controller.signal });
        if (asked === badgesAsked && !controller.signal.aborted) badgeStore.fromServer(workspaceId, badges, since, lookedAt);
      } catch {
        // Not reachable now: the next `ready` asks again.
      }
    };

    const run = async () => {
      setState('connecting');
      try {
        const stream = await client.memory.onChange({ workspaceId }, { signal: controller.signal });
        for await (const item of stream) {
          if (item.type === 'ready') {
            attempt = 0;
            live = true;
            setState('live');
            void reload();
            void loadBadges();
            continue;
          }
          applyBadges(badgeStore, workspaceId, item);
          for (const l of listeners) l(item, workspaceId);
          refreshSoon();
        }
      } catch {
        // Dropped (server restarted, socket closed): try again below.
      }
      live = false;
      if (controller.signal.aborted) return;
      setState('lost');
      retry = setTimeout(run, Math.min(10_000, 500 * 2 ** attempt++));
    };

    const runMeta = async () => {
      try {
        const stream = await client.memory.onMetaChange(undefined, { signal: controller.signal });
        for await (const item of stream) {
          metaAttempt = 0;
          // Listening from here on: what changed before is in what the change stream's `ready`
          // loads, unless that came first, then it is loaded again.
          if (item.type === 'ready') {
            if (live) {
              invalidate();
              void loadBadges();
            }
          } else if (item.type === 'usage') refreshSoon();
          else void loadBadges();
        }
      } catch {
        // Dropped: try again below.
      }
      if (controller.signal.aborted) return;
      metaRetry = setTimeout(runMeta, Math.min(10_000, 500 * 2 ** metaAttempt++));
    };
    void run();
    void runMeta();
    return () => {
      controller.abort();
      if (refresh) clearTimeout(refresh);
      if (retry) clearTimeout(retry);
      if (metaRetry) clearTimeout(metaRetry);
    };
  }, [client, orpc, queryClient, workspaceId]);

  return state;
}
