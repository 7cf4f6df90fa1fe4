/**
 * The virtualized scope tree (role `tree`): only the rows in view are in the DOM, so thousands of
 * files render and scroll smoothly (with a few beyond each end, kept ready for a scroll; they come in
 * the frame after the tree's first, which then paints sooner). Keyboard: Up/Down move, Right expands (or steps in), Left
 * collapses (or steps out), Home/End, Enter opens a file, toggles a directory or shows a scope's
 * recently deleted files, F2 renames, Delete asks to delete (the selected files, when several are),
 * Shift+Up/Down extend the multi-selection, Escape clears it, Shift+F10 or the ContextMenu key opens
 * the row menu. The active row holds the focus (roving tabindex).
 * Its handle moves the focus from outside: to a row (after a delete), or to the first result (ArrowDown
 * in the filter).
 * It holds still while the list changes under the person (tree-anchor.ts): rows added or removed
 * above the view leave the row they look at (the open file's, when it is in view, else the first
 * row in view) where it was on screen. The open file's row is scrolled into view when the file is
 * opened from elsewhere. Files agents created that are out of view are counted in a pill ("3 new
 * files above") that scrolls to them; a file counts until its row has been in view.
 */
import { defaultRangeExtractor, observeElementRect, useVirtualizer, type Range, type Rect, type Virtualizer } from '@tanstack/react-virtual';
import { ArrowDown, ArrowUp } from 'lucide-react';
import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { anchorOf, arrivalsOutOfView, rowStarts, type Anchor } from './tree-anchor';
import type { MemoryFile, Row } from './tree-model';
import { ROW_HEIGHT, TreeRow, type RowActions } from './TreeRow';

export interface MemoryTreeProps {
  rows: Row[];
  workspaceId: string | null;
  activeId: string | null;
  selectedPath: string | null;
  label: string;
  onActiveChange: (id: string) => void;
  onOpen: (file: MemoryFile) => void;
  onToggle: (id: string, expand?: boolean) => void;
  onPin: (file: MemoryFile, pinned: boolean) => void;
  onDelete: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  onRename: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  onShowDeleted: (scope: Row['scope']) => void;
  /** The multi-selection: paths of the files picked (empty: none). */
  picked: ReadonlySet<string>;
  /** A file picked (toggle) or a range picked up to it; `from`: where a keyboard range starts when none was picked yet (the active row). */
  onPick: (row: Extract<Row, { kind: 'file' }>, how: 'toggle' | 'range', from: string | null) => void;
  onClearPicks: () => void;
  onMenu: (row: Row, x: number, y: number) => void;
  onDragStart: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  onDragEnd: () => void;
  canDrop: (row: Extract<Row, { kind: 'dir' | 'scope' }>) => boolean;
  onDrop: (row: Extract<Row, { kind: 'dir' | 'scope' }>) => void;
  /** Opens the consolidation of a scope; without it, scope rows offer none. */
  onConsolidate?: (scope: Row['scope']) => void;
  /** Undoes a scope's last consolidation; without it, its row offers no Undo. */
  onUndoConsolidation?: (row: Extract<Row, { kind: 'consolidated' }>) => void;
  /** Files agents created while the person watched, until each has been in view (the pill counts those out of view). */
  arrivals?: ReadonlySet<string>;
  /** These arrivals' rows have been in view. */
  onArrivalsSeen?: (paths: string[]) => void;
}

export interface MemoryTreeHandle {
  /** Focuses the row with this id, scrolling it into view; false when no such row is shown. */
  focusRow(id: string): boolean;
  /** Focuses the first file row (the first row when no file is shown). */
  focusFirstResult(): void;
  /** Focuses the row the person looks at (the open file's when in view, else the first in view) without scrolling. */
  focusInView(): void;
}

/**
 * The tree's last measured size. A tree drawn again (another workspace, the same window) starts
 * from it, so its first frame already holds the rows in view and needs no second pass once the
 * element is measured.
 */
let lastRect: Rect = { width: 600, height: 800 };
const observeRect = (instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: Rect) => void) =>
  observeElementRect(instance, (rect) => {
    lastRect = rect;
    cb(rect);
  });

