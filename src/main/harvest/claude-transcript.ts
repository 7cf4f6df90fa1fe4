/**
 * The reader of Claude Code's session transcripts: one JSONL file per session under
 * `<config>/projects/<encoded cwd>/<session id>.jsonl`, read into the agent-neutral Transcript of
 * transcript.ts. This module owns what each kind of line means for a harvest and where a session's
 * file lives; it reads text, writes nothing and follows nothing in it.
 *
 * The format, as Claude Code writes it (1.x to 2.1.x; every line one JSON object):
 * - `user` and `assistant` lines carry `uuid`, `parentUuid`, `isSidechain`, `sessionId`, `cwd`,
 *   `timestamp`, `version` and `message` ({role, content}: a string, or blocks of type text,
 *   image, tool_use, tool_result, thinking, redacted_thinking). An assistant reply is streamed one
 *   content block per line: several lines share `message.id`, each with its own uuid.
 * - A user line is the person only sometimes: tool results come back as user lines; `isMeta` marks
 *   text the harness injected (the local-command caveat, an expanded slash command, a skill);
 *   `isCompactSummary` marks a compaction's summary; slash commands arrive as `<command-name>` /
 *   `<command-args>` tags and their output as `<local-command-stdout>`; bash mode as
 *   `<bash-input>` / `<bash-stdout>`; reminders and IDE context as `<system-reminder>`,
 *   `<ide_opened_file>`, `<ide_selection>`; an interruption as "[Request interrupted by user...]";
 *   a refused tool call with the person's reason as a tool_result that begins with Claude Code's
 *   fixed rejection sentence. 2.1 adds `promptSource` ('typed', 'sdk', 'system') on prompts.
 * - `system` lines: `subtype: 'compact_boundary'` (parentUuid null, `logicalParentUuid` the last
 *   message before it, `compactMetadata` {trigger, preTokens, ...}) marks a compaction; others
 *   (stop_hook_summary, local_command, turn_duration, ...) are harness bookkeeping.
 * - `attachment` lines (2.1) carry hook outputs and, as `queued_command`, a prompt the person typed
 *   while the agent was busy. Other kinds (summary, ai-title, custom-title, last-prompt,
 *   file-history-snapshot, queue-operation, progress, pr-link, ...) are session metadata.
 * - Sub-agents write `isSidechain: true` lines, in the session's file (up to 2.0) or in
 *   `<session id>/subagents/agent-<id>.jsonl` (later); a side chain's "user" is the parent agent.
 *
 * Invariants of the result:
 * - A message's id is its line's uuid; a line that yields several messages (an older assistant
 *   line with many blocks, a tool result plus the person's reason for refusing it) gives the first
 *   the bare uuid and the next ones `<uuid>#1`, `<uuid>#2`, ... in block order. Ids depend only on
 *   the line itself, so they are stable as the file grows; a uuid seen twice is skipped.
 * - fromPerson is true only for words the person typed in the main conversation: a prompt (with
 *   injected reminder tags cut out), a queued prompt, a slash command with its arguments, a bash
 *   mode command, the reason given when refusing a tool call. Never for tool results, meta lines,
 *   command output, hook output, compaction summaries, side-chain prompts, or prompts whose
 *   promptSource says they were not typed.
 * - A refusal's reason counts only from Claude Code's own rejection record (above) answering a tool
 *   call this transcript made, in the same chain, once: a tool's output that merely begins with the
 *   rejection sentence (a file a Bash `cat` printed, a page WebFetch read, an MCP tool's answer) is
 *   that tool's result, whatever it says. An MCP tool's refusal is never taken: Claude Code records
 *   an MCP tool's error (`isError`) exactly as it records a refusal, with the server's text, so the
 *   two cannot be told apart.
 * - Thinking is never text. Tool calls and results become short renderings (name and compact input,
 *   results cut to a bound) so one huge output cannot crowd out the conversation.
 * - Every non-blank line is either taken (it yields a message or a compaction point) or counted in
 *   `skipped` under a reason: its kind for known kinds not taken ('file-history-snapshot',
 *   'system:stop_hook_summary', 'attachment:hook_success', 'meta', 'interrupt', 'thinking', ...),
 *   'unknown:<type>' for kinds this reader does not know, and as jsonl-lines.ts says, 'malformed'
 *   for what is not a JSON object, 'truncated' for a last line still being written. Reading never
 *   throws on content.
 * - Linear in the input: one JSON.parse per line, no repeated concatenation of the whole text.
 */

