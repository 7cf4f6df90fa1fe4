/**
 * Follows one of the server's event streams for as long as a view needs it (the inbox's count, a
 * workspace's harvest status): opens it, hands on each item (saying whether it is the first of this
 * connection, which is the state now rather than a change), and when the stream drops (the server
 * restarted, the socket closed) opens it again after a backoff of 0.5 s doubling up to 10 s.
 *
 * Invariant: after `stop()` nothing is handed on and nothing is opened again.
 */

export type LiveState = 'connecting' | 'live' | 'lost';

export interface StreamHandlers<T> {
  /** An item of the stream; `first`: the first since this connection opened. */
  onItem(item: T, first: boolean): void;
  /** The connection's state; with `lost`, what ended it (null when it simply ended). */
  onState?(state: LiveState, error: unknown): void;
}

const MAX_BACKOFF_MS = 10_000;

export function followStream<T>(open: (signal: AbortSignal) => Promise<AsyncIterable<T>>, handlers: StreamHandlers<T>): () => void {
  const controller = new AbortController();
  let retry: ReturnType<typeof setTimeout> | null = null;
  let attempt = 0;
  const run = async () => {
    handlers.onState?.('connecting', null);
    let error: unknown = null;
    try {
      const stream = await open(controller.signal);
      let first = true;
      for await (const item of stream) {
        if (controller.signal.aborted) return;
        if (first) {
          attempt = 0;
          handlers.onState?.('live', null);
        }
        handlers.onItem(item, first);
        first = false;
      }
    } catch (err) {
      error = err;
    }
    if (controller.signal.aborted) return;
    handlers.onState?.('lost', error);
    retry = setTimeout(() => void run(), Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt++));
  };
  void run();
  return () => {
    controller.abort();
    if (retry) clearTimeout(retry);
  };
}
