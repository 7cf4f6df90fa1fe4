/**
 * The tree's right-click menu (role `menu`), as VS Code's explorer has it: on one row Open, Rename,
 * Pin or Unpin, Copy virtual path, Delete; on a row of a multi-selection the bulk actions for every
 * selected file. Opened by a right click, or from the keyboard on the active row (Shift+F10, the
 * ContextMenu key: MemoryTree). Up/Down/Home/End move, Enter or Space choose, Escape or Tab or a
 * click elsewhere close it, and the focus goes back to the row it was opened on.
 *
 * Invariant: it is drawn inside the window (moved left or up when the point is near an edge, when
 * it opens).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface MenuItem {
  readonly label: string;
  readonly run: () => void;
  readonly danger?: boolean;
  readonly shortcut?: string;
}

export interface RowMenuProps {
  /** Where it opens, in window coordinates. */
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly items: readonly MenuItem[];
  /** Closes it; `refocus`: give the focus back to the row it was opened on (not after a click elsewhere). */
  readonly onClose: (refocus: boolean) => void;
}

export function RowMenu({ x, y, label, items, onClose }: RowMenuProps) {
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
    const onBlur = () => close.current(false);
    document.addEventListener('mousedown', away, true);
    window.addEventListener('blur', onBlur);
    return () => {
      document.removeEventListener('mousedown', away, true);
      window.removeEventListener('blur', onBlur);
    };
  }, []);

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
    <div ref={ref} className="row-menu" role="menu" aria-label={label} style={{ left: pos.left, top: pos.top }} onKeyDown={onKeyDown} onContextMenu={(e) => e.preventDefault()}>
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={item.danger ? 'danger' : undefined}
          onClick={() => {
            // The row takes the focus back first: a dialog the item opens returns it there when it closes.
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
