// The relevance ranking (relevance-index.ts) ranks as MiniSearch does with the same fields, boosts,
// prefix rule and tokenizer (the oracle: the library it was written to match), and the incremental
// index of an MCP session's memory_search ranks exactly as a fresh one, through a long run of adds,
// edits, description changes, renames and deletes.
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../tests/support/random';
import { USAGE_HALF_LIFE_MS } from '../../common/memory/constants';
import { EMPTY_USAGE } from '../../common/memory/usage';
import type { ContextFile } from './context-file';
import { promptTerms, rankByWords, rankRelevant, RelevanceIndex, tokenize, wordsOf } from './relevance-index';

const WORDS = ['build', 'release', 'electron', 'vite', 'vitest', 'deploy', 'database', 'migration', 'token', 'cache', 'review', 'lint', 'docker', 'staging', 'flaky'];

/** The ranking as MiniSearch gives it: BM25+ with its default weights, then the recency bonus. */
function oracleRank(files: readonly ContextFile[], terms: readonly string[], now: number): ContextFile[] {
  if (terms.length === 0 || files.length === 0) return [];
  const search = new MiniSearch<{ id: number; path: string; description: string; text: string }>({
    fields: ['path', 'description', 'text'],
    tokenize,
    processTerm: (term) => term.toLowerCase(),
    searchOptions: { boost: { path: 2, description: 2 }, prefix: (term) => term.length > 3, fuzzy: false, combineWith: 'OR' },
  });
  search.addAll(files.map((f, id) => ({ id, path: f.path.replace(/[/_.-]+/g, ' '), description: f.description ?? '', text: f.head })));
  return search
    .search(terms.join(' '))
    .map((hit) => {
      const f = files[hit.id as number]!;
      const written = f.stats.lastWriteAt ? Date.parse(f.stats.lastWriteAt) : f.mtimeMs;
      return { f, score: hit.score * (1 + 0.2 * 0.5 ** (Math.max(0, now - written) / USAGE_HALF_LIFE_MS)) };
    })
    .sort((a, b) => b.score - a.score || (a.f.path < b.f.path ? -1 : 1))
    .map(({ f }) => f);
}

function file(path: string, head: string, description: string | null, mtimeMs: number): ContextFile {
  return { scope: 'project', segments: path.split('/').slice(3), path, size: head.length, mtimeMs, version: null, description, head, stats: EMPTY_USAGE };
}

const pathsOf = (files: Iterable<ContextFile>) => [...files].map((f) => f.path);

describe('rankRelevant', () => {
  it('ranks as MiniSearch does: fields and boosts, prefixes, repeated words, stopwords, recency', () => {
    const random = seededRandom(3);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
    const text = (n: number) => Array.from({ length: n }, () => (random() < 0.1 ? `${pick()}s` : random() < 0.1 ? 'the' : pick())).join(random() < 0.5 ? ' ' : '\n');
    const now = 1_700_000_000_000;
    let queries = 0;
    for (let corpus = 0; corpus < 40; corpus++) {
      const files = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) =>
        file(`/memories/project/${pick()}/${pick()}_${i}.md`, text(Math.floor(random() * 80)), random() < 0.4 ? text(1 + Math.floor(random() * 6)) : null, now - Math.floor(random() * 3 * USAGE_HALF_LIFE_MS)),
      );
      for (let q = 0; q < 10; q++) {
        const terms = [pick(), pick(), pick().slice(0, 4 + Math.floor(random() * 3)), 'the', pick()].slice(0, 1 + Math.floor(random() * 5));
        const expected = pathsOf(oracleRank(files, terms, now));
        expect(pathsOf(rankRelevant(files, terms, now))).toEqual(expected);
        // The ranking from words kept between processes (the facts cache) is the same ranking.
        expect(pathsOf(rankByWords(files.map((f) => ({ file: f, words: wordsOf(f) })), terms, now))).toEqual(expected);
        if (expected.length > 0) queries++;
      }
    }
    expect(queries).toBeGreaterThan(300);
  });

  it('reads a prompt as MiniSearch would: words, not stopwords or punctuation', () => {
    const now = 1_700_000_000_000;
    const files = [
      file('/memories/project/release.md', 'How we cut a release: tag, then build the electron app.', 'Release steps', now),
      file('/memories/project/db/migrations.md', 'Run database migrations before the deploy.', null, now - 86_400_000),
      file('/memories/project/lint.md', 'Lint with eslint; vitest for tests.', null, now),
    ];
    for (const prompt of ['How do I release the app?', 'database migration!!', 'what about the tests', 'vite', 'of the and']) {
      expect(pathsOf(rankRelevant(files, promptTerms(prompt), now))).toEqual(pathsOf(oracleRank(files, promptTerms(prompt), now)));
    }
    expect(pathsOf(rankRelevant(files, promptTerms('migrations before deploy'), now))[0]).toBe('/memories/project/db/migrations.md');
    expect(rankRelevant(files, promptTerms('of the and'), now)).toEqual([]);
  });
});

