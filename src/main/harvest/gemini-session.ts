/**
 * The reader of Gemini CLI's session files: `<gemini home>/.gemini/tmp/<project>/chats/
 * session-<YYYY-MM-DDTHH-MM>-<session id's first 8>.jsonl` (the gemini home is $GEMINI_CLI_HOME,
 * else the user's home; `<project>` a short name Gemini CLI keeps in `.gemini/projects.json`, with
 * the project's root in `<project>/.project_root`), turned into the harvest's Transcript
 * (transcript.ts). Owns: which records become messages, who said them, their ids, the session's id
 * and cwd, and where the session's history was replaced.
 *
 * The format, as Gemini CLI 0.61 writes it (packages/core chatRecordingService: appendRecord,
 * loadConversationRecord), one JSON object a line, read back by replaying them in order:
 * - the session's metadata: `{sessionId, projectHash, startTime, lastUpdated, kind, directories?}`
 *   (projectHash: the sha256 of the project root's path; kind "main" or "subagent");
 * - a message record `{id, timestamp, type, content, displayContent?, ...}`: a record whose id was
 *   seen replaces that message where it stands (a model message is written again once its tokens
 *   and tool calls are known); type "user" (content: parts, text or functionResponse), "gemini"
 *   (content: the model's text; `toolCalls: [{id, name, args, result, status}]`, `thoughts`),
 *   "info", "warning", "error" (the CLI's own notes);
 * - `{$set: {...}}` updates the metadata; `$set.messages` replaces the whole history the CLI resumes
 *   from (the session's first context; after a compression, the summary and the turns it kept);
 * - `{$rewindTo: id}`: the person rewound the session; that message and the ones after it are gone.
 * A harvest wants everything that was said, not what the CLI would resume with: a `$set.messages`
 * adds the messages it brings and takes none away (the lines before it stay in the file); only a
 * rewind takes messages back. Where a `$set.messages` leaves out messages that were there, the
 * history was compressed: the last of them is a compaction point.
 * An older version wrote the whole record as one JSON object (`messages` inside); it is read too.
 *
 * Who spoke, by Gemini CLI's own rules (isIgnoredUserContent, convertSessionToClientHistory):
 * - a "user" message is the person's only in its text, and only when the CLI recorded it as a
 *   message of its own (every prompt is): one that first comes in a `$set.messages` is the CLI's
 *   (its environment context, a compression's summary). A functionResponse part is a tool's answer;
 *   text starting `<session_context>` is the CLI's description of the environment; text starting
 *   `/` or `?` is a command to the CLI, not words to the model. What the person typed is the
 *   message's displayContent when it has one (content then holds what the CLI added, such as the
 *   files an @ brought in), else its content.
 * - Hooks' context is wrapped by the CLI in `<hook_context>...</hook_context>` (the hook's own `<`
 *   and `>` escaped, so its end is unambiguous): a SessionStart hook's before the prompt in the
 *   same text (in `gemini -p`), a BeforeAgent hook's as a part of its own. It is the hooks', never
 *   the person's: cut out, and the rest is the prompt.
 * - "gemini" is the agent (thoughts left out); "info", "warning" and "error" are the CLI's and are
 *   skipped; a type this reader does not know is skipped and counted, never taken as the person.
 * - In a sub-agent's file (kind "subagent") the "user" is the parent agent: nothing is the person's
 *   and every message is a side chain.
 *
 * Invariants: never throws on content (a line that is not JSON, or not a known record, is counted
 * in `skipped`); a message's id is its record's id (a tool call's: `<message id>:<call id>`), so
 * ids are stable as the file grows; linear in the input.
 */
import * as crypto from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { clipMiddle, isObject, jsonlObjects, stringOrNull, type Json, type JsonObject } from './jsonl-lines';
import type { Transcript, TranscriptMessage } from './transcript';

/** Longest rendering of one tool call or result, in characters; beyond it the middle is left out. */
const GEMINI_TOOL_TEXT_LIMIT = 2000;

/** The message types Gemini CLI writes that are its own notes, not conversation. */
const CLI_NOTES = new Set(['info', 'warning', 'error']);

/** Content as parts: a string is one text part. */
function partsOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return content as Json[];
  if (isObject(content)) return [content];
  return [];
}

const HOOK_OPEN = '<hook_context>';
const HOOK_CLOSE = '</hook_context>';

/** A text part without the hooks' context the CLI wrapped into it (leading blocks, or the whole part). */
function withoutHookContext(text: string): string {
  let rest = text;
  for (;;) {
    const trimmed = rest.trimStart();
    if (!trimmed.startsWith(HOOK_OPEN)) return rest;
    const end = trimmed.indexOf(HOOK_CLOSE);
    if (end < 0) return '';
    rest = trimmed.slice(end + HOOK_CLOSE.length);
  }
}