import * as os from 'node:os';
import * as path from 'node:path';
import { jsonlObjects } from './jsonl-lines';
import type { MessageKind, MessageRole, Transcript, TranscriptMessage } from './transcript';

export interface ReadClaudeTranscriptOptions {
  /** The session's id (the file's name without `.jsonl`); otherwise taken from the lines. */
  readonly sessionId?: string;
  /** A tool result's text is cut to this many characters (2000 by default). */
  readonly maxToolResultChars?: number;
  /** A tool call's rendered input is cut to this many characters (1000 by default). */
  readonly maxToolInputChars?: number;
}

const DEFAULT_MAX_TOOL_RESULT_CHARS = 2000;
const DEFAULT_MAX_TOOL_INPUT_CHARS = 1000;

/** Claude Code's fixed sentence before the reason a person gives when refusing a tool call. */
const REJECT_WITH_REASON_PREFIX =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n";
/** What Claude Code appends to a refusal when its auto memory is on (withMemoryCorrectionHint): not the person's. */
const MEMORY_CORRECTION_HINT =
  "\n\nNote: The user's next message may contain a correction or preference. Pay close attention — if they explain what went wrong or how they'd prefer you to work, consider saving that to memory for future sessions.";
/** Tool names of MCP servers' tools (mcp__<server>__<tool>): their errors carry the server's own text. */
const MCP_TOOL_PREFIX = 'mcp__';
const INTERRUPT_PREFIX = '[Request interrupted by user';
const CAVEAT_PREFIX = 'Caveat: The messages below were generated by the user while running local commands';
/** The model name Claude Code puts on assistant lines it writes itself (API errors, "No response requested."). */
const SYNTHETIC_MODEL = '<synthetic>';

/** Tags the harness wraps around context it adds to a prompt; cut out of the person's words. */
const INJECTED_TAGS = /<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|post-tool-use-hook|user-prompt-submit-hook|user-memory-input)>[\s\S]*?<\/\1>/g;
/** Output of a local slash command or of bash mode, shown to the model as a user line. */
const OUTPUT_TAGS = /<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>([\s\S]*?)<\/\1>/g;
const ANSI_ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** Text that is wholly one harness tag (`<task-notification>...</task-notification>` and the like). */
const WHOLLY_TAGGED = /^\s*<([a-z][\w-]*)[\s>][\s\S]*<\/\1>\s*$/;

/** Line kinds Claude Code writes that carry no conversation; counted under their own name. */
const METADATA_KINDS = new Set([
  'summary',
  'custom-title',
  'ai-title',
  'last-prompt',
  'task-summary',
  'tag',
  'agent-name',
  'agent-color',
  'agent-setting',
  'pr-link',
  'file-history-snapshot',
  'attribution-snapshot',
  'queue-operation',
  'speculation-accept',
  'mode',
  'permission-mode',
  'worktree-state',
  'dev-mods',
  'content-replacement',
  'marble-origami-commit',
  'marble-origami-snapshot',
  'progress',
]);

type Json = Record<string, unknown>;

/** A tool call an assistant line made: what a result for its id is checked against. */
interface ToolCall {
  readonly name: string;
  /** The uuid of the assistant line that made it. */
  readonly lineUuid: string;
  readonly sidechain: boolean;
  /** A result for it has been read (Claude Code writes one per call; a second is never a refusal). */
  answered: boolean;
}

/** What a user line's blocks are read with. */
interface UserLine {
  readonly entry: Json;
  readonly typed: boolean;
  readonly sidechain: boolean;
}

