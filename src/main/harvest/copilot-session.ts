/**
 * The reader of GitHub Copilot CLI's session files: `<COPILOT_HOME>/session-state/<session id>/
 * events.jsonl` (COPILOT_HOME defaults to ~/.copilot), read into the harvest's Transcript
 * (transcript.ts). Owns which events become messages, who said them, their ids, the session's id
 * and cwd, where Copilot CLI compacted, and where its session files are.
 *
 * The format, as Copilot CLI 1.0.102 writes it (its bundled schemas/session-events.schema.json,
 * and files it wrote against a scripted model): one event a line, `{type, data, id, timestamp,
 * parentId}` with `agentId` on a sub-agent's events and `ephemeral` ones never written.
 * - `session.start`: data.sessionId, data.context.cwd; `session.resume` data.context.cwd.
 * - `user.message`: data.content (the text as the timeline shows it; `transformedContent` is what
 *   the model got, with the date and hooks' reminders added), data.source (the message's origin:
 *   absent or "user" for the person; `command-…`, `schedule-…`, `autopilot-…`, `skill-…`,
 *   `agent-<id>` and others for text the CLI, a schedule, autopilot, a skill or another agent
 *   sent), data.isAutopilotContinuation (autopilot's own nudges).
 * - `assistant.message`: data.content and data.toolRequests ({toolCallId, name, arguments}).
 * - `tool.execution_complete`: data.toolCallId, data.success, data.result.content (what the model
 *   got back) or data.error.message.
 * - `session.compaction_complete`: data.summaryContent (the summary the model keeps).
 * - Everything else (system.message: the system prompt; turns, usage, hooks, permissions,
 *   shutdown, …) is the harness's bookkeeping.
 *
 * Who spoke follows Copilot CLI's own rule (its timeline and rewind code: a user message is the
 * person's when its source is absent or "user", it is no autopilot continuation, and it is the
 * root agent's, not a sub-agent's, whose agentId or parentToolCallId says so). Every other user
 * message keeps role 'user' but is not the person; a kind this reader does not know is skipped and
 * counted, never taken as the person.
 *
 * Invariants: never throws on content (a line that is not JSON, or of a known kind but not the
 * shape expected, is skipped and counted); a message's id is its event's id (`#1`, `#2`, … for
 * the further messages of one event, in order), so ids are stable as the file grows; linear.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { clipMiddle, isObject, jsonlObjects, stringOrNull, type Json, type JsonObject } from './jsonl-lines';
import type { Transcript, TranscriptMessage } from './transcript';

export interface CopilotSessionOptions {
  /** The session id when no session.start says it (the file's folder names it). */
  readonly fallbackSessionId?: string;
  /** Longest rendering of one tool call or result, in characters; beyond it the middle is left out. */
  readonly toolTextLimit?: number;
}

const DEFAULT_TOOL_TEXT_LIMIT = 2000;

/** The name of Copilot CLI's session file in its session's folder. */
export const COPILOT_EVENTS_FILE = 'events.jsonl';

/** Events that carry no words of the conversation: the harness's own, skipped by name. */
const BOOKKEEPING = new Set([
  'system.message',
  'system.notification',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.usage',
  'assistant.intent',
  'assistant.reasoning',
  'assistant.idle',
  'tool.execution_start',
  'tool.execution_partial_result',
  'tool.execution_progress',
  'tool.user_requested',
  'hook.start',
  'hook.end',
  'hook.progress',
  'permission.requested',
  'permission.completed',
  'session.shutdown',
  'session.usage_record',
  'session.usage_checkpoint',
  'session.usage_info',
  'session.idle',
  'session.info',
  'session.warning',
  'session.error',
  'session.title_changed',
  'session.model_change',
  'session.mode_changed',
  'session.context_changed',
  'session.compaction_start',
  'session.truncation',
  'session.snapshot_rewind',
  'session.mcp_servers_loaded',
  'session.mcp_server_status_changed',
  'session.mcp_server_tools_loaded',
  'session.tools_updated',
  'session.skills_loaded',
  'session.plan_changed',
  'session.todos_changed',
  'session.task_complete',
  'skill.invoked',
  'subagent.started',
  'subagent.completed',
  'subagent.failed',
  'subagent.selected',
  'subagent.deselected',
  'abort',
]);

/** Whose an event is besides the root agent's: a sub-agent's id (Copilot CLI's own test, on the event and its data). */
function subAgentOf(event: JsonObject, data: JsonObject): string | null {
  const id = stringOrNull(event.agentId) ?? stringOrNull(data.agentId) ?? stringOrNull(data.parentToolCallId);
  return id !== null && id.length > 0 ? id : null;
}

/** A user message is the person's by Copilot CLI's rule: no source or "user", not autopilot's. */
function personSent(data: JsonObject): boolean {
  const source = data.source;
  return (source === undefined || source === null || source === 'user') && data.isAutopilotContinuation !== true;
}

