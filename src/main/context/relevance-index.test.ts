// The relevance ranking (relevance-index.ts) ranks as MiniSearch does with the same fields, boosts,
// prefix rule and tokenizer (the oracle: the library it was written to match). MiniSearch is given
// Cairn's own reading of text (termsOf: identifier parts, stopwords of four languages, stems) as
// its tokenizer and the prompt's terms as they are (promptTerms) as its query, so the oracle holds
// the BM25+ formula, the fields, the prefixes and the recency bonus; what MiniSearch cannot express
// (the stemmer, identifier splitting, which files are worth injecting, the related terms and typos
// of query-expansion.ts) is tested directly below, and the oracle is asked only about queries that
// nothing expands (with expansions, the two rankers are held to each other).
// The incremental index of an MCP session's memory_search ranks exactly as a fresh one, through a
// long run of adds, edits, description changes, renames and deletes.
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../tests/support/random';
import { USAGE_HALF_LIFE_MS } from '../../common/memory/constants';
import { EMPTY_USAGE } from '../../common/memory/usage';
import type { ContextFile } from './context-file';
import { relatedTerms, typoMatches } from './query-expansion';
import { confidentMatches, promptTerms, rankByWords, rankRelevant, RelevanceIndex, scoreByWords, stem, termsOf, wordMatches, wordsOf } from './relevance-index';

const WORDS = ['build', 'release', 'electron', 'vite', 'vitest', 'deploy', 'database', 'migration', 'token', 'cache', 'review', 'lint', 'docker', 'staging', 'flaky'];

