/**
 * Cairn's relevance evaluation (`make eval`): does the memory an agent receives without a tool call
 * match what the prompt needs? Each set under eval/sets/<name>/ is memory files (memory/, placed as
 * the global scope of a fresh home) and prompts (prompts.jsonl: {"prompt", "relevant": [memory
 * paths], "kind"}); every prompt runs through the same code as the UserPromptSubmit hook's relevant
 * memories (ContextBuilder.relevant over a snapshot, with the default injection settings) and as
 * memory_search (RelevanceIndex), beside MiniSearch with the same fields and boosts as a baseline.
 *
 * Reported per set and ranker: recall at the injected count (the files the hook actually injects)
 * and at 10, MRR (of the first relevant file, over the first 10), and the characters injected per
 * prompt (the hook's whole <relevant_memories> block). Prints tables and writes
 * eval/results/latest.json. Public sets whose licence allows it may be fetched into
 * eval/sets/downloaded/ (never committed); none is fetched today.
 *
 * Deterministic and offline: no clock in the ranking (every file gets the same time), no model.
 * CAIRN_EVAL_SETS names another folder of sets (a quick look at one set, or a held-out one).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { DEFAULT_INJECTION } from '../src/common/context/injection';
import { openHome } from '../src/main/host/home-services';
import { promptTerms, RelevanceIndex } from '../src/main/context/relevance-index';

const ROOT = path.dirname(new URL(import.meta.url).pathname);
const SETS = process.env.CAIRN_EVAL_SETS || path.join(ROOT, 'sets');
const RESULTS = path.join(ROOT, 'results');
/** Every file's time (written and used): the recency bonus is the same for all, so the text decides. */
const FIXED_TIME = Date.parse('2026-01-01T00:00:00Z');
const AT_K = 10;

interface Prompt {
  readonly prompt: string;
  readonly relevant: readonly string[];
  readonly kind: string;
}

interface Scores {
  /** Mean recall at the injected count (hook) or at the hook's file limit (others). */
  readonly recallInjected: number;
  readonly recallAt10: number;
  readonly mrr: number;
  /** Mean characters injected per prompt (hook only; 0 for the others). */
  readonly charsInjected: number;
  readonly prompts: number;
}

function readSet(dir: string): { files: Map<string, string>; prompts: Prompt[] } {
  const memory = path.join(dir, 'memory');
  const files = new Map<string, string>();
  const walk = (at: string, rel: string[]) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(at, entry.name), [...rel, entry.name]);
      else if (entry.isFile()) files.set(`/memories/global/${[...rel, entry.name].join('/')}`, fs.readFileSync(path.join(at, entry.name), 'utf8'));
    }
  };
  walk(memory, []);
  const prompts = fs
    .readFileSync(path.join(dir, 'prompts.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const p = JSON.parse(l) as Prompt;
      for (const r of p.relevant) if (!files.has(r)) throw new Error(`${path.basename(dir)} prompts.jsonl line ${i + 1}: ${r} is not a file of the set`);
      return p;
    });
  return { files, prompts };
}

