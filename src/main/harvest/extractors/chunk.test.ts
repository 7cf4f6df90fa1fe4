// Chunks of a long segment: split between messages, never inside one, each within the
// budget as the prompt renders it; the same input gives the same chunks; a single message over the
// budget is a chunk of its own, cut with a note.
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../transcript';
import { chunkSegment, cutNote, DEFAULT_CHUNK_CHARS, MIN_CHUNK_CHARS } from './chunk';
import { message } from './fixtures/support';
import { renderMessage } from './prompt';

/** Characters a chunk takes in the prompt: its messages' lines and the breaks between them. */
const size = (chunk: readonly TranscriptMessage[]): number => chunk.map(renderMessage).join('\n').length;

function messages(count: number, length: (i: number) => number): TranscriptMessage[] {
  return Array.from({ length: count }, (_, i) => message(`m${i}`, `${i}:`.padEnd(length(i), 'abc "def" ')));
}

describe('chunkSegment', () => {
  it('keeps a segment within the budget as one chunk', () => {
    const segment = messages(5, () => 100);
    expect(chunkSegment(segment)).toEqual([segment]);
    expect(DEFAULT_CHUNK_CHARS).toBe(60_000);
  });

  it('splits between messages, each chunk within the budget, every message once and in order', () => {
    const segment = messages(200, (i) => 50 + ((i * 37) % 900));
    const chunks = chunkSegment(segment, 5_000);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.flat()).toEqual(segment);
    for (const chunk of chunks) expect(size(chunk)).toBeLessThanOrEqual(5_000);
    // Greedy: the next message would not have fit in the chunk before it.
    for (let i = 1; i < chunks.length; i++) expect(size([...chunks[i - 1]!, chunks[i]![0]!])).toBeGreaterThan(5_000);
  });

  it('gives the same chunks for the same input', () => {
    const segment = messages(100, (i) => 30 + ((i * 53) % 700));
    expect(chunkSegment(segment, 3_000)).toEqual(chunkSegment(segment.map((m) => ({ ...m })), 3_000));
  });

  it('makes a message over the budget a chunk of its own, its beginning kept and a note saying how much was cut', () => {
    const huge = message('huge', 'Remember that the build needs Node 20. '.repeat(500));
    const segment = [message('a', 'before'), huge, message('b', 'after')];
    const chunks = chunkSegment(segment, 2_000);
    expect(chunks.map((c) => c.map((m) => m.id))).toEqual([['a'], ['huge'], ['b']]);
    const cut = chunks[1]![0]!;
    expect(size([cut])).toBeLessThanOrEqual(2_000);
    expect(size([cut])).toBeGreaterThan(1_800);
    const kept = cut.text.slice(0, cut.text.indexOf('\n[cut by Cairn'));
    expect(huge.text.startsWith(kept)).toBe(true);
    expect(cut.text.endsWith(cutNote(huge.text.length - kept.length))).toBe(true);
    expect(cut).toMatchObject({ id: 'huge', fromPerson: true });
  });

  it('never cuts inside a surrogate pair, even where JSON escapes make text longer', () => {
    const emoji = message('e', '😀'.repeat(3_000));
    const quotes = message('q', '"\\'.repeat(3_000));
    for (const m of [emoji, quotes]) {
      const [[cut]] = chunkSegment([m], MIN_CHUNK_CHARS) as [[TranscriptMessage]];
      expect(size([cut])).toBeLessThanOrEqual(MIN_CHUNK_CHARS);
      expect(cut.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });

  it('refuses a budget too small for a message', () => {
    expect(() => chunkSegment(messages(1, () => 10), 100)).toThrow(/at least 1000/);
  });

  it('gives no chunk for no message', () => {
    expect(chunkSegment([])).toEqual([]);
  });
});
