// What a prompt's term may match beyond its own letters (query-expansion.ts): the edit distance a
// typo is judged by, which words of memory a term may be a typo of, and the related terms of the
// built-in table, read as the ranking reads words. How they weigh in a ranking is tested with the
// ranking (relevance-index.test.ts).
import { describe, expect, it } from 'vitest';
import { relatedTerms, typoDistance, typoMatches, withinEdits } from './query-expansion';
import { stem, termsOf } from './relevance-index';

describe('withinEdits', () => {
  it('counts an insertion, a deletion, a substitution and a swap of neighbours as one edit each', () => {
    expect(withinEdits('celry', 'celery', 1)).toBe(true);
    expect(withinEdits('reddis', 'redis', 1)).toBe(true);
    expect(withinEdits('pnmp', 'pnpm', 1)).toBe(true);
    expect(withinEdits('detox', 'detix', 1)).toBe(true);
    expect(withinEdits('terrafrom', 'terraform', 1)).toBe(true);
    expect(withinEdits('dokcer', 'docker', 1)).toBe(true);
    expect(withinEdits('same', 'same', 0)).toBe(true);
  });

  it('refuses words further apart than allowed', () => {
    expect(withinEdits('pagniation', 'pagination', 1)).toBe(true);
    expect(withinEdits('regenrate', 'generate', 1)).toBe(false);
    expect(withinEdits('kubernetes', 'kubectl', 2)).toBe(false);
    expect(withinEdits('webpack', 'web', 2)).toBe(false);
    expect(withinEdits('abcd', 'dcba', 2)).toBe(false);
    expect(withinEdits('goreleasr', 'goreleaser', 2)).toBe(true);
  });
});

describe('typoMatches', () => {
  it('allows one edit for terms of four to seven letters, two from eight, none below four', () => {
    expect([typoDistance('ci'), typoDistance('ssh'), typoDistance('celr'), typoDistance('storybo'), typoDistance('terrafrom')]).toEqual([0, 0, 1, 1, 2]);
    const vocabulary = ['celer', 'worker', 'terraform', 'terra', 'ssh', 'sha', 'storybook'];
    expect(typoMatches(stem('celry'), vocabulary)).toEqual(['celer']);
    expect(typoMatches('terrafrom', vocabulary)).toEqual(['terraform']);
    // Two edits are too many for a short word, and a short term is never read as a typo.
    expect(typoMatches('wroker', vocabulary)).toEqual(['worker']);
    expect(typoMatches('wrokr', vocabulary)).toEqual([]);
    expect(typoMatches('shh', vocabulary)).toEqual([]);
  });

  it('keeps the first letter, and never takes a word for a typo of a longer word it begins', () => {
    // `good` is not a typo of `mood`, nor `draw` of `raw`: a typo rarely hits the first letter.
    expect(typoMatches('good', ['mood', 'goad'])).toEqual(['goad']);
    expect(typoMatches('draw', ['raw'])).toEqual([]);
    // `personal` is `person` with an ending, not a misspelling of it.
    expect(typoMatches('personal', ['person', 'personnel'])).toEqual(['personnel']);
  });

  it('lists its matches sorted, whatever order the vocabulary comes in, and never the term itself', () => {
    expect(typoMatches('relas', ['relay', 'releas', 'rebas', 'relas'])).toEqual(['rebas', 'relay', 'releas']);
    expect(typoMatches('relas', new Set(['releas', 'relay', 'rebas']))).toEqual(['rebas', 'relay', 'releas']);
  });
});

describe('relatedTerms', () => {
  it('relates shorthand and synonyms both ways, as terms a file can hold', () => {
    const [db] = termsOf('db');
    const [database] = termsOf('database');
    expect(relatedTerms(db!, stem)).toContain(database);
    expect(relatedTerms(database!, stem)).toContain(db);
    expect(relatedTerms(termsOf('spec')[0]!, stem)).toContain(termsOf('tests')[0]);
    expect(relatedTerms(termsOf('remove')[0]!, stem)).toEqual(expect.arrayContaining(termsOf('delete erase')));
    expect(relatedTerms(termsOf('kubernetes')[0]!, stem)).toEqual(termsOf('k8s'));
  });

  it('gives nothing for a word outside the table, and never the term itself', () => {
    expect(relatedTerms('webpack', stem)).toEqual([]);
    for (const word of ['test', 'config', 'db', 'toggle', 'ram']) {
      const [term] = termsOf(word);
      expect(relatedTerms(term!, stem)).not.toContain(term);
      expect(relatedTerms(term!, stem).length).toBeGreaterThan(0);
    }
  });
});
