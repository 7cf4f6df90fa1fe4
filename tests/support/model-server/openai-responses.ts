/**
 * The OpenAI Responses API wire of the scripted model (model-server.ts), as Codex speaks it:
 * POST <base_url>/responses with `stream: true`, answered as server-sent events: response.created;
 * per output item response.output_item.added, its deltas (response.output_text.delta for a
 * message's text, response.function_call_arguments.delta for a call's arguments) and
 * response.output_item.done with the whole item; response.completed with the usage. Codex builds
 * its turn from the `done` items and ends it on response.completed (learned from codex-rs's
 * client: codex-api's SSE reader, and from the requests Codex 0.169 sends).
 *
 * In the request, a function call's result comes back as an input item `function_call_output`
 * with the call's `call_id`; the script sees it as a `tool` message. Codex's tools are `function`
 * tools, and MCP tools may come grouped under a `namespace` tool; both are listed by their full
 * names (`mcp__cairn__memory`).
 */
import type * as http from 'node:http';
import type { Conversation, ConversationMessage, ModelTurn, Wire } from './model-server';

type Item = Record<string, unknown>;

const MODEL_PATH = /\/responses(\?|$)/;

/** The text of a message's content: a string, or input_text / output_text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Item[])
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

/** A function call's output as text: a string, or content parts joined. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return contentText(output);
  if (typeof output === 'object' && output !== null && 'content' in output) return outputText((output as Item).content);
  return JSON.stringify(output);
}

function messageOf(item: Item): ConversationMessage | null {
  switch (item.type) {
    case 'message':
      if (item.role === 'assistant') return { role: 'assistant', text: contentText(item.content) };
      if (item.role === 'user') return { role: 'user', text: contentText(item.content) };
      return null; // developer / system messages are instructions, not the conversation
    case 'function_call':
      return { role: 'assistant', text: `call ${fullName(item)} ${String(item.arguments)}` };
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { role: 'tool', text: outputText(item.output) };
    default:
      return null;
  }
}

/** A function call's or tool's name with its namespace, as one name. */
function fullName(item: Item): string {
  const name = String(item.name);
  return typeof item.namespace === 'string' && !name.startsWith(item.namespace) ? `${item.namespace}__${name}` : name;
}

/** The names of the tools offered: functions by name, a namespace's tools by their full names. */
function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return (tools as Item[]).flatMap((tool) => {
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) return (tool.tools as Item[]).map((t) => fullName({ ...t, namespace: tool.name }));
    return typeof tool.name === 'string' ? [tool.name] : [String(tool.type)];
  });
}

/** The developer and system messages of the input, which carry Codex's instructions too. */
function instructionText(body: Item): string {
  const parts = typeof body.instructions === 'string' ? [body.instructions] : [];
  for (const item of (Array.isArray(body.input) ? body.input : []) as Item[]) {
    if (item.type === 'message' && (item.role === 'developer' || item.role === 'system')) parts.push(contentText(item.content));
  }
  return parts.join('\n');
}

let nextId = 0;
const id = (prefix: string) => `${prefix}_scripted${String(++nextId).padStart(6, '0')}`;

/** Splits a scripted call's name into Codex's namespace and the tool's own name, as the model returns them. */
function callName(name: string, body: Item): { name: string; namespace?: string } {
  for (const tool of (Array.isArray(body.tools) ? body.tools : []) as Item[]) {
    if (tool.type !== 'namespace' || typeof tool.name !== 'string' || !name.startsWith(tool.name)) continue;
    const rest = name.slice(tool.name.length).replace(/^__/, '');
    if (((tool.tools ?? []) as Item[]).some((t) => t.name === rest)) return { name: rest, namespace: tool.name };
  }
  return { name };
}

function sse(res: http.ServerResponse, data: Item): void {
  res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
}

export const openaiResponsesWire: Wire = {
  isModelCall: (method, path) => method === 'POST' && MODEL_PATH.test(path),

  read(json): Conversation {
    const body = json as Item;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.input)) throw new Error('no input');
    return {
      system: instructionText(body),
      tools: toolNames(body.tools),
      messages: (body.input as Item[]).map(messageOf).filter((m): m is ConversationMessage => m !== null),
    };
  },

  write(turn: ModelTurn, res, json) {
    const body = json as Item;
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const responseId = id('resp');
    const response = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as Item[] };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let seq = 0;
    const send = (data: Item) => sse(res, { ...data, sequence_number: seq++ });
    send({ type: 'response.created', response });
    const items: Item[] = [];
    if (turn.text !== undefined) {
      const itemId = id('msg');
      const index = items.length;
      const part = { type: 'output_text', text: turn.text, annotations: [] };
      send({ type: 'response.output_item.added', output_index: index, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
      send({ type: 'response.content_part.added', item_id: itemId, output_index: index, content_index: 0, part: { ...part, text: '' } });
      send({ type: 'response.output_text.delta', item_id: itemId, output_index: index, content_index: 0, delta: turn.text });
      send({ type: 'response.output_text.done', item_id: itemId, output_index: index, content_index: 0, text: turn.text });
      send({ type: 'response.content_part.done', item_id: itemId, output_index: index, content_index: 0, part });
      const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [part] };
      send({ type: 'response.output_item.done', output_index: index, item });
      items.push(item);
    }
    for (const call of turn.toolCalls ?? []) {
      const itemId = id('fc');
      const index = items.length;
      const args = JSON.stringify(call.input);
      const named = callName(call.name, body);
      const base = { id: itemId, type: 'function_call', call_id: id('call'), ...named };
      send({ type: 'response.output_item.added', output_index: index, item: { ...base, status: 'in_progress', arguments: '' } });
      send({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index: index, delta: args });
      send({ type: 'response.function_call_arguments.done', item_id: itemId, output_index: index, arguments: args });
      const item = { ...base, status: 'completed', arguments: args };
      send({ type: 'response.output_item.done', output_index: index, item });
      items.push(item);
    }
    const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 };
    send({ type: 'response.completed', response: { ...response, status: 'completed', output: items, usage } });
    res.end();
  },

  other(method, path, res) {
    if (method === 'GET' && /\/models(\?|$)/.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return true;
    }
    return false;
  },
};
