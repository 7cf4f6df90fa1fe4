/**
 * The OpenAI Chat Completions wire of the scripted model (model-server.ts), as GitHub Copilot CLI
 * speaks it to a custom provider (COPILOT_PROVIDER_BASE_URL, its default `completions` wire API):
 * POST <base_url>/chat/completions with `stream: true` and `stream_options.include_usage`,
 * answered as server-sent `data:` chunks of `chat.completion.chunk` (the assistant's text as a
 * content delta, each tool call as a `tool_calls` delta with its id, name and arguments), a last
 * chunk with the finish reason and the usage, then `data: [DONE]` (learned from the requests
 * Copilot CLI 1.0.102 sends: the OpenAI JS SDK's stream helper).
 *
 * In the request, the system prompt is the `system` message; a tool call comes back as the
 * assistant message's `tool_calls` and its result as a `tool` message with the call's id. The
 * tools are `function` tools; an MCP server's tools are named `<server>-<tool>`.
 */
import type * as http from 'node:http';
import type { Conversation, ConversationMessage, ModelTurn, Wire } from './model-server';

type Item = Record<string, unknown>;

const MODEL_PATH = /\/chat\/completions(\?|$)/;

/** A message's content: a string, or text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Item[])
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function messagesOf(message: Item): ConversationMessage[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', text: contentText(message.content) }];
    case 'tool':
      return [{ role: 'tool', text: contentText(message.content) }];
    case 'assistant': {
      const out: ConversationMessage[] = [];
      const text = contentText(message.content);
      if (text !== '') out.push({ role: 'assistant', text });
      for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Item[]) {
        const fn = (call.function ?? {}) as Item;
        out.push({ role: 'assistant', text: `call ${String(fn.name)} ${String(fn.arguments)}` });
      }
      return out;
    }
    default:
      return []; // system / developer: the instructions
  }
}

let nextId = 0;
const id = (prefix: string) => `${prefix}_scripted${String(++nextId).padStart(6, '0')}`;

export const openaiChatWire: Wire = {
  isModelCall: (method, path) => method === 'POST' && MODEL_PATH.test(path),

  read(json): Conversation {
    const body = json as Item;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) throw new Error('no messages');
    const messages = body.messages as Item[];
    return {
      system: messages
        .filter((m) => m.role === 'system' || m.role === 'developer')
        .map((m) => contentText(m.content))
        .join('\n'),
      tools: ((Array.isArray(body.tools) ? body.tools : []) as Item[]).map((t) => String(((t.function ?? {}) as Item).name ?? t.type)),
      messages: messages.flatMap(messagesOf),
    };
  },

  write(turn: ModelTurn, res: http.ServerResponse, json) {
    const body = json as Item;
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const completion = id('chatcmpl');
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    const calls = (turn.toolCalls ?? []).map((call, index) => ({
      index,
      id: id('call'),
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
    const finish = calls.length > 0 ? 'tool_calls' : 'stop';
    if (body.stream !== true) {
      const message = { role: 'assistant', content: turn.text ?? null, ...(calls.length > 0 ? { tool_calls: calls.map(({ index: _, ...call }) => call) } : {}) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: completion, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (delta: Item, finishReason: string | null, extra: Item = {}) =>
      res.write(`data: ${JSON.stringify({ id: completion, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    send({ role: 'assistant', content: turn.text ?? '' }, null);
    if (calls.length > 0) send({ tool_calls: calls }, null);
    send({}, finish, { usage });
    res.end('data: [DONE]\n\n');
  },

  other(method, path, res) {
    // A model listing, asked by some clients before the first call.
    if (method === 'GET' && /\/models(\?|$)/.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1', object: 'model', created: 0, owned_by: 'scripted' }] }));
      return true;
    }
    return false;
  },
};
