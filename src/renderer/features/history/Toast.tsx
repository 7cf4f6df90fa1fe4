/**
 * A toast: one short message at the bottom of the window, with an optional action (Undo) and a
 * Dismiss button. It is a live region (role `status`, or `alert` for a failure) so a screen reader
 * reads it; its buttons are ordinary buttons in the tab order, Escape inside it dismisses it.
 *
 * Invariants: it goes away by itself after `durationMs` (null: only when dismissed), and never
 * while the pointer is over it or the focus is inside it (the time left is kept for after), so a
 * person reaching for Undo is not beaten by the clock.
 */
import { X } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';

export interface ToastProps {
  message: ReactNode;
  tone?: 'status' | 'alert';
  /** The action's button (e.g. Undo), if any. */
  action?: ReactNode;
  /** How long it stays; null: until dismissed. */
  durationMs: number | null;
  onDismiss: () => void;
  /** Focus its first button when shown (it replaces a toast that held the focus). */
  takeFocus?: boolean;
}

export function Toast({ message, tone = 'status', action, durationMs, onDismiss, takeFocus }: ToastProps) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;
  // The time left, kept across pauses (the toast is mounted anew, with a new key, for a new message).
  const remaining = useRef(durationMs);

  useEffect(() => {
    if (takeFocus) ref.current?.querySelector<HTMLElement>('button')?.focus();
  }, [takeFocus]);

  const paused = hovered || focused;
  const timed = durationMs !== null;
  useEffect(() => {
    if (paused || !timed || remaining.current === null) return;
    const started = Date.now();
    const timer = setTimeout(() => dismiss.current(), Math.max(0, remaining.current));
    return () => {
      clearTimeout(timer);
      if (remaining.current !== null) remaining.current -= Date.now() - started;
    };
  }, [paused, timed]);

  return (
    <div
      ref={ref}
      className={`toast ${tone}`}
      role={tone}
      aria-atomic="true"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocused(false);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onDismiss();
        }
      }}
    >
      <span className="toast-text">{message}</span>
      {action}
      <button type="button" className="icon-btn toast-close" aria-label="Dismiss" title="Dismiss" onClick={onDismiss}>
        <X size={14} aria-hidden />
      </button>
    </div>
  );
}
