/**
 * A model's answer to the harvest prompt, read into candidates (issue 19). Models and the tools
 * around them wrap the JSON the prompt asks for in many ways; what is read:
 * - the text itself, or prose around it, or a ``` / ```json fence around it;
 * - Claude Code's `claude -p --output-format json` envelope ({"type":"result","result":"<text>"}),
 *   the array `--verbose` prints, and `--output-format stream-json` lines (the last result line);
 * - Codex's `codex exec` (its last message, plain text) and `codex exec --json` event lines (the last
 *   agent_message item).
 * The answer object is {"candidates":[...]}; a bare array of candidates is taken too.
 *
 * Invariants: each candidate is validated on its own (candidate.ts's shape: category, scope, text
 * of at most 1000 characters, evidence, confidence 0..1); an invalid one is dropped and counted,
 * never fatal; at most MAX_ANSWER_CANDIDATES are considered, the rest counted as ignored. An
 * answer with no JSON answer object at all, or one the tool reports as failed, is an AnswerError.
 * The host's checks (checks.ts) still judge every candidate returned here.
 */
import { z } from 'zod';
import { SCOPES } from '../../../common/memory/constants';
import { CANDIDATE_CATEGORIES, type Candidate } from '../candidate';

/** The most candidates read from one answer (the prompt asks for at most 10). */
export const MAX_ANSWER_CANDIDATES = 50;
/** The longest memory text accepted. */
export const MAX_CANDIDATE_TEXT = 1000;

/** An answer that cannot be read at all: the message says what was wrong, for a person to act on. */
export class AnswerError extends Error {
  override readonly name = 'AnswerError';
}

export interface ParsedAnswer {
  readonly candidates: Candidate[];
  /** Items that were not a valid candidate (a missing field, an unknown category, ...). */
  readonly dropped: number;
  /** Items past MAX_ANSWER_CANDIDATES, not looked at. */
  readonly ignored: number;
}

const evidenceSchema = z.object({
  messageId: z.string().min(1).max(200),
  quote: z.string().min(1).max(2000),
});

/** One candidate as a model gives it; unknown fields (and any speaker or time it claims) are dropped. */
export const answerCandidateSchema = z.object({
  category: z.enum(CANDIDATE_CATEGORIES),
  text: z.string().trim().min(1).max(MAX_CANDIDATE_TEXT),
  scope: z.enum(SCOPES),
  evidence: z.array(evidenceSchema).min(1).max(20),
  confidence: z.number().min(0).max(1),
  rationale: z.string().trim().max(2000).default(''),
});

type Json = unknown;

function tryJson(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lines of the tools' event streams that end a run in failure, as a person would read them. */
function failureOf(event: Record<string, Json>): string | null {
  // Claude Code: {"type":"result","subtype":"error_max_turns","is_error":true,...}
  if (event.type === 'result' && (event.is_error === true || (typeof event.subtype === 'string' && event.subtype.startsWith('error')))) {
    const said = typeof event.result === 'string' && event.result.trim() !== '' ? event.result : String(event.subtype ?? 'error');
    return `Claude Code reported an error: ${said}`;
  }
  // Codex --json: {"type":"turn.failed","error":{"message":...}} or {"type":"error","message":...}
  if (event.type === 'turn.failed' && isObject(event.error) && typeof event.error.message === 'string') return `Codex reported an error: ${event.error.message}`;
  if (event.type === 'error' && typeof event.message === 'string') return `Codex reported an error: ${event.message}`;
  return null;
}

/** The model's own text inside a tool's envelope or event stream; the output itself otherwise. */
function unwrapped(output: string): string | { answer: Json } {
  const whole = tryJson(output.trim());
  if (whole.ok) {
    const v = whole.value;
    if (isObject(v) && v.type === 'result') {
      const failed = failureOf(v);
      if (failed) throw new AnswerError(failed);
      if (typeof v.result === 'string') return v.result;
    }
    if (Array.isArray(v) && v.length > 0 && v.every((e) => isObject(e) && typeof e.type === 'string')) {
      return fromEvents(v as Array<Record<string, Json>>) ?? output;
    }
    return { answer: v };
  }
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > 1) {
    const events = lines.map((l) => tryJson(l.trim()));
    if (events.every((e) => e.ok && isObject(e.value) && typeof e.value.type === 'string')) {
      const text = fromEvents(events.map((e) => (e as { value: Record<string, Json> }).value));
      if (text !== null) return text;
    }
  }
  return output;
}

/** The last answer in a list of events (Claude Code's result, Codex's agent_message), or a failure. */
function fromEvents(events: ReadonlyArray<Record<string, Json>>): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    const failed = failureOf(e);
    if (failed) throw new AnswerError(failed);
    if (e.type === 'result' && typeof e.result === 'string') return e.result;
    if (e.type === 'item.completed' && isObject(e.item) && e.item.type === 'agent_message' && typeof e.item.text === 'string') return e.item.text;
  }
  return null;
}

/** Whether a parsed value is an answer: {"candidates":[...]} or an array. */
function candidateList(value: Json): Json[] | null {
  if (isObject(value) && Array.isArray(value.candidates)) return value.candidates;
  if (Array.isArray(value)) return value;
  return null;
}

/** The end of the JSON object that starts at `start` (braces counted outside strings), or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** Objects that open with "candidates" looked at, from the last: enough for any echoed example. */
const MAX_OBJECT_TRIES = 20;

/** The answer's list of candidates, wherever the text holds it (see the header). */
function findList(text: string): Json[] | null {
  const whole = tryJson(text.trim());
  if (whole.ok) return candidateList(whole.value);
  // Fenced blocks, the last first (prose may show an example before the answer).
  const fences = [...text.matchAll(/```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/g)];
  for (let i = fences.length - 1; i >= 0; i--) {
    const parsed = tryJson(fences[i]![1]!.trim());
    const list = parsed.ok ? candidateList(parsed.value) : null;
    if (list) return list;
  }
  // An object opening with "candidates" in prose, the last first.
  const starts = [...text.matchAll(/\{\s*"candidates"\s*:/g)].map((m) => m.index);
  for (const start of starts.reverse().slice(0, MAX_OBJECT_TRIES)) {
    const end = objectEnd(text, start);
    if (end === -1) continue;
    const parsed = tryJson(text.slice(start, end));
    const list = parsed.ok ? candidateList(parsed.value) : null;
    if (list) return list;
  }
  return null;
}

/** The first characters of a text on one line, to show a person what came instead of an answer. */
export function excerpt(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A model's answer (or a tool's output around it) read into valid candidates; see the header. */
export function parseAnswer(output: string): ParsedAnswer {
  if (output.trim() === '') throw new AnswerError('The model gave an empty answer; a JSON object {"candidates":[...]} was expected.');
  const inner = unwrapped(output);
  const list = typeof inner === 'string' ? findList(inner) : candidateList(inner.answer);
  if (list === null) {
    const shown = typeof inner === 'string' ? inner : JSON.stringify(inner.answer);
    throw new AnswerError(`The model's answer holds no JSON object {"candidates":[...]}; it began: "${excerpt(shown)}"`);
  }
  const candidates: Candidate[] = [];
  let dropped = 0;
  for (const item of list.slice(0, MAX_ANSWER_CANDIDATES)) {
    const parsed = answerCandidateSchema.safeParse(item);
    if (parsed.success) candidates.push(parsed.data);
    else dropped++;
  }
  return { candidates, dropped, ignored: Math.max(0, list.length - MAX_ANSWER_CANDIDATES) };
}
