/**
 * The Gemini API wire of the scripted model (model-server.ts), as Gemini CLI speaks it through
 * @google/genai: POST /v1beta/models/<model>:streamGenerateContent?alt=sse, answered as server-sent
 * events, each `data:` a GenerateContentResponse (candidates[0].content.parts: `text` or
 * `functionCall {name, args}`; the last with finishReason STOP and usageMetadata). A non-streamed
 * :generateContent (the CLI's side questions) is a model call too, answered as one JSON response.
 * :countTokens and anything else the client asks (a model listing) are answered by `other` with
 * plausible fixed numbers, so the client never stops on them.
 */
import type { Conversation, ConversationMessage, ModelTurn, Wire } from './model-server';

const STREAM_PATH = /^\/v1(beta|alpha)?\/models\/[^/:]+:streamGenerateContent(\?|$)/;
const GENERATE_PATH = /^\/v1(beta|alpha)?\/models\/[^/:]+:generateContent(\?|$)/;
const COUNT_PATH = /^\/v1(beta|alpha)?\/models\/[^/:]+:countTokens(\?|$)/;
const MODELS_PATH = /^\/v1(beta|alpha)?\/models(\?|$)/;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A content's parts as text: text parts joined; a function call as `call NAME ARGS`. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .map((p: unknown) => {
      if (!isObject(p)) return '';
      if (typeof p.text === 'string' && p.thought !== true) return p.text;
      if (isObject(p.functionCall)) return `call ${String(p.functionCall.name)} ${JSON.stringify(p.functionCall.args ?? {})}`;
      return '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** A function response's output as the model reads it: `response.output` (or `error`), else the whole response. */
function functionResponseText(response: unknown): string {
  if (!isObject(response)) return '';
  if (typeof response.output === 'string') return response.output;
  if (typeof response.error === 'string') return response.error;
  return JSON.stringify(response);
}

/** One content of the request as the script's messages: function responses become `tool` messages. */
function messagesOf(content: Json): ConversationMessage[] {
  const role = content.role === 'model' ? 'assistant' : 'user';
  const parts = Array.isArray(content.parts) ? (content.parts as unknown[]) : [];
  if (role === 'user') {
    const out: ConversationMessage[] = [];
    const rest: unknown[] = [];
    for (const p of parts) {
      if (isObject(p) && isObject(p.functionResponse)) out.push({ role: 'tool', text: functionResponseText(p.functionResponse.response) });
      else rest.push(p);
    }
    const text = partsText(rest);
    if (text !== '') out.push({ role: 'user', text });
    return out;
  }
  return [{ role, text: partsText(parts) }];
}

/** The function declarations of a request (every `tools[].functionDeclarations[]`). */
export function functionDeclarations(json: unknown): Json[] {
  if (!isObject(json) || !Array.isArray(json.tools)) return [];
  return (json.tools as unknown[]).flatMap((t) => (isObject(t) && Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Json[]) : []));
}

/** The system instruction's text. */
function systemText(json: Json): string {
  const si = json.systemInstruction;
  if (typeof si === 'string') return si;
  if (isObject(si)) return partsText(si.parts);
  return '';
}

const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 };

/** The parts of a turn, as the API returns them. */
function partsOf(turn: ModelTurn): Json[] {
  const parts: Json[] = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const call of turn.toolCalls ?? []) parts.push({ functionCall: { name: call.name, args: call.input } });
  return parts;
}

function response(parts: Json[], finished: boolean): Json {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finished ? { finishReason: 'STOP' } : {}) }],
    ...(finished ? { usageMetadata } : {}),
    modelVersion: 'scripted',
  };
}

export const geminiWire: Wire = {
  isModelCall: (method, path) => method === 'POST' && (STREAM_PATH.test(path) || GENERATE_PATH.test(path)),

  read(json): Conversation {
    if (!isObject(json) || !Array.isArray(json.contents)) throw new Error('no contents');
    return {
      system: systemText(json),
      tools: functionDeclarations(json).map((d) => String(d.name)),
      messages: (json.contents as Json[]).filter(isObject).flatMap(messagesOf),
    };
  },

  write(turn, res, _json) {
    const parts = partsOf(turn);
    const streamed = STREAM_PATH.test(res.req.url ?? '');
    if (!streamed) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response(parts, true)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // The text first, then the calls and the finish, in chunks as the API streams them.
    const chunks = parts.length > 1 ? [parts.slice(0, 1), parts.slice(1)] : [parts];
    chunks.forEach((chunk, i) => res.write(`data: ${JSON.stringify(response(chunk, i === chunks.length - 1))}\r\n\r\n`));
    res.end();
  },

  other(method, path, res) {
    if (method === 'POST' && COUNT_PATH.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 100 }));
      return true;
    }
    if (method === 'GET' && MODELS_PATH.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [] }));
      return true;
    }
    return false;
  },
};