/** Whether Gemini CLI itself takes a user text as not the person's words to the model. */
function isCliText(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed.startsWith('/') || trimmed.startsWith('?') || trimmed.startsWith('<session_context>');
}

/** The result parts' output: functionResponse.response.output (or error), else the parts' text. */
function resultText(parts: readonly Json[]): string {
  return parts
    .map((part) => {
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      const fr = isObject(part.functionResponse) ? part.functionResponse : null;
      if (fr === null) return '';
      const response = fr.response;
      if (isObject(response)) return stringOrNull(response.output) ?? stringOrNull(response.error) ?? JSON.stringify(response);
      return typeof response === 'string' ? response : '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** A "user" message: the person's words, the CLI's context, or tools' answers. */
function userMessages(record: JsonObject, subagent: boolean): Array<Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'>> {
  const content = partsOf(record.content);
  const out: Array<Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'>> = [];
  const answers = content.filter((p) => isObject(p) && isObject(p.functionResponse));
  if (answers.length > 0) out.push({ role: 'user', kind: 'tool_result', text: clipMiddle(resultText(answers), GEMINI_TOOL_TEXT_LIMIT), fromPerson: false });
  const shown = record.displayContent !== undefined && record.displayContent !== null ? partsOf(record.displayContent) : content;
  const texts = shown.map((p) => (isObject(p) ? stringOrNull(p.text) : null)).filter((t): t is string => t !== null);
  if (texts.length === 0) return out;
  const joined = texts.join('');
  // The CLI's rule looks at the message's whole text (its environment context, a slash command).
  if (isCliText(joined) && !joined.trimStart().startsWith(HOOK_OPEN)) {
    out.push({ role: 'user', kind: 'text', text: joined, fromPerson: false });
    return out;
  }
  const typed = texts.map(withoutHookContext).join('').trim();
  if (typed === '' || isCliText(typed)) return out;
  out.push({ role: 'user', kind: 'text', text: typed, fromPerson: !subagent });
  return out;
}

/** A "gemini" message: its text, then each tool call it made. */
function modelMessages(record: JsonObject): Array<Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'> & { suffix: string }> {
  const out: Array<Omit<TranscriptMessage, 'id' | 'at' | 'sidechain'> & { suffix: string }> = [];
  const text = partsOf(record.content)
    .map((p) => (isObject(p) && p.thought !== true ? (stringOrNull(p.text) ?? '') : ''))
    .join('');
  if (text.trim() !== '') out.push({ role: 'assistant', kind: 'text', text, fromPerson: false, suffix: '' });
  for (const call of Array.isArray(record.toolCalls) ? record.toolCalls : []) {
    if (!isObject(call)) continue;
    const name = stringOrNull(call.name) ?? '?';
    out.push({ role: 'assistant', kind: 'tool_call', text: clipMiddle(`${name}: ${JSON.stringify(call.args ?? {})}`, GEMINI_TOOL_TEXT_LIMIT), fromPerson: false, suffix: `:${stringOrNull(call.id) ?? name}` });
  }
  return out;
}

/** The workspace directories the CLI's environment context lists (`- **Workspace Directories:**` then `  - <dir>`). */
function contextDirectories(text: string): string[] {
  const at = text.indexOf('**Workspace Directories:**');
  if (at < 0) return [];
  const dirs: string[] = [];
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s+- (\/.*)$/.exec(line);
    if (!m) break;
    dirs.push(m[1]!.trim());
  }
  return dirs;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

export interface GeminiSessionOptions {
  /** The session id when the file has no metadata (its name's short id is all there is). */
  readonly fallbackSessionId?: string;
}

export function readGeminiSession(input: string | Buffer, options: GeminiSessionOptions = {}): Transcript {
  const source = typeof input === 'string' ? input : input.toString('utf8');
  const skipped: Record<string, number> = {};
  const skip = (why: string): void => {
    skipped[why] = (skipped[why] ?? 0) + 1;
  };
  const metadata: JsonObject = {};
  // Every message recorded, by id, in the order they first came (a record again replaces it in place).
  const records = new Map<string, JsonObject>();
  // The messages that came only in a `$set.messages` (never the person's), and whether after a compression.
  const fromSet = new Map<string, 'context' | 'summary'>();
  const compactedAfter: string[] = [];

  const setMessages = (list: Json[]): void => {
    const listed = new Set<string>();
    for (const m of list) if (isObject(m) && typeof m.id === 'string') listed.add(m.id);
    const dropped = [...records.keys()].filter((id) => !listed.has(id));
    // Messages that were there and are left out: the history was compressed, after the last message so far.
    if (dropped.length > 0) compactedAfter.push([...records.keys()].at(-1)!);
    for (const m of list) {
      if (!isObject(m) || typeof m.id !== 'string' || records.has(m.id)) continue;
      records.set(m.id, m);
      fromSet.set(m.id, dropped.length > 0 ? 'summary' : 'context');
    }
  };

  const take = (record: JsonObject): void => {
    if (typeof record.$rewindTo === 'string') {
      const ids = [...records.keys()];
      const at = ids.indexOf(record.$rewindTo);
      for (const id of at < 0 ? ids : ids.slice(at)) {
        records.delete(id);
        fromSet.delete(id);
      }
      return;
    }
    if (typeof record.id === 'string') {
      records.set(record.id, record);
      fromSet.delete(record.id);
      return;
    }
    if (isObject(record.$set)) {
      const { messages, ...rest } = record.$set;
      Object.assign(metadata, rest);
      if (Array.isArray(messages)) setMessages(messages);
      return;
    }
    if (typeof record.sessionId === 'string' && typeof record.projectHash === 'string') {
      const { messages, ...rest } = record;
      Object.assign(metadata, rest);
      if (Array.isArray(messages)) setMessages(messages);
      return;
    }
    skip('unknown:record');
  };

  const trimmed = source.trimStart();
  let whole: unknown = null;
  // The older format: the whole record as one JSON object (pretty-printed over many lines).
  if (trimmed.startsWith('{') && !trimmed.slice(0, trimmed.indexOf('\n') < 0 ? undefined : trimmed.indexOf('\n')).trimEnd().endsWith('}')) {
    try {
      whole = JSON.parse(source);
    } catch {
      whole = null;
    }
  }
  if (isObject(whole)) take(whole);
  else for (const line of jsonlObjects(source, skip)) take(line);

  const subagent = metadata.kind === 'subagent';
  const messages: TranscriptMessage[] = [];
  const directories: string[] = Array.isArray(metadata.directories) ? metadata.directories.filter((d): d is string => typeof d === 'string') : [];
  const compactions: string[] = [];
  // The last message each record gave, for the compaction points.
  const lastOf = new Map<string, string>();
  for (const [id, record] of records) {
    if (messages.length > 0) lastOf.set(id, messages.at(-1)!.id);
    const type = stringOrNull(record.type);
    const at = stringOrNull(record.timestamp);
    if (type === 'user') {
      for (const part of partsOf(record.content)) {
        const text = isObject(part) ? stringOrNull(part.text) : null;
        if (text?.trimStart().startsWith('<session_context>')) directories.push(...contextDirectories(text));
      }
      const origin = fromSet.get(id);
      userMessages(record, subagent || origin !== undefined).forEach((m, i) =>
        messages.push({ ...m, ...(origin === 'summary' && m.kind === 'text' ? { kind: 'summary' as const } : {}), id: i === 0 ? id : `${id}#${i}`, at, sidechain: subagent }),
      );
    } else if (type === 'gemini') {
      for (const { suffix, ...m } of modelMessages(record)) messages.push({ ...m, id: `${id}${suffix}`, at, sidechain: subagent });
    } else if (type !== null && CLI_NOTES.has(type)) skip(`note:${type}`);
    else skip(`unknown:${type ?? '?'}`);
  }
  // The messages after which the history was compressed: the last one the record before it gave.
  const ids = [...records.keys()];
  for (const id of compactedAfter) {
    const next = ids[ids.indexOf(id) + 1];
    const point = next === undefined ? messages.at(-1)?.id : lastOf.get(next);
    if (point !== undefined && compactions.at(-1) !== point) compactions.push(point);
  }

  // The project's root is the directory whose sha256 is the session's projectHash.
  const hash = stringOrNull(metadata.projectHash);
  const cwd = directories.find((d) => hash !== null && sha256(d) === hash) ?? null;
  return {
    agent: 'gemini',
    sessionId: stringOrNull(metadata.sessionId) ?? options.fallbackSessionId ?? '',
    cwd,
    messages,
    compactions,
    skipped,
  };
}

/** Whether `file` is named as Gemini CLI names its sessions (`.../chats/session-*.jsonl`, or the older `.json`). */
export function isGeminiSessionFile(file: string): boolean {
  return /^session-.*\.jsonl?$/.test(path.basename(file)) && path.basename(path.dirname(file)) === 'chats';
}

/** Reads a Gemini CLI session file's bytes (its name's short id stands in for a missing session id). */
export function readGeminiSessionData(data: Buffer, file: string): Transcript {
  const short = /-([0-9a-f]{8})\.jsonl?$/i.exec(path.basename(file))?.[1];
  return readGeminiSession(data, short ? { fallbackSessionId: short } : {});
}

/** Gemini CLI's folder of its user files: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const root = env.GEMINI_CLI_HOME?.trim();
  return path.join(root ? path.resolve(root) : home, '.gemini');
}
