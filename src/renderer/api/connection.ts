/**
 * Web mode's connection to Cairn, which outlives any one WebSocket: the oRPC link writes to this
 * object as to a WebSocket, while underneath one real socket follows another. When a socket drops
 * (Cairn stopped or restarted), it tries again with backoff until Cairn answers; the link's calls
 * in flight end, and the change stream's subscription is made again by its owner.
 *
 * What the person is told rests on `state`:
 * - `online`: a socket is open;
 * - `reconnecting`: Cairn is not reachable (or was and dropped); attempts go on by themselves;
 * - `refused`: Cairn runs but no longer takes this page's token (rotated). A browser never learns a
 *   refused upgrade's status, so after a failed attempt the token is checked over HTTP. Attempts go
 *   on, slowly, and at once when another tab stores a token: a page that opened the new address
 *   elsewhere brings this one back;
 * - `no-token`: the page never had one.
 * Calls that fail because of the connection carry a sentence a person can act on
 * (`ConnectionError`), never the transport's own words.
 *
 * Invariant: `generation` changes whenever a socket opens, so a call can tell that the connection
 * it was sent on is gone even if a new one is open by the time it fails.
 */

/** What the link needs of a WebSocket (the browser's, or `ws` in tests). */
export type SocketLike = Pick<WebSocket, 'addEventListener' | 'removeEventListener' | 'send' | 'readyState' | 'close'>;

export type ConnectionState = 'connecting' | 'online' | 'reconnecting' | 'refused' | 'no-token';
export type TokenCheck = 'accepted' | 'refused' | 'unreachable';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ConnectionOptions {
  /** The token to offer, read at every attempt (another tab may have stored a newer one). */
  token(): string | null;
  /** Opens a real socket offering `token`. */
  open(token: string): SocketLike;
  /** Whether the server is there and takes `token`, asked after an attempt failed. */
  checkToken(token: string): Promise<TokenCheck>;
  /** Calls `listener` when the stored token changes (another tab); returns how to stop. */
  onTokenStored?(listener: () => void): () => void;
  timers?: Timers;
}

const OPEN = 1;
const CONNECTING = 0;
const CLOSED = 3;
/** The first retry comes quickly (a restart takes about a second); later ones back off to this. */
export const RETRY_FIRST_MS = 250;
export const RETRY_MAX_MS = 5_000;

export const TEXTS = {
  unreachable: 'Cairn is not reachable right now, so this was not done. Nothing you typed is lost: the page reconnects by itself when Cairn runs again (`cairn serve`).',
  interrupted: 'The connection to Cairn was lost before this finished, so it may not have been done. Nothing you typed is lost: try again once the page has reconnected.',
  refused:
    "Cairn no longer accepts this page's access token (it was replaced with `cairn serve --rotate-token`). Open the address `cairn serve` printed, or run `cairn serve` again to see it. Nothing you typed is lost.",
  noToken: 'This page has no access token. Open the address `cairn serve` printed (it carries the token), or run `cairn serve` again to see it.',
} as const;

