/**
 * A workspace's harvest status, live: the server's `harvest.onStatus` stream (the status now, then
 * again on each change of its jobs and runs, whichever process made it). The harvest switch lives in
 * the settings, which that stream does not watch, so a change of the switch asks for the status once.
 *
 * Invariant: what is shown is always a status the server sent; nothing is derived here.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { HarvestStatus } from '../../../common/api/contract';
import { errorMessage, useApi } from '../../api/api-context';
import { followStream, type LiveState } from './live-stream';

export interface LiveHarvestStatus {
  /** null until the server has said. */
  readonly status: HarvestStatus | null;
  readonly connection: LiveState;
  /** Why the stream is down, when it said. */
  readonly error: string | null;
}

export function useHarvestStatus(workspaceId: string): LiveHarvestStatus {
  const { client, orpc } = useApi();
  const [live, setLive] = useState<LiveHarvestStatus>({ status: null, connection: 'connecting', error: null });
  const settings = useQuery(orpc.settings.get.queryOptions());
  const on = settings.data?.harvestWorkspaces.includes(workspaceId);

  useEffect(() => {
    setLive({ status: null, connection: 'connecting', error: null });
    return followStream((signal) => client.harvest.onStatus({ workspaceId }, { signal }), {
      onItem: (status) => setLive({ status, connection: 'live', error: null }),
      onState: (connection, error) => setLive((l) => ({ ...l, connection, error: connection === 'lost' && error ? errorMessage(error) : null })),
    });
  }, [client, workspaceId]);

  // The switch changed (here or in another window): its state, off or on, is asked for.
  useEffect(() => {
    if (on === undefined) return;
    let current = true;
    client.harvest
      .status({ workspaceId })
      .then((status) => {
        if (current) setLive((l) => (l.status === null || l.status.enabled !== status.enabled ? { ...l, status } : l));
      })
      .catch(() => {
        // The stream says why it is down; this was only a refresh.
      });
    return () => {
      current = false;
    };
  }, [client, workspaceId, on]);

  return live;
}
