/**
 * The reader of Codex rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl`
 * (CODEX_HOME defaults to ~/.codex), turned into the harvest's Transcript (transcript.ts). Owns: which
 * rollout lines become messages, who said them, their ids, the session's id and cwd, where Codex
 * compacted, and the listing of rollout files.
 *
 * The format, as Codex writes it (openai/codex, codex-rs: protocol/src/protocol.rs RolloutLine /
 * RolloutItem / SessionMeta / CompactedItem / TurnContextItem, protocol/src/models.rs ResponseItem,
 * core/src/rollout/recorder.rs and policy.rs):
 * - One JSON object a line, `{"timestamp": ISO, "type": kind, "payload": ...}` with kind one of
 *   `session_meta` (first line: id, timestamp, cwd, originator, cli_version, instructions, source,
 *   git...), `response_item` (what the model saw: message / reasoning / function_call /
 *   function_call_output / custom_tool_call(_output) / local_shell_call / web_search_call / ...),
 *   `event_msg` (UI events: user_message, agent_message, token_count, context_compacted, ...),
 *   `compacted` ({message: summary, replacement_history?}) and `turn_context` ({cwd, model, ...}).
 *   Newer versions add `ordinal`, and `world_state` / `inter_agent_communication(_metadata)` kinds.
 * - Older versions (before the envelope): the first line is the bare session meta ({id, timestamp,
 *   instructions, git}), then bare response items ({"type":"message",...}) and `{"record_type":
 *   "state"}` markers, without timestamps.
 *
 * Decisions (the why is in the code where it applies):
 * - Messages come from `response_item` lines only. Codex records the person's and the agent's words
 *   twice, as a response item and as an event_msg (user_message / agent_message); the response items
 *   are what resume rebuilds the model's history from, and the only place tool calls are, so the
 *   events are skipped (and counted) and nothing is doubled.
 * - fromPerson: Codex's own word on what the person typed. Codex records each input of the person as
 *   an event besides the response item: `event_msg` `user_message` ({message}), and since 0.1xx an
 *   `event_msg` `item_completed` whose item is a `UserMessage` ({content: [{type: "text", text}]};
 *   Codex 0.169 writes only this one). Where a rollout has such events, a user-role message is the
 *   person's only when its text is one of them: everything else Codex puts in user-role messages
 *   (AGENTS.md, the environment context, `<recommended_plugins>`, `<codex_internal_context ...>`,
 *   and any kind still to come) is never the person. A rollout without such events (older formats)
 *   falls back to the leading tags Codex marks its own user messages with
 *   (core/src/context/contextual_user_message.rs); those keep role 'user' but fromPerson false. Developer / system messages (permissions, collaboration
 *   mode...) are the harness's prompt, not conversation: skipped. In a sub-agent's rollout
 *   (session_meta.source {"subagent": ...}) the "user" is the parent agent: nothing is fromPerson
 *   and every message is a side chain.
 * - Tool results have role 'user' (as in Anthropic's API, and so as in Claude Code transcripts):
 *   they come back to the agent from outside it, never from the person.
 * - A `compacted` line: its summary becomes a 'summary' message, and the message before it is a
 *   compaction point. Its replacement_history repeats earlier messages (what the model keeps) and is
 *   not read again, or they would be doubled.
 *
 * Invariants:
 * - Never throws on content: a line that is not JSON, of a kind not known, or of a known kind but
 *   not the shape expected, is skipped and counted in `skipped` by why.
 * - A message's id is a digest of its own line (timestamp, kind, payload with keys sorted), so it is
 *   the same however the file grows; an exact repeat of a line gets `-<n>` (its occurrence), which
 *   appending cannot change either. An unterminated last line (being written) counts as 'truncated'.
 * - Linear: one JSON.parse and one digest a line (a 10 MB rollout reads in well under a second).
 */