/** Rows drawn beyond each end of the view, so a scroll finds them ready. */
const OVERSCAN = 8;

export const MemoryTree = forwardRef<MemoryTreeHandle, MemoryTreeProps>(function MemoryTree(props, ref) {
  const { rows, activeId } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  // The first frame draws only the rows in view: those beyond it (half the rows of a tree that starts
  // with its directories closed) follow once that frame is painted, in a render of their own.
  const [overscan, setOverscan] = useState(0);
  useEffect(() => {
    // A frame callback runs before its frame paints: the one asked for from the first frame's runs
    // in the frame after it, once the first is on screen and what waited for it has run.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => setOverscan(OVERSCAN));
    });
    return () => cancelAnimationFrame(frame);
  }, []);
  /** The row a keyboard move went to, focused once it is rendered. */
  const focusPending = useRef<string | null>(null);
  // Stable per rows: the virtualizer measures all rows again whenever these functions change.
  const estimateSize = useCallback((i: number) => ROW_HEIGHT[rows[i]!.kind], [rows]);
  const getItemKey = useCallback((i: number) => rows[i]!.id, [rows]);
  const getScrollElement = useCallback(() => scrollRef.current, []);
  /** The active row's index: it stays drawn when scrolled out of view, so the focus on it is never dropped. */
  const keptIndex = useRef(-1);
  const rangeExtractor = useCallback((range: Range) => {
    const out = defaultRangeExtractor(range);
    const kept = keptIndex.current;
    if (kept < 0 || kept >= range.count || out.includes(kept)) return out;
    return kept < out[0]! ? [kept, ...out] : [...out, kept];
  }, []);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    getItemKey,
    overscan,
    rangeExtractor,
    // Before layout: the last tree's size (the element's own replaces it on mount).
    initialRect: lastRect,
    observeElementRect: observeRect,
  });

  // Where each row starts (every row of a kind has one height, so this is exact, as the virtualizer's is).
  const starts = useMemo(() => rowStarts(rows, ROW_HEIGHT), [rows]);
  /** What the person looks at, and where on screen, as of the last scroll or render (tree-anchor.ts). */
  const anchor = useRef<Anchor | null>(null);
  const shownRows = useRef(rows);
  /** The open file's path when it was last opened: its row is scrolled into view once drawn. */
  const revealPending = useRef<string | null>(props.selectedPath);
  const [arrivalPill, setArrivalPill] = useState<{ above: string[]; below: string[] }>({ above: [], below: [] });
  const hasArrivals = (props.arrivals?.size ?? 0) > 0;

  const view = () => {
    const el = scrollRef.current;
    return el ? { top: el.scrollTop, height: el.clientHeight } : null;
  };
  const remember = () => {
    const v = view();
    if (v) anchor.current = anchorOf(rows, starts, v, props.selectedPath);
  };
  /** Counts the arrivals out of view, and tells which have come into view. */
  const checkArrivals = () => {
    const v = view();
    if (!v || !props.arrivals || props.arrivals.size === 0) {
      if (arrivalPill.above.length + arrivalPill.below.length > 0) setArrivalPill({ above: [], below: [] });
      return;
    }
    const out = arrivalsOutOfView(rows, starts, v, props.arrivals);
    if (out.seen.length > 0) props.onArrivalsSeen?.(out.seen);
    if (out.above.join('\n') !== arrivalPill.above.join('\n') || out.below.join('\n') !== arrivalPill.below.join('\n')) setArrivalPill({ above: out.above, below: out.below });
  };

  useEffect(() => {
    revealPending.current = props.selectedPath;
  }, [props.selectedPath]);

  // After every render: rows changed under the person put what they looked at back where it was;
  // an open file not yet shown is scrolled into view; then what is in view now is remembered.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (shownRows.current !== rows) {
      shownRows.current = rows;
      const a = anchor.current;
      const i = a ? rows.findIndex((r) => r.id === a.id) : -1;
      if (a && i >= 0) {
        const want = Math.max(0, starts[i]! - a.offset);
        if (Math.abs(el.scrollTop - want) >= 1) virtualizer.scrollToOffset(want);
      }
    }
    const pending = revealPending.current;
    if (pending !== null) {
      const i = rows.findIndex((r) => r.id === pending);
      if (i >= 0) {
        revealPending.current = null;
        const top = starts[i]!;
        const bottom = starts[i + 1]!;
        if (top < el.scrollTop || bottom > el.scrollTop + el.clientHeight) virtualizer.scrollToIndex(i, { align: 'center' });
      }
    }
    remember();
    checkArrivals();
  });

  const onScroll = () => {
    remember();
    if (hasArrivals || arrivalPill.above.length + arrivalPill.below.length > 0) checkArrivals();
  };

  const activeIndex = Math.max(0, activeId === null ? 0 : rows.findIndex((r) => r.id === activeId));
  const active = rows[activeIndex];
  keptIndex.current = activeId === null ? -1 : activeIndex;

  // Keep the latest callbacks without making every row re-render when a parent re-renders.
  const latest = useRef(props);
  latest.current = props;
  const actionsRef = useRef<RowActions>({
    onActivate: (id) => latest.current.onActiveChange(id),
    onOpen: (f) => latest.current.onOpen(f),
    onToggle: (id) => latest.current.onToggle(id),
    onPin: (f, p) => latest.current.onPin(f, p),
    onDelete: (r) => latest.current.onDelete(r),
    onRename: (r) => latest.current.onRename(r),
    onShowDeleted: (scope) => latest.current.onShowDeleted(scope),
    onPick: (row, how) => latest.current.onPick(row, how, null),
    onMenu: (row, x, y) => latest.current.onMenu(row, x, y),
    onDragStart: (row) => latest.current.onDragStart(row),
    onDragEnd: () => latest.current.onDragEnd(),
    canDrop: (row) => latest.current.canDrop(row),
    onDrop: (row) => latest.current.onDrop(row),
    ...(props.onConsolidate ? { onConsolidate: (scope: Row['scope']) => latest.current.onConsolidate?.(scope) } : {}),
    ...(props.onUndoConsolidation ? { onUndoConsolidation: (row: Extract<Row, { kind: 'consolidated' }>) => latest.current.onUndoConsolidation?.(row) } : {}),
  });

  const moveTo = useCallback(
    (index: number) => {
      const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
      if (!row) return;
      focusPending.current = row.id;
      props.onActiveChange(row.id);
      virtualizer.scrollToIndex(rows.indexOf(row), { align: 'auto' });
      // A row already in view (and already active: no render follows) takes the focus now.
      const el = scrollRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(row.id)}"]`);
      if (el) {
        focusPending.current = null;
        el.focus();
      }
    },
    [rows, props, virtualizer],
  );

  useImperativeHandle(
    ref,
    () => ({
      focusRow: (id) => {
        const index = rows.findIndex((r) => r.id === id);
        if (index >= 0) moveTo(index);
        return index >= 0;
      },
      focusFirstResult: () => moveTo(Math.max(0, rows.findIndex((r) => r.kind === 'file'))),
      focusInView: () => {
        const id = anchor.current?.id;
        const el = id === undefined ? null : scrollRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(id)}"]`);
        if (!id || !el) return;
        props.onActiveChange(id);
        el.focus({ preventScroll: true });
      },
    }),
    [rows, moveTo],
  );

  // After a keyboard move, focus the row it went to once it is rendered. By its id, not the active
  // row: the virtualizer's own (flushSync) render after scrollToIndex can commit before the new
  // active id does, and must not take the pending focus with the old row.
  useEffect(() => {
    const id = focusPending.current;
    if (id === null) return;
    const el = scrollRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(id)}"]`);
    if (el) {
      focusPending.current = null;
      el.focus();
    }
  });

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!active || (e.target as HTMLElement).tagName === 'BUTTON') {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    }
    if (!active) return;
    if ((e.key === 'F10' && e.shiftKey) || e.key === 'ContextMenu') {
      e.preventDefault();
      const el = scrollRef.current?.querySelector<HTMLElement>(`[data-row-id="${CSS.escape(active.id)}"]`);
      const box = el?.getBoundingClientRect();
      props.onMenu(active, (box?.left ?? 0) + 24, box?.bottom ?? 0);
      return;
    }
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        const next = rows[Math.max(0, Math.min(rows.length - 1, activeIndex + (e.key === 'ArrowDown' ? 1 : -1)))];
        // Shift extends the multi-selection from where it started (the active row, the first time).
        if (e.shiftKey && next?.kind === 'file') props.onPick(next, 'range', active.id);
        moveTo(activeIndex + (e.key === 'ArrowDown' ? 1 : -1));
        break;
      }
      case 'Escape':
        if (props.picked.size === 0) return;
        props.onClearPicks();
        break;
      case 'Home':
        moveTo(0);
        break;
      case 'End':
        moveTo(rows.length - 1);
        break;
      case 'ArrowRight':
        if ((active.kind === 'scope' || active.kind === 'dir') && !active.expanded) props.onToggle(active.id, true);
        else if (active.kind === 'scope' || active.kind === 'dir') moveTo(activeIndex + 1);
        else return;
        break;
      case 'ArrowLeft':
        if ((active.kind === 'scope' || active.kind === 'dir') && active.expanded) props.onToggle(active.id, false);
        else if (active.kind !== 'scope') moveTo(rows.findIndex((r) => r.id === active.parentId));
        else return;
        break;
      case 'Enter':
        if (active.kind === 'file') props.onOpen(active.file);
        else if (active.kind === 'deleted') props.onShowDeleted(active.scope);
        else if (active.kind === 'consolidation-waiting') props.onConsolidate?.(active.scope);
        else if (active.kind === 'scope' || active.kind === 'dir') props.onToggle(active.id);
        break;
      case 'F2':
        if (active.kind === 'file' || active.kind === 'dir') props.onRename(active);
        else return;
        break;
      case 'Delete':
      case 'Backspace':
        if (active.kind === 'file' || active.kind === 'dir') props.onDelete(active);
        else return;
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const goToArrival = (path: string | undefined) => {
    // Focused there too: the pill goes once they are in view, and the focus with it must not drop.
    const i = path === undefined ? -1 : rows.findIndex((r) => r.id === path);
    if (i < 0) return;
    // Off the pill first, onto the active row where it is: the pill goes once the files are in
    // view, and a focus dropped with it would be put back on a row far from them.
    scrollRef.current?.querySelector<HTMLElement>('[data-row-id][tabindex="0"]')?.focus({ preventScroll: true });
    keptIndex.current = i;
    moveTo(i);
  };
  const pill = (paths: string[], where: 'above' | 'below') =>
    paths.length > 0 && (
      <button
        type="button"
        className={`arrivals-pill ${where}`}
        title={`Files agents created: ${paths.join(', ')}`}
        // The farthest one, scrolled just into view: the others, between it and the view, come with it when they fit.
        onClick={() => goToArrival(where === 'above' ? paths[0] : paths[paths.length - 1])}
      >
        {where === 'above' ? <ArrowUp size={12} aria-hidden /> : <ArrowDown size={12} aria-hidden />} {paths.length === 1 ? '1 new file' : `${paths.length} new files`} {where}
      </button>
    );

  return (
    <div className="tree-frame">
      {pill(arrivalPill.above, 'above')}
    <div ref={scrollRef} className="tree-scroll" role="tree" aria-multiselectable aria-label={props.label} onKeyDown={onKeyDown} onScroll={onScroll}>
      <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          return (
            <TreeRow
              key={row.id}
              row={row}
              workspaceId={props.workspaceId}
              active={item.index === activeIndex}
              selected={row.kind === 'file' && row.path === props.selectedPath && props.picked.size === 0}
              picked={row.kind === 'file' && props.picked.has(row.path)}
              top={item.start}
              actions={actionsRef.current}
            />
          );
        })}
      </div>
    </div>
      {pill(arrivalPill.below, 'below')}
    </div>
  );
});
