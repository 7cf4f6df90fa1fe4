/**
 * The sync section of `make bench`: the global memory of 1000 files synced through a bare
 * repository over file://, with real git: the first sync of a home (every file goes out; target
 * under 10 s), the first sync of a second home (every file comes in, as one history batch; target
 * under 10 s), and a sync with nothing changed on either side (what a host's schedule runs every
 * few minutes; target: median under 0.5 s), with how many git processes one starts (traced by
 * git itself: GIT_TRACE2_EVENT; children such as upload-pack counted).
 *
 * BENCH_SYNC_RUNS (default 7) sets the unchanged runs.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openHome } from '../src/main/host/home-services';
import { syncServices } from '../src/main/sync/sync-control';
import { runSync } from '../src/main/sync/sync-run';
import { makeSandbox } from '../tests/support/sandbox';
import { envInt, sampleStats, table } from './common';

const FILES = 1000;

export interface SyncBenchResult {
  files: number;
  firstOutMs: number;
  firstInMs: number;
  unchangedMs: { median: number; p95: number };
  /** git processes one unchanged sync starts, its own and theirs. */
  unchangedGitProcesses: number;
  runs: number;
  targets: Array<{ id: string; description: string; value: number; limit: number; met: boolean; unit?: 'ms' }>;
}

export async function runSyncBench(): Promise<SyncBenchResult> {
  const sb = await makeSandbox();
  const bare = path.join(sb.dir, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  const remote = `file://${bare}`;
  const laptop = openHome(path.join(sb.dir, 'laptop'));
  const desktop = openHome(path.join(sb.dir, 'desktop'));
  try {
    const root = path.join(laptop.home, 'memory', 'global');
    for (let i = 0; i < FILES; i++) {
      const file = path.join(root, `area-${i % 20}`, `note-${i}.md`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `---\ndescription: Note ${i}\n---\n# Note ${i}\n\n- Build step ${i} runs after lint.\n- Owner: team ${i % 7}.\n`);
    }
    let t = performance.now();
    const out = await runSync(await syncServices(laptop), remote);
    const firstOutMs = performance.now() - t;
    if (out.outcome !== 'synced' || out.sent.length !== FILES) throw new Error(`sync bench: the first sync sent ${out.sent.length} of ${FILES} (${out.outcome}: ${out.error})`);
    t = performance.now();
    const came = await runSync(await syncServices(desktop), remote);
    const firstInMs = performance.now() - t;
    if (came.outcome !== 'synced' || came.received.length !== FILES) throw new Error(`sync bench: the second home took in ${came.received.length} of ${FILES} (${came.outcome}: ${came.error})`);
    const runs = envInt('BENCH_SYNC_RUNS', 7);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      const again = await runSync(await syncServices(i % 2 === 0 ? laptop : desktop), remote);
      samples.push(performance.now() - t);
      if (again.sent.length + again.received.length > 0) throw new Error('sync bench: an unchanged sync moved files');
    }
    // One more, traced: every git process writes a "start" event to the file.
    const trace = path.join(sb.dir, 'git-trace.json');
    process.env.GIT_TRACE2_EVENT = trace;
    try {
      await runSync(await syncServices(laptop), remote);
    } finally {
      delete process.env.GIT_TRACE2_EVENT;
    }
    const unchangedGitProcesses = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter((l) => l.includes('"event":"start"')).length : 0;
    const s = sampleStats(samples);
    const unchangedMs = { median: s.median, p95: s.p95 };
    return {
      files: FILES,
      firstOutMs,
      firstInMs,
      unchangedMs,
      unchangedGitProcesses,
      runs,
      targets: [
        { id: 'sync_first_out', description: `Sync: the first sync of ${FILES} files (all sent) < 10 s`, value: firstOutMs, limit: 10_000, met: firstOutMs < 10_000, unit: 'ms' },
        { id: 'sync_first_in', description: `Sync: a second machine's first sync of ${FILES} files (all taken in) < 10 s`, value: firstInMs, limit: 10_000, met: firstInMs < 10_000, unit: 'ms' },
        { id: 'sync_unchanged', description: 'Sync: a sync with nothing changed on either side, median < 0.5 s', value: unchangedMs.median, limit: 500, met: unchangedMs.median < 500, unit: 'ms' },
      ],
    };
  } finally {
    await laptop.close();
    await desktop.close();
    await sb.cleanup();
  }
}

export function formatSyncBench(r: SyncBenchResult): string {
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  return `\nSync of the global memory, ${r.files} files, through a bare repository over file:// (real git)\n${table(
    [
      ['case', 'time'],
      ['first sync, every file sent', ms(r.firstOutMs)],
      ['first sync of a second home, every file taken in', ms(r.firstInMs)],
      [`nothing changed (median of ${r.runs})`, ms(r.unchangedMs.median)],
      [`nothing changed (p95 of ${r.runs})`, ms(r.unchangedMs.p95)],
      ['git processes of a sync with nothing changed', String(r.unchangedGitProcesses)],
    ],
    new Set([1]),
  )}\n`;
}

// `npx tsx bench/sync.ts`: this section alone.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  runSyncBench()
    .then((r) => process.stdout.write(formatSyncBench(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
