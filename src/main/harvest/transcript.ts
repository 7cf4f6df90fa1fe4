/**
 * What a harvest reads of an agent's session, whatever the agent: a Transcript of
 * messages, each with an id taken from the transcript itself, so that a segment (the part not
 * harvested yet) is keyed by message ids, never by counters a compaction or a reset renumbers.
 * The readers of each agent's format (claude-transcript.ts, codex-rollout.ts) produce it; lines of
 * kinds a reader does not know are skipped and counted, never fatal.
 *
 * Transcript text is untrusted data: it is never followed as instructions, and secrets are
 * redacted before any of it leaves the process.
 */
import { MCP_CONSOLIDATE_PROMPT_MARKER, MCP_HARVEST_PROMPT_MARKER, MEMORY_CONSOLIDATE_TOOL, MEMORY_PROPOSE_TOOL } from '../../common/memory/tool-description';

export type TranscriptAgent = 'claude' | 'codex' | 'copilot' | 'gemini';

export type MessageRole = 'user' | 'assistant';

export type MessageKind =
  /** Words of the person or the agent. */
  | 'text'
  /** A tool the agent called (its name and input, summarised as text). */
  | 'tool_call'
  /** What a tool answered (summarised as text). */
  | 'tool_result'
  /** A compaction's summary of the messages before it. */
  | 'summary';

export interface TranscriptMessage {
  /**
   * Unique within the transcript and stable when the file grows or is compacted (Claude Code's
   * uuid; for a format without ids, a digest of the line's own timestamp, kind and content).
   */
  readonly id: string;
  readonly role: MessageRole;
  readonly kind: MessageKind;
  /** Plain text: the words, or a short rendering of a tool call or result. Thinking is left out. */
  readonly text: string;
  /** ISO time of the message, when the transcript gives one. */
  readonly at: string | null;
  /**
   * Typed by the person (not a tool result, not text a hook or the harness injected, not a
   * compaction summary): only such messages can be evidence of a preference or a convention.
   */
  readonly fromPerson: boolean;
  /** Part of a sub-agent's side chain rather than the main conversation. */
  readonly sidechain: boolean;
}

export interface Transcript {
  readonly agent: TranscriptAgent;
  /** The session's id as the agent names it. */
  readonly sessionId: string;
  /** The directory the session ran in (the workspace is resolved from it), when the transcript says. */
  readonly cwd: string | null;
  /** In transcript order. */
  readonly messages: readonly TranscriptMessage[];
  /** Ids of the messages right after which a compaction happened, in order. */
  readonly compactions: readonly string[];
  /** Lines not taken, counted by why: an unknown kind ('unknown:<type>'), 'malformed' JSON, ... */
  readonly skipped: Readonly<Record<string, number>>;
}

/** Who wrote a message, as the inbox and the prompt show it: the person, the agent, or a tool's output. */
export type Speaker = 'person' | 'agent' | 'tool';

export function speakerOf(message: TranscriptMessage): Speaker {
  return message.fromPerson ? 'person' : message.kind === 'tool_result' ? 'tool' : 'agent';
}

/** A call of one of Cairn's proposing tools, or its answer (the tool's name first, as the readers write it). */
const CAIRN_TOOL_CALL = new RegExp(`^\\S*(?:${MEMORY_PROPOSE_TOOL}|${MEMORY_CONSOLIDATE_TOOL})\\b`);

/**
 * Whether a message holds Cairn's own words, not the session's: its MCP prompts (`harvest`, and
 * `consolidate`, which carries memory files' text) and the calls and answers of the tools that
 * propose (memory_propose, memory_consolidate). A harvest never reads these as what a person said,
 * nor takes a quote from them: memory would be harvested back into memory.
 */
export function isCairnsOwn(message: TranscriptMessage): boolean {
  if ((message.kind === 'tool_call' || message.kind === 'tool_result') && CAIRN_TOOL_CALL.test(message.text)) return true;
  return message.text.includes(MCP_HARVEST_PROMPT_MARKER) || message.text.includes(MCP_CONSOLIDATE_PROMPT_MARKER);
}
