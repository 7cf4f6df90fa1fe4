/**
 * The CLI section of `make bench`: how long a `cairn` process takes from spawn to exit for what
 * agents' hooks and scripts run most, `cairn context --prompt` (Claude Code's UserPromptSubmit hook
 * runs it before every prompt) and `cairn tool` (a view), on a project memory of 100 notes. Beside
 * them, in the same run: `node -e 0`, the floor any Node.js CLI pays, so the table shows what is
 * Cairn's own. Spawns alternate between the commands so a change in the machine's load hits all.
 *
 * BENCH_CLI_RUNS (default 15) sets the spawns per command.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { localWorkspaceId } from '../src/main/workspaces/session';
import { makeSandbox, requireBuiltCli, BUILT_CLI, REPO_ROOT } from '../tests/support/sandbox';
import { envInt, sampleStats, table } from './common';

const NOTES = 100;
const CODEX_FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'codex', 'rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl');

export interface CliStats {
  n: number;
  median: number;
  p95: number;
  min: number;
}

export interface CliBenchResult {
  runs: number;
  notes: number;
  /** Spawn to exit, ms. */
  nodeFloorMs: CliStats;
  contextPromptMs: CliStats;
  toolViewMs: CliStats;
  /** `cairn harvest --hook` (issue 19's target: p95 <= 150 ms), harvest off for the workspace. */
  harvestHookMs: CliStats;
  /** The same with harvest on: it queues the session and starts the worker, detached. */
  harvestHookOnMs: CliStats;
}

function statsOf(samples: readonly number[]): CliStats {
  const { n, median, p95, min } = sampleStats(samples);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n, median: r(median), p95: r(p95), min: r(min) };
}

/** Spawn to exit of one process, ms; a failure stops the bench (a broken command is not a figure). */
function timedRun(args: readonly string[], input?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(0, 300)}`))));
  });
}

export async function runCliBench(): Promise<CliBenchResult> {
  await requireBuiltCli();
  const runs = Math.max(1, envInt('BENCH_CLI_RUNS', 15));
  const box = await makeSandbox();
  try {
    const root = path.join(box.checkout, '.cairn', 'memory');
    for (let i = 0; i < NOTES; i++) {
      const dir = path.join(root, `area-${i % 10}`);
      await fs.mkdir(dir, { recursive: true });
      const body = `Note ${i}: the ${i % 2 ? 'database migration' : 'release'} runbook, step by step.\n`.repeat(12);
      await fs.writeFile(path.join(dir, `note-${i}.md`), `---\ndescription: How we handle ${i % 2 ? 'database migrations' : 'releases'} (${i})\n---\n${body}`);
    }
    const flags = ['--home', box.home, '--cwd', box.checkout];
    // A second home where harvest is on for the checkout, with a session to queue (a small Codex
    // rollout of the fixtures): its hook queues a job and starts a worker, which runs meanwhile.
    const onHome = path.join(box.dir, 'home-on');
    await fs.mkdir(onHome, { recursive: true });
    await fs.writeFile(path.join(onHome, 'config.json'), JSON.stringify({ workspaces: [], settings: { harvestWorkspaces: [await localWorkspaceId(box.checkout)] } }));
    const transcript = path.join(box.dir, 'rollout.jsonl');
    await fs.writeFile(transcript, (await fs.readFile(CODEX_FIXTURE, 'utf8')).replaceAll('/home/dev/projects/widgets', box.checkout));
    const commands = {
      node: ['-e', '0'],
      context: [BUILT_CLI, 'context', '--prompt', 'how do we run the database migration', ...flags],
      tool: [BUILT_CLI, 'tool', ...flags, JSON.stringify({ command: 'view', path: '/memories/project' })],
      // Claude Code's PreCompact and SessionEnd hook, harvest off for the workspace (the default).
      hook: [BUILT_CLI, 'harvest', '--hook', '--home', box.home],
      hookOn: [BUILT_CLI, 'harvest', '--hook', '--home', onHome],
    };
    const hookInput = JSON.stringify({ session_id: 's', transcript_path: transcript, cwd: box.checkout });
    const inputs: Partial<Record<keyof typeof commands, string>> = { hook: hookInput, hookOn: hookInput };
    const samples: Record<keyof typeof commands, number[]> = { node: [], context: [], tool: [], hook: [], hookOn: [] };
    // One unmeasured round first: the page cache then holds the code and the notes for all.
    for (const [name, args] of Object.entries(commands)) await timedRun(args, inputs[name as keyof typeof commands]);
    for (let r = 0; r < runs; r++) {
      for (const [name, args] of Object.entries(commands)) samples[name as keyof typeof commands].push(await timedRun(args, inputs[name as keyof typeof commands]));
    }
    return { runs, notes: NOTES, nodeFloorMs: statsOf(samples.node), contextPromptMs: statsOf(samples.context), toolViewMs: statsOf(samples.tool), harvestHookMs: statsOf(samples.hook), harvestHookOnMs: statsOf(samples.hookOn) };
  } finally {
    await box.cleanup();
  }
}

export function formatCliBench(r: CliBenchResult): string {
  const row = (what: string, s: CliStats) => [what, s.median.toFixed(1), s.p95.toFixed(1), s.min.toFixed(1), (s.median - r.nodeFloorMs.median).toFixed(1)];
  return `\nCLI start to exit (${r.runs} spawns each, alternating; project memory of ${r.notes} notes; ms)\n${table(
    [
      ['process', 'median', 'p95', 'min', 'over node'],
      row('node -e 0 (the floor)', r.nodeFloorMs),
      row('cairn context --prompt (the prompt hook)', r.contextPromptMs),
      row('cairn tool (view /memories/project)', r.toolViewMs),
      row('cairn harvest --hook (harvest off)', r.harvestHookMs),
      row('cairn harvest --hook (harvest on: queues, starts the worker)', r.harvestHookOnMs),
    ],
    new Set([1, 2, 3, 4]),
  )}\n`;
}
