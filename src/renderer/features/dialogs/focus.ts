/**
 * Where the keyboard focus goes when what held it is gone (a dialog closed over a row that was
 * renamed or deleted, a panel closed, a toast dismissed), so that it never drops to <body>, where
 * Escape and the arrow keys do nothing: the tree's active row (its roving tab stop), else the open
 * file's row, else the first row, else the main region. And a wait for an element that is about to
 * be drawn (an editor loading), to put the focus there once it is.
 */

/** A tree row by its id (a file's or directory's virtual path, a scope's `scope:<name>`), when it is drawn. */
export function treeRowElement(id: string): HTMLElement | null {
  return document.querySelector<HTMLElement>(`[role="tree"] [data-row-id="${CSS.escape(id)}"]`);
}

/** Focuses the best place left in the window; false when there is none (nothing is drawn yet). */
export function focusSomewhereSensible(): boolean {
  const target =
    document.querySelector<HTMLElement>('[role="tree"] [role="treeitem"][tabindex="0"]') ??
    document.querySelector<HTMLElement>('[role="tree"] [role="treeitem"][aria-selected="true"]') ??
    document.querySelector<HTMLElement>('[role="tree"] [role="treeitem"]') ??
    document.querySelector<HTMLElement>('main');
  if (!target) return false;
  if (target.tagName === 'MAIN' && !target.hasAttribute('tabindex')) target.tabIndex = -1;
  target.focus();
  return document.activeElement === target;
}

/** Whether the focus is nowhere in particular (on <body>, or on an element no longer in the page). */
export function focusIsLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

let pendingWait: (() => void) | null = null;

/**
 * Focuses what `find` returns as soon as it is in the page (at once if it already is), giving up
 * after `withinMs` or when another wait starts. Returns a cancel function.
 */
export function focusWhenShown(find: () => HTMLElement | null, withinMs = 5000): () => void {
  pendingWait?.();
  const now = find();
  if (now) {
    now.focus();
    return () => {};
  }
  const observer = new MutationObserver(() => {
    const el = find();
    if (!el) return;
    cancel();
    el.focus();
  });
  const timer = setTimeout(() => cancel(), withinMs);
  const cancel = () => {
    observer.disconnect();
    clearTimeout(timer);
    if (pendingWait === cancel) pendingWait = null;
  };
  observer.observe(document.body, { childList: true, subtree: true });
  pendingWait = cancel;
  return cancel;
}