/** What one line yields before ids are given: merged later with its neighbours of the same sort. */
interface Part {
  kind: MessageKind;
  text: string;
  fromPerson: boolean;
}

export function readClaudeTranscript(input: string | Buffer, options: ReadClaudeTranscriptOptions = {}): Transcript {
  const text = typeof input === 'string' ? input : input.toString('utf8');
  const maxResult = options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  const maxInput = options.maxToolInputChars ?? DEFAULT_MAX_TOOL_INPUT_CHARS;

  const messages: TranscriptMessage[] = [];
  const compactions: string[] = [];
  const skipped: Record<string, number> = {};
  const seen = new Set<string>();
  /** A main-conversation line's uuid to the id of the last message it yielded: a compaction's logical parent. */
  const lastIdOfLine = new Map<string, string>();
  /** tool_use id to its call, so a result can say which tool answered and a refusal be checked. */
  const toolCalls = new Map<string, ToolCall>();
  let lastMainId: string | null = null;
  let cwd: string | null = null;
  let sidechainCwd: string | null = null;
  let sessionId: string | null = null;

  const skip = (reason: string): void => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };

  const emit = (uuid: string, role: MessageRole, parts: Part[], at: string | null, sidechain: boolean): void => {
    const merged = mergeParts(parts);
    let n = 0;
    let id = uuid;
    for (const part of merged) {
      id = n === 0 ? uuid : `${uuid}#${n}`;
      n++;
      messages.push({ id, role, kind: part.kind, text: part.text, at, fromPerson: part.fromPerson, sidechain });
    }
    if (!sidechain) {
      lastIdOfLine.set(uuid, id);
      lastMainId = id;
    }
  };

  for (const entry of jsonlObjects(text, skip)) {
    const sidechain = entry.isSidechain === true;
    if (typeof entry.cwd === 'string' && entry.cwd !== '') {
      // The session's directory is where its main conversation started; a side chain's only if
      // nothing else says.
      if (!sidechain) cwd ??= entry.cwd;
      else sidechainCwd ??= entry.cwd;
    }
    // The last one wins: a session resumed into a new file carries the new id on its new lines.
    if (typeof entry.sessionId === 'string' && entry.sessionId !== '' && (!sidechain || sessionId === null)) sessionId = entry.sessionId;

    const type = typeof entry.type === 'string' ? entry.type : '';
    if (type === 'system') {
      const subtype = typeof entry.subtype === 'string' ? entry.subtype : 'none';
      if (subtype !== 'compact_boundary') {
        skip(`system:${clip(subtype)}`);
        continue;
      }
      // The point a compaction follows: the logical parent's last message when it was taken,
      // else the main conversation's last message so far.
      const logical = typeof entry.logicalParentUuid === 'string' ? lastIdOfLine.get(entry.logicalParentUuid) : undefined;
      const anchor = logical ?? lastMainId;
      if (anchor === null) skip('compact_boundary:unanchored');
      else if (compactions[compactions.length - 1] !== anchor) compactions.push(anchor);
      continue;
    }
    if (type !== 'user' && type !== 'assistant' && type !== 'attachment') {
      skip(METADATA_KINDS.has(type) ? type : `unknown:${clip(type)}`);
      continue;
    }

    const uuid = typeof entry.uuid === 'string' && entry.uuid !== '' ? entry.uuid : null;
    if (uuid === null) {
      skip(`${type}:no-uuid`);
      continue;
    }
    if (seen.has(uuid)) {
      skip('duplicate');
      continue;
    }
    seen.add(uuid);
    const at = typeof entry.timestamp === 'string' ? entry.timestamp : null;

    if (type === 'attachment') {
      const queued = readQueuedCommand(entry, sidechain);
      if (typeof queued === 'string') skip(queued);
      else emit(uuid, 'user', [queued], at, sidechain);
      continue;
    }

    const message = isObject(entry.message) ? entry.message : null;
    if (message === null) {
      skip(`${type}:no-message`);
      continue;
    }
    const blocks = contentBlocks(message.content);

    if (type === 'assistant') {
      if (entry.isApiErrorMessage === true || message.model === SYNTHETIC_MODEL) {
        skip('synthetic');
        continue;
      }
      const parts = readAssistantBlocks(blocks, { uuid, sidechain }, toolCalls, maxInput, maxResult);
      if (typeof parts === 'string') skip(parts);
      else emit(uuid, 'assistant', parts, at, sidechain);
      continue;
    }

    // A user line.
    if (entry.isCompactSummary === true) {
      const summary = joinTexts(blocks);
      if (summary === '') skip('empty');
      else emit(uuid, 'user', [{ kind: 'summary', text: summary, fromPerson: false }], at, sidechain);
      continue;
    }
    if (entry.isMeta === true) {
      skip('meta');
      continue;
    }
    // A side chain's prompt is the parent agent's; a prompt the harness or an SDK sent is not typed;
    // nor, by Claude Code's own rule (2.1.3xx), a line it marks as text the person did not type
    // (textNotTyped, handedOff, queue-only) or whose origin is not a human (a peer, a plugin, a
    // channel, an automatic continuation). A prompt queued while the agent worked is typed.
    const notTyped = entry.textNotTyped === true || entry.handedOff === true || entry.queueSkipAttachments === true || entry.queueTranscriptOnly === true || (isObject(entry.origin) && entry.origin.kind !== 'human');
    const typed = !sidechain && !notTyped && (entry.promptSource === undefined || entry.promptSource === 'typed' || entry.promptSource === 'queued');
    const parts = readUserBlocks(blocks, { entry, typed, sidechain }, toolCalls, maxResult);
    if (typeof parts === 'string') skip(parts);
    else emit(uuid, 'user', parts, at, sidechain);
  }

  return {
    agent: 'claude',
    sessionId: options.sessionId ?? sessionId ?? '',
    cwd: cwd ?? sidechainCwd,
    messages,
    compactions,
    skipped,
  };
}

