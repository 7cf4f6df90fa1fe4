/**
 * The Anthropic Messages API wire of the scripted model (model-server.ts), as Claude Code speaks
 * it: POST /v1/messages (with `?beta=true`), answered as a stream of server-sent events
 * (message_start; content_block_start, _delta, _stop per text or tool_use block, a tool's input
 * as input_json_delta; message_delta with the stop_reason; message_stop), or as one JSON message
 * when the request does not ask to stream. Token counts and a models listing are answered by
 * `other` with plausible fixed numbers, so the client never stops on them.
 */
import type * as http from 'node:http';
import type { Conversation, ConversationMessage, ModelTurn, Wire } from './model-server';

const MODEL_PATH = /^\/v1\/messages(\?|$)/;
const COUNT_PATH = /^\/v1\/messages\/count_tokens(\?|$)/;

type Block = Record<string, unknown>;

/** A content field (a string, or an array of blocks) as text: text blocks joined, others named. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: Block) => {
      if (b.type === 'text') return String(b.text);
      if (b.type === 'tool_use') return `call ${String(b.name)} ${JSON.stringify(b.input)}`;
      if (b.type === 'tool_result') return contentText(b.content);
      return '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** One message of the request as the script's messages: a user message's tool results become `tool` messages of their own. */
function messagesOf(message: Block): ConversationMessage[] {
  const role = message.role === 'assistant' ? 'assistant' : 'user';
  const content = message.content;
  if (role === 'user' && Array.isArray(content)) {
    const out: ConversationMessage[] = [];
    const rest: Block[] = [];
    for (const b of content as Block[]) {
      if (b.type === 'tool_result') out.push({ role: 'tool', text: contentText(b.content) });
      else rest.push(b);
    }
    const text = contentText(rest);
    if (text !== '') out.push({ role: 'user', text });
    return out;
  }
  return [{ role, text: contentText(content) }];
}

let nextId = 0;
const id = (prefix: string) => `${prefix}_scripted${String(++nextId).padStart(6, '0')}`;

/** The blocks of a turn, as the API returns them in a finished message. */
function blocksOf(turn: ModelTurn): Block[] {
  const blocks: Block[] = [];
  if (turn.text !== undefined) blocks.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls ?? []) blocks.push({ type: 'tool_use', id: id('toolu'), name: call.name, input: call.input });
  return blocks;
}

const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function sse(res: http.ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export const anthropicWire: Wire = {
  isModelCall: (method, path) => method === 'POST' && MODEL_PATH.test(path),

  read(json): Conversation {
    const body = json as Block;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) throw new Error('no messages');
    return {
      system: contentText(body.system),
      tools: Array.isArray(body.tools) ? (body.tools as Block[]).map((t) => String(t.name)) : [],
      messages: (body.messages as Block[]).flatMap(messagesOf),
    };
  },

  write(turn, res, json) {
    const body = json as Block;
    const model = typeof body.model === 'string' ? body.model : 'claude-scripted';
    const blocks = blocksOf(turn);
    const stopReason = (turn.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
    const messageId = id('msg');
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: messageId, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    sse(res, 'message_start', { type: 'message_start', message: { id: messageId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
      } else {
        sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        // Split in two, as a real stream hands a tool's input over in pieces.
        const input = JSON.stringify(block.input);
        const half = Math.floor(input.length / 2);
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: input.slice(0, half) } });
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: input.slice(half) } });
      }
      sse(res, 'content_block_stop', { type: 'content_block_stop', index });
    });
    sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  },

  other(method, path, res) {
    if (method === 'POST' && COUNT_PATH.test(path)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }));
      return true;
    }
    if (method === 'GET' && /^\/v1\/models(\?|$)/.test(path)) {
      const models = [{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: models, has_more: false, first_id: models[0]!.id, last_id: models[0]!.id }));
      return true;
    }
    return false;
  },
};
