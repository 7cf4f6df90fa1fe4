/**
 * A scripted model on loopback for the agents suite: the real agent CLIs are pointed at it, it
 * answers from a script, and it records every request byte for byte, so a test asserts on exactly
 * what the agent sent the model. No model is reachable from here; this stands in for one, speaking
 * each client's own wire format through a Wire (anthropic.ts, openai-responses.ts, gemini.ts).
 *
 * A Wire reads a request body into a Conversation (the script's view: system text, tool names,
 * messages) and writes the script's ModelTurn back as that API's streaming answer. Requests the
 * script is not asked about (a model listing, a token count) are answered by the Wire's `other`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call the model makes. */
export interface ToolCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** What the model answers in one turn: text, tool calls, or both. */
export interface ModelTurn {
  readonly text?: string;
  readonly toolCalls?: readonly ToolCall[];
}

/** One message of a conversation, as the script sees it. */
export interface ConversationMessage {
  /** `tool`: a tool's result handed back by the client. */
  readonly role: 'user' | 'assistant' | 'tool';
  /** The message's text (a tool result's output; an assistant's tool calls as `call NAME INPUT`). */
  readonly text: string;
}

/** What the client sent, read by the Wire. */
export interface Conversation {
  /** The system prompt (instructions), joined. */
  readonly system: string;
  /** The names of the tools the client offered the model. */
  readonly tools: readonly string[];
  readonly messages: readonly ConversationMessage[];
}

/** One request as it arrived. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The body, byte for byte. */
  readonly body: string;
  /** The body parsed as JSON, or null. */
  readonly json: unknown;
  /** The conversation, when the Wire took this for a model call. */
  readonly conversation: Conversation | null;
}

export interface Wire {
  /** Whether `method path` is a model call (a streamed answer the script decides). */
  isModelCall(method: string, path: string): boolean;
  read(json: unknown): Conversation;
  /** Writes `turn` as the API's (streamed) answer to `json`. */
  write(turn: ModelTurn, res: http.ServerResponse, json: unknown): void;
  /** Answers any other request (listing models, counting tokens); false: a 404 is sent. */
  other?(method: string, path: string, res: http.ServerResponse, json: unknown): boolean;
}

/** The script: the model's next turn for a conversation. */
export type Script = (conversation: Conversation, request: RecordedRequest) => ModelTurn;

export interface ModelServer {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request so far, in order. */
  readonly requests: readonly RecordedRequest[];
  /** Only the model calls. */
  modelCalls(): RecordedRequest[];
  close(): Promise<void>;
}

/** Replays `turns` in order (the last one again once they run out). */
export function inOrder(...turns: ModelTurn[]): Script {
  let next = 0;
  return () => turns[Math.min(next++, turns.length - 1)]!;
}

export async function startModelServer(wire: Wire, script: Script): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = body === '' ? null : JSON.parse(body);
      } catch {
        // Not JSON: the request is kept as its text alone (json stays null).
      }
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const modelCall = wire.isModelCall(method, url);
      let conversation: Conversation | null;
      try {
        conversation = modelCall ? wire.read(json) : null;
      } catch (err) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `scripted model could not read the request: ${(err as Error).message}` } }));
        return;
      }
      const recorded: RecordedRequest = { method, path: url, headers: req.headers, body, json, conversation };
      requests.push(recorded);
      if (conversation) wire.write(script(conversation, recorded), res, json);
      else if (!wire.other?.(method, url, res, json)) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not scripted"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelCalls: () => requests.filter((r) => r.conversation !== null),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
