/**
 * The menu of one workspace in the sidebar (role `menu`): Connect an agent…, Rename…, Remove… (the
 * items: Sidebar). Opened by its "⋯" button (Enter, Space or ArrowDown from the keyboard) or by a
 * right click on the workspace. Up/Down/Home/End move, Enter or Space choose, Escape or Tab or a
 * click elsewhere close it, and so does a resize of the window; the focus goes back to the button
 * (a dialog an item opens returns it there too) (PopupMenu).
 *
 * Invariant: it is drawn inside the window (moved left or up near an edge), so it works at any width.
 */
import { PopupMenu, type PopupMenuItem } from '../../lib/PopupMenu';

export interface WorkspaceMenuProps {
  /** Where it opens, in window coordinates. */
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly items: readonly Omit<PopupMenuItem, 'shortcut'>[];
  /** Closes it (an item chosen, Escape, Tab, a click elsewhere, a resize); the opener takes the focus back. */
  readonly onClose: () => void;
}

export function WorkspaceMenu({ onClose, ...props }: WorkspaceMenuProps) {
  return <PopupMenu {...props} className="ws-menu" closeOnResize onClose={() => onClose()} />;
}
