/**
 * The window's one polite live region, and `announce` to speak in it: status changes a person who
 * cannot see the screen is owed (an agent's edit arriving, a conflict, a harvest's proposals
 * waiting) without taking the focus or interrupting. Failures keep their own role="alert".
 *
 * Invariants: one region per window (App renders it once); the same sentence twice is said twice
 * (the region is emptied first, then filled on the next frame); a burst of announcements within
 * one frame says only the last.
 */
import { useSyncExternalStore } from 'react';

let message = '';
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};
let frame: number | null = null;

/** Says `text` politely through the window's live region. */
export function announce(text: string): void {
  message = '';
  emit();
  if (frame !== null) cancelAnimationFrame(frame);
  frame = requestAnimationFrame(() => {
    frame = null;
    message = text;
    emit();
  });
}

/** The region itself: visually hidden, read by screen readers. */
export function Announcer() {
  const text = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => message,
  );
  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {text}
    </div>
  );
}

/** The hook form, for components: `const say = useAnnounce(); say('Saved.')`. */
export function useAnnounce(): (text: string) => void {
  return announce;
}
