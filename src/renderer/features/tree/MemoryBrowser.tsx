/**
 * The memory browser of one view (a workspace's three scopes, or the global scope alone in
 * Settings): the filter box (ArrowDown enters the results), the scope tree (its handle closes or
 * opens every directory: the pane's Collapse all / Expand all), and the row actions (pin, delete with confirmation, then an Undo toast; the focus then goes
 * to the next row, or the one above), and each scope's recently deleted files (restorable).
 * A large tree starts with its directories closed (tree-model's initialOpenState).
 * The explorer: the filter box's second mode searches inside memory content (ContentResults,
 * ranked by the server as memory_search ranks); the sort control orders files within each
 * directory (remembered in localStorage); the row menu (RowMenu); the multi-selection (Ctrl/Cmd+click,
 * Shift+click, Shift+arrows) with bulk pin, unpin and delete (one confirmation listing the files;
 * each delete is its own change in the history, restorable from Recently deleted); and drag and
 * drop onto a directory or scope, a move through memory.rename, refused before sending with
 * rename-target.ts's words (another scope, an existing name) as the rename dialog refuses it.
 * Loads the list at once, and again when the change stream says the server is listening (`ready`),
 * so nothing that changed in between is missed; the live indicator shows which state it is in.
 * Live work stays noticeable: the files agents create while the person watches are handed to the
 * tree until their rows have been in view (its "N new files above" pill); the badges new since the
 * person last marked all seen are counted beside "Mark all seen" (the mark is the server's, so
 * every window and a reload agree). Each scope's recently deleted files are reachable from the
 * foot of the browser, outside the scrolled list.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ArchiveRestore, CheckCheck, FileSearch, Search } from 'lucide-react';
import { forwardRef, useCallback, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { HISTORY_KEEP_DAYS, type Scope } from '../../../common/memory/constants';
import { errorMessage, useApi } from '../../api/api-context';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { ConfirmDialog } from '../dialogs/Dialog';
import { copyText } from '../../lib/copy-text';
import { useAction } from '../../lib/use-action';
import { useStoredState } from '../../lib/use-stored-state';
import { badgeStore, useNewBadgeCount } from '../changes/badge-store';
import { onChangeEvent, useChangeBurst, useChangeStream } from '../changes/use-change-stream';
import { useDeleteUndo } from '../history/DeleteUndo';
import { deletedQueryInput, RecentlyDeletedDialog } from '../history/RecentlyDeletedDialog';
import { Toast } from '../history/Toast';
import { useLastConsolidated, useConsolidationUndo, useWaitingProposals } from '../consolidation/use-consolidations';
import { ContentResults, type ContentResultsHandle } from './ContentResults';
import { MemoryTree, type MemoryTreeHandle } from './MemoryTree';
import { usePin } from './use-pin';
import { RenameDialog } from './RenameDialog';
import { renameTarget } from './rename-target';
import { RowMenu, type MenuItem } from './RowMenu';
import {
  allOpenState,
  baseName,
  buildForest,
  SCOPE_LABELS,
  filesUnder,
  flattenTree,
  focusAfterDelete,
  initialOpenState,
  scopeRoot,
  TREE_SORT_LABELS,
  TREE_SORTS,
  withOpen,
  type MemoryFile,
  type OpenState,
  type Row,
  type TreeSort,
} from './tree-model';

/** Where the tree's sort is remembered (per browser, for every view). */
export const TREE_SORT_KEY = 'cairn.treeSort';

const NO_DELETED: Partial<Record<Scope, number>> = Object.freeze({});

// Built once: the browser is drawn again when its list arrives, and the same element is not drawn again.
const FILTER_ICON = <Search size={14} aria-hidden />;
const CONTENT_SEARCH_ICON = <FileSearch size={14} aria-hidden />;

const parseSort = (v: string | null): TreeSort => ((TREE_SORTS as readonly string[]).includes(v ?? '') ? (v as TreeSort) : 'name');

