/**
 * A popup menu (role `menu`) at a point in the window, as a desktop context menu behaves: the first
 * item has the focus when it opens; Up/Down (wrapping), Home/End move; Enter or Space choose;
 * Escape or Tab close it, asking for the focus back (`onClose(true)`); a click elsewhere or the
 * window losing the focus close it without (`onClose(false)`), and so does a resize of the window
 * with `closeOnResize`. Choosing an item closes the menu (focus back) before running the item, so a
 * dialog the item opens gives the focus back to the opener when it closes. The row menu of the tree
 * (RowMenu) and a workspace's menu (WorkspaceMenu) are this, with their items and their class.
 *
 * Invariant: it is drawn inside the window (moved left or up when the point is near an edge, when
 * it opens).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface PopupMenuItem {
  readonly label: string;
  readonly run: () => void;
  readonly danger?: boolean;
  /** The key that does the same from where the menu was opened, shown beside the label. */
  readonly shortcut?: string;
}

export interface PopupMenuProps {
  /** Where it opens, in window coordinates. */
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly items: readonly PopupMenuItem[];
  /** The menu's class (its look). */
  readonly className: string;
  /** Close it when the window is resized too. */
  readonly closeOnResize?: boolean;
  /** Closes it; `refocus`: give the focus back to what it was opened from (not after a click elsewhere). */
  readonly onClose: (refocus: boolean) => void;
}

export function PopupMenu({ x, y, label, items, className, closeOnResize = false, onClose }: PopupMenuProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: x, top: y });
  const close = useRef(onClose);
  close.current = onClose;

  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const { width, height } = box.getBoundingClientRect();
    setPos({ left: Math.max(4, Math.min(x, window.innerWidth - width - 4)), top: Math.max(4, Math.min(y, window.innerHeight - height - 4)) });
    box.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [x, y]);

  useEffect(() => {
    const away = (e: Event) => {
      if (!ref.current?.contains(e.target as Node)) close.current(false);
    };
    const gone = () => close.current(false);
    document.addEventListener('mousedown', away, true);
    window.addEventListener('blur', gone);
    if (closeOnResize) window.addEventListener('resize', gone);
    return () => {
      document.removeEventListener('mousedown', away, true);
      window.removeEventListener('blur', gone);
      window.removeEventListener('resize', gone);
    };
  }, [closeOnResize]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    const buttons = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLElement);
    const move = (i: number) => buttons[(i + buttons.length) % buttons.length]?.focus();
    switch (e.key) {
      case 'ArrowDown':
        move(at + 1);
        break;
      case 'ArrowUp':
        move(at - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(buttons.length - 1);
        break;
      case 'Escape':
      case 'Tab':
        close.current(true);
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div ref={ref} className={className} role="menu" aria-label={label} style={{ left: pos.left, top: pos.top }} onKeyDown={onKeyDown} onContextMenu={(e) => e.preventDefault()}>
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={item.danger ? 'danger' : undefined}
          onClick={() => {
            // The opener takes the focus back first: a dialog the item opens returns it there when it closes.
            close.current(true);
            item.run();
          }}
        >
          <span>{item.label}</span>
          {item.shortcut && <kbd aria-hidden>{item.shortcut}</kbd>}
        </button>
      ))}
    </div>
  );
}