/** The parts of a user line, or the reason it yields none. */
function readUserBlocks(blocks: Json[], line: UserLine, toolCalls: Map<string, ToolCall>, maxResult: number): Part[] | string {
  const parts: Part[] = [];
  let reason = 'empty';
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') {
      const got = readUserText(block.text, line.typed, maxResult);
      if (typeof got === 'string') reason = got;
      else parts.push(...got);
    } else if (block.type === 'image') {
      parts.push({ kind: 'text', text: '[image]', fromPerson: line.typed });
    } else if (block.type === 'tool_result') {
      const call = typeof block.tool_use_id === 'string' ? toolCalls.get(block.tool_use_id) : undefined;
      const reasonGiven = refusalReason(block, line, call);
      if (call) call.answered = true;
      // The person refused the call and said why: their words, even when a sub-agent asked.
      const body = reasonGiven === null ? resultText(block.content) : 'refused by the person';
      const label = block.is_error === true && reasonGiven === null ? 'error' : 'result';
      parts.push({ kind: 'tool_result', text: truncate(`${call?.name ?? 'tool'} ${label}: ${body}`, maxResult), fromPerson: false });
      if (reasonGiven) parts.push({ kind: 'text', text: reasonGiven, fromPerson: true });
    }
  }
  return parts.length > 0 ? parts : reason;
}

/**
 * The reason the person gave when refusing `call`, when `block` is Claude Code's own record of
 * that refusal (see the header: the flags and the text it writes, tied to a call of the same chain
 * not answered before), else null. Whatever a tool printed is its result, never the person's words.
 */
function refusalReason(block: Json, line: UserLine, call: ToolCall | undefined): string | null {
  if (call === undefined || call.answered || call.sidechain !== line.sidechain) return null;
  if (call.name.startsWith(MCP_TOOL_PREFIX)) return null;
  const content = block.content;
  if (block.is_error !== true || typeof content !== 'string' || !content.startsWith(REJECT_WITH_REASON_PREFIX)) return null;
  if (line.entry.toolUseResult !== `Error: ${content}`) return null;
  const source = line.entry.sourceToolAssistantUUID;
  if (source !== undefined && source !== call.lineUuid) return null;
  let said = content.slice(REJECT_WITH_REASON_PREFIX.length);
  if (said.endsWith(MEMORY_CORRECTION_HINT)) said = said.slice(0, -MEMORY_CORRECTION_HINT.length);
  said = said.trim();
  return said === '' ? null : said;
}

