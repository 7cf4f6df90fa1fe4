/**
 * The consolidation section of `make bench`: a `rules` proposal (`cairn consolidate`) over a
 * scope of 1000 files (target: at most 3 s), and the memory writes made between proposal and
 * apply (target: none: no change event, no history version, the tree byte-identical). The scope
 * mixes what a consolidation looks for: a third of the files unused for 100+ days, one in fifty a near
 * duplicate of another, a few pinned; the rest used recently. Each run proposes again (a newer
 * proposal replaces the older), so every run does the whole work: listing, usage, the history's
 * since-last-time, reading every file, word sets and the pairwise overlap.
 *
 * BENCH_CONSOLIDATION_RUNS (default 7) sets the runs.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { memoryIdentity } from '../src/common/memory/identity';
import { HistoryStore } from '../src/main/history/history-store';
import { MemoryService } from '../src/main/memory/memory-service';
import { UsageStore } from '../src/main/memory/usage-store';
import { Consolidations } from '../src/main/consolidation/consolidations';
import { makeSandbox } from '../tests/support/sandbox';
import { envInt, sampleStats, table } from './common';

const FILES = 1000;
const LIMIT_MS = 3000;
const DAY = 24 * 60 * 60 * 1000;

export interface ConsolidationBenchResult {
  runs: number;
  files: number;
  changes: number;
  summary: string;
  proposeMs: { median: number; p95: number };
  applyMs: number;
  applied: number;
  /** Change events, history versions and tree changes seen between the first proposal and the apply. */
  writesBeforeApply: number;
  targets: Array<{ id: string; description: string; value: number; limit: number; met: boolean; unit?: 'ms' }>;
}

/** A vocabulary of 500 words: two unrelated notes share about a tenth of their words. */
const WORDS = Array.from({ length: 500 }, (_, i) => `${['build', 'test', 'deploy', 'cache', 'lint', 'docs', 'api', 'schema', 'retry', 'token'][i % 10]}${Math.floor(i / 10)}`);

/** A note of about 60 words, its own by `seed`. */
function note(seed: number): string {
  const words: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < 60; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    words.push(WORDS[x % WORDS.length]!);
  }
  return `# Note ${seed}\n\n${words.join(' ')}\n`;
}

function treeDigest(root: string): string {
  const hash = createHash('sha256');
  for (const name of (fs.readdirSync(root, { recursive: true }) as string[]).sort()) {
    const file = path.join(root, name);
    if (fs.statSync(file).isFile()) hash.update(name).update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

export async function runConsolidationBench(): Promise<ConsolidationBenchResult> {
  const runs = envInt('BENCH_CONSOLIDATION_RUNS', 7);
  const sb = await makeSandbox();
  try {
    const history = new HistoryStore(sb.home);
    const usage = new UsageStore(sb.home);
    const service = new MemoryService({ history, usage });
    const consolidations = new Consolidations({ home: sb.home, service, history, usage });
    const root = sb.roots.global;
    const now = Date.now();
    for (let i = 0; i < FILES; i++) {
      const rel = `area-${i % 20}/note-${i}.md`;
      const file = path.join(root, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // One in fifty repeats the note before it, with a line of its own: a near duplicate.
      fs.writeFileSync(file, i % 50 === 1 ? `${note(i - 1)}Also: ${WORDS[i % WORDS.length]}.\n` : note(i));
      const old = i % 3 === 0;
      const t = (now - (old ? 150 : 90) * DAY) / 1000;
      fs.utimesSync(file, t, t);
      const id = memoryIdentity('global', sb.session, rel.split('/'))!;
      if (!old) usage.record({ type: 'use', id, at: new Date(now - (i % 30) * DAY).toISOString(), write: false });
      if (i % 50 === 0) usage.record({ type: 'pin', id, pinned: true, at: new Date(now).toISOString() });
    }
    await usage.flush();

    let events = 0;
    service.onChange(() => events++);
    // The outside edits a consolidation records first (the files above were written with no Cairn
    // running) are the history catching up with the disk, not writes of memory.
    const cairnVersions = () => history.list({}).filter((v) => v.actor !== 'external').length;
    const versionsBefore = cairnVersions();
    const digestBefore = treeDigest(root);
    const samples: number[] = [];
    let last: Awaited<ReturnType<Consolidations['propose']>> | null = null;
    for (let run = 0; run < runs; run++) {
      const t0 = performance.now();
      last = await consolidations.propose(sb.session, { scope: 'global' });
      samples.push(performance.now() - t0);
    }
    if (!last || last.status !== 'proposed') throw new Error('the consolidation bench expected a proposal');
    const writesBeforeApply = events + (cairnVersions() - versionsBefore) + (treeDigest(root) === digestBefore ? 0 : 1);
    const t0 = performance.now();
    const applied = await consolidations.apply(last.proposal.id, sb.session);
    const applyMs = performance.now() - t0;
    const s = sampleStats(samples);
    return {
      runs,
      files: FILES,
      changes: last.proposal.changes.length,
      summary: last.summary,
      proposeMs: { median: s.median, p95: s.p95 },
      applyMs,
      applied: applied.result?.applied.length ?? 0,
      writesBeforeApply,
      targets: [
        { id: 'consolidation_rules_1000_p95', description: `A rules proposal (cairn consolidate) over ${FILES} files, p95 <= ${LIMIT_MS} ms`, value: s.p95, limit: LIMIT_MS, met: s.p95 <= LIMIT_MS, unit: 'ms' },
        { id: 'consolidation_no_writes_before_apply', description: 'Memory writes between a consolidation proposal and its apply (events, history versions, tree changes): 0', value: writesBeforeApply, limit: 0, met: writesBeforeApply === 0 },
      ],
    };
  } finally {
    await sb.cleanup();
  }
}

export function formatConsolidationBench(r: ConsolidationBenchResult): string {
  return `\nConsolidation: a rules proposal over ${r.files} files (${r.runs} runs; ms)\n${table(
    [
      ['what', 'median', 'p95', 'changes', 'note'],
      ['propose (cairn consolidate)', r.proposeMs.median.toFixed(1), r.proposeMs.p95.toFixed(1), String(r.changes), r.summary],
      ['apply (one batch)', r.applyMs.toFixed(1), '', String(r.applied), `${r.writesBeforeApply} memory writes before it`],
    ],
    new Set([1, 2, 3]),
  )}\n`;
}
