/** The inbox's and the harvest's live streams: a snapshot now, and again after each change. */

/**
 * A stream of `snapshot()`: one now, then one after each notification (several notifications
 * while the client reads one snapshot give one more, not several); ends when the client goes.
 */
export async function* notified<T>(signal: AbortSignal | undefined, subscribe: (wake: () => void) => () => void, snapshot: () => T): AsyncGenerator<T> {
  let dirty = true;
  let wake: (() => void) | null = null;
  const unsubscribe = subscribe(() => {
    dirty = true;
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  try {
    while (!signal?.aborted) {
      if (!dirty) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = null;
        continue;
      }
      dirty = false;
      yield snapshot();
    }
  } finally {
    unsubscribe();
  }
}
