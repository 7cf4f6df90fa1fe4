// Where a toast goes (Toast.tsx liftClearOf): at the foot of the window unless that covers an
// action a view keeps clear; then above it, and above the next one it would meet.
import { describe, expect, it } from 'vitest';
import { liftClearOf } from './Toast';

const box = (left: number, top: number, width: number, height: number) => ({ left, top, width, height, right: left + width, bottom: top + height, x: left, y: top, toJSON: () => ({}) }) as DOMRectReadOnly;
// A toast 40 px high at the foot of a 800 px high window, from x 300 to 700.
const TOAST = box(300, 740, 400, 40);

describe('a toast kept clear of actions', () => {
  it.each<[string, DOMRectReadOnly[], number]>([
    ['nothing marked: it stays', [], 0],
    ['an action elsewhere (the head, the far left): it stays', [box(300, 10, 400, 30), box(0, 740, 200, 30)], 0],
    ['an action under it: it moves up above it, with a gap', [box(500, 750, 100, 30)], 780 - (750 - 8)],
    ['stacked actions: it moves above both', [box(500, 750, 100, 30), box(320, 700, 120, 30)], 780 - (700 - 8)],
    ['an action just out of reach (more than the gap away): it stays', [box(300, 690, 400, 30)], 0],
    ['no room above (an action at the top): it stays rather than leave the window', [box(300, 0, 400, 790)], 0],
    ['a hidden action (no size): it stays', [box(500, 750, 0, 0)], 0],
  ])('%s', (_, keep, lift) => {
    expect(liftClearOf(TOAST, keep)).toBe(lift);
  });
});
