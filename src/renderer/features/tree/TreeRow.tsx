/**
 * One row of the scope tree: a scope header, a directory, a file, a note (why a scope is empty or
 * unavailable), or the scope's "Recently deleted" entry. Memoized: a row re-renders only when its own data, its badge or its focus changes.
 * Row actions (Pin, Rename, Delete) exist only on the row under the pointer and the active row
 * (the one keyboard focus is on): a tree of thousands of files then draws a few dozen buttons, not
 * hundreds. Their slot has a fixed width, so nothing shifts when they appear.
 * A name or description cut with an ellipsis gets its full text as a tooltip when the row is
 * hovered (measured then: only a hovered row pays for the layout read).
 * A click opens a file; with Ctrl/Cmd it adds the file to the multi-selection (or takes it out),
 * with Shift it selects the files from the last one picked. A right click opens the row menu.
 * File and directory rows can be dragged; directory and scope rows take a drop (a move: MemoryBrowser).
 */
import { AlertTriangle, ArchiveRestore, Bot, BrushCleaning, PenLine, Pin, PinOff, TextCursorInput, Trash2 } from 'lucide-react';
import { memo, useId, useState } from 'react';
import { relativeTime, usageLine } from '../../lib/relative-time';
import { badgeKey, useBadge, useBadgeIsNew } from '../changes/badge-store';
import { CHEVRON_DOWN, CHEVRON_RIGHT, FILE_TEXT, FOLDER, FOLDER_OPEN } from './row-icons';
import { SCOPE_LABELS, type MemoryFile, type Row } from './tree-model';

export const ROW_HEIGHT: Record<Row['kind'], number> = { scope: 34, dir: 28, file: 46, note: 30, deleted: 30, consolidated: 30, 'consolidation-waiting': 30 };

export interface RowActions {
  onActivate: (id: string) => void;
  onOpen: (file: MemoryFile) => void;
  onToggle: (id: string) => void;
  onPin: (file: MemoryFile, pinned: boolean) => void;
  onDelete: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  onRename: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  /** Shows a scope's recently deleted files. */
  onShowDeleted: (scope: Row['scope']) => void;
  /** Ctrl/Cmd+click (`toggle`) or Shift+click (`range`) on a file. */
  onPick: (row: Extract<Row, { kind: 'file' }>, how: 'toggle' | 'range') => void;
  /** Opens the row menu at a point of the window. */
  onMenu: (row: Row, x: number, y: number) => void;
  onDragStart: (row: Extract<Row, { kind: 'dir' | 'file' }>) => void;
  onDragEnd: () => void;
  /** Whether what is being dragged may be dropped on this row (a directory or scope). */
  canDrop: (row: Extract<Row, { kind: 'dir' | 'scope' }>) => boolean;
  onDrop: (row: Extract<Row, { kind: 'dir' | 'scope' }>) => void;
  /** Opens the consolidation of a scope. */
  onConsolidate?: (scope: Row['scope']) => void;
  /** Undoes a scope's last consolidation (its "Last consolidated" row). */
  onUndoConsolidation?: (row: Extract<Row, { kind: 'consolidated' }>) => void;
}

/** The drag's type: a row of this tree (a file from elsewhere is not a memory move). */
const DRAG_TYPE = 'application/x-cairn-memory-path';

interface TreeRowProps {
  row: Row;
  workspaceId: string | null;
  active: boolean;
  selected: boolean;
  /** In the multi-selection. */
  picked: boolean;
  top: number;
  actions: RowActions;
}

const INDENT = 14;

function Indent({ level }: { level: number }) {
  // One guide per ancestor level below the scope header.
  return (
    <span className="indent" style={{ width: (level - 1) * INDENT }} aria-hidden>
      {Array.from({ length: Math.max(0, level - 2) }, (_, i) => (
        <span key={i} className="guide" style={{ left: (i + 1) * INDENT + 6 }} />
      ))}
    </span>
  );
}