import * as crypto from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { clipMiddle, isObject, jsonlObjects, stringOrNull, type Json, type JsonObject } from './jsonl-lines';
import type { MessageKind, MessageRole, Transcript, TranscriptMessage } from './transcript';

export interface CodexRolloutOptions {
  /**
   * The session id when the rollout has no session meta (a file cut short at its first line): the
   * uuid of the file's name (readCodexRolloutFile passes it).
   */
  readonly fallbackSessionId?: string;
  /** Longest rendering of one tool call or result, in characters; beyond it the middle is left out. */
  readonly toolTextLimit?: number;
}

const DEFAULT_TOOL_TEXT_LIMIT = 2000;

/**
 * Leading markers of the user-role messages Codex itself injects (core/src/context/*: AGENTS.md as
 * `# AGENTS.md instructions for <dir>` or, before, `<user_instructions>`; the environment context;
 * skills; `!cmd` output; aborted turns; sub-agent notifications; hooks' additional context and
 * prompts). Compared case-insensitively after leading white space, as Codex does.
 */
const INJECTED_USER_MARKERS: readonly string[] = [
  '<user_instructions>',
  '# agents.md instructions for ',
  '<environment_context>',
  '<skill>',
  '<skills_instructions>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<additional_context>',
  '<hook_prompt',
  '<recommended_plugins>',
  '<codex_internal_context',
];

/**
 * Older IDE clients sent `# Context from my IDE setup: ... ## My request for Codex: <request>` in
 * one message (protocol.rs USER_MESSAGE_BEGIN): only what follows the marker was typed.
 */
const USER_MESSAGE_BEGIN = '## My request for Codex:';

/** Response item types of the pre-envelope format, where a line is a bare response item. */
const RESPONSE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
  'other',
]);

/** Response items that are not conversation: the model's reasoning (left out by the model's rule), snapshots, encrypted compactions. */
const IGNORED_RESPONSE_ITEMS = new Set(['reasoning', 'ghost_snapshot', 'compaction', 'compaction_summary', 'other']);

/** Line kinds of newer versions that carry no conversation for a harvest. */
const IGNORED_LINE_KINDS = new Set(['world_state', 'inter_agent_communication', 'inter_agent_communication_metadata']);

/** JSON with object keys sorted: the same text for the same content, whoever serialized it. */
function canonical(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as Json)}`).join(',')}}`;
}

/** A command line as the person would type it: `bash -lc "<script>"` is the script. */
function commandText(argv: readonly Json[]): string {
  const words = argv.filter((word): word is string => typeof word === 'string');
  if (words.length === 3 && /(^|\/)(ba|z|da|k)?sh$/.test(words[0] ?? '') && /^-l?c$/.test(words[1] ?? '')) {
    return words[2] ?? '';
  }
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(' ');
}

/** A function call's rendering: shell commands as their command line, anything else as name and arguments. */
function renderFunctionCall(name: string, args: string): string {
  let parsed: unknown = null;
  if (args.trimStart().startsWith('{')) {
    try {
      parsed = JSON.parse(args);
    } catch {
      // arguments that are not JSON are shown as they came
    }
  }
  if (isObject(parsed)) {
    // shell / container.exec: {command: [...]}; shell_command: {command: "..."}; exec_command (unified exec): {cmd: "..."}.
    const command = parsed.command;
    if (Array.isArray(command)) return `${name}: ${commandText(command)}`;
    if (typeof command === 'string') return `${name}: ${command}`;
    if (typeof parsed.cmd === 'string') return `${name}: ${parsed.cmd}`;
  }
  return `${name}: ${args}`;
}

