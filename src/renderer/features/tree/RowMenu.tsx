/**
 * The tree's right-click menu (role `menu`), as VS Code's explorer has it: on one row Open, Rename,
 * Pin or Unpin, Copy virtual path, Delete; on a row of a multi-selection the bulk actions for every
 * selected file (the items: MemoryBrowser). Opened by a right click, or from the keyboard on the
 * active row (Shift+F10, the ContextMenu key: MemoryTree). Up/Down/Home/End move, Enter or Space
 * choose, Escape or Tab or a click elsewhere close it, and the focus goes back to the row it was
 * opened on (PopupMenu).
 *
 * Invariant: it is drawn inside the window (moved left or up when the point is near an edge, when
 * it opens).
 */
import { PopupMenu, type PopupMenuItem } from '../../lib/PopupMenu';

export type MenuItem = PopupMenuItem;

export interface RowMenuProps {
  /** Where it opens, in window coordinates. */
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly items: readonly MenuItem[];
  /** Closes it; `refocus`: give the focus back to the row it was opened on (not after a click elsewhere). */
  readonly onClose: (refocus: boolean) => void;
}

export function RowMenu(props: RowMenuProps) {
  return <PopupMenu {...props} className="row-menu" />;
}
