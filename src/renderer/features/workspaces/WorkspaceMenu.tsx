/**
 * The menu of one workspace in the sidebar (role `menu`): Connect an agent…, Rename…, Remove….
 * Opened by its "⋯" button (Enter, Space or ArrowDown from the keyboard) or by a right click on
 * the workspace. Up/Down/Home/End move, Enter or Space choose, Escape or Tab or a click elsewhere
 * close it, and the focus goes back to the button (a dialog an item opens returns it there too).
 *
 * Invariant: it is drawn inside the window (moved left or up near an edge), so it works at any width.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface WorkspaceMenuItem {
  readonly label: string;
  readonly run: () => void;
  readonly danger?: boolean;
}

export interface WorkspaceMenuProps {
  /** Where it opens, in window coordinates. */
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly items: readonly WorkspaceMenuItem[];
  /** Closes it (an item chosen, Escape, Tab, a click elsewhere); the opener takes the focus back. */
  readonly onClose: () => void;
}

export function WorkspaceMenu({ x, y, label, items, onClose }: WorkspaceMenuProps) {
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
      if (!ref.current?.contains(e.target as Node)) close.current();
    };
    const gone = () => close.current();
    document.addEventListener('mousedown', away, true);
    window.addEventListener('blur', gone);
    window.addEventListener('resize', gone);
    return () => {
      document.removeEventListener('mousedown', away, true);
      window.removeEventListener('blur', gone);
      window.removeEventListener('resize', gone);
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
        close.current();
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div ref={ref} className="ws-menu" role="menu" aria-label={label} style={{ left: pos.left, top: pos.top }} onKeyDown={onKeyDown} onContextMenu={(e) => e.preventDefault()}>
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          className={item.danger ? 'danger' : undefined}
          onClick={() => {
            close.current();
            item.run();
          }}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}