/** A tool call's arguments as text: shell commands as their command line, anything else as compact JSON. */
function argumentsText(args: Json | undefined): string {
  if (typeof args === 'string') return args;
  if (isObject(args) && typeof args.command === 'string' && Object.keys(args).every((k) => k === 'command' || k === 'description')) return args.command;
  return args === undefined ? '' : JSON.stringify(args);
}

type Draft = Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'>;

export function readCopilotSession(text: string | Buffer, options: CopilotSessionOptions = {}): Transcript {
  const source = typeof text === 'string' ? text : text.toString('utf8');
  const toolLimit = options.toolTextLimit ?? DEFAULT_TOOL_TEXT_LIMIT;
  let sessionId: string | null = null;
  let cwd: string | null = null;
  const messages: TranscriptMessage[] = [];
  const compactions: string[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  const skip = (why: string): void => {
    skipped[why] = (skipped[why] ?? 0) + 1;
  };

  /** The messages one event gives, or why it gives none. */
  const read = (type: string, data: JsonObject): Draft[] | string => {
    switch (type) {
      case 'session.start':
        sessionId ??= stringOrNull(data.sessionId);
        cwd ??= isObject(data.context) ? stringOrNull(data.context.cwd) : null;
        return [];
      case 'session.resume':
        cwd ??= isObject(data.context) ? stringOrNull(data.context.cwd) : null;
        return [];
      case 'user.message': {
        const content = stringOrNull(data.content);
        if (content === null) return 'invalid:user.message';
        if (content.trim() === '') return 'empty:user.message';
        return [{ role: 'user', kind: 'text', text: content, fromPerson: personSent(data) }];
      }
      case 'assistant.message': {
        const content = stringOrNull(data.content);
        if (content === null) return 'invalid:assistant.message';
        const out: Draft[] = [];
        if (content.trim() !== '') out.push({ role: 'assistant', kind: 'text', text: content, fromPerson: false });
        for (const request of Array.isArray(data.toolRequests) ? data.toolRequests : []) {
          if (!isObject(request) || typeof request.name !== 'string') continue;
          out.push({ role: 'assistant', kind: 'tool_call', text: clipMiddle(`${request.name}: ${argumentsText(request.arguments)}`, toolLimit), fromPerson: false });
        }
        return out.length > 0 ? out : 'empty:assistant.message';
      }
      case 'tool.execution_complete': {
        const result = isObject(data.result) ? stringOrNull(data.result.content) : null;
        const error = isObject(data.error) ? stringOrNull(data.error.message) : null;
        const body = result ?? (error !== null ? `error: ${error}` : null);
        if (body === null) return 'empty:tool.execution_complete';
        // Tool results come back to the agent from outside it, never from the person.
        return [{ role: 'user', kind: 'tool_result', text: clipMiddle(body, toolLimit), fromPerson: false }];
      }
      case 'session.compaction_complete': {
        const before = messages.at(-1)?.id;
        if (before !== undefined && compactions.at(-1) !== before) compactions.push(before);
        const summary = stringOrNull(data.summaryContent);
        if (summary === null || summary.trim() === '') return before === undefined ? 'empty:session.compaction_complete' : [];
        return [{ role: 'assistant', kind: 'summary', text: summary, fromPerson: false }];
      }
      default:
        return BOOKKEEPING.has(type) ? type : `unknown:${type}`;
    }
  };

  for (const event of jsonlObjects(source, skip)) {
    if (typeof event.type !== 'string' || typeof event.id !== 'string') {
      skip('malformed');
      continue;
    }
    const data = isObject(event.data) ? event.data : {};
    if (seen.has(event.id)) {
      skip('repeated');
      continue;
    }
    seen.add(event.id);
    const outcome = read(event.type, data);
    if (typeof outcome === 'string') {
      skip(outcome);
      continue;
    }
    const subAgent = subAgentOf(event, data) !== null;
    const at = stringOrNull(event.timestamp);
    outcome.forEach((message, i) => {
      messages.push({ ...message, id: i === 0 ? event.id as string : `${event.id as string}#${i}`, at, sidechain: subAgent, fromPerson: message.fromPerson && !subAgent });
    });
  }

  return { agent: 'copilot', sessionId: sessionId ?? options.fallbackSessionId ?? '', cwd, messages, compactions, skipped };
}

/** Copilot CLI's home: $COPILOT_HOME when set, else ~/.copilot. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const set = env.COPILOT_HOME?.trim();
  return set ? path.resolve(set) : path.join(home, '.copilot');
}

/** Whether `file` is where Copilot CLI keeps a session: `…/session-state/<id>/events.jsonl`. */
export function isCopilotSessionFile(file: string): boolean {
  return path.basename(file) === COPILOT_EVENTS_FILE && path.basename(path.dirname(path.dirname(file))) === 'session-state';
}

/** A session file's bytes, its folder's name standing in for a session id the lines lack. */
export function readCopilotSessionData(data: Buffer, file: string, options: CopilotSessionOptions = {}): Transcript {
  return readCopilotSession(data, { fallbackSessionId: path.basename(path.dirname(file)), ...options });
}
