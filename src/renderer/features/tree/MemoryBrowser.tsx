/**
 * The memory browser of one view (a workspace's three scopes, or the global scope alone in
 * Settings): the filter box (ArrowDown enters the results), the scope tree (its handle closes or
 * opens every directory: the pane's Collapse all / Expand all), and the row actions (pin, delete with confirmation, then an Undo toast; the focus then goes
 * to the next row, or the one above), and each scope's recently deleted files (restorable).
 * A large tree starts with its directories closed (tree-model's initialOpenState).
 * Loads the list at once, and again when the change stream says the server is listening (`ready`),
 * so nothing that changed in between is missed; the live indicator shows which state it is in.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Search } from 'lucide-react';
import { forwardRef, useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { HISTORY_KEEP_DAYS, type Scope } from '../../../common/memory/constants';
import { useApi } from '../../api/api-context';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { ConfirmDialog } from '../dialogs/Dialog';
import { useAction } from '../../lib/use-action';
import { onChangeEvent, useChangeStream } from '../changes/use-change-stream';
import { useDeleteUndo } from '../history/DeleteUndo';
import { deletedQueryInput, RecentlyDeletedDialog } from '../history/RecentlyDeletedDialog';
import { MemoryTree, type MemoryTreeHandle } from './MemoryTree';
import { usePin } from './use-pin';
import { RenameDialog } from './RenameDialog';
import { allOpenState, buildForest, filesUnder, flattenTree, focusAfterDelete, initialOpenState, withOpen, type MemoryFile, type OpenState, type Row } from './tree-model';

export interface MemoryBrowserProps {
  workspaceId: string | null;
  scopes?: readonly Scope[];
  selectedPath: string | null;
  onOpen: (file: MemoryFile) => void;
  /** A path the person deleted (the editor closes it when it is at or below). */
  onDeleted: (path: string) => void;
  /** A path the person renamed (the editor follows it). */
  onRenamed?: (from: string, to: string) => void;
  /** The open file, when it has unsaved edits (it cannot be renamed until they are saved). */
  unsavedPath?: () => string | null;
  /** Opens a file by path (one just restored, perhaps not in the list yet). */
  onOpenPath?: (path: string) => void;
  label: string;
}

export interface MemoryBrowserHandle {
  focusFilter(): void;
  /** Closes every directory (scopes stay open), or opens every scope and directory. */
  setAllOpen(open: boolean): void;
}

type Deleting = Extract<Row, { kind: 'dir' | 'file' }>;

