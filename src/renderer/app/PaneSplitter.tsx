/**
 * The split between the memory tree and the open file: a vertical separator (role `separator`,
 * focusable) dragged with the pointer or moved with the keyboard (Left/Right by 16 px, with Shift by
 * 64, Home/End to the narrowest and widest; a double click goes back to the default). The width is
 * kept in localStorage, one for every view, as VS Code keeps its sidebar's. A screen reader hears
 * the width in pixels (aria-valuenow, measured when it is the default) between the narrowest and
 * the widest the pane allows.
 *
 * Invariant: the tree is never narrower than MIN_TREE_PX and the file never narrower than
 * MIN_FILE_PX; the stylesheet applies the same bound when the window shrinks after a drag.
 */
import { useCallback, useEffect, useState } from 'react';

const KEY = 'cairn.treeWidth';
export const MIN_TREE_PX = 300;
export const MIN_FILE_PX = 320;

function loadWidth(): number | null {
  try {
    const n = Number(localStorage.getItem(KEY));
    return Number.isFinite(n) && n >= MIN_TREE_PX ? n : null;
  } catch {
    return null;
  }
}

function saveWidth(width: number | null): void {
  try {
    if (width === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, String(Math.round(width)));
  } catch {
    // storage refused (private mode, full): the width holds for this page only
  }
}

/** The tree's width the person chose (null: the default), and its setter, which remembers it. */
export function useTreeWidth(): [number | null, (width: number | null) => void] {
  const [width, setWidth] = useState<number | null>(loadWidth);
  const set = useCallback((w: number | null) => {
    setWidth(w);
    saveWidth(w);
  }, []);
  return [width, set];
}

export interface PaneSplitterProps {
  /** The tree's column (its left edge and width are measured from it). */
  tree: React.RefObject<HTMLElement | null>;
  width: number | null;
  onWidth: (width: number | null) => void;
}

export function PaneSplitter({ tree, width, onWidth }: PaneSplitterProps) {
  // What a screen reader is told: the tree's width now and the widest it may be, measured as the
  // pane resizes (the default width is the stylesheet's, known only once laid out).
  const [measured, setMeasured] = useState<{ now: number; max: number } | null>(null);
  useEffect(() => {
    const el = tree.current;
    const pane = el?.parentElement;
    if (!el || !pane || typeof ResizeObserver !== 'function') return;
    const measure = () => {
      const now = Math.round(el.getBoundingClientRect().width);
      const max = Math.round(Math.max(MIN_TREE_PX, pane.getBoundingClientRect().width - MIN_FILE_PX));
      setMeasured((m) => (m && m.now === now && m.max === max ? m : { now, max }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    observer.observe(pane);
    return () => observer.disconnect();
  }, [tree]);
  const valueNow = Math.round(width ?? measured?.now ?? MIN_TREE_PX);

  const bounds = () => {
    const el = tree.current;
    const pane = el?.parentElement;
    const total = pane?.getBoundingClientRect().width ?? 0;
    return { left: el?.getBoundingClientRect().left ?? 0, now: el?.getBoundingClientRect().width ?? MIN_TREE_PX, max: Math.max(MIN_TREE_PX, total - MIN_FILE_PX) };
  };
  const clamp = (w: number, max: number) => Math.round(Math.min(max, Math.max(MIN_TREE_PX, w)));

  const onPointerDown = (e: React.PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    const target = e.currentTarget;
    target.setPointerCapture(e.pointerId);
    const { left, max } = bounds();
    const move = (ev: PointerEvent) => onWidth(clamp(ev.clientX - left, max));
    const up = () => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const { now, max } = bounds();
    const step = e.shiftKey ? 64 : 16;
    const next = e.key === 'ArrowLeft' ? now - step : e.key === 'ArrowRight' ? now + step : e.key === 'Home' ? MIN_TREE_PX : e.key === 'End' ? max : null;
    if (next === null) return;
    e.preventDefault();
    onWidth(clamp(next, max));
  };

  return (
    <div
      className="pane-splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the memory tree"
      aria-valuenow={valueNow}
      aria-valuetext={width === null ? `default width, ${valueNow} pixels` : `${valueNow} pixels`}
      aria-valuemin={MIN_TREE_PX}
      aria-valuemax={Math.max(valueNow, measured?.max ?? valueNow)}
      title="Drag to resize (or focus and use the arrow keys); double-click for the default width"
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
      onDoubleClick={() => onWidth(null)}
    />
  );
}
