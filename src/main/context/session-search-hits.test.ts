// What the person's content search shows of a hit (memory.search): the line of the file that holds
// the words memory_search matched, and where they are in it. The ranking itself is memory_search's
// (searchFiles, held to it by session-search.test.ts and the explorer's component test).
import { describe, expect, it } from 'vitest';
import type { ContextFile } from './context-file';
import { promptTerms } from './relevance-index';
import { hitLine, matchSpans } from './session-search';

function file(head: string, description: string | null = null): ContextFile {
  const made: ContextFile = {
    scope: 'project',
    segments: ['notes.md'],
    path: '/memories/project/notes.md',
    size: head.length,
    mtimeMs: 0,
    version: null,
    description,
    head,
    stats: { pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null },
  };
  return made;
}

describe('matchSpans', () => {
  it('marks whole words that match a term, a prefix of four letters or more included, case aside', () => {
    const line = 'Webpack builds; webpacking is slow, but web is fine';
    const spans = matchSpans(line, promptTerms('webpack'));
    expect(spans.map(([a, b]) => line.slice(a, b))).toEqual(['Webpack', 'webpacking']);
    // A three-letter term matches only the same word.
    expect(matchSpans(line, promptTerms('web')).map(([a, b]) => line.slice(a, b))).toEqual(['web']);
    expect(matchSpans(line, [])).toEqual([]);
  });
});

describe('hitLine', () => {
  it('shows the body line that matches, before a description that does too', () => {
    const f = file('---\ndescription: webpack notes\n---\nfirst line\nthe webpack step is flaky\n', 'webpack notes');
    const { line, matches } = hitLine(f, promptTerms('webpack'));
    expect(line).toBe('the webpack step is flaky');
    expect(matches).toEqual([[4, 11]]);
  });

  it('cuts a long line around its first match, the spans moved with it', () => {
    const long = `${'padding words here '.repeat(20)}the webpack step ${'and more words '.repeat(20)}`;
    const { line, matches } = hitLine(file(`${long}\n`), promptTerms('webpack'));
    expect(line.length).toBeLessThanOrEqual(202);
    expect(line.startsWith('…')).toBe(true);
    expect(line.endsWith('…')).toBe(true);
    expect(matches.map(([a, b]) => line.slice(a, b))).toEqual(['webpack']);
  });
});
