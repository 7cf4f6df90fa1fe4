/**
 * Chunks of a segment for the model backends: a long segment is split so that each
 * chunk's messages, as the prompt renders them (prompt.ts renderMessage, one line each), fit a
 * budget of characters.
 *
 * Invariants: chunks are split between messages, never inside one, greedily in transcript order,
 * so the same messages and budget give the same chunks; every message is in exactly one chunk; a
 * message that alone exceeds the budget is a chunk of its own, its text cut (never inside a
 * surrogate pair) and ended with a note saying how much was left out. A cut keeps the beginning of
 * the text, so any quote from what the model sees is still found in the full message.
 */
import type { TranscriptMessage } from '../transcript';
import { renderMessage } from './prompt';

/** Characters of rendered messages per chunk, by default (about 15k tokens of prose). */
export const DEFAULT_CHUNK_CHARS = 60_000;
/** The smallest budget accepted: room for one message's JSON around a useful part of its text. */
export const MIN_CHUNK_CHARS = 1_000;

/** What ends a cut message's text. */
export function cutNote(omitted: number): string {
  return `\n[cut by Cairn: ${omitted} more characters of this message are not shown]`;
}

/** The message with its text cut so that it renders in at most maxChars. */
function cutToFit(message: TranscriptMessage, maxChars: number): TranscriptMessage {
  const text = message.text;
  let keep = text.length;
  // Each try keeps fewer characters, in proportion to how far over the budget the last one was
  // (JSON escapes make a character take up to six); a handful of tries at most.
  for (;;) {
    keep = Math.max(0, Math.min(keep, text.length));
    if (keep > 0 && /[\uD800-\uDBFF]/.test(text[keep - 1]!)) keep--;
    const cut: TranscriptMessage = { ...message, text: text.slice(0, keep) + cutNote(text.length - keep) };
    const size = renderMessage(cut).length;
    if (size <= maxChars || keep === 0) return cut;
    keep = Math.floor((keep * maxChars) / size) - 1;
  }
}

/** The segment's messages in chunks of at most maxChars rendered characters (see the header). */
export function chunkSegment(messages: readonly TranscriptMessage[], maxChars: number = DEFAULT_CHUNK_CHARS): TranscriptMessage[][] {
  if (!Number.isInteger(maxChars) || maxChars < MIN_CHUNK_CHARS) {
    throw new RangeError(`A chunk budget must be a whole number of characters, at least ${MIN_CHUNK_CHARS} (got ${maxChars}).`);
  }
  const chunks: TranscriptMessage[][] = [];
  let current: TranscriptMessage[] = [];
  let size = 0;
  for (const message of messages) {
    // One line per message, and the line break between two.
    const rendered = renderMessage(message).length;
    if (rendered > maxChars) {
      if (current.length > 0) chunks.push(current);
      chunks.push([cutToFit(message, maxChars)]);
      current = [];
      size = 0;
      continue;
    }
    const added = current.length === 0 ? rendered : rendered + 1;
    if (size + added > maxChars) {
      chunks.push(current);
      current = [message];
      size = rendered;
    } else {
      current.push(message);
      size += added;
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
