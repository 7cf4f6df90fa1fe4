/**
 * The stdio transport of `cairn mcp`: one JSON-RPC message per line on stdin, one per line on
 * stdout. It replaces the SDK's StdioServerTransport (not forked: the MCP Transport interface is
 * small) because of how that one reads: a message over its 10 MiB buffer closed the transport, so
 * `cairn mcp` exited 0 with nothing said and answered nothing after; a line that was not JSON, or
 * not a JSON-RPC message, was dropped without an answer; and it held a line whole, however long.
 *
 * Here every line gets an answer if it needs one, and the session goes on:
 * - a line over MAX_MESSAGE_BYTES is not kept: its bytes are counted and dropped up to its newline,
 *   then it is answered -32600 naming its size and the limit, with its id if one can be read from
 *   its first or last bytes (else null), so a client waiting on that id hears at once;
 * - a line that is not JSON: -32700 Parse error, id null (JSON-RPC 2.0);
 * - JSON that is no JSON-RPC message: -32600 Invalid Request, with its id when it has a usable one;
 * - a batch (a JSON array; MCP 2025-03-26, which the SDK still negotiates, has servers accept
 *   them): each member is handled, and the answers to its requests go back together as one array
 *   line once all are ready, as JSON-RPC 2.0 says; invalid members are answered in that array; an
 *   empty batch, or one of more than MAX_BATCH_MESSAGES, is answered -32600.
 * Blank lines are skipped. Memory stays bounded by MAX_MESSAGE_BYTES whatever comes in.
 *
 * `cairn mcp` may answer `initialize` itself before the server has loaded (./early-initialize.ts):
 * it reads the first line ahead, puts it back on stdin, and tells the transport (skipAnswer) that
 * the server's answer to that request is already out, so it is not written a second time.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The longest message taken, in bytes (the SDK's stdio limit; any real one is far smaller). */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** The most messages one batch may hold (as the SDK's HTTP transport). */
const MAX_BATCH_MESSAGES = 100;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** How many bytes of a too-large line's start and end are kept, to find its id. */
const EDGE_BYTES = 256;

interface ErrorAnswer {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly error: { readonly code: number; readonly message: string };
}

function errorAnswer(id: RequestId | null, code: number, message: string): ErrorAnswer {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

const ID = String.raw`(-?\d{1,15}|"[^"\\]{0,200}")`;
/** `{"jsonrpc":"2.0","id":7,` at a line's start: only string-valued members before the id, so it is the top-level one. */
const ID_AT_START = new RegExp(String.raw`^\s*\{(?:\s*"[A-Za-z]+"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*${ID}\s*[,}]`);
/** `,"id":7}` at a line's end (how the SDK's client writes a request): the last member of the outer object. */
const ID_AT_END = new RegExp(String.raw`[{,]\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of a message too large to parse, if its start or end shows it plainly; else null. */
export function idOfTooLarge(start: string, end: string): RequestId | null {
  const found = ID_AT_START.exec(start)?.[1] ?? ID_AT_END.exec(end)?.[1];
  if (found === undefined) return null;
  const id: unknown = JSON.parse(found);
  return isRequestId(id) ? id : null;
}

/** What one parsed line (or one member of a batch) is: a message to deliver, or the answer it gets. */
function check(raw: unknown): { message: JSONRPCMessage } | { answer: ErrorAnswer } {
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (parsed.success) return { message: parsed.data };
  const id = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { id?: unknown }).id : undefined;
  return {
    answer: errorAnswer(
      isRequestId(id) ? id : null,
      INVALID_REQUEST,
      'Invalid Request: not a JSON-RPC 2.0 message. Send an object with "jsonrpc": "2.0" and a "method" (with an "id" for a request), or a "result" or "error" with the "id" it answers.',
    ),
  };
}

/** A batch in progress: the answers gathered so far, and how many of its requests are still unanswered. */
interface Batch {
  readonly answers: unknown[];
  pending: number;
}

export class CairnStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The line being read: its chunks while it is within the limit. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** Past the limit: the line's first and (rolling) last bytes, while the rest is dropped. */
  private tooLarge: { start: Buffer; end: Buffer } | null = null;
  /** Requests of a batch not answered yet, by id: their answers go into the batch's array. */
  private readonly inBatch = new Map<RequestId, Batch>();
  /** Requests answered before the server could (skipAnswer): the line that was sent, by id. */
  private readonly answered = new Map<RequestId, string>();
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('CairnStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    // Read ahead of the transport (peekFirstLine), stdin was paused with the bytes put back; a
    // 'data' listener does not end an explicit pause.
    this.stdin.resume();
  }

  /**
   * The server's next answer to request `id` is not written: `sent`, the answer the client already
   * has, stands for it. Should the server's differ (the early answer no longer being what the SDK
   * says), onerror is told, so the drift shows on stderr rather than passing unseen.
   */
  skipAnswer(id: RequestId, sent: string): void {
    this.answered.set(id, sent);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.tooLarge = null;
    this.inBatch.clear();
    this.answered.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // An answer (result or error, no method) to a request of a batch waits for the batch's others.
    const id = 'method' in message ? undefined : (message as { id?: RequestId }).id;
    const sent = id === undefined ? undefined : this.answered.get(id);
    if (id !== undefined && sent !== undefined) {
      this.answered.delete(id);
      if (`${JSON.stringify(message)}\n` !== sent) this.onerror?.(new Error(`the answer to request ${JSON.stringify(id)} sent early is not the one the server gives`));
      return Promise.resolve();
    }
    const batch = id === undefined ? undefined : this.inBatch.get(id);
    if (id !== undefined && batch) {
      this.inBatch.delete(id);
      batch.answers.push(message);
      batch.pending--;
      return this.finish(batch);
    }
    return this.write(message);
  }

  private write(value: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(value)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private answer(answer: ErrorAnswer): void {
    this.write(answer).catch(() => {});
    this.onerror?.(new Error(answer.error.message));
  }

  private readonly onStdinError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (data: Buffer | string): void => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    for (let from = 0; from < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, from);
      this.take(chunk.subarray(from, newline === -1 ? chunk.length : newline));
      if (newline === -1) break;
      this.endLine();
      from = newline + 1;
    }
  };

  /** One more piece of the current line: kept while the line is within the limit, else only counted. */
  private take(part: Buffer): void {
    this.size += part.length;
    if (this.tooLarge) {
      this.tooLarge.end = lastBytes([this.tooLarge.end, part]);
    } else if (this.size <= this.maxMessageBytes) {
      if (part.length > 0) this.chunks.push(part);
    } else {
      const parts = [...this.chunks, part];
      this.tooLarge = { start: firstBytes(parts), end: lastBytes(parts) };
      this.chunks = [];
    }
  }

  private endLine(): void {
    const { size, tooLarge, chunks } = this;
    this.chunks = [];
    this.size = 0;
    this.tooLarge = null;
    if (!tooLarge) {
      const line = Buffer.concat(chunks).toString('utf8');
      return this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    const limit = this.maxMessageBytes;
    const shown = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB (${limit} bytes)` : `${limit} bytes`;
    const id = idOfTooLarge(tooLarge.start.toString('utf8'), tooLarge.end.toString('utf8').replace(/\r$/, ''));
    this.answer(errorAnswer(id, INVALID_REQUEST, `Invalid Request: the message is too large: ${size} bytes, and the limit is ${shown}. It was not read; send smaller messages.`));
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.answer(errorAnswer(null, PARSE_ERROR, 'Parse error: the line is not valid JSON. Send one JSON-RPC message per line.'));
    }
    if (!Array.isArray(raw)) {
      const checked = check(raw);
      if ('answer' in checked) return this.answer(checked.answer);
      return this.deliver(checked.message);
    }
    if (raw.length === 0) return this.answer(errorAnswer(null, INVALID_REQUEST, 'Invalid Request: the batch is empty.'));
    if (raw.length > MAX_BATCH_MESSAGES) {
      return this.answer(errorAnswer(null, INVALID_REQUEST, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${raw.length}.`));
    }
    this.batch(raw);
  }

  private batch(members: unknown[]): void {
    const batch: Batch = { answers: [], pending: 0 };
    const messages: JSONRPCMessage[] = [];
    for (const member of members) {
      const checked = check(member);
      if ('answer' in checked) {
        batch.answers.push(checked.answer);
        this.onerror?.(new Error(checked.answer.error.message));
        continue;
      }
      const { message } = checked;
      if ('method' in message && 'id' in message) {
        // Answers are told apart by id: a second request with an id still awaiting its answer
        // could not be, so it is refused (JSON-RPC asks ids of requests in progress to be unique).
        if (this.inBatch.has(message.id)) {
          batch.answers.push(errorAnswer(message.id, INVALID_REQUEST, `Invalid Request: id ${JSON.stringify(message.id)} is already used by a request in progress.`));
          continue;
        }
        this.inBatch.set(message.id, batch);
        batch.pending++;
      }
      messages.push(message);
    }
    // Every request is registered before any is handled, so no answer can arrive before its batch knows it.
    for (const message of messages) this.deliver(message);
    void this.finish(batch);
  }

  private deliver(message: JSONRPCMessage): void {
    // A cancelled request is never answered (the SDK drops its result), so its batch stops waiting for it.
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      const batch = isRequestId(requestId) ? this.inBatch.get(requestId) : undefined;
      if (batch) {
        this.inBatch.delete(requestId as RequestId);
        batch.pending--;
        void this.finish(batch);
      }
    }
    this.onmessage?.(message);
  }

  /** Writes a batch's answers once none is awaited; a batch of notifications only is answered with nothing. */
  private finish(batch: Batch): Promise<void> {
    if (batch.pending > 0 || batch.answers.length === 0) return Promise.resolve();
    const answers = batch.answers.splice(0);
    return this.write(answers);
  }
}

/** The first EDGE_BYTES of `parts` joined, copied (so no large chunk stays referenced). */
function firstBytes(parts: readonly Buffer[]): Buffer {
  const taken: Buffer[] = [];
  let length = 0;
  for (const part of parts) {
    if (length >= EDGE_BYTES) break;
    taken.push(part.subarray(0, EDGE_BYTES - length));
    length += taken.at(-1)!.length;
  }
  return Buffer.concat(taken);
}

/** The last EDGE_BYTES of `parts` joined, copied. */
function lastBytes(parts: readonly Buffer[]): Buffer {
  const taken: Buffer[] = [];
  let length = 0;
  for (let i = parts.length - 1; i >= 0 && length < EDGE_BYTES; i--) {
    const part = parts[i]!;
    taken.unshift(part.subarray(Math.max(0, part.length - (EDGE_BYTES - length))));
    length += taken[0]!.length;
  }
  return Buffer.concat(taken);
}