/** A tool's output: a string, content items, or (older shell) a JSON string {output, metadata: {exit_code}}. */
function renderOutput(output: Json | undefined): string {
  if (typeof output === 'string') {
    if (output.startsWith('{"output"')) {
      try {
        const parsed: unknown = JSON.parse(output);
        if (isObject(parsed) && typeof parsed.output === 'string') {
          const exit = isObject(parsed.metadata) ? parsed.metadata.exit_code : undefined;
          return typeof exit === 'number' ? `exit code ${exit}\n${parsed.output}` : parsed.output;
        }
      } catch {
        // not JSON after all: the output is shown as it came
      }
    }
    return output;
  }
  if (Array.isArray(output)) {
    return output
      .map((item) => (isObject(item) ? (stringOrNull(item.text) ?? (item.type === 'input_image' ? '[image]' : '')) : ''))
      .filter((text) => text !== '')
      .join('\n');
  }
  if (isObject(output)) return stringOrNull(output.content) ?? canonical(output);
  return '';
}

/** The text the person typed, when `event` is Codex's record of a person's input; else null. */
function typed(event: JsonObject): string | null {
  if (event.type === 'user_message') return stringOrNull(event.message);
  if (event.type !== 'item_completed' || !isObject(event.item) || event.item.type !== 'UserMessage' || !Array.isArray(event.item.content)) return null;
  return event.item.content
    .map((part) => (isObject(part) && part.type === 'text' ? (stringOrNull(part.text) ?? '') : ''))
    .join('');
}

/**
 * Marks as the person's exactly the user-role texts that Codex recorded as typed (each input once),
 * and no other message.
 */
function personByEvents(messages: TranscriptMessage[], typedTexts: readonly string[]): void {
  // An IDE's input is recorded whole; its message keeps only the request (see userMessage).
  const keyOf = (text: string) => {
    const begin = text.lastIndexOf(USER_MESSAGE_BEGIN);
    return (begin >= 0 ? text.slice(begin + USER_MESSAGE_BEGIN.length) : text).trim();
  };
  const left = new Map<string, number>();
  for (const text of typedTexts) {
    const key = keyOf(text);
    left.set(key, (left.get(key) ?? 0) + 1);
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role !== 'user' || message.kind !== 'text') continue;
    const key = keyOf(message.text);
    const n = left.get(key) ?? 0;
    const person = n > 0 && !message.sidechain;
    if (n > 0) left.set(key, n - 1);
    if (person !== message.fromPerson) messages[i] = { ...message, fromPerson: person };
  }
}

function isInjected(text: string): boolean {
  const head = text.trimStart().slice(0, 40).toLowerCase();
  return INJECTED_USER_MARKERS.some((marker) => head.startsWith(marker));
}