function score(ranked: readonly string[], relevant: readonly string[], k: number): { recall: number; rr: number } {
  const want = new Set(relevant);
  const found = ranked.slice(0, k).filter((p) => want.has(p)).length;
  const first = ranked.slice(0, AT_K).findIndex((p) => want.has(p));
  return { recall: want.size === 0 ? 1 : found / want.size, rr: first < 0 ? 0 : 1 / (first + 1) };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

async function evaluate(name: string, dir: string): Promise<Record<string, Scores & { byKind: Record<string, Scores> }>> {
  const { files, prompts } = readSet(dir);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `cairn-eval-${name}-`));
  try {
    for (const [p, text] of files) {
      const file = path.join(home, 'memory', 'global', ...p.replace('/memories/global/', '').split('/'));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      const t = new Date(FIXED_TIME);
      fs.utimesSync(file, t, t);
    }
    const services = openHome(home);
    try {
      const session = await services.registry.session(null);
      const snapshot = await services.builder.snapshot(session);
      const search = new RelevanceIndex();
      const mini = new MiniSearch<{ id: string; path: string; description: string; head: string }>({
        fields: ['path', 'description', 'head'],
        storeFields: ['id'],
        searchOptions: { boost: { path: 2, description: 2 }, prefix: (term) => term.length >= 4 },
      });
      mini.addAll(snapshot.files.map((f) => ({ id: f.path, path: f.path.replace(/[/_.-]+/g, ' '), description: f.description ?? '', head: f.head })));
      type Row = { kind: string; recall: number; recall10: number; rr: number; chars: number };
      const rows: { hook: Row[]; memory_search: Row[]; minisearch: Row[] } = { hook: [], memory_search: [], minisearch: [] };
      for (const p of prompts) {
        const injected = services.builder.relevant(snapshot, p.prompt, FIXED_TIME, { ...DEFAULT_INJECTION, recentWhenNoMatch: false });
        const injectedPaths = [...injected.matchAll(/<memory_file path="([^"]*)">/g)].map((m) => m[1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
        const hookRank = [...take(services.builder.ranked(snapshot, p.prompt, FIXED_TIME), AT_K)].map((f) => f.path);
        const hook = score(injectedPaths, p.relevant, injectedPaths.length);
        rows.hook.push({ kind: p.kind, recall: hook.recall, recall10: score(hookRank, p.relevant, AT_K).recall, rr: score(hookRank, p.relevant, AT_K).rr, chars: injected.length });
        const searched = [...take(search.rank(snapshot.files, promptTerms(p.prompt), FIXED_TIME), AT_K)].map((f) => f.path);
        const s = score(searched, p.relevant, DEFAULT_INJECTION.relevantMaxFiles);
        rows.memory_search.push({ kind: p.kind, recall: s.recall, recall10: score(searched, p.relevant, AT_K).recall, rr: s.rr, chars: 0 });
        const baseline = mini.search(p.prompt).slice(0, AT_K).map((r) => String(r.id));
        const b = score(baseline, p.relevant, DEFAULT_INJECTION.relevantMaxFiles);
        rows.minisearch.push({ kind: p.kind, recall: b.recall, recall10: score(baseline, p.relevant, AT_K).recall, rr: b.rr, chars: 0 });
      }
      const summarize = (rs: readonly Row[]): Scores => ({
        recallInjected: mean(rs.map((r) => r.recall)),
        recallAt10: mean(rs.map((r) => r.recall10)),
        mrr: mean(rs.map((r) => r.rr)),
        charsInjected: mean(rs.map((r) => r.chars)),
        prompts: rs.length,
      });
      return Object.fromEntries(
        Object.entries(rows).map(([ranker, rs]) => [
          ranker,
          { ...summarize(rs), byKind: Object.fromEntries([...new Set(rs.map((r) => r.kind))].sort().map((k) => [k, summarize(rs.filter((r) => r.kind === k))])) },
        ]),
      );
    } finally {
      await services.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function* take<T>(items: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  let i = 0;
  for (const item of items) {
    yield item;
    if (++i >= n) return;
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const names = fs.readdirSync(SETS).filter((n) => fs.existsSync(path.join(SETS, n, 'prompts.jsonl'))).sort();
  const results: Record<string, unknown> = {};
  for (const name of names) {
    const r = await evaluate(name, path.join(SETS, name));
    results[name] = r;
    const { files, prompts } = readSet(path.join(SETS, name));
    console.log(`\n${name}: ${files.size} files, ${prompts.length} prompts`);
    console.log('ranker          recall@injected  recall@10  MRR     chars injected/prompt');
    for (const [ranker, s] of Object.entries(r)) {
      console.log(`${ranker.padEnd(16)}${pct(s.recallInjected).padStart(15)}  ${pct(s.recallAt10).padStart(9)}  ${s.mrr.toFixed(3).padStart(6)}  ${ranker === 'hook' ? s.charsInjected.toFixed(0).padStart(8) : '       -'}`);
    }
    console.log('by kind (hook): kind, prompts, recall@injected, recall@10, MRR');
    for (const [kind, s] of Object.entries(r.hook!.byKind)) console.log(`  ${kind.padEnd(14)}${String(s.prompts).padStart(5)}  ${pct(s.recallInjected).padStart(7)}  ${pct(s.recallAt10).padStart(7)}  ${s.mrr.toFixed(3)}`);
  }
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'latest.json'), `${JSON.stringify({ at: new Date().toISOString(), sets: results }, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), path.join(RESULTS, 'latest.json'))}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
