/**
 * Where a key moves in a vertical list of `length` items from index `at` (-1: none yet): the
 * arrows by one, Home and End to the ends; null for any other key.
 */
export function listKeyIndex(key: string, at: number, length: number): number | null {
  switch (key) {
    case 'ArrowDown':
      return Math.min(length - 1, at + 1);
    case 'ArrowUp':
      return Math.max(0, at - 1);
    case 'Home':
      return 0;
    case 'End':
      return length - 1;
    default:
      return null;
  }
}