/** What a rollout line gives: a message (id added by the caller), nothing (taken as metadata), or why it is skipped. */
type Outcome = { message: Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'> } | { taken: true } | { skip: string };

const TAKEN: Outcome = { taken: true };

export function readCodexRollout(text: string | Buffer, options: CodexRolloutOptions = {}): Transcript {
  const source = typeof text === 'string' ? text : text.toString('utf8');
  const toolLimit = options.toolTextLimit ?? DEFAULT_TOOL_TEXT_LIMIT;

  let sessionId: string | null = null;
  let metaCwd: string | null = null;
  let turnCwd: string | null = null;
  let contextCwd: string | null = null;
  let subagent = false;
  const messages: TranscriptMessage[] = [];
  const compactions: string[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Map<string, number>();
  const skip = (why: string): void => {
    skipped[why] = (skipped[why] ?? 0) + 1;
  };

  const sessionMeta = (meta: JsonObject): Outcome => {
    // A forked session carries its parent's history, session meta included: the first is this session's.
    if (sessionId !== null) return { skip: 'session_meta:repeated' };
    const id = stringOrNull(meta.id) ?? stringOrNull(meta.session_id);
    if (id === null) return { skip: 'invalid:session_meta' };
    sessionId = id;
    metaCwd = stringOrNull(meta.cwd);
    subagent = isObject(meta.source) && 'subagent' in meta.source;
    return TAKEN;
  };

  /** The texts of the person's inputs, as Codex's events record them (see the header). */
  const typedTexts: string[] = [];

  const userMessage = (content: Json[]): Outcome => {
    const parts: string[] = [];
    let injected = false;
    for (const part of content) {
      if (!isObject(part)) continue;
      if (part.type === 'input_image') parts.push('[image]');
      const partText = stringOrNull(part.text);
      if (partText === null) continue;
      if (isInjected(partText)) injected = true;
      parts.push(partText);
    }
    let body = parts.join('\n');
    if (injected) {
      if (contextCwd === null) contextCwd = /<cwd>([^<]+)<\/cwd>/.exec(body)?.[1]?.trim() ?? null;
    } else {
      const begin = body.lastIndexOf(USER_MESSAGE_BEGIN);
      if (begin >= 0) body = body.slice(begin + USER_MESSAGE_BEGIN.length).trim();
    }
    if (body.trim() === '') return { skip: 'empty:message' };
    return { message: { role: 'user', kind: 'text', text: body, fromPerson: !injected && !subagent } };
  };

  const responseItem = (item: JsonObject): Outcome => {
    const type = stringOrNull(item.type);
    if (type === null) return { skip: 'invalid:response_item' };
    const tool = (role: MessageRole, kind: MessageKind, body: string): Outcome => ({
      message: { role, kind, text: clipMiddle(body, toolLimit), fromPerson: false },
    });
    switch (type) {
      case 'message': {
        const role = stringOrNull(item.role);
        if (!Array.isArray(item.content) || role === null) return { skip: 'invalid:response_item' };
        if (role === 'user') return userMessage(item.content);
        if (role !== 'assistant') return { skip: `response_item:message:${role}` };
        const body = item.content
          .map((part) => (isObject(part) ? (stringOrNull(part.text) ?? '') : ''))
          .filter((part) => part !== '')
          .join('\n');
        if (body.trim() === '') return { skip: 'empty:message' };
        return { message: { role: 'assistant', kind: 'text', text: body, fromPerson: false } };
      }
      case 'function_call': {
        const name = stringOrNull(item.name);
        if (name === null) return { skip: 'invalid:response_item' };
        return tool('assistant', 'tool_call', renderFunctionCall(name, stringOrNull(item.arguments) ?? ''));
      }
      case 'custom_tool_call': {
        const name = stringOrNull(item.name);
        if (name === null) return { skip: 'invalid:response_item' };
        return tool('assistant', 'tool_call', `${name}: ${stringOrNull(item.input) ?? ''}`);
      }
      case 'local_shell_call': {
        const action = isObject(item.action) ? item.action : null;
        if (action === null || !Array.isArray(action.command)) return { skip: 'invalid:response_item' };
        return tool('assistant', 'tool_call', `local_shell: ${commandText(action.command)}`);
      }
      case 'web_search_call': {
        const action = isObject(item.action) ? item.action : {};
        const what = stringOrNull(action.query) ?? stringOrNull(action.url) ?? stringOrNull(action.type) ?? '';
        return tool('assistant', 'tool_call', `web_search: ${what}`);
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        return tool('user', 'tool_result', renderOutput(item.output));
      default:
        return { skip: IGNORED_RESPONSE_ITEMS.has(type) ? `response_item:${type}` : `unknown:response_item:${type}` };
    }
  };

  const compacted = (item: JsonObject): Outcome => {
    const summary = stringOrNull(item.message);
    if (summary === null) return { skip: 'invalid:compacted' };
    const before = messages.at(-1)?.id;
    if (before !== undefined && compactions.at(-1) !== before) compactions.push(before);
    // A remote compaction (the Responses API's) keeps its summary encrypted in replacement_history: message is empty.
    if (summary.trim() === '') return before === undefined ? { skip: 'empty:compacted' } : TAKEN;
    return { message: { role: 'assistant', kind: 'summary', text: summary, fromPerson: false } };
  };

  /** One parsed line: its outcome, and what its id is a digest of. */
  const classify = (line: JsonObject): { outcome: Outcome; kind: string; at: string | null; payload: Json } => {
    const type = stringOrNull(line.type);
    const at = stringOrNull(line.timestamp);
    if (type !== null && 'payload' in line) {
      const payload = line.payload as Json;
      const of = (outcome: Outcome): { outcome: Outcome; kind: string; at: string | null; payload: Json } => ({
        outcome,
        kind: type,
        at,
        payload,
      });
      if (IGNORED_LINE_KINDS.has(type)) return of({ skip: type });
      if (!isObject(payload)) return of({ skip: `invalid:${type}` });
      switch (type) {
        case 'session_meta':
          return of(sessionMeta(payload));
        case 'turn_context':
          // The cwd a turn ran in: the session's when the meta has none (it always has since it had a cwd).
          if (turnCwd === null) turnCwd = stringOrNull(payload.cwd);
          return of(TAKEN);
        case 'response_item':
          return of(responseItem(payload));
        case 'compacted':
          return of(compacted(payload));
        case 'event_msg': {
          // user_message / agent_message repeat response items; the rest (token counts, ...) are not words.
          // The person's inputs are noted: they say which user-role messages the person typed.
          const typedText = typed(payload);
          if (typedText !== null) typedTexts.push(typedText);
          return of({ skip: `event_msg:${stringOrNull(payload.type) ?? '?'}` });
        }
        default:
          return of({ skip: `unknown:${type}` });
      }
    }
    // The pre-envelope format: a bare meta line, bare response items, state markers.
    const legacy = (outcome: Outcome): { outcome: Outcome; kind: string; at: string | null; payload: Json } => ({
      outcome,
      kind: 'response_item',
      at: null,
      payload: line,
    });
    if (line.record_type === 'state') return legacy({ skip: 'legacy:state' });
    if (type === null && typeof line.id === 'string' && typeof line.timestamp === 'string') {
      return { outcome: sessionMeta(line), kind: 'session_meta', at, payload: line };
    }
    if (type !== null && RESPONSE_ITEM_TYPES.has(type)) return legacy(responseItem(line));
    return legacy({ skip: type === null ? 'malformed' : `unknown:${type}` });
  };

  for (const line of jsonlObjects(source, skip)) {
    const { outcome, kind, at, payload } = classify(line);
    if ('skip' in outcome) {
      skip(outcome.skip);
      continue;
    }
    if (!('message' in outcome)) continue;
    const digest = crypto
      .createHash('sha256')
      .update(`${at ?? ''}\n${kind}\n${canonical(payload)}`)
      .digest('hex')
      .slice(0, 16);
    const occurrence = seen.get(digest) ?? 0;
    seen.set(digest, occurrence + 1);
    messages.push({
      id: occurrence === 0 ? digest : `${digest}-${occurrence}`,
      at,
      sidechain: subagent,
      ...outcome.message,
      fromPerson: outcome.message.fromPerson && !subagent,
    });
  }

  if (typedTexts.length > 0) personByEvents(messages, typedTexts);

  return {
    agent: 'codex',
    sessionId: sessionId ?? options.fallbackSessionId ?? '',
    cwd: metaCwd ?? turnCwd ?? contextCwd,
    messages,
    compactions,
    skipped,
  };
}

/** Codex's home: $CODEX_HOME when set, else ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.CODEX_HOME?.trim();
  return home ? path.resolve(home) : path.join(os.homedir(), '.codex');
}

/** The session's id in a rollout file's name (`rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`), or null. */
const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

function sessionIdOf(file: string): string | null {
  return ROLLOUT_NAME.exec(path.basename(file))?.[1]?.toLowerCase() ?? null;
}

/**
 * A rollout's bytes, read from `file` (whose name's uuid stands in for a missing session id). The
 * file is read by read-transcript.ts readTranscriptFile, under the rule of files from outside.
 */
export function readCodexRolloutData(data: Buffer, file: string, options: CodexRolloutOptions = {}): Transcript {
  const fallback = sessionIdOf(file);
  return readCodexRollout(data, fallback === null ? options : { fallbackSessionId: fallback, ...options });
}