/** What one text block of a user line is: the person's words, a command, output, or nothing. */
function readUserText(raw: string, typed: boolean, maxResult: number): Part[] | string {
  const text = raw.trim();
  if (text === '') return 'empty';
  if (text.startsWith(INTERRUPT_PREFIX)) return 'interrupt';
  if (text.startsWith(CAVEAT_PREFIX) || text.startsWith('<local-command-caveat>')) return 'caveat';
  if (!text.includes('<')) return [{ kind: 'text', text, fromPerson: typed }];

  const command = tagText(text, 'command-name');
  if (command !== null) {
    const args = tagText(text, 'command-args') ?? '';
    const name = command.startsWith('/') ? command : `/${command}`;
    return [{ kind: 'text', text: args === '' ? name : `${name} ${args}`, fromPerson: typed }];
  }
  const bash = tagText(text, 'bash-input');
  if (bash !== null) return [{ kind: 'text', text: `! ${bash}`, fromPerson: typed }];

  const outputs: string[] = [];
  let output = false;
  for (const match of text.matchAll(OUTPUT_TAGS)) {
    output = true;
    // Local commands print for a terminal: their colour codes mean nothing to a reader.
    const body = (match[2] ?? '').replace(ANSI_ESCAPES, '').trim();
    if (body !== '') outputs.push(body);
  }
  if (output) {
    const body = outputs.join('\n');
    return [{ kind: 'tool_result', text: truncate(`command output: ${body === '' ? '(empty)' : body}`, maxResult), fromPerson: false }];
  }

  const words = text.replace(INJECTED_TAGS, '').trim();
  if (words === '') return 'injected';
  // Wholly one tag the harness wrote (a background task's notification, say): not typed.
  if (WHOLLY_TAGGED.test(words)) return [{ kind: 'text', text: truncate(words, maxResult), fromPerson: false }];
  return [{ kind: 'text', text: words, fromPerson: typed }];
}

/** The parts of an assistant line (`line`: its uuid and chain), or the reason it yields none. */
function readAssistantBlocks(
  blocks: Json[],
  line: { readonly uuid: string; readonly sidechain: boolean },
  toolCalls: Map<string, ToolCall>,
  maxInput: number,
  maxResult: number,
): Part[] | string {
  const parts: Part[] = [];
  let thinking = false;
  for (const block of blocks) {
    const type = typeof block.type === 'string' ? block.type : '';
    if (type === 'text' && typeof block.text === 'string') {
      const text = block.text.trim();
      if (text !== '') parts.push({ kind: 'text', text, fromPerson: false });
    } else if (type === 'thinking' || type === 'redacted_thinking') {
      thinking = true;
    } else if (type === 'tool_use' || type === 'server_tool_use') {
      const name = typeof block.name === 'string' && block.name !== '' ? block.name : 'tool';
      // A result answers the latest call with its id (a file that repeats earlier lines repeats both).
      if (typeof block.id === 'string') toolCalls.set(block.id, { name, lineUuid: line.uuid, sidechain: line.sidechain, answered: false });
      parts.push({ kind: 'tool_call', text: `${name} ${truncate(compactJson(block.input), maxInput)}`, fromPerson: false });
    } else if (type.endsWith('_tool_result')) {
      // A server tool's answer (web search) arrives in the assistant's own message.
      const name = typeof block.tool_use_id === 'string' ? (toolCalls.get(block.tool_use_id)?.name ?? type) : type;
      parts.push({ kind: 'tool_result', text: truncate(`${name} result: ${resultText(block.content)}`, maxResult), fromPerson: false });
    }
  }
  if (parts.length > 0) return parts;
  return thinking ? 'thinking' : 'empty';
}