type Movable = Extract<Row, { kind: 'dir' | 'file' }>;
type DropTarget = Extract<Row, { kind: 'dir' | 'scope' }>;

/** The virtual path of a drop target (a directory, or a scope's root). */
const dropPath = (row: DropTarget) => (row.kind === 'scope' ? scopeRoot(row.scope) : row.path);

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
  /** What the filter box holds and whether it searches content (other agents' files follow it: features/agent-files). */
  onQuery?: (text: string, content: boolean) => void;
  /** Opens the consolidation of a scope: the scope row's menu and button offer it. */
  onConsolidate?: (scope: Scope) => void;
  label: string;
}

export interface MemoryBrowserHandle {
  focusFilter(): void;
  /** Closes every directory (scopes stay open), or opens every scope and directory. */
  setAllOpen(open: boolean): void;
  /** Shows a file's row (clearing the filter, opening its scope and directories) and focuses it once drawn. */
  reveal(path: string): void;
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
  // The person's choices of open scopes and directories; null until they make one.
  const [open, setOpen] = useState<OpenState | null>(null);
  // How the tree starts, fixed when the list first arrives (it depends on its size). Not state:
  // setting state while rendering would render the whole browser, and flatten the tree, twice.
  const startOpen = useRef<OpenState | null>(null);
  /** After a delete: the deleted row's path and where the focus may go, nearest first (tree-model's focusAfterDelete). */
  const [refocus, setRefocus] = useState<{ path: string; candidates: string[] } | null>(null);
  const treeRef = useRef<MemoryTreeHandle>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const [renaming, setRenaming] = useState<Deleting | null>(null);
  const [showDeleted, setShowDeleted] = useState<Scope | null>(null);
  const removal = useAction();
  const undo = useDeleteUndo(workspaceId);
  // Each scope's last consolidation still in place: "Last consolidated 3 d ago · Undo" (features/consolidation).
  const consolidated = useLastConsolidated(workspaceId);
  // And a proposal waiting for review ("Proposed 2 h ago: 4 deletions · Review"), when the pane can open it.
  const waitingAll = useWaitingProposals(workspaceId);
  const waiting = props.onConsolidate ? waitingAll : undefined;
  const undoConsolidation = useConsolidationUndo(workspaceId);
  // Every scope's recently deleted files, in one request: the tree counts them, the dialog lists them.
  const deletedOptions = orpc.history.deleted.queryOptions({ input: deletedQueryInput(workspaceId) });
  const deleted = useQuery(deletedOptions);
  const filterRef = useRef<HTMLInputElement>(null);
  const [contentMode, setContentMode] = useState(false);
  /** A row to focus once it is drawn (reveal). */
  const [revealing, setRevealing] = useState<string | null>(null);
  useImperativeHandle(
    ref,
    () => ({
      focusFilter: () => filterRef.current?.focus(),
      setAllOpen: (all) => setOpen(allOpenState(all)),
      reveal: (path) => {
        setFilter('');
        setContentMode(false);
        // Its scope and every directory on the way down, opened.
        const parts = path.split('/');
        setOpen((prev) => parts.slice(3, -1).reduce((state, _, i) => withOpen(state, parts.slice(0, 4 + i).join('/'), 'dir', true), withOpen(prev ?? startOpen.current ?? allOpenState(true), `scope:${parts[2]}`, 'scope', true)));
        setActiveId(path);
        setRevealing(path);
      },
    }),
    [],
  );
  const [sort, setSort] = useStoredState(TREE_SORT_KEY, parseSort);
  const resultsRef = useRef<ContentResultsHandle>(null);
  const { onQuery } = props;
  useEffect(() => onQuery?.(filter, contentMode), [onQuery, filter, contentMode]);
  /** The multi-selection (file paths) and where a range starts. */
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);
  const [menu, setMenu] = useState<{ row: Row; x: number; y: number } | null>(null);
  const [bulkDeleting, setBulkDeleting] = useState<string[] | null>(null);
  const bulk = useAction();
  /** A short message after a bulk action or a refused move. */
  const [notice, setNotice] = useState<{ key: number; text: string; tone: 'status' | 'alert' } | null>(null);
  const say = (text: string, tone: 'status' | 'alert' = 'status') => setNotice({ key: Date.now(), text, tone });
  const dragging = useRef<Movable | null>(null);
  /** Files agents created while the person watched, until each row has been in view (MemoryTree's pill). */
  const [arrivals, setArrivals] = useState<ReadonlySet<string>>(new Set());
  const newCount = useNewBadgeCount(workspaceId);
  const markingSeen = useAction();

  useEffect(() => {
    setArrivals(new Set());
    return onChangeEvent((event, view) => {
      if (view !== workspaceId) return;
      const gone = event.op === 'delete' ? event.path : event.op === 'rename' ? (event.oldPath ?? null) : null;
      const arrived = event.actor !== 'person' && (event.op === 'create' || (event.op === 'rename' && gone !== null)) ? event.path : null;
      if (gone === null && arrived === null) return;
      setArrivals((prev) => {
        const next = new Set([...prev].filter((p) => gone === null || (p !== gone && !p.startsWith(`${gone}/`))));
        if (arrived !== null) next.add(arrived);
        return next.size === prev.size && [...next].every((p) => prev.has(p)) ? prev : next;
      });
    });
  }, [workspaceId]);
  const onArrivalsSeen = useCallback((paths: string[]) => {
    setArrivals((prev) => {
      const next = new Set(prev);
      for (const p of paths) next.delete(p);
      return next.size === prev.size ? prev : next;
    });
  }, []);

  const markAllSeen = () =>
    markingSeen.run(async () => {
      const { lookedAt } = await client.memory.markAllSeen({ workspaceId });
      badgeStore.markLooked(workspaceId, lookedAt);
      setArrivals(new Set());
      // The button goes with the count: the focus goes to the row the person looks at, where it is.
      treeRef.current?.focusInView();
    });

  // A change (a delete, a file written again, a restore) may change what is recently deleted:
  // asked again once per burst.
  useChangeBurst(
    workspaceId,
    useCallback(() => void queryClient.invalidateQueries({ queryKey: orpc.history.deleted.key() }), [orpc, queryClient]),
  );

  const files = list.data?.files;
  if (startOpen.current === null && files) startOpen.current = initialOpenState(files.length);
  const openState = open ?? startOpen.current;
  const scopes = list.data?.scopes;
  const forest = useMemo(() => buildForest(files ?? [], sort, scopes?.flatMap((s) => s.unreadableFolders ?? []) ?? []), [files, sort, scopes]);
  const deletedCounts = useMemo(() => {
    const counts: Partial<Record<Scope, number>> = {};
    for (const v of deleted.data?.versions ?? []) counts[v.scope] = (counts[v.scope] ?? 0) + 1;
    // None deleted, before the answer and after it: the same value, so the tree is not redrawn for it.
    return Object.keys(counts).length > 0 ? counts : NO_DELETED;
  }, [deleted.data]);
  const rows = useMemo(
    () => flattenTree(forest, list.data?.scopes ?? [], { ...(openState ?? allOpenState(true)), filter, deleted: deletedCounts, consolidated, ...(waiting ? { waiting } : {}), ...(props.scopes ? { scopes: props.scopes } : {}) }),
    [forest, list.data?.scopes, openState, filter, deletedCounts, consolidated, waiting, props.scopes],
  );

  const onToggle = useCallback((id: string, expand?: boolean) => {
    setOpen((prev) => withOpen(prev ?? startOpen.current ?? allOpenState(true), id, id.startsWith('scope:') ? 'scope' : 'dir', expand));
  }, []);

  // Once the deleted row is gone from the list read again, focus the nearest row still there.
  useEffect(() => {
    if (!refocus || rows.some((r) => r.id === refocus.path)) return;
    setRefocus(null);
    for (const id of refocus.candidates) if (treeRef.current?.focusRow(id)) return;
  }, [refocus, rows]);

  useEffect(() => {
    if (revealing && treeRef.current?.focusRow(revealing)) setRevealing(null);
  }, [revealing, rows]);

  const onPin = usePin(workspaceId);

  // Content search: the server ranks (memory.search); asked again when the list changes.
  const searchQuery = filter.trim();
  const search = useQuery({
    ...orpc.memory.search.queryOptions({ input: { workspaceId, query: searchQuery, limit: 50 } }),
    enabled: contentMode && searchQuery !== '',
    placeholderData: (previous) => previous,
  });
  useEffect(() => {
    if (contentMode) void queryClient.invalidateQueries({ queryKey: orpc.memory.search.key() });
  }, [contentMode, list.dataUpdatedAt, orpc, queryClient]);
  const openPath = (path: string) => {
    const file = files?.find((f) => f.path === path);
    if (file) props.onOpen(file);
    else props.onOpenPath?.(path);
  };

  // The multi-selection keeps only files still listed.
  const pickedFiles = useMemo(() => {
    // Nothing picked (the usual case): no pass over every row and file.
    if (picked.size === 0) return [];
    // In the tree's order (as the person sees them), those out of view last.
    const at = new Map(rows.map((r, i) => [r.id, i]));
    const order = (f: MemoryFile) => at.get(f.path) ?? Number.MAX_SAFE_INTEGER;
    return (files ?? []).filter((f) => picked.has(f.path)).sort((a, b) => order(a) - order(b));
  }, [files, picked, rows]);
  const onPick = (row: Extract<Row, { kind: 'file' }>, how: 'toggle' | 'range', from: string | null) => {
    if (how === 'toggle') {
      const next = new Set(picked);
      // The first Ctrl+click keeps the open file in the selection, as the explorer does.
      if (next.size === 0 && props.selectedPath && props.selectedPath !== row.path) next.add(props.selectedPath);
      if (next.has(row.path)) next.delete(row.path);
      else next.add(row.path);
      anchor.current = row.path;
      setPicked(next);
    } else {
      // A range starts at the last file picked, else (Shift+arrows) the row the focus leaves, else the open file.
      const start = (picked.size > 0 ? anchor.current : null) ?? from ?? props.selectedPath ?? activeId ?? row.id;
      anchor.current = start;
      const a = rows.findIndex((r) => r.id === start);
      const b = rows.findIndex((r) => r.id === row.id);
      const [lo, hi] = a < 0 ? [b, b] : a < b ? [a, b] : [b, a];
      setPicked(new Set(rows.slice(lo, hi + 1).flatMap((r) => (r.kind === 'file' ? [r.path] : []))));
    }
    setActiveId(row.id);
  };
  const clearPicks = () => {
    anchor.current = null;
    setPicked(new Set());
  };

  const pinMany = (targets: readonly MemoryFile[], pinned: boolean) => {
    const changing = targets.filter((f) => f.pinned !== pinned);
    void Promise.all(changing.map((f) => onPin(f, pinned))).then(
      () => say(`${pinned ? 'Pinned' : 'Unpinned'} ${changing.length === 1 ? '1 file' : `${changing.length} files`}.`),
      () => say('Some pins could not be changed; the list shows where each file stands.', 'alert'),
    );
  };

  const confirmBulkDelete = () =>
    bulk.run(async () => {
      if (!bulkDeleting) return;
      const failed: string[] = [];
      let done = 0;
      // One at a time: each delete is its own change in the history (restorable on its own).
      for (const path of bulkDeleting) {
        const result = await client.memory.delete({ workspaceId, path });
        if (result.status === 'error') failed.push(`${path}: ${result.message}`);
        else {
          done++;
          props.onDeleted(path);
        }
      }
      void queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
      void queryClient.invalidateQueries({ queryKey: orpc.history.deleted.key() });
      if (failed.length > 0) return `Deleted ${done} of ${bulkDeleting.length}. Not deleted: ${failed.join('; ')}`;
      setBulkDeleting(null);
      clearPicks();
      say(`Deleted ${done === 1 ? '1 file' : `${done} files`}. Restore any of them from Recently deleted under its scope.`);
      treeRef.current?.focusFirstResult();
    });

  // Drag and drop: a move within the scope, refused before sending as the rename dialog refuses it.
  const exists = (p: string) => filesUnder(files ?? [], p) > 0;
  const moveVerdict = (source: Movable, target: DropTarget) => renameTarget(`${dropPath(target)}/${baseName(source.path)}`, source, exists);
  const canDrop = (target: DropTarget) => {
    const source = dragging.current;
    if (!source) return false;
    const parent = source.path.slice(0, source.path.lastIndexOf('/'));
    return parent !== dropPath(target) && moveVerdict(source, target).ok;
  };
  const onDrop = (target: DropTarget) => {
    const source = dragging.current;
    dragging.current = null;
    if (!source) return;
    if (source.path.slice(0, source.path.lastIndexOf('/')) === dropPath(target)) return;
    const verdict = moveVerdict(source, target);
    if (!verdict.ok) {
      say(verdict.problem, 'alert');
      return;
    }
    const unsaved = props.unsavedPath?.() ?? null;
    if (unsaved && (unsaved === source.path || unsaved.startsWith(`${source.path}/`))) {
      say(`Save or discard your edits to ${unsaved} first.`, 'alert');
      return;
    }
    void (async () => {
      const result = await client.memory.rename({ workspaceId, fromPath: source.path, toPath: verdict.path });
      if (result.status === 'error') {
        say(result.message, 'alert');
        return;
      }
      setActiveId(verdict.path);
      props.onRenamed?.(source.path, verdict.path);
      void queryClient.invalidateQueries({ queryKey: listOptions.queryKey });
      say(`Moved ${source.path} to ${verdict.path}.`);
    })();
  };

  const menuItems = (row: Row): MenuItem[] => {
    if (row.kind === 'scope' && props.onConsolidate && row.available) return [{ label: 'Consolidate…', run: () => props.onConsolidate?.(row.scope) }];
    if (row.kind !== 'file' && row.kind !== 'dir') return [];
    const many = row.kind === 'file' && picked.has(row.path) && pickedFiles.length > 1;
    if (many) {
      const n = pickedFiles.length;
      return [
        ...(pickedFiles.some((f) => !f.pinned) ? [{ label: `Pin ${n} files`, run: () => pinMany(pickedFiles, true) }] : []),
        ...(pickedFiles.some((f) => f.pinned) ? [{ label: `Unpin ${n} files`, run: () => pinMany(pickedFiles, false) }] : []),
        { label: 'Copy virtual paths', run: () => copy(pickedFiles.map((f) => f.path).join('\n'), `${n} paths`) },
        { label: `Delete ${n} files…`, danger: true, shortcut: 'Del', run: () => (bulk.reset(), setBulkDeleting(pickedFiles.map((f) => f.path))) },
      ];
    }
    const items: MenuItem[] = [];
    if (row.kind === 'file') items.push({ label: 'Open', shortcut: 'Enter', run: () => props.onOpen(row.file) });
    items.push({ label: 'Rename or move…', shortcut: 'F2', run: () => setRenaming(row) });
    if (row.kind === 'file') items.push({ label: row.file.pinned ? 'Unpin' : 'Pin', run: () => void onPin(row.file, !row.file.pinned) });
    items.push({ label: 'Copy virtual path', run: () => copy(row.path, row.path) });
    items.push({ label: 'Delete…', danger: true, shortcut: 'Del', run: () => (removal.reset(), setDeleting(row)) });
    return items;
  };
  const copy = (text: string, what: string) => copyText(text, what, say);

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
      {/* Before the filter in the tab order: Tab from the filter goes straight into the results. */}
      <div className="tree-tools">
        {pickedFiles.length > 1 ? (
          <div className="bulk-bar" role="toolbar" aria-label="Selected files">
            <span className="bulk-count">{pickedFiles.length} selected</span>
            {pickedFiles.some((f) => !f.pinned) && (
              <button type="button" className="btn small" onClick={() => pinMany(pickedFiles, true)}>
                Pin
              </button>
            )}
            {pickedFiles.some((f) => f.pinned) && (
              <button type="button" className="btn small" onClick={() => pinMany(pickedFiles, false)}>
                Unpin
              </button>
            )}
            <button type="button" className="btn small danger" onClick={() => (bulk.reset(), setBulkDeleting(pickedFiles.map((f) => f.path)))}>
              Delete…
            </button>
            <button type="button" className="btn small" onClick={clearPicks}>
              Clear
            </button>
          </div>
        ) : contentMode ? (
          <span className="tree-tools-note">Ranked as agents' memory_search ranks</span>
        ) : (
          <>
          {newCount > 0 && (
            <span className="new-changes">
              <span className="new-changes-count" role="status">
                <span className="new-dot" aria-hidden /> {newCount} new
              </span>
              <button type="button" className="btn small" onClick={() => void markAllSeen()} disabled={markingSeen.busy} title="The changes shown now stop being new; their files keep their badge until you open them">
                <CheckCheck size={13} aria-hidden /> Mark all seen
              </button>
            </span>
          )}
          {markingSeen.error && (
            <span className="error-text" role="alert">
              {markingSeen.error}
            </span>
          )}
          <label className="sort-control">
            Sort
            <select aria-label="Sort files by" value={sort} onChange={(e) => setSort(e.target.value as TreeSort)}>
              {TREE_SORTS.map((k) => (
                <option key={k} value={k}>
                  {TREE_SORT_LABELS[k]}
                </option>
              ))}
            </select>
          </label>
          </>
        )}
      </div>
      <div className="filter">
        <button
          type="button"
          className={`icon-btn mode-toggle${contentMode ? ' on' : ''}`}
          aria-pressed={contentMode}
          aria-label="Search content"
          title={contentMode ? 'Searching inside memory content, ranked as agents\' memory_search ranks: click to filter by path or description' : 'Search inside memory content instead of paths and descriptions'}
          onClick={() => {
            setContentMode((on) => !on);
            filterRef.current?.focus();
          }}
        >
          {contentMode ? CONTENT_SEARCH_ICON : FILTER_ICON}
        </button>
        <input
          ref={filterRef}
          type="search"
          placeholder={contentMode ? 'Search inside memory content' : 'Filter by path or description'}
          aria-label={contentMode ? 'Search memory content' : 'Filter memories'}
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setFilter('');
            else if (e.key === 'ArrowDown' || (e.key === 'Enter' && contentMode)) {
              e.preventDefault();
              if (contentMode) resultsRef.current?.focusFirst();
              else treeRef.current?.focusFirstResult();
            }
          }}
        />
        <kbd title="Press / to filter">/</kbd>
        <span className={`live-indicator ${stream}`} title={stream === 'live' ? 'Agents\' edits show up here as they happen' : 'Connecting to the change stream…'}>
          {stream === 'live' ? 'Live' : stream === 'lost' ? 'Reconnecting' : 'Connecting'}
        </span>
      </div>
      {contentMode ? (
        <ContentResults
          ref={resultsRef}
          query={filter}
          hits={searchQuery === '' ? [] : search.data?.hits}
          error={search.isError ? errorMessage(search.error) : null}
          selectedPath={props.selectedPath}
          onOpen={openPath}
          onLeave={() => filterRef.current?.focus()}
        />
      ) : list.isError ? (
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
          onOpen={(f) => {
            clearPicks();
            props.onOpen(f);
          }}
          onToggle={onToggle}
          onPin={onPin}
          onDelete={(row) => {
            if (row.kind === 'file' && picked.has(row.path) && pickedFiles.length > 1) {
              bulk.reset();
              setBulkDeleting(pickedFiles.map((f) => f.path));
              return;
            }
            removal.reset();
            setDeleting(row);
          }}
          onRename={setRenaming}
          onShowDeleted={setShowDeleted}
          picked={picked}
          onPick={onPick}
          onClearPicks={clearPicks}
          onMenu={(row, x, y) => {
            if (row.kind === 'file' || row.kind === 'dir' || (row.kind === 'scope' && props.onConsolidate && row.available)) setMenu({ row, x, y });
          }}
          {...(props.onConsolidate ? { onConsolidate: props.onConsolidate } : {})}
          onUndoConsolidation={(row) => void undoConsolidation({ batch: row.batch, scope: row.scope }).then((o) => say(o.text, o.ok ? 'status' : 'alert'))}
          onDragStart={(row) => (dragging.current = row)}
          onDragEnd={() => (dragging.current = null)}
          canDrop={canDrop}
          onDrop={onDrop}
          arrivals={arrivals}
          onArrivalsSeen={onArrivalsSeen}
        />
      )}
      {!contentMode && <DeletedFoot counts={deletedCounts} scopes={props.scopes} onShow={setShowDeleted} />}
      {menu && (
        <RowMenu
          x={menu.x}
          y={menu.y}
          label={`Actions for ${menu.row.kind === 'file' || menu.row.kind === 'dir' ? menu.row.path : `${menu.row.scope} memory`}`}
          items={menuItems(menu.row)}
          onClose={(refocus) => {
            const id = menu.row.id;
            setMenu(null);
            if (refocus) treeRef.current?.focusRow(id);
          }}
        />
      )}
      {notice && <Toast key={notice.key} message={notice.text} tone={notice.tone} durationMs={notice.tone === 'alert' ? null : 6000} onDismiss={() => setNotice(null)} />}
      {bulkDeleting && (
        <ConfirmDialog
          title={`Delete ${bulkDeleting.length} files?`}
          confirmLabel={`Delete ${bulkDeleting.length} files`}
          danger
          busy={bulk.busy}
          onConfirm={() => void confirmBulkDelete()}
          onCancel={() => setBulkDeleting(null)}
        >
          <p>These files are removed for every agent:</p>
          <ul className="bulk-list">
            {bulkDeleting.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
          <p>Each stays in the history for {HISTORY_KEEP_DAYS} days: restore it from Recently deleted under its scope.</p>
          {bulk.error && (
            <p className="error-text" role="alert">
              {bulk.error}
            </p>
          )}
        </ConfirmDialog>
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

/** Each scope's recently deleted files, at the foot of the browser: reachable without scrolling past every row. */
function DeletedFoot({ counts, scopes, onShow }: { counts: Partial<Record<Scope, number>>; scopes: readonly Scope[] | undefined; onShow: (scope: Scope) => void }) {
  const shown = (Object.keys(SCOPE_LABELS) as Scope[]).filter((s) => (counts[s] ?? 0) > 0 && (!scopes || scopes.includes(s)));
  if (shown.length === 0) return null;
  return (
    <div className="tree-foot" role="group" aria-label="Recently deleted">
      <ArchiveRestore size={14} aria-hidden />
      <span>Recently deleted:</span>
      {shown.map((s) => (
        <button key={s} type="button" className="link" onClick={() => onShow(s)} aria-label={`Recently deleted from ${SCOPE_LABELS[s]}, ${counts[s] === 1 ? '1 file' : `${counts[s]} files`}`}>
          {SCOPE_LABELS[s].toLowerCase()} ({counts[s]})
        </button>
      ))}
    </div>
  );
}
