/**
 * What keeps the tree still while its list changes (MemoryTree): where each row starts, the row the
 * person looks at (the anchor) with its place on screen, and which of the files agents created are
 * out of view. Pure, so it is tested without a DOM.
 *
 * Invariants: the anchor is the open file's row when that row is in view (the row a person keeps
 * their eyes on), else the first row in view; its offset is where it starts relative to the top of
 * the view, so putting it back is `scrollTop = start - offset` whatever was added or removed above.
 */
import type { Row } from './tree-model';

export interface Anchor {
  /** The row's id (a file's is its path). */
  readonly id: string;
  /** Where the row starts, relative to the top of the view (px; negative when cut off at the top). */
  readonly offset: number;
}

export interface ViewBox {
  /** The scroll offset (px). */
  readonly top: number;
  readonly height: number;
}

/** Where each row starts, and (the last entry) where the last one ends: rows.length + 1 numbers. */
export function rowStarts(rows: readonly Row[], heights: Readonly<Record<Row['kind'], number>>): number[] {
  const starts = new Array<number>(rows.length + 1);
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    starts[i] = at;
    at += heights[rows[i]!.kind];
  }
  starts[rows.length] = at;
  return starts;
}

/** The first row that ends below `y` (the row at `y`); rows.length when none does. */
function rowAt(starts: readonly number[], y: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid + 1]! > y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The row the person looks at in `view`: the open file's when it is in view, else the first row in view; null for no rows. */
export function anchorOf(rows: readonly Row[], starts: readonly number[], view: ViewBox, openId: string | null): Anchor | null {
  if (rows.length === 0) return null;
  if (openId !== null) {
    const i = rows.findIndex((r) => r.id === openId);
    if (i >= 0 && starts[i + 1]! > view.top && starts[i]! < view.top + view.height) return { id: openId, offset: starts[i]! - view.top };
  }
  const i = Math.min(rows.length - 1, rowAt(starts, view.top));
  return { id: rows[i]!.id, offset: starts[i]! - view.top };
}

/**
 * The arrivals (file paths) whose rows are above or below the view, each in the tree's order, and
 * those now in view (half or more of the row shown). Arrivals with no row (a closed directory, a
 * filter) are in none of them.
 */
export function arrivalsOutOfView(rows: readonly Row[], starts: readonly number[], view: ViewBox, arrivals: ReadonlySet<string>): { above: string[]; below: string[]; seen: string[] } {
  const above: string[] = [];
  const below: string[] = [];
  const seen: string[] = [];
  if (arrivals.size === 0) return { above, below, seen };
  for (let i = 0; i < rows.length; i++) {
    const id = rows[i]!.id;
    if (!arrivals.has(id)) continue;
    const middle = (starts[i]! + starts[i + 1]!) / 2;
    if (middle < view.top) above.push(id);
    else if (middle > view.top + view.height) below.push(id);
    else seen.push(id);
  }
  return { above, below, seen };
}