function FileBadges({ file, workspaceId }: { file: MemoryFile; workspaceId: string | null }) {
  const key = badgeKey(workspaceId, file.scope, file.path);
  const badge = useBadge(key);
  const fresh = useBadgeIsNew(key, workspaceId);
  return (
    <span className="badges">
      {fresh && (
        <span className="badge new" title="Changed since you last marked everything seen">
          <span className="new-dot" aria-hidden /> <span className="badge-text">new</span>
        </span>
      )}
      {badge === 'agent' && (
        <span className="badge agent" title="An agent changed this file since you last opened it">
          <Bot size={12} aria-hidden /> <span className="badge-text">agent edited</span>
        </span>
      )}
      {badge === 'external' && (
        <span className="badge external" title="Changed by something other than Cairn since you last opened it">
          <PenLine size={12} aria-hidden /> <span className="badge-text">edited outside Cairn</span>
        </span>
      )}
      {file.flags.length > 0 && (
        <span className="badge warn" title={`The scanners flag this file: ${[...new Set(file.flags.map((f) => f.rule))].join(', ')}`}>
          <AlertTriangle size={12} aria-hidden /> <span className="badge-text">flagged</span>
        </span>
      )}
    </span>
  );
}

/** Gives each cut text of a row (marked `data-full`) its full text as a tooltip, and takes it from one that fits. */
function titleWhereCut(row: HTMLElement): void {
  for (const el of row.querySelectorAll<HTMLElement>('[data-full]')) {
    if (el.scrollWidth > el.clientWidth) el.title = el.dataset.full ?? '';
    else el.removeAttribute('title');
  }
}

/** A drop target's handlers: it takes a drop of a tree row when `canDrop` says so, and shows it while dragged over. */
function dropProps(row: Extract<Row, { kind: 'dir' | 'scope' }>, actions: RowActions, setOver: (over: DropState) => void) {
  const accepts = (e: React.DragEvent) => e.dataTransfer.types.includes(DRAG_TYPE);
  return {
    onDragOver: (e: React.DragEvent) => {
      if (!accepts(e)) return;
      // Every drop is taken, a refused one too: the browser fires no drop for dropEffect 'none', and
      // the person is owed the reason (MemoryBrowser says it). The row shows which it would be.
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
      setOver(actions.canDrop(row) ? 'ok' : 'refused');
    },
    onDragLeave: () => setOver(null),
    onDrop: (e: React.DragEvent) => {
      if (!accepts(e)) return;
      e.preventDefault();
      setOver(null);
      actions.onDrop(row);
    },
  };
}

/** How a drop target shows a drag over it: a move it would take, or one it refuses. */
type DropState = 'ok' | 'refused' | null;
const dropClass = (over: DropState) => (over === 'ok' ? ' drop-over' : over === 'refused' ? ' drop-refused' : '');

function dragProps(row: Extract<Row, { kind: 'dir' | 'file' }>, actions: RowActions) {
  return {
    draggable: true,
    onDragStart: (e: React.DragEvent) => {
      e.dataTransfer.setData(DRAG_TYPE, row.path);
      e.dataTransfer.setData('text/plain', row.path);
      e.dataTransfer.effectAllowed = 'move';
      actions.onDragStart(row);
    },
    onDragEnd: () => actions.onDragEnd(),
  };
}