/** The ranking as MiniSearch gives it for a prompt's terms: BM25+ with its default weights, then the recency bonus. */
function oracleRank(files: readonly ContextFile[], terms: readonly string[], now: number): ContextFile[] {
  if (terms.length === 0 || files.length === 0) return [];
  const search = new MiniSearch<{ id: number; path: string; description: string; text: string }>({
    fields: ['path', 'description', 'text'],
    tokenize: termsOf,
    processTerm: (term) => term,
    searchOptions: { boost: { path: 2, description: 2 }, prefix: (term) => term.length > 3, fuzzy: false, combineWith: 'OR', tokenize: (query) => query.split(' '), processTerm: (term) => term },
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

/**
 * Whether a query reaches past its own letters over these files (query-expansion.ts): a term with a
 * related term some file holds, or a term no file's word equals or begins that has a typo's match.
 */
function expands(files: readonly ContextFile[], terms: readonly string[]): boolean {
  const vocabulary = new Set(files.flatMap((f) => wordsOf(f).text.flatMap((t) => [...t.matchAll(/ ([^ :]+):/g)].map((m) => m[1]!))));
  const words = [...vocabulary];
  return terms.some((t) => relatedTerms(t, stem).some((r) => words.some((w) => w.startsWith(r))) || (!words.some((w) => wordMatches(w, t)) && typoMatches(t, vocabulary).length > 0));
}

function file(path: string, head: string, description: string | null, mtimeMs: number): ContextFile {
  return { scope: 'project', segments: path.split('/').slice(3), path, size: head.length, mtimeMs, version: null, description, head, stats: EMPTY_USAGE };
}

const pathsOf = (files: Iterable<ContextFile>) => [...files].map((f) => f.path);

describe('rankRelevant', () => {
  it('ranks as MiniSearch does: fields and boosts, prefixes, repeated words, stopwords, recency', () => {
    const random = seededRandom(3);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
    const capitalized = () => pick().replace(/^./, (c) => c.toUpperCase());
    const word = () => {
      const r = random();
      // Plurals, -ing and -ed forms, camelCase and snake_case identifiers, stopwords, plain words.
      return r < 0.08 ? `${pick()}s` : r < 0.12 ? `${pick()}ing` : r < 0.16 ? `${pick()}ed` : r < 0.2 ? `${pick()}${capitalized()}` : r < 0.24 ? `${pick()}_${pick()}` : r < 0.3 ? 'the' : pick();
    };
    const text = (n: number) => Array.from({ length: n }, word).join(random() < 0.5 ? ' ' : '\n');
    const now = 1_700_000_000_000;
    let queries = 0;
    for (let corpus = 0; corpus < 40; corpus++) {
      const files = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) =>
        file(`/memories/project/${pick()}/${pick()}_${i}.md`, text(Math.floor(random() * 80)), random() < 0.4 ? text(1 + Math.floor(random() * 6)) : null, now - Math.floor(random() * 3 * USAGE_HALF_LIFE_MS)),
      );
      for (let q = 0; q < 10; q++) {
        const terms = promptTerms([word(), pick(), pick().slice(0, 4 + Math.floor(random() * 3)), 'the', word()].slice(0, 1 + Math.floor(random() * 5)).join(' '));
        const expected = pathsOf(expands(files, terms) ? rankRelevant(files, terms, now) : oracleRank(files, terms, now));
        expect(pathsOf(rankRelevant(files, terms, now))).toEqual(expected);
        // The ranking from words kept between processes (the facts cache) is the same ranking.
        expect(pathsOf(rankByWords(files.map((f) => ({ file: f, words: wordsOf(f) })), terms, now))).toEqual(expected);
        if (expected.length > 0 && !expands(files, terms)) queries++;
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
    expect(words.text).toEqual([' memor:1 project:1 db:1 tool:1 run:1 book:1 md:1', ' databas:1 migration:1', ' migrat:2 databas:1 migration:1']);
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
      for (const q of [promptTerms(pick()), promptTerms(`${pick()} ${pick()}`), promptTerms(pick().slice(0, 4))]) {
        const expected = pathsOf(expands(list, q) ? rankRelevant(list, q, now) : oracleRank(list, q, now));
        expect(pathsOf(index.rank(list, q, now))).toEqual(expected);
        expect(pathsOf(rankRelevant(list, q, now))).toEqual(expected);
      }
    }
    expect(index.rank([], ['build'], now)).toEqual([]);
  });
});

describe('termsOf', () => {
  it('splits identifiers into their words and keeps the whole, in files and prompts alike', () => {
    expect(termsOf('fetchUserProfile')).toEqual(['fetchuserprofil', 'fetch', 'user', 'profil']);
    expect(termsOf('user_id HTTPServer')).toEqual(['user_id', 'user', 'id', 'httpserver', 'http', 'server']);
    // Paths, kebab and dotted names come apart at their punctuation.
    expect(termsOf('src/api/create-payment.ts')).toEqual(['src', 'api', 'creat', 'payment', 'ts']);
    const now = 1_700_000_000_000;
    const files = [
      file('/memories/project/profile.md', 'Call fetchUserProfile with the session token.', null, now),
      file('/memories/project/cart.md', 'The cart page fetches the user cart.', null, now),
      file('/memories/project/names.md', 'We fetch the user profile once per page.', null, now),
    ];
    expect(pathsOf(rankRelevant(files, promptTerms('where do we fetch the user profile'), now)).slice(0, 2).sort()).toEqual(['/memories/project/names.md', '/memories/project/profile.md']);
    expect(pathsOf(rankRelevant(files, promptTerms('fetchUserProfile throws'), now))[0]).toBe('/memories/project/profile.md');
    expect(pathsOf(rankRelevant(files, promptTerms('fetchUserProfile throws'), now))).toContain('/memories/project/names.md');
  });

  it('stems plurals, -ing and -ed to one term, always a beginning of the word', () => {
    for (const group of [['migration', 'migrations'], ['migrate', 'migrated', 'migrating', 'migrates'], ['policy', 'policies'], ['run', 'running', 'runs'], ['cache', 'caches', 'cached', 'caching'], ['stop', 'stopped']]) {
      expect(new Set(group.map(stem)).size, group.join(' ')).toBe(1);
    }
    for (const kept of ['pass', 'status', 'analysis', 'string', 'need', 'deploy', 'key', 'go']) expect(stem(kept).length, kept).toBeGreaterThanOrEqual(kept.length - 1);
    for (const w of ['migrations', 'policies', 'running', 'caches', 'queries', 'installed', 'deploying', 'users']) {
      expect(w.startsWith(stem(w)), w).toBe(true);
      // A word as a person reads it (an excerpt's, a highlight's) matches its own stem, however short.
      expect(wordMatches(w, stem(w)), w).toBe(true);
    }
    const now = 1_700_000_000_000;
    const files = [file('/memories/project/db.md', 'Run the migrations before you deploy.', null, now), file('/memories/project/other.md', 'Unrelated notes on linting.', null, now)];
    expect(pathsOf(rankRelevant(files, promptTerms('the migration failed'), now))).toEqual(['/memories/project/db.md']);
    expect(pathsOf(rankRelevant(files, promptTerms('migrating the orders'), now))).toEqual(['/memories/project/db.md']);
  });

  it('drops French, German and Spanish function words, not the words code shares with them', () => {
    expect(promptTerms('pourquoi le build de webpack échoue ?')).toEqual(['pourquoi', 'build', 'webpack', 'échou']);
    expect(promptTerms('wie starte ich den celery worker')).toEqual(['start', 'celer', 'worker']);
    expect(promptTerms('¿cómo se nombran los feature flags?')).toEqual(['cómo', 'nombran', 'featur', 'flag']);
    expect(promptTerms('git tag in /usr/bin, see man')).toEqual(['git', 'tag', 'usr', 'bin', 'see', 'man']);
  });
});

describe('confidentMatches', () => {
  const now = 1_700_000_000_000;
  const scored = (files: readonly ContextFile[], prompt: string) => scoreByWords(files.map((f) => ({ file: f, words: wordsOf(f) })), promptTerms(prompt), now);
  const notes = [
    file('/memories/project/k8s/deploy.md', 'How we deploy to the Kubernetes cluster: kubectl apply, then watch the kubernetes rollout.', 'Deploying to Kubernetes', now),
    file('/memories/project/misc.md', 'Lint with eslint. Once we tried kubernetes for the docs site. Tests run under vitest.', null, now),
    ...Array.from({ length: 8 }, (_, i) => file(`/memories/project/notes/n${i}.md`, `Write the changelog entry ${i} before the release; write tests for what changed.`, null, now)),
  ];

  it('keeps the files that score near the best, and drops a passing mention', () => {
    expect(pathsOf(confidentMatches(scored(notes, 'how do I deploy to kubernetes'), promptTerms('how do I deploy to kubernetes').length, 5))).toEqual(['/memories/project/k8s/deploy.md']);
    const release = pathsOf(confidentMatches(scored(notes, 'changelog before the release'), 2, 5));
    expect(release).toHaveLength(5);
    expect(confidentMatches(scored(notes, 'changelog before the release'), 2, 3)).toHaveLength(3);
  });

  it('gives nothing for a prompt whose best match is one everyday word shared by files alike', () => {
    // `write` is in eight notes alike; nothing here is about haikus or autumn.
    expect([...scored(notes, 'write a haiku about autumn')].length).toBeGreaterThan(0);
    expect(confidentMatches(scored(notes, 'write a haiku about autumn'), promptTerms('write a haiku about autumn').length, 5)).toEqual([]);
    // One word of one word is a match however faint: the prompt asked for nothing else.
    expect(pathsOf(confidentMatches(scored(notes, 'eslint'), 1, 5))).toEqual(['/memories/project/misc.md']);
    // One rare word of several that stands out from the rest is a match too.
    expect(pathsOf(confidentMatches(scored(notes, 'the eslint haiku'), 2, 5))).toEqual(['/memories/project/misc.md']);
    expect(confidentMatches([], 3, 5)).toEqual([]);
    expect(confidentMatches(scored(notes, 'kubernetes'), 1, 0)).toEqual([]);
  });
});

describe('typos and related terms', () => {
  const now = 1_700_000_000_000;
  const notes = [
    file('/memories/project/infra/plan.md', 'Run terraform plan in the infra folder before any apply.', 'Terraform plans', now),
    file('/memories/project/ledger/workers.md', 'The celery worker reads the tasks queue; start it with make worker.', null, now),
    file('/memories/project/reset.md', 'Reset the local db with make reset, then reseed it.', null, now),
    file('/memories/project/schema.md', 'The database schema lives in db/schema.sql; every change is a migration.', null, now),
    file('/memories/project/lint.md', 'Lint with eslint before every commit.', null, now),
    file('/memories/project/tests.md', 'Unit tests sit beside the code; vitest list shows them all.', 'Where tests live', now),
  ];
  const words = notes.map((f) => ({ file: f, words: wordsOf(f) }));
  /** Both rankers' paths for a prompt (they must agree), and the scored ranking. */
  const ranked = (prompt: string) => {
    const terms = promptTerms(prompt);
    const paths = pathsOf(rankByWords(words, terms, now));
    expect(pathsOf(rankRelevant(notes, terms, now))).toEqual(paths);
    expect(pathsOf(new RelevanceIndex().rank(notes, terms, now))).toEqual(paths);
    return paths;
  };
  const scoreOf = (prompt: string, path: string) => [...scoreByWords(words, promptTerms(prompt), now)].find((s) => s.file.path === path)!.score;

  it('finds what a misspelt word means, below the word spelt right', () => {
    expect(ranked('how do I run the terrafrom plan')[0]).toBe('/memories/project/infra/plan.md');
    expect(ranked('the celry worker is idle')[0]).toBe('/memories/project/ledger/workers.md');
    expect(ranked('wroker')).toEqual(['/memories/project/ledger/workers.md']);
    expect(scoreOf('terrafrom', '/memories/project/infra/plan.md')).toBeLessThan(scoreOf('terraform', '/memories/project/infra/plan.md'));
    // The prompt hook injects it.
    const prompt = 'the celry worker is idle';
    expect(pathsOf(confidentMatches(scoreByWords(words, promptTerms(prompt), now), promptTerms(prompt).length, 5))).toEqual(['/memories/project/ledger/workers.md']);
  });

  it('takes a word memory holds as written, and reads no typo into a short word', () => {
    // `lint` is a word memory holds: `list` (one edit away, in tests.md) is not what was meant.
    expect(ranked('lint')).toEqual(['/memories/project/lint.md']);
    expect(ranked('lsit')).toEqual(['/memories/project/tests.md']);
    // `sql` (three letters) is no typo of anything; `sqk` matches nothing.
    expect(ranked('sqk')).toEqual([]);
    // Nothing near: nothing found.
    expect(ranked('haiku')).toEqual([]);
  });

  it('finds a file by a related term, below the files that hold the prompt\'s own word', () => {
    // `database` brings the file that says `db` only, after the one that says `database`.
    expect(ranked('database')).toEqual(['/memories/project/schema.md', '/memories/project/reset.md']);
    expect(scoreOf('database', '/memories/project/reset.md')).toBeLessThan(scoreOf('db', '/memories/project/reset.md'));
    // `spec` finds the tests note, which never says it.
    expect(ranked('where do specs go')).toEqual(['/memories/project/tests.md']);
    // A related term counts as the prompt's word it stands for: schema.md, holding `database` and
    // `db`, matched one word of the prompt `database`, not two.
    expect([...scoreByWords(words, promptTerms('database'), now)].find((s) => s.file.path === '/memories/project/schema.md')!.matched).toBe(1);
  });
});
