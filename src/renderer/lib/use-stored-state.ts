/**
 * A piece of the UI's state remembered in localStorage under `key`, read once when the component
 * mounts: `parse` turns the stored text (null: none, or storage refused) into the value. Storage
 * refused (a private window) keeps the value for this page only.
 */
import { useCallback, useState } from 'react';

export function useStoredState<T extends string | boolean>(key: string, parse: (stored: string | null) => T): [T, (next: T) => void] {
  const [value, setValue] = useState<T>(() => {
    try {
      return parse(localStorage.getItem(key));
    } catch {
      return parse(null);
    }
  });
  const set = useCallback(
    (next: T) => {
      setValue(next);
      try {
        localStorage.setItem(key, String(next));
      } catch {
        // Storage refused: it holds for this page.
      }
    },
    [key],
  );
  return [value, set];
}