export const MemoryBrowser = forwardRef<MemoryBrowserHandle, MemoryBrowserProps>(function MemoryBrowser(props, ref) {
  const { workspaceId } = props;
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const stream = useChangeStream(workspaceId);
  const listOptions = orpc.memory.list.queryOptions({ input: { workspaceId } });
  const list = useQuery(listOptions);
  const [filter, setFilter] = useState('');
  // Set once the list first arrives (how a tree starts depends on its size), then by the person.
  const [open, setOpen] = useState<OpenState | null>(null);
  /** After a delete: the deleted row's path and where the focus may go, nearest first (tree-model's focusAfterDelete). */
  const [refocus, setRefocus] = useState<{ path: string; candidates: string[] } | null>(null);
  const treeRef = useRef<MemoryTreeHandle>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const [renaming, setRenaming] = useState<Deleting | null>(null);
  const [showDeleted, setShowDeleted] = useState<Scope | null>(null);
  const removal = useAction();
  const undo = useDeleteUndo(workspaceId);
  // Every scope's recently deleted files, in one request: the tree counts them, the dialog lists them.
  const deletedOptions = orpc.history.deleted.queryOptions({ input: deletedQueryInput(workspaceId) });
  const deleted = useQuery(deletedOptions);
  const filterRef = useRef<HTMLInputElement>(null);
  useImperativeHandle(ref, () => ({ focusFilter: () => filterRef.current?.focus(), setAllOpen: (all) => setOpen(allOpenState(all)) }), []);

  // A change (a delete, a file written again, a restore) may change what is recently deleted:
  // asked again once per burst.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = onChangeEvent((_event, view) => {
      if (view !== workspaceId || timer) return;
      timer = setTimeout(() => {
        timer = null;
        void queryClient.invalidateQueries({ queryKey: orpc.history.deleted.key() });
      }, 50);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [orpc, queryClient, workspaceId]);

  const files = list.data?.files;
  if (open === null && files) setOpen(initialOpenState(files.length));
  const forest = useMemo(() => buildForest(files ?? []), [files]);
  const deletedCounts = useMemo(() => {
    const counts: Partial<Record<Scope, number>> = {};
    for (const v of deleted.data?.versions ?? []) counts[v.scope] = (counts[v.scope] ?? 0) + 1;
    return counts;
  }, [deleted.data]);
  const rows = useMemo(
    () => flattenTree(forest, list.data?.scopes ?? [], { ...(open ?? allOpenState(true)), filter, deleted: deletedCounts, ...(props.scopes ? { scopes: props.scopes } : {}) }),
    [forest, list.data?.scopes, open, filter, deletedCounts, props.scopes],
  );

  const onToggle = useCallback((id: string, expand?: boolean) => {
    setOpen((prev) => withOpen(prev ?? allOpenState(true), id, id.startsWith('scope:') ? 'scope' : 'dir', expand));
  }, []);

  // Once the deleted row is gone from the list read again, focus the nearest row still there.
  useEffect(() => {
    if (!refocus || rows.some((r) => r.id === refocus.path)) return;
    setRefocus(null);
    for (const id of refocus.candidates) if (treeRef.current?.focusRow(id)) return;
  }, [refocus, rows]);

  const onPin = usePin(workspaceId);

  const confirmDelete = () =>
    removal.run(async () => {
      if (!deleting) return;
      const askedAt = Date.now();
      const candidates = focusAfterDelete(rows, deleting.id);
      const result = await client.memory.delete({ workspaceId, path: deleting.path });
      if (result.status === 'error') return result.message;
      setRefocus({ path: deleting.path, candidates });
      props.onDeleted(deleting.path);
      setDeleting(null);
      void queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
      void queryClient.invalidateQueries({ queryKey: orpc.history.deleted.key() });
      const n = deleting.kind === 'dir' ? filesUnder(files ?? [], deleting.path) : 1;
      const what = deleting.kind === 'dir' ? `${deleting.path} and the ${n === 1 ? 'file' : `${n} files`} in it` : deleting.path;
      await undo.deleted(deleting.path, what, askedAt);
    });


  const total = files?.length ?? 0;
  return (
    <section className="browser" aria-label={props.label}>
      <div className="filter">
        <Search size={14} aria-hidden />
        <input
          ref={filterRef}
          type="search"
          placeholder="Filter by path or description"
          aria-label="Filter memories"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setFilter('');
            else if (e.key === 'ArrowDown') {
              e.preventDefault();
              treeRef.current?.focusFirstResult();
            }
          }}
        />
        <kbd title="Press / to filter">/</kbd>
        <span className={`live-indicator ${stream}`} title={stream === 'live' ? 'Agents\' edits show up here as they happen' : 'Connecting to the change stream…'}>
          {stream === 'live' ? 'Live' : stream === 'lost' ? 'Reconnecting' : 'Connecting'}
        </span>
      </div>
      {list.isError ? (
        <LoadFailed what="memory" error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data ? (
        <Loading what="memory" />
      ) : (
        <MemoryTree
          ref={treeRef}
          rows={rows}
          workspaceId={workspaceId}
          activeId={activeId}
          selectedPath={props.selectedPath}
          label={`Memory files (${total})`}
          onActiveChange={setActiveId}
          onOpen={props.onOpen}
          onToggle={onToggle}
          onPin={onPin}
          onDelete={(row) => {
            removal.reset();
            setDeleting(row);
          }}
          onRename={setRenaming}
          onShowDeleted={setShowDeleted}
        />
      )}
      {undo.toast}
      {stream === 'lost' && list.data && (
        <div className="stream-lost" role="status">
          Live updates paused: reconnecting…
        </div>
      )}
      {renaming && (
        <RenameDialog
          workspaceId={workspaceId}
          target={renaming}
          exists={(p) => filesUnder(files ?? [], p) > 0}
          blocked={(() => {
            const unsaved = props.unsavedPath?.() ?? null;
            return unsaved && (unsaved === renaming.path || unsaved.startsWith(`${renaming.path}/`)) ? `Save or discard your edits to ${unsaved} first.` : null;
          })()}
          onClose={() => setRenaming(null)}
          onRenamed={(from, to) => {
            setRenaming(null);
            setActiveId(to);
            props.onRenamed?.(from, to);
            void queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
          }}
        />
      )}
      {showDeleted && (
        <RecentlyDeletedDialog
          workspaceId={workspaceId}
          scope={showDeleted}
          existing={new Set((files ?? []).map((f) => f.path))}
          onClose={() => setShowDeleted(null)}
          onOpen={(p) => {
            setShowDeleted(null);
            props.onOpenPath?.(p);
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.path}?`}
          confirmLabel="Delete"
          danger
          busy={removal.busy}
          onConfirm={() => void confirmDelete()}
          onCancel={() => setDeleting(null)}
        >
          <p>
            {deleting.kind === 'dir'
              ? `The directory and the ${filesUnder(files ?? [], deleting.path)} files in it are removed for every agent.`
              : 'The file is removed for every agent.'}{' '}
            Its history keeps it for {HISTORY_KEEP_DAYS} days: Undo right after, or Restore from Recently deleted under its scope.
          </p>
          {removal.error && (
            <p className="error-text" role="alert">
              {removal.error}
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
});