function TreeRowView({ row, workspaceId, active, selected, picked, top, actions }: TreeRowProps) {
  // A file row's accessible name is its path; its description is what the row shows besides
  // (pinned, the badges, the description, the usage), read from those very elements.
  const uid = useId();
  const [hovered, setHovered] = useState(false);
  const [over, setOver] = useState<DropState>(null);
  const withActions = active || hovered;
  const style = { transform: `translateY(${top}px)`, height: ROW_HEIGHT[row.kind] };
  const common = {
    'data-row-id': row.id,
    tabIndex: active ? 0 : -1,
    onContextMenu: (e: React.MouseEvent) => {
      e.preventDefault();
      actions.onMenu(row, e.clientX, e.clientY);
    },
    onFocus: () => actions.onActivate(row.id),
    onMouseEnter: (e: React.MouseEvent<HTMLElement>) => {
      titleWhereCut(e.currentTarget);
      setHovered(true);
    },
    // Leaving for no element (out of the window; some synthetic moves report the window) keeps
    // them; they stay hidden by CSS until the row is hovered or focused again.
    onMouseLeave: (e: React.MouseEvent) => e.relatedTarget instanceof Node && setHovered(false),
    style,
  };
  switch (row.kind) {
    case 'scope':
      return (
        <div role="treeitem" aria-level={1} aria-expanded={row.expanded} aria-label={`${SCOPE_LABELS[row.scope]} memory, ${row.count === 1 ? '1 file' : `${row.count} files`}`} className={`row scope-row${active ? ' active' : ''}${dropClass(over)}`} onClick={() => actions.onToggle(row.id)} {...common} {...dropProps(row, actions, setOver)}>
          {row.expanded ? CHEVRON_DOWN : CHEVRON_RIGHT}
          <span className="scope-label">{SCOPE_LABELS[row.scope]}</span>
          {actions.onConsolidate && withActions && row.available && row.count > 0 && (
            <span className="actions scope-actions">
              <button type="button" className="icon-btn" aria-label={`Consolidate ${row.scope} memory…`} title="Consolidate…: propose deleting unused files and merging near-duplicates, for you to review" tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onConsolidate?.(row.scope))}>
                <BrushCleaning size={14} aria-hidden />
              </button>
            </span>
          )}
          <span className="count">{row.available ? row.count : '—'}</span>
        </div>
      );
    case 'note':
      return (
        <div role="treeitem" aria-level={2} aria-label={row.text} className={`row note-row${active ? ' active' : ''}`} {...common}>
          <Indent level={row.level} />
          <span className="note">{row.text}</span>
        </div>
      );
    case 'deleted':
      return (
        <div
          role="treeitem"
          aria-level={2}
          aria-label={`Recently deleted from ${SCOPE_LABELS[row.scope]}, ${row.count === 1 ? '1 file' : `${row.count} files`}`}
          className={`row deleted-row${active ? ' active' : ''}`}
          onClick={() => actions.onShowDeleted(row.scope)}
          title="Files deleted recently: restore them"
          {...common}
        >
          <Indent level={row.level} />
          <ArchiveRestore size={14} aria-hidden className="dir-icon" />
          <span className="name">Recently deleted</span>
          <span className="count">{row.count}</span>
        </div>
      );
    case 'consolidation-waiting': {
      const when = relativeTime(row.at) ?? row.at;
      return (
        <div role="treeitem" aria-level={2} aria-label={`${SCOPE_LABELS[row.scope]} memory has a consolidation waiting for review: ${row.summary}, proposed ${when}`} className={`row consolidated-row waiting${active ? ' active' : ''}`} onClick={() => actions.onConsolidate?.(row.scope)} title="A consolidation proposal waits for your review: nothing is written until you apply it" {...common}>
          <Indent level={row.level} />
          <BrushCleaning size={14} aria-hidden className="dir-icon" />
          <span className="name">
            Proposed {when}: {row.summary}
          </span>
          {actions.onConsolidate && (
            <>
              <span aria-hidden>·</span>
              <button type="button" className="link consolidated-undo" aria-label={`Review the consolidation of ${row.scope} memory`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onConsolidate?.(row.scope))}>
                Review
              </button>
            </>
          )}
        </div>
      );
    }
    case 'consolidated': {
      const when = relativeTime(row.at) ?? row.at;
      return (
        <div role="treeitem" aria-level={2} aria-label={`${SCOPE_LABELS[row.scope]} memory was last consolidated ${when}`} className={`row consolidated-row${active ? ' active' : ''}`} title={`Consolidated ${new Date(row.at).toLocaleString()}: Undo takes the whole consolidation back`} {...common}>
          <Indent level={row.level} />
          <BrushCleaning size={14} aria-hidden className="dir-icon" />
          <span className="name">Last consolidated {when}</span>
          {actions.onUndoConsolidation && (
            <>
              <span aria-hidden>·</span>
              <button type="button" className="link consolidated-undo" aria-label={`Undo the consolidation of ${row.scope} memory`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onUndoConsolidation?.(row))}>
                Undo
              </button>
            </>
          )}
        </div>
      );
    }
    case 'dir':
      return (
        <div role="treeitem" aria-level={row.level} aria-expanded={row.expanded} aria-label={row.unreadable ? `${row.path}, cannot read` : row.path} className={`row dir-row${active ? ' active' : ''}${dropClass(over)}`} onClick={() => actions.onToggle(row.id)} {...common} {...dragProps(row, actions)} {...dropProps(row, actions, setOver)}>
          <Indent level={row.level} />
          {row.expanded ? CHEVRON_DOWN : CHEVRON_RIGHT}
          {row.expanded ? FOLDER_OPEN : FOLDER}
          <span className="name" data-full={row.path}>
            {row.name}
          </span>
          {row.unreadable ? (
            <span className="note" title="Cairn cannot read this folder (permission denied): what it holds is unknown">
              cannot read
            </span>
          ) : (
            <span className="count">{row.count}</span>
          )}
          <span className="actions dir-actions">
            {withActions && (
              <>
                <button type="button" className="icon-btn" aria-label="Rename" title={`Rename or move ${row.name}`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onRename(row))}>
                  <TextCursorInput size={14} aria-hidden />
                </button>
                <button type="button" className="icon-btn" aria-label="Delete" title={`Delete ${row.name} and its ${row.count} files`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onDelete(row))}>
                  <Trash2 size={14} aria-hidden />
                </button>
              </>
            )}
          </span>
        </div>
      );
    case 'file': {
      const f = row.file;
      const usage = usageLine(f.accessCount, f.lastAccessedAt);
      return (
        <div
          role="treeitem"
          aria-level={row.level}
          aria-selected={selected || picked}
          aria-label={row.path}
          aria-describedby={[`${uid}-state`, f.description ? `${uid}-desc` : '', usage ? `${uid}-usage` : ''].filter(Boolean).join(' ')}
          className={`row file-row${active ? ' active' : ''}${selected ? ' selected' : ''}${picked ? ' picked' : ''}`}
          onClick={(e) => {
            if (e.ctrlKey || e.metaKey) actions.onPick(row, 'toggle');
            else if (e.shiftKey) actions.onPick(row, 'range');
            else actions.onOpen(f);
          }}
          {...common}
          {...dragProps(row, actions)}
        >
          <Indent level={row.level} />
          {FILE_TEXT}
          <span className="file-text">
            <span className="line1">
              <span className="name" data-full={row.path}>
                {row.name}
              </span>
              <span className="row-state" id={`${uid}-state`}>
                {f.pinned && <Pin size={12} className="pinned" aria-label="Pinned" role="img" fill="currentColor" />}
                <FileBadges file={f} workspaceId={workspaceId} />
              </span>
            </span>
            <span className="line2">
              <span className="desc" id={`${uid}-desc`} data-full={f.description ?? ''}>
                {f.description ?? ''}
              </span>
              {usage && (
                <span className="usage" id={`${uid}-usage`} data-full={usage}>
                  {usage}
                </span>
              )}
            </span>
          </span>
          <span className="actions file-actions">
            {withActions && (
              <>
            <button type="button" className="icon-btn" aria-label={f.pinned ? 'Unpin' : 'Pin'} title={f.pinned ? 'Unpin: stop giving it to agents up front' : 'Pin: always give it to agents up front'} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onPin(f, !f.pinned))}>
              {f.pinned ? <PinOff size={14} aria-hidden /> : <Pin size={14} aria-hidden />}
            </button>
            <button type="button" className="icon-btn" aria-label="Rename" title={`Rename or move ${row.name}`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onRename(row))}>
              <TextCursorInput size={14} aria-hidden />
            </button>
            <button type="button" className="icon-btn" aria-label="Delete" title={`Delete ${row.name}`} tabIndex={active ? 0 : -1} onClick={(e) => (e.stopPropagation(), actions.onDelete(row))}>
              <Trash2 size={14} aria-hidden />
            </button>
              </>
            )}
          </span>
        </div>
      );
    }
  }
}

/** Rows are rebuilt on every list change; one whose content is unchanged (same fields, same file object) is the same row. */
function sameRow(a: Row, b: Row): boolean {
  if (a === b) return true;
  const ka = Object.keys(a) as (keyof Row)[];
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}

export const TreeRow = memo(
  TreeRowView,
  (prev, next) =>
    prev.workspaceId === next.workspaceId && prev.active === next.active && prev.selected === next.selected && prev.picked === next.picked && prev.top === next.top && prev.actions === next.actions && sameRow(prev.row, next.row),
);
