/**
 * A view's consolidations as the tree shows them: each scope's proposal waiting for
 * review, its last applied consolidation that is not undone yet ("Last consolidated 3 d ago ·
 * Undo"), and the Undo of one: the whole consolidation batch taken back through `history.undo`, all or
 * nothing (a file changed since makes it a conflict, said in words, and nothing is written).
 *
 * Fresh without polling: the proposals and the history are asked for again after any change the
 * view's change stream reports (an apply or an undo writes files, by this window or another
 * process), once per burst; at once after this window applies, discards or undoes; and when the
 * window gets the focus back (a proposal made by `cairn consolidate` or an agent writes no memory, so no
 * change reports it).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { SCOPES, type Scope } from '../../../common/memory/constants';
import { errorMessage, useApi } from '../../api/api-context';
import { useChangeBurst } from '../changes/use-change-stream';
import { consolidationSummary } from '../../../common/consolidation/proposal';
import { lastConsolidations, openProposal, type LastConsolidation } from './consolidation-model';

/**
 * What the hooks below give while a view has nothing of the kind: one object, so a view whose
 * answers say "nothing" again (the usual case) hands the tree the same value and it is not redrawn.
 */
const NONE = Object.freeze({});

/** How many recent versions are searched for the undo of a consolidation. */
const UNDO_LOOKBACK = 500;

export type UndoOutcome = { ok: true; text: string } | { ok: false; text: string };

/** Everything the view shows that a consolidation, or its undo, changes: asked for again. */
export function useConsolidationRefresh(workspaceId: string | null): () => void {
  const { orpc } = useApi();
  const queryClient = useQueryClient();
  return useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: orpc.consolidation.key() });
    void queryClient.invalidateQueries({ queryKey: orpc.history.key() });
    void queryClient.invalidateQueries({ queryKey: orpc.memory.list.key({ input: { workspaceId } }) });
  }, [orpc, queryClient, workspaceId]);
}

/** Undoes one consolidation's whole batch; the outcome in words. */
export function useConsolidationUndo(workspaceId: string | null): (last: Pick<LastConsolidation, 'batch' | 'scope'>) => Promise<UndoOutcome> {
  const { client } = useApi();
  const refresh = useConsolidationRefresh(workspaceId);
  return useCallback(
    async (last) => {
      try {
        const result = await client.history.undo({ workspaceId, id: last.batch });
        refresh();
        if (result.status === 'ok') {
          const n = result.paths.length;
          return { ok: true, text: `Undid the consolidation of ${last.scope} memory: ${n === 1 ? '1 file is' : `${n} files are`} back as they were before it.` };
        }
        return { ok: false, text: `Could not undo the consolidation: ${result.message}` };
      } catch (err) {
        return { ok: false, text: `Could not undo the consolidation: ${errorMessage(err)}` };
      }
    },
    [client, refresh, workspaceId],
  );
}

/** The view's consolidation proposals (consolidation.list), asked again when the window gets the focus back. */
function useConsolidationList(workspaceId: string | null) {
  const { orpc } = useApi();
  return useQuery({ ...orpc.consolidation.list.queryOptions({ input: { workspaceId } }), retry: false, refetchOnWindowFocus: true });
}

/** Each scope's consolidation proposal waiting for review (open, not expired): when, and its summary. */
export function useWaitingProposals(workspaceId: string | null): Partial<Record<Scope, { at: string; summary: string }>> {
  // The same query as useLastConsolidated's (asked once), kept fresh by its refreshes.
  const list = useConsolidationList(workspaceId);
  return useMemo(() => {
    const out: Partial<Record<Scope, { at: string; summary: string }>> = {};
    for (const scope of SCOPES) {
      const p = openProposal(list.data?.proposals ?? [], scope);
      if (p) out[scope] = { at: p.createdAt, summary: consolidationSummary(p.changes) };
    }
    return Object.keys(out).length > 0 ? out : NONE;
  }, [list.data]);
}

/** Each scope's last consolidation still in place (applied, wrote something, not undone). */
export function useLastConsolidated(workspaceId: string | null): Partial<Record<Scope, LastConsolidation>> {
  const { orpc } = useApi();
  const queryClient = useQueryClient();
  const list = useConsolidationList(workspaceId);
  const last = useMemo(() => lastConsolidations(list.data?.proposals ?? []), [list.data]);
  const any = Object.keys(last).length > 0;
  const history = useQuery({ ...orpc.history.list.queryOptions({ input: { workspaceId, limit: UNDO_LOOKBACK } }), enabled: any, retry: false });

  useChangeBurst(
    workspaceId,
    useCallback(() => {
      void queryClient.invalidateQueries({ queryKey: orpc.consolidation.list.key() });
      void queryClient.invalidateQueries({ queryKey: orpc.history.list.key({ input: { workspaceId, limit: UNDO_LOOKBACK } }) });
    }, [orpc, queryClient, workspaceId]),
  );

  return useMemo(() => {
    if (!any || !history.data) return NONE;
    const undone = new Set(history.data.versions.filter((v) => v.cause.startsWith('undo:')).map((v) => v.cause.slice('undo:'.length)));
    const out: Partial<Record<Scope, LastConsolidation>> = {};
    for (const scope of SCOPES) {
      const l = last[scope];
      if (l && !undone.has(l.batch)) out[scope] = l;
    }
    return Object.keys(out).length > 0 ? out : NONE;
  }, [any, history.data, last]);
}
