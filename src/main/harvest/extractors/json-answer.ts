/**
 * The JSON object a model's reply holds, wherever it is (the harvest's and the consolidation's
 * share it): the one reader of model replies for every model backend. Models and the tools around
 * them wrap the JSON a prompt asks for in many ways; what is read:
 * - the text itself, or prose around it, or a ``` / ```json fence around it;
 * - Claude Code's `claude -p --output-format json` envelope ({"type":"result","result":"<text>"}),
 *   the array `--verbose` prints, and `--output-format stream-json` lines (the last result line);
 * - Codex's `codex exec` (its last message, plain text) and `codex exec --json` event lines (the last
 *   agent_message item).
 * The answer is an object {"<key>":[...]} (`candidates` for the harvest, `changes` for the consolidation);
 * a bare array is taken too.
 *
 * Invariants: only the list is found here, never judged (each caller validates its items one by
 * one); an answer with no such object at all, or one the tool reports as failed, is an
 * AnswerError whose message a person can act on.
 */
import { CairnError } from '../../../common/errors';

/** An answer that cannot be read at all: the message says what was wrong, for a person to act on. */
export class AnswerError extends CairnError {
  override readonly name = 'AnswerError';
}

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

/** Whether a parsed value is an answer: {"<key>":[...]} or an array. */
function listOf(value: Json, key: string): Json[] | null {
  if (isObject(value) && Array.isArray(value[key])) return value[key];
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

/** Objects that open with the key looked at, from the last: enough for any echoed example. */
const MAX_OBJECT_TRIES = 20;

/** The answer's list, wherever the text holds it (see the header). */
function findList(text: string, key: string): Json[] | null {
  const whole = tryJson(text.trim());
  if (whole.ok) return listOf(whole.value, key);
  // Fenced blocks, the last first (prose may show an example before the answer).
  const fences = [...text.matchAll(/```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/g)];
  for (let i = fences.length - 1; i >= 0; i--) {
    const parsed = tryJson(fences[i]![1]!.trim());
    const list = parsed.ok ? listOf(parsed.value, key) : null;
    if (list) return list;
  }
  // An object opening with the key in prose, the last first.
  const opening = new RegExp(`\\{\\s*"${key}"\\s*:`, 'g');
  const starts = [...text.matchAll(opening)].map((m) => m.index);
  for (const start of starts.reverse().slice(0, MAX_OBJECT_TRIES)) {
    const end = objectEnd(text, start);
    if (end === -1) continue;
    const parsed = tryJson(text.slice(start, end));
    const list = parsed.ok ? listOf(parsed.value, key) : null;
    if (list) return list;
  }
  return null;
}

/** The first characters of a text on one line, to show a person what came instead of an answer. */
export function excerpt(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The list under `key` in a model's reply (or a tool's output around it), items unjudged; an
 * AnswerError when there is none. `key` is a plain JSON name ([A-Za-z_]+).
 */
export function answerList(output: string, key: string): unknown[] {
  if (!/^[A-Za-z_]+$/.test(key)) throw new RangeError(`An answer's key is a plain name, got ${JSON.stringify(key)}.`);
  const shape = `{"${key}":[...]}`;
  if (output.trim() === '') throw new AnswerError(`The model gave an empty answer; a JSON object ${shape} was expected.`);
  const inner = unwrapped(output);
  const list = typeof inner === 'string' ? findList(inner, key) : listOf(inner.answer, key);
  if (list === null) {
    const shown = typeof inner === 'string' ? inner : JSON.stringify(inner.answer);
    throw new AnswerError(`The model's answer holds no JSON object ${shape}; it began: "${excerpt(shown)}"`);
  }
  return list;
}
