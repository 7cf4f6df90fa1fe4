/**
 * Recently deleted files of one scope: each with when and by whom it was deleted, what
 * it held (on request), and Restore, which brings it back as it was just before the delete
 * (`history.restore` with its path and the delete's version). The list follows the history: a
 * file restored (here, by Undo, or written again) leaves it.
 *
 * Invariants: a restore over a file that exists again at that path is asked first (it would
 * replace that file's content); nothing is restored without a click.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronDown, ChevronRight, Loader2, RotateCcw } from 'lucide-react';
import { useState } from 'react';
import type { Version } from '../../../common/api/contract';
import { HISTORY_KEEP_DAYS, type Scope } from '../../../common/memory/constants';
import { errorMessage, useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../dialogs/Dialog';
import { SCOPE_LABELS } from '../tree/tree-model';
import { exactTime, whenText } from './history-words';

export interface RecentlyDeletedDialogProps {
  workspaceId: string | null;
  scope: Scope;
  /** Paths of the files that exist now (a restore over one of them is asked first). */
  existing: ReadonlySet<string>;
  onClose: () => void;
  /** A file was restored: the browser refreshes, and may open it. */
  onOpen: (path: string) => void;
}

const BY = { person: 'you', agent: 'an agent', external: 'outside Cairn', sync: 'a sync from another machine' } as const;

export function deletedQueryInput(workspaceId: string | null) {
  return { workspaceId, path: null, scope: null, limit: 500 };
}

export function RecentlyDeletedDialog({ workspaceId, scope, existing, onClose, onOpen }: RecentlyDeletedDialogProps) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  // The same query the tree counts from: one request for every scope.
  const deleted = useQuery(orpc.history.deleted.queryOptions({ input: deletedQueryInput(workspaceId) }));
  const versions = (deleted.data?.versions ?? []).filter((v) => v.scope === scope);
  const [shown, setShown] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [restored, setRestored] = useState<{ path: string; message: string } | null>(null);
  const restore = useAction();
  const root = `/memories/${scope}/`;

  const doRestore = (v: Version) =>
    restore.run(async () => {
      setConfirming(null);
      const result = await client.history.restore({ workspaceId, path: v.path, id: v.id });
      if (result.status === 'error') return result.message;
      setRestored({ path: v.path, message: result.message });
      void queryClient.invalidateQueries({ queryKey: orpc.memory.list.key() });
      void queryClient.invalidateQueries({ queryKey: orpc.history.key() });
    });

  return (
    <Dialog
      title={`Recently deleted from ${SCOPE_LABELS[scope]} memory`}
      onClose={onClose}
      wide
      footer={
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      }
    >
      <p className="muted">
        Deleted files are kept for {HISTORY_KEEP_DAYS} days. Restore brings one back as it was just before it was deleted.
      </p>
      {restored && (
        <div className="notice ok" role="status">
          {restored.message}{' '}
          <button type="button" className="link" onClick={() => onOpen(restored.path)}>
            Open it
          </button>
        </div>
      )}
      {restore.error && (
        <p className="error-text" role="alert">
          {restore.error}
        </p>
      )}
      {deleted.isError ? (
        <p className="error-text" role="alert">
          Could not load the deleted files: {errorMessage(deleted.error)}
        </p>
      ) : !deleted.data ? (
        <div className="state" role="status">
          <Loader2 size={16} className="spin" aria-hidden /> Loading…
        </div>
      ) : versions.length === 0 ? (
        <p className="muted">No file of this scope was deleted recently.</p>
      ) : (
        <ul className="deleted-list" aria-label={`Deleted files of ${SCOPE_LABELS[scope]} memory`}>
          {versions.map((v) => {
            const rel = v.path.startsWith(root) ? v.path.slice(root.length) : v.path;
            const open = shown === v.id;
            return (
              <li key={v.id} aria-label={v.path}>
                <div className="deleted-item">
                  <button type="button" className="icon-btn" aria-expanded={open} aria-label={open ? `Hide what ${rel} held` : `Show what ${rel} held`} onClick={() => setShown(open ? null : v.id)}>
                    {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
                  </button>
                  <div className="deleted-text">
                    <span className="deleted-path">{rel}</span>
                    <span className="muted">
                      Deleted <time dateTime={v.at} title={exactTime(v.at)}>{whenText(v.at)}</time> by {BY[v.actor]}
                      {v.removed !== null && ` · ${v.removed} ${v.removed === 1 ? 'line' : 'lines'}`}
                    </span>
                  </div>
                  {confirming === v.id ? (
                    <span className="deleted-confirm" role="group" aria-label={`Replace ${rel}?`}>
                      <span className="warn-text">A file {rel} exists now: replace its content?</span>
                      <button type="button" className="btn" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                      <button type="button" className="btn danger" onClick={() => void doRestore(v)} disabled={restore.busy}>
                        Replace
                      </button>
                    </span>
                  ) : (
                    <button
                      type="button"
                      className="btn"
                      aria-label={`Restore ${v.path}`}
                      // removed is null when what the file held was not recorded: nothing to restore.
                      disabled={restore.busy || v.removed === null}
                      title={v.removed === null ? 'What it held was not recorded, so it cannot be restored' : 'Bring it back as it was before the delete'}
                      onClick={() => (existing.has(v.path) ? setConfirming(v.id) : void doRestore(v))}>
                      <RotateCcw size={14} aria-hidden /> Restore
                    </button>
                  )}
                </div>
                {open && <DeletedContent workspaceId={workspaceId} id={v.id} />}
              </li>
            );
          })}
        </ul>
      )}
    </Dialog>
  );
}

function DeletedContent({ workspaceId, id }: { workspaceId: string | null; id: string }) {
  const { orpc } = useApi();
  const text = useQuery(orpc.history.read.queryOptions({ input: { workspaceId, id } }));
  if (text.isError) return <p className="error-text">Could not read it: {errorMessage(text.error)}</p>;
  if (!text.data) return <p className="muted">Reading…</p>;
  if (!text.data.beforeKnown) return <p className="muted">What it held was not recorded (or has been collected), so it cannot be restored.</p>;
  return <pre className="deleted-content">{text.data.before ?? ''}</pre>;
}
