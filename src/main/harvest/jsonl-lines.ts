/**
 * The one reader of the JSON Lines that agents record sessions in (Claude Code transcripts, Codex
 * rollouts, Copilot CLI events, Gemini CLI chats): each line's JSON object, in file order, and
 * why a line gave none, for the reader's `skipped` counts; and what those readers share in reading
 * a value (a string or null) and in keeping a long tool text short (its head and tail).
 *
 * Invariants:
 * - Lines end at '\n'; a '\r' before it is dropped, and a byte order mark before the first line
 *   (a file written on Windows); blank lines are no lines and counted nowhere.
 * - A line that is no JSON, or JSON but not an object, is 'malformed'. The last line without a
 *   newline may still be being written by the agent: when it is no JSON it is 'truncated', not
 *   'malformed', and is read whole on a later harvest.
 * - Linear: one pass over the text and one JSON.parse a line.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Keeps the head and the tail of a long text (errors and summaries sit at the end of a tool's output). */
export function clipMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.7);
  return `${text.slice(0, head)}\n… [${text.length - limit} characters left out] …\n${text.slice(text.length - (limit - head))}`;
}

/** Why a line gave no object. */
export type JsonlSkip = 'malformed' | 'truncated';

/** Each line's JSON object in order; `skip` hears of every non-blank line that is none. */
export function* jsonlObjects(source: string, skip: (why: JsonlSkip) => void): Generator<JsonObject> {
  let start = source.startsWith('\ufeff') ? 1 : 0;
  while (start < source.length) {
    const newline = source.indexOf('\n', start);
    const end = newline < 0 ? source.length : newline;
    let raw = source.slice(start, end);
    start = end + 1;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      skip(newline < 0 ? 'truncated' : 'malformed');
      continue;
    }
    if (isObject(value)) yield value;
    else skip('malformed');
  }
}