/** A prompt typed while the agent worked (2.1's `queued_command` attachment), or why not taken. */
function readQueuedCommand(entry: Json, sidechain: boolean): Part | string {
  const attachment = isObject(entry.attachment) ? entry.attachment : null;
  const kind = attachment !== null && typeof attachment.type === 'string' ? attachment.type : 'none';
  if (attachment === null || kind !== 'queued_command') return `attachment:${clip(kind)}`;
  const prompt = attachment.prompt;
  const words = typeof prompt === 'string' ? prompt.trim() : joinTexts(contentBlocks(prompt));
  if (words === '') return 'empty';
  if (attachment.commandMode === 'bash') return { kind: 'text', text: `! ${words}`, fromPerson: !sidechain };
  if (attachment.commandMode !== undefined && attachment.commandMode !== 'prompt') return 'attachment:queued_command';
  const stripped = words.replace(INJECTED_TAGS, '').trim();
  if (stripped === '') return 'injected';
  return { kind: 'text', text: stripped, fromPerson: !sidechain && !WHOLLY_TAGGED.test(stripped) };
}

/** Consecutive parts of the same kind and origin become one message (a prompt and its image). */
function mergeParts(parts: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (last && last.kind === 'text' && part.kind === 'text' && last.fromPerson === part.fromPerson) {
      last.text = `${last.text}\n${part.text}`;
    } else {
      merged.push({ ...part });
    }
  }
  return merged;
}

function contentBlocks(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject);
}

function joinTexts(blocks: Json[]): string {
  const texts: string[] = [];
  for (const block of blocks) if (block.type === 'text' && typeof block.text === 'string' && block.text.trim() !== '') texts.push(block.text.trim());
  return texts.join('\n\n');
}

/** A tool result's content as text: a string, or text blocks with images as placeholders. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content.trim();
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text.trim());
    else if (block.type === 'image') texts.push('[image]');
  }
  return texts.join('\n');
}

function tagText(text: string, tag: string): string | null {
  const open = text.indexOf(`<${tag}>`);
  if (open < 0) return null;
  const from = open + tag.length + 2;
  const close = text.indexOf(`</${tag}>`, from);
  return (close < 0 ? text.slice(from) : text.slice(from, close)).trim();
}

function compactJson(value: unknown): string {
  if (value === undefined) return '{}';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** Cut to `max` characters (never inside a surrogate pair) and say how much was left out. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max);
  const code = text.charCodeAt(cut - 1);
  if (cut > 0 && code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}… [${text.length - cut} more chars]`;
}

/** A kind name as a key of `skipped`: bounded, so a hostile line cannot make a huge key. */
function clip(kind: string): string {
  return kind.length > 64 ? `${kind.slice(0, 64)}…` : kind;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- where a session's transcript lives ----

/**
 * The longest project directory name Claude Code writes whole; a longer one is cut to this and
 * given a hash suffix (sanitizePath in Claude Code's sessionStoragePortable.ts).
 */
export const CLAUDE_PROJECT_DIR_MAX = 200;

/** Claude Code's configuration directory: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  return configured ? configured : path.join(home, '.claude');
}

/**
 * The directory name Claude Code gives a working directory under `projects/`: every character
 * that is not an ASCII letter or digit becomes '-' (so '/', '.', '_', ' ', ':' and '\' all do:
 * /home/dev/projects/widgets -> -home-dev-projects-widgets, C:\src\app -> C--src-app). Past 200
 * characters the name is cut and a hash of the path appended; the CLI under Bun hashes with
 * Bun.hash and under Node with djb2, so this returns the djb2 form and session-files.ts
 * matches long names by their prefix instead.
 */
export function claudeProjectDirName(cwd: string): string {
  const sanitized = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (sanitized.length <= CLAUDE_PROJECT_DIR_MAX) return sanitized;
  return `${sanitized.slice(0, CLAUDE_PROJECT_DIR_MAX)}-${Math.abs(djb2(cwd)).toString(36)}`;
}

function djb2(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = ((hash << 5) - hash + text.charCodeAt(i)) | 0;
  return hash;
}