/** A call that failed because of the connection, with what to do in its message. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

export class Connection extends EventTarget implements SocketLike {
  #state: ConnectionState = 'connecting';
  #socket: SocketLike | null = null;
  #retry: unknown = null;
  #failures = 0;
  #stopped = false;
  #generation = 0;
  readonly #stateListeners = new Set<() => void>();
  readonly #timers: Timers;
  readonly #stopWatchingToken: () => void;

  constructor(private readonly options: ConnectionOptions) {
    super();
    this.#timers = options.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    this.#stopWatchingToken =
      options.onTokenStored?.(() => {
        if (this.#state === 'refused' || this.#state === 'no-token') this.#attemptNow();
      }) ?? (() => {});
    this.#attempt();
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get generation(): number {
    return this.#generation;
  }

  /** As a WebSocket's: open while a socket is, connecting while an attempt is under way, else closed. */
  get readyState(): number {
    const inner = this.#socket?.readyState;
    return inner === OPEN ? OPEN : inner === CONNECTING ? CONNECTING : CLOSED;
  }

  send(data: Parameters<WebSocket['send']>[0]): void {
    if (!this.#socket || this.#socket.readyState !== OPEN) throw new ConnectionError(this.failureText());
    this.#socket.send(data);
  }

  /** Stops for good (the page is going away). */
  close(): void {
    this.#stopped = true;
    this.#stopWatchingToken();
    if (this.#retry !== null) this.#timers.clearTimeout(this.#retry);
    this.#retry = null;
    this.#socket?.close();
  }

  subscribe(listener: () => void): () => void {
    this.#stateListeners.add(listener);
    return () => this.#stateListeners.delete(listener);
  }

  /** Resolves when a socket is open (at once if one is); rejects when `signal` aborts. */
  whenOnline(signal?: AbortSignal): Promise<void> {
    if (this.#state === 'online') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        stop();
        reject(signal?.reason);
      };
      const stop = this.subscribe(() => {
        if (this.#state !== 'online') return;
        stop();
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Resolves with the first state that settles the page's start: online, refused or no token. */
  settled(): Promise<ConnectionState> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#state === 'online' || this.#state === 'refused' || this.#state === 'no-token') {
          stop();
          resolve(this.#state);
        }
      };
      const stop = this.subscribe(check);
      check();
    });
  }

  /** The sentence for a call made now that cannot be sent. */
  failureText(): string {
    if (this.#state === 'refused') return TEXTS.refused;
    if (this.#state === 'no-token') return TEXTS.noToken;
    return TEXTS.unreachable;
  }

  #setState(next: ConnectionState): void {
    if (next === this.#state) return;
    this.#state = next;
    for (const l of [...this.#stateListeners]) l();
  }

  #attemptNow(): void {
    if (this.#retry !== null) this.#timers.clearTimeout(this.#retry);
    this.#retry = null;
    this.#attempt();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#retry = this.#timers.setTimeout(() => {
      this.#retry = null;
      this.#attempt();
    }, ms);
  }

  #backoff(): number {
    return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.#failures++);
  }

  #attempt(): void {
    if (this.#stopped || this.#socket) return;
    const token = this.options.token();
    if (!token) {
      this.#setState('no-token');
      return;
    }
    let socket: SocketLike;
    try {
      socket = this.options.open(token);
    } catch {
      this.#setState('reconnecting');
      this.#schedule(this.#backoff());
      return;
    }
    this.#socket = socket;
    let opened = false;
    socket.addEventListener('open', () => {
      if (this.#socket !== socket) return;
      opened = true;
      this.#failures = 0;
      this.#generation++;
      this.#setState('online');
      this.dispatchEvent(new Event('open'));
    });
    socket.addEventListener('message', (event: MessageEvent) => {
      if (this.#socket === socket) this.dispatchEvent(new MessageEvent('message', { data: event.data }));
    });
    // A failure is always followed by `close`, where it is handled (with `ws`, an error nobody
    // listens to would be thrown).
    socket.addEventListener('error', () => {});
    socket.addEventListener('close', () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      // The link ends its calls in flight; a send waiting for this attempt learns it failed.
      this.dispatchEvent(new Event('close'));
      if (this.#stopped) return;
      if (opened) {
        this.#setState('reconnecting');
        this.#schedule(RETRY_FIRST_MS);
        return;
      }
      void this.options.checkToken(token).then((check) => {
        if (this.#stopped || this.#socket || this.#retry !== null) return;
        if (check === 'refused') {
          this.#setState('refused');
          this.#schedule(RETRY_MAX_MS);
        } else {
          this.#setState('reconnecting');
          this.#schedule(this.#backoff());
        }
      });
    });
  }
}

/**
 * Procedures that stream (`memory.onChange`, `inbox.onChange`, `harvest.onStatus`): the contract
 * names them `on<Event>`, and connection.test.ts checks that against the contract. A subscription
 * made while Cairn is away waits for it instead of failing, so a live view comes back by itself.
 */
export function isSubscription(path: readonly string[]): boolean {
  return /^on[A-Z]/.test(path[path.length - 1] ?? '');
}