describe('wordsOf', () => {
  it('keeps each field\'s distinct words with their counts, and nothing a query word could match by accident', () => {
    const words = wordsOf({ path: '/memories/project/db_tools/run-book.md', description: 'Database: migrations', head: 'migrate migrate database; the migrations' });
    expect(words.text).toEqual([' memories:1 project:1 db:1 tools:1 run:1 book:1 md:1', ' database:1 migrations:1', ' migrate:2 database:1 migrations:1']);
    expect(words.lengths).toEqual([7, 2, 3]);
    const files = [file('/memories/project/a.md', 'databases and data', null, 0), file('/memories/project/b.md', 'metadata', null, 0)];
    // `data` begins `databases` (a prefix match) but lies inside `metadata` (no match).
    expect(pathsOf(rankByWords(files.map((f) => ({ file: f, words: wordsOf(f) })), ['data'], 0))).toEqual(['/memories/project/a.md']);
    expect(rankByWords([], ['data'], 0)).toEqual([]);
  });

  it('ranks a prompt of many distinct words (past one bit each) as rankRelevant does', () => {
    const random = seededRandom(11);
    const vocabulary = Array.from({ length: 60 }, (_, i) => `word${i}x`);
    const pick = () => vocabulary[Math.floor(random() * vocabulary.length)]!;
    const files = Array.from({ length: 40 }, (_, i) => file(`/memories/project/n${i}.md`, Array.from({ length: 30 }, pick).join(' '), null, 0));
    const terms = promptTerms(vocabulary.slice(0, 45).join(' '));
    expect(terms).toHaveLength(45);
    const expected = pathsOf(rankRelevant(files, terms, 0));
    expect(expected.length).toBeGreaterThan(30);
    expect(pathsOf(rankByWords(files.map((f) => ({ file: f, words: wordsOf(f) })), terms, 0))).toEqual(expected);
  });
});

describe('RelevanceIndex', () => {
  it('ranks as rankRelevant over the same files after every change', () => {
    const random = seededRandom(7);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    const files = new Map<string, ContextFile>();
    const index = new RelevanceIndex();
    const now = 1_700_000_000_000;
    for (let step = 0; step < 300; step++) {
      const paths = [...files.keys()];
      const r = random();
      const victim = paths[Math.floor(random() * paths.length)];
      if (r < 0.4 || !victim) {
        const p = `/memories/project/${pick()}/${pick()}-${step}.md`;
        files.set(p, file(p, text(5 + Math.floor(random() * 60)), random() < 0.5 ? text(3) : null, now - step * 1000));
      } else if (r < 0.6) {
        files.set(victim, { ...files.get(victim)!, head: text(10), mtimeMs: now });
      } else if (r < 0.7) {
        files.set(victim, { ...files.get(victim)!, description: text(2) });
      } else if (r < 0.85) {
        const moved = `/memories/project/moved/${step}.md`;
        files.set(moved, { ...files.get(victim)!, path: moved });
        files.delete(victim);
      } else files.delete(victim);
      const list = [...files.values()];
      for (const q of [[pick()], [pick(), pick()], [pick().slice(0, 4)]]) {
        const expected = pathsOf(oracleRank(list, q, now));
        expect(pathsOf(index.rank(list, q, now))).toEqual(expected);
        expect(pathsOf(rankRelevant(list, q, now))).toEqual(expected);
      }
    }
    expect(index.rank([], ['build'], now)).toEqual([]);
  });
});
