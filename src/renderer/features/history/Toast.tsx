/**
 * A toast: one short message at the bottom of the window, with an optional action (Undo) and a
 * Dismiss button. It is a live region (role `status`, or `alert` for a failure) so a screen reader
 * reads it; its buttons are ordinary buttons in the tab order, Escape inside it dismisses it.
 *
 * Invariants: it goes away by itself after `durationMs` (null: only when dismissed), and never
 * while the pointer is over it or the focus is inside it (the time left is kept for after), so a
 * person reaching for Undo is not beaten by the clock. It never covers the actions a view marks
 * `data-keep-clear` (an editor's buttons, a conflict's choices): where its place at the foot of
 * the window would, it moves up above them, and it looks again whenever the page changes, scrolls
 * or is resized.
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

/** What a toast must leave uncovered, and the room it keeps from it. */
const KEEP_CLEAR = '[data-keep-clear]';
const GAP = 8;

/**
 * How far up `toast` must move (in px) so it covers none of the `keep` boxes: it moves up past
 * each one it would overlap, until it overlaps none or would leave the window at the top.
 */
export function liftClearOf(toast: DOMRectReadOnly, keep: readonly DOMRectReadOnly[]): number {
  let lift = 0;
  for (let moved = true; moved; ) {
    moved = false;
    for (const r of keep) {
      const top = toast.top - lift;
      const bottom = toast.bottom - lift;
      const across = r.left < toast.right && r.right > toast.left;
      if (!across || r.width === 0 || r.height === 0 || r.top >= bottom + GAP || r.bottom <= top - GAP) continue;
      const next = toast.bottom - (r.top - GAP);
      if (toast.top - next < 0) return lift; // no room above: stay where it was
      lift = next;
      moved = true;
    }
  }
  return lift;
}

/** Keeps `ref`'s toast clear of the page's marked actions, placed again as the page changes. */
function useKeepClear(ref: React.RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let frame = 0;
    const place = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        el.style.translate = '';
        const keep = [...document.querySelectorAll(KEEP_CLEAR)].map((k) => k.getBoundingClientRect());
        const lift = liftClearOf(el.getBoundingClientRect(), keep);
        el.style.translate = lift > 0 ? `0 ${-lift}px` : '';
      });
    };
    place();
    const changes = new MutationObserver(place);
    changes.observe(document.body, { childList: true, subtree: true });
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      cancelAnimationFrame(frame);
      changes.disconnect();
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [ref]);
}

export function Toast({ message, tone = 'status', action, durationMs, onDismiss, takeFocus }: ToastProps) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;
  // The time left, kept across pauses (the toast is mounted anew, with a new key, for a new message).
  const remaining = useRef(durationMs);
  useKeepClear(ref);

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
