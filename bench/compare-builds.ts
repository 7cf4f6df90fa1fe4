/**
 * Two builds side by side: the waits a person or an agent has on Cairn's CLI, measured for this
 * checkout's build and for another revision's, in one run, spawns alternating between the two so a
 * change in the machine's load hits both alike. A restructuring must not make any of them slower:
 * the report marks a wait whose median grew by more than 5%.
 *
 * The other revision is checked out into a temporary git worktree (git itself), given this
 * checkout's node_modules, and built there with the same electron-vite; each build gets a home of
 * its own over the same memory (caches differ between builds, and one build must not find the
 * other's).
 *
 * Run: `npx tsx bench/compare-builds.ts <rev> [<rev2>]` after `make build` (with rev2, that
 * revision's build instead of this checkout's: two points of the history side by side), or `make
 * bench BASE=<rev>` (the last section of the bench). BENCH_CLI_RUNS sets the spawns per wait and
 * build (default 15).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_CLI, REPO_ROOT, makeSandbox, requireBuiltCli, type Sandbox } from '../tests/support/sandbox';
import { hookCommands, scaleNote, statsOf, timedMcpStart, timedRun, writeCorpus, type CliStats } from './cli';
import { envInt, settleWrites, table } from './common';

/** 3000 files less one a scope: the writes below create one file and delete it, within a scope's limit. */
const FILES = 2997;
/** A wait that grew by more than this share of the other build's median is marked. */
export const GREW_LIMIT = 0.05;

export interface BuildComparisonRow {
  wait: string;
  base: CliStats;
  head: CliStats;
  /** head median / base median - 1. */
  change: number;
}

export interface BuildComparison {
  base: string;
  head: string;
  runs: number;
  files: number;
  rows: BuildComparisonRow[];
}

/** Checks out and builds `rev` in a temporary worktree; returns its cli.js and a cleanup. */
async function buildRevision(rev: string): Promise<{ cli: string; commit: string; remove(): Promise<void> }> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-base-build-'));
  const tree = path.join(dir, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', '--quiet', tree, commit], { cwd: REPO_ROOT });
  const remove = async () => {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: REPO_ROOT });
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await fs.symlink(path.join(REPO_ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build', '--logLevel', 'warn'], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
    return { cli: path.join(tree, 'out', 'main', 'cli.js'), commit, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/** A home and checkout holding FILES memory files (a third a scope), the hooks' corpus. */
async function corpusBox(): Promise<Sandbox> {
  const box = await makeSandbox();
  await writeCorpus(box, FILES, scaleNote);
  return box;
}

/** The waits of one build on its own box: each a function that spawns once and returns ms. */
function waitsOf(cli: string, box: Sandbox): Array<[string, () => Promise<number>]> {
  const hook = hookCommands(cli, box.home, box.checkout);
  const flags = ['--home', box.home, '--cwd', box.checkout];
  const changed = path.join(box.roots.project, 'topic-03', 'note-0003.md');
  let edit = 0;
  let created = 0;
  return [
    ['SessionStart hook (index and hot set)', () => timedRun(hook.args, hook.start)],
    ['prompt hook, nothing changed', () => timedRun(hook.args, hook.prompt)],
    [
      'prompt hook, one file changed',
      async () => {
        await fs.writeFile(changed, scaleNote('project', 3, ++edit));
        return timedRun(hook.args, hook.prompt);
      },
    ],
    [
      'prompt hook, first call on a fresh home',
      async () => {
        await fs.rm(path.join(box.home, 'cache'), { recursive: true, force: true });
        return timedRun(hook.args, hook.prompt);
      },
    ],
    ['cairn mcp, spawn to initialize', () => timedMcpStart([cli, 'mcp', ...flags])],
    ['cairn tool view (a folder)', () => timedRun([cli, 'tool', ...flags, JSON.stringify({ command: 'view', path: '/memories/project/topic-03' })])],
    ['cairn tool create', () => timedRun([cli, 'tool', ...flags, JSON.stringify({ command: 'create', path: `/memories/project/new/n-${++created}.md`, file_text: 'Run the migration before the release.\n' })])],
    ['cairn tool str_replace', () => timedRun([cli, 'tool', ...flags, JSON.stringify({ command: 'str_replace', path: `/memories/project/new/n-${created}.md`, old_str: 'before', new_str: 'ahead of' })])],
    ['cairn tool delete', () => timedRun([cli, 'tool', ...flags, JSON.stringify({ command: 'delete', path: `/memories/project/new/n-${created}.md` })])],
  ];
}

/** Measures every wait for `rev`'s build and this checkout's (or `headRev`'s), alternating spawn by spawn. */
export async function runBuildComparison(rev: string, headRev?: string): Promise<BuildComparison> {
  if (headRev === undefined) await requireBuiltCli();
  const runs = Math.max(1, envInt('BENCH_CLI_RUNS', 15));
  const base = await buildRevision(rev);
  const boxes: Sandbox[] = [];
  const other = headRev === undefined ? null : await buildRevision(headRev).catch(async (err: unknown) => {
    await base.remove();
    throw err;
  });
  try {
    const baseBox = await corpusBox();
    boxes.push(baseBox);
    const headBox = await corpusBox();
    boxes.push(headBox);
    await settleWrites();
    const headWaits = waitsOf(other?.cli ?? BUILT_CLI, headBox);
    const pairs = waitsOf(base.cli, baseBox).map(([wait, base], w) => ({ wait, base, head: headWaits[w]![1], samples: { base: [] as number[], head: [] as number[] } }));
    // One unmeasured round: the page cache holds both builds and the memory, the caches are made.
    for (const p of pairs) {
      await p.base();
      await p.head();
    }
    for (let r = 0; r < runs; r++) {
      for (const p of pairs) {
        // Which build goes first alternates too, so neither always runs right after the other.
        for (const which of r % 2 ? (['head', 'base'] as const) : (['base', 'head'] as const)) p.samples[which].push(await p[which]());
      }
    }
    const rows = pairs.map(({ wait, samples }) => {
      const b = statsOf(samples.base);
      const h = statsOf(samples.head);
      return { wait, base: b, head: h, change: h.median / b.median - 1 };
    });
    const head = other?.commit ?? execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    return { base: base.commit, head, runs, files: FILES, rows };
  } finally {
    for (const box of boxes) await box.cleanup();
    await base.remove();
    await other?.remove();
  }
}

export function formatBuildComparison(c: BuildComparison): string {
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  const grew = c.rows.filter((r) => r.change > GREW_LIMIT);
  return `\n${c.head.slice(0, 10)} against ${c.base.slice(0, 10)} (${c.runs} spawns each, alternating; ${c.files} memory files; median ms)\n${table(
    [['wait', c.base.slice(0, 10), c.head.slice(0, 10), 'change', ''], ...c.rows.map((r) => [r.wait, r.base.median.toFixed(0), r.head.median.toFixed(0), pct(r.change), r.change > GREW_LIMIT ? 'grew > 5%' : ''])],
    new Set([1, 2, 3]),
  )}\n${grew.length ? `${grew.length} wait(s) grew by more than 5%.` : 'No wait grew by more than 5%.'}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rev = process.argv[2];
  if (!rev) {
    console.error('usage: npx tsx bench/compare-builds.ts <revision> [<revision>]');
    process.exit(2);
  }
  runBuildComparison(rev, process.argv[3]).then(
    (c) => console.log(formatBuildComparison(c)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
