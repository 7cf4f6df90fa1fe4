/**
 * The CLI section of `make bench`: how long a `cairn` process takes from spawn to exit for what
 * agents' hooks and scripts run most, `cairn context --prompt` (Claude Code's UserPromptSubmit hook
 * runs it before every prompt) and `cairn tool` (a view), on a project memory of 100 notes. Beside
 * them, in the same run: `node -e 0`, the floor any Node.js CLI pays, so the table shows what is
 * Cairn's own. Spawns alternate between the commands so a change in the machine's load hits all.
 *
 * Then the prompt hook and the MCP start at scale: memory of 100, 1000 and 3000 files
 * (a third in each scope, 1-4 KiB each), `cairn context --format claude-hook` for a UserPromptSubmit
 * with nothing changed since the last call, right after one file changed, and as the first call on a
 * fresh home (no facts cache), and `cairn mcp` from spawn to its answer to `initialize` (with the
 * instructions); each beside `node -e 0` in the same alternation, reported as ratios of medians.
 * The hook is measured twice: with no Cairn process running (it works its answer out itself), and
 * with a `cairn mcp` session left running, which answers it over the home's socket. Beside the
 * prompt hook, the SessionStart hook (the index and the hot set).
 *
 * At the largest size, the hooks with no Cairn process running on four corpora: the realistic
 * one and a small-vocabulary one (every file holds every word of the prompt, so every file
 * matches), each in a checkout with an `origin` and in a real git repository without one (whose
 * project id comes from its root commit: git is run unless the home kept the answer), each with
 * the first call on a fresh home (no caches at all). contextTargets gives the targets.
 *
 * BENCH_CLI_RUNS (default 15) sets the spawns per command; BENCH_CONTEXT_SIZES (default
 * 100,1000,3000) the memory sizes of the scale section. `npx tsx bench/cli.ts` runs both alone
 * (`npx tsx bench/cli.ts scale [CLI...]`: only the scale section, of the built CLI or of each given
 * copy of a build's cli.js), against the built CLI (out/main/cli.js).
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { localWorkspaceId } from '../src/main/workspaces/session';
import { makeSandbox, requireBuiltCli, BUILT_CLI, REPO_ROOT } from '../tests/support/sandbox';
import { envInt, sampleStats, settleWrites, table } from './common';

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
  /** `cairn harvest --hook` (target: p95 <= 150 ms), harvest off for the workspace. */
  harvestHookMs: CliStats;
  /** The same with harvest on: it queues the session and starts the worker, detached. */
  harvestHookOnMs: CliStats;
}

export function statsOf(samples: readonly number[]): CliStats {
  const { n, median, p95, min } = sampleStats(samples);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n, median: r(median), p95: r(p95), min: r(min) };
}

/** Spawn to exit of one process, ms; a failure stops the bench (a broken command is not a figure). */
export function timedRun(args: readonly string[], input?: string): Promise<number> {
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

// ---- the prompt hook and the MCP start at scale ----

const SCALE_TOPICS = ['build', 'testing', 'release', 'database', 'auth', 'frontend', 'deploy', 'logging', 'caching', 'api'] as const;
const HOOK_PROMPT = 'how do we run the database migration before the release';

export interface ContextScaleRow {
  files: number;
  nodeFloorMs: CliStats;
  /** The prompt hook, nothing changed since the last call (the facts cache holds every file). */
  unchangedMs: CliStats;
  /** The SessionStart hook (index and hot set), nothing changed since the last call. */
  sessionStartMs: CliStats;
  /** The prompt hook right after one file changed (that file read, the cache rewritten). */
  oneChangedMs: CliStats;
  /** The prompt hook as the first call on a fresh home (no facts cache: every file read). */
  freshHomeMs: CliStats;
  /** `cairn mcp` from spawn to its initialize answer (cache held). */
  mcpStartMs: CliStats;
  /** With a host running (a `cairn mcp` session, as every Claude Code session with Cairn has): `node -e 0`, alternated with the two below. */
  hostNodeFloorMs: CliStats;
  /** The prompt hook answered by the running host, nothing changed since the last call. */
  hostUnchangedMs: CliStats;
  /** The prompt hook answered by the running host right after one file changed. */
  hostOneChangedMs: CliStats;
  /** At the largest size only (else empty): the hooks on each corpus, with and without an origin. */
  corpora: ContextCorpusRow[];
}

/** The hooks with no Cairn process running, on one corpus in one kind of checkout. */
export interface ContextCorpusRow {
  corpus: 'realistic' | 'small vocabulary';
  origin: boolean;
  nodeFloorMs: CliStats;
  /** The prompt hook, nothing changed since the last call. */
  promptMs: CliStats;
  /** The SessionStart hook, nothing changed since the last call. */
  sessionStartMs: CliStats;
  /** The prompt hook as the first call on a fresh home (no cache of any kind). */
  coldMs: CliStats;
}

/** A 1-4 KiB note with a description, different for every file. */
export function scaleNote(scope: string, i: number, edit = 0): string {
  const topic = SCALE_TOPICS[i % SCALE_TOPICS.length]!;
  const lines = ['---', `description: How ${scope} ${topic} work is done, note ${i}${edit ? ` (edit ${edit})` : ''}`, '---', `# ${topic} notes ${i}`, ''];
  const size = 1024 + ((i * 397) % 3072);
  for (let k = 1; lines.join('\n').length < size; k++) lines.push(`- ${topic} rule ${k}: run \`make ${topic}\` before pushing, and read docs/${topic}.md when it fails (${i}).`);
  return `${lines.join('\n')}\n`;
}

/** Words of the small-vocabulary corpus: every file holds each word of HOOK_PROMPT, and others of these. */
const SMALL_VOCABULARY = ['database', 'migration', 'release', 'run', 'before', 'schema', 'table', 'deploy', 'check', 'step', 'rollback', 'script', 'version', 'service', 'query', 'index', 'backup', 'restore', 'staging', 'production'] as const;

/** A 1-4 KiB note of the small vocabulary: it matches every word of HOOK_PROMPT, as every other note does. */
export function smallVocabularyNote(scope: string, i: number): string {
  const word = (k: number) => SMALL_VOCABULARY[(i * 7 + k * 13) % SMALL_VOCABULARY.length]!;
  const lines = ['---', `description: ${scope} database migration before the release, ${word(1)} ${word(2)} (${i})`, '---', `# run the ${word(3)} ${word(4)}`, ''];
  const size = 1024 + ((i * 397) % 3072);
  for (let k = 1; lines.join('\n').length < size; k++) lines.push(`- ${word(k)} ${word(k + 1)}: run the database migration before the release, then ${word(k + 2)} the ${word(k + 3)}.`);
  return `${lines.join('\n')}\n`;
}

/** Writes `files` notes (a third per scope) made by `note` into the sandbox's scope roots. */
export async function writeCorpus(box: Awaited<ReturnType<typeof makeSandbox>>, files: number, note: (scope: string, i: number) => string): Promise<number> {
  const per = Math.ceil(files / 3);
  for (const [scope, root] of Object.entries(box.roots)) {
    for (let i = 0; i < per; i++) {
      const dir = path.join(root, `topic-${String(i % 20).padStart(2, '0')}`);
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, `note-${String(i).padStart(4, '0')}.md`), note(scope, i));
    }
  }
  return per * 3;
}

/** Makes the sandbox's checkout a real git repository with one commit and no origin. */
function withoutOrigin(checkout: string): void {
  execFileSync('git', ['init', '-q', '--initial-branch=main'], { cwd: checkout });
  execFileSync('git', ['config', '--unset-all', 'remote.origin.url'], { cwd: checkout });
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: checkout });
}

/** The SessionStart and prompt hooks' arguments and inputs for a home and checkout. */
export function hookCommands(cli: string, home: string, checkout: string): { args: string[]; start: string; prompt: string } {
  return {
    args: [cli, 'context', '--format', 'claude-hook', '--home', home],
    start: JSON.stringify({ hook_event_name: 'SessionStart', cwd: checkout }),
    prompt: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: HOOK_PROMPT, cwd: checkout }),
  };
}

/** The hooks with no Cairn process running on each corpus, with an origin and without one. */
async function runContextCorpora(cli: string, files: number, runs: number): Promise<ContextCorpusRow[]> {
  const rows: ContextCorpusRow[] = [];
  for (const corpus of ['realistic', 'small vocabulary'] as const) {
    const box = await makeSandbox();
    try {
      await writeCorpus(box, files, corpus === 'realistic' ? scaleNote : smallVocabularyNote);
      await settleWrites();
      const hook = hookCommands(cli, box.home, box.checkout);
      const cache = path.join(box.home, 'cache');
      for (const origin of [true, false]) {
        if (!origin) withoutOrigin(box.checkout);
        const samples = { node: [] as number[], prompt: [] as number[], start: [] as number[], cold: [] as number[] };
        await timedRun(hook.args, hook.prompt);
        for (let r = 0; r < runs; r++) {
          samples.node.push(await timedRun(['-e', '0']));
          samples.prompt.push(await timedRun(hook.args, hook.prompt));
          samples.start.push(await timedRun(hook.args, hook.start));
          await fs.rm(cache, { recursive: true, force: true });
          samples.cold.push(await timedRun(hook.args, hook.prompt));
        }
        rows.push({ corpus, origin, nodeFloorMs: statsOf(samples.node), promptMs: statsOf(samples.prompt), sessionStartMs: statsOf(samples.start), coldMs: statsOf(samples.cold) });
      }
    } finally {
      await box.cleanup();
    }
  }
  return rows;
}

/** A target of the hooks, as bench/run.ts reports them (value and limit: x node -e 0, or ms). */
export interface ContextTarget {
  id: string;
  description: string;
  value: number;
  limit: number;
  met: boolean;
  unit?: 'ms';
}

function contextTarget(id: string, description: string, value: number, limit: number, unit?: 'ms'): ContextTarget {
  return { id, description, value: Math.round(value * 100) / 100, limit, met: value <= limit, ...(unit ? { unit } : {}) };
}

/**
 * The targets of the SessionStart hook and of the prompt hook on every corpus, at the largest size
 * measured (those of the prompt hook on the realistic corpus with an origin are bench/run.ts's).
 */
export function contextTargets(rows: readonly ContextScaleRow[]): ContextTarget[] {
  const r = rows.at(-1);
  if (!r) return [];
  const targets = [contextTarget('context_session_start_vs_node', `The SessionStart hook (index and hot set) at ${r.files} files, no Cairn process running: median <= 3.5x node -e 0`, r.sessionStartMs.median / r.nodeFloorMs.median, 3.5)];
  for (const c of r.corpora) {
    const id = `${c.corpus === 'realistic' ? 'realistic' : 'small_vocabulary'}_${c.origin ? 'origin' : 'no_origin'}`;
    const where = `at ${r.files} files, ${c.corpus} corpus, checkout ${c.origin ? 'with' : 'without'} an origin, no Cairn process running`;
    targets.push(
      contextTarget(`context_hook_${id}_vs_node`, `The prompt hook ${where}: median <= 2.5x node -e 0`, c.promptMs.median / c.nodeFloorMs.median, 2.5),
      contextTarget(`context_session_start_${id}_vs_node`, `The SessionStart hook ${where}: median <= 3.5x node -e 0`, c.sessionStartMs.median / c.nodeFloorMs.median, 3.5),
      contextTarget(`context_hook_${id}_cold`, `The prompt hook ${where}, first call on a fresh home: median <= 1500 ms`, c.coldMs.median, 1500, 'ms'),
    );
  }
  return targets;
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;

/**
 * A `cairn mcp` session left running, as an agent's is: once its services have loaded it answers
 * the prompt hook on the home's socket (src/main/context/context-host.ts). Closing ends its stdin.
 */
async function runningHost(cli: string, home: string, cwd: string): Promise<{ close(): Promise<void> }> {
  const child = spawn(process.execPath, [cli, 'mcp', '--home', home, '--cwd', cwd], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  child.stdin.write(INITIALIZE);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.stdout.resume();
  const socket = path.join(home, 'run', 'context.sock');
  for (let i = 0; !(await fs.stat(socket).then((s) => s.isSocket(), () => false)); i++) {
    if (i > 400) throw new Error('cairn mcp did not serve the prompt hook');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.stdin.end();
      }),
  };
}

/** Spawn to the first answer line of `cairn mcp` to an initialize request, ms. */
export function timedMcpStart(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!out.includes('\n')) return;
      const ms = performance.now() - t0;
      const answer = JSON.parse(out.slice(0, out.indexOf('\n'))) as { result?: { instructions?: string } };
      child.stdin.end();
      child.once('close', () => (answer.result?.instructions?.includes('<memory_index>') ? resolve(ms) : reject(new Error(`cairn mcp answered without the index: ${out.slice(0, 300)}`))));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!out.includes('\n')) reject(new Error(`cairn mcp exited ${code} before answering: ${err.slice(0, 300)}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

/** `cli`: the built CLI to run (another build's, to compare). */
export async function runContextScaleBench(cli = BUILT_CLI): Promise<ContextScaleRow[]> {
  if (cli === BUILT_CLI) await requireBuiltCli();
  const runs = Math.max(1, envInt('BENCH_CLI_RUNS', 15));
  const sizes = (process.env.BENCH_CONTEXT_SIZES ?? '100,1000,3000').split(',').map(Number).filter((n) => n > 0);
  const rows: ContextScaleRow[] = [];
  for (const files of sizes) {
    const box = await makeSandbox();
    try {
      const written = await writeCorpus(box, files, scaleNote);
      await settleWrites();
      const changed = path.join(box.roots.project, 'topic-03', 'note-0003.md');
      const cache = path.join(box.home, 'cache');
      const { args: hookArgs, prompt: hookInput, start: startInput } = hookCommands(cli, box.home, box.checkout);
      const mcpArgs = [cli, 'mcp', '--home', box.home, '--cwd', box.checkout];
      const samples = { node: [] as number[], unchanged: [] as number[], start: [] as number[], oneChanged: [] as number[], fresh: [] as number[], mcp: [] as number[] };
      let edit = 0;
      // One unmeasured round: the page cache holds the code and the notes, and the facts cache is made.
      await timedRun(hookArgs, hookInput);
      await timedMcpStart(mcpArgs);
      for (let r = 0; r < runs; r++) {
        samples.node.push(await timedRun(['-e', '0']));
        samples.unchanged.push(await timedRun(hookArgs, hookInput));
        samples.start.push(await timedRun(hookArgs, startInput));
        await fs.writeFile(changed, scaleNote('project', 3, ++edit));
        samples.oneChanged.push(await timedRun(hookArgs, hookInput));
        samples.mcp.push(await timedMcpStart(mcpArgs));
        await fs.rm(cache, { recursive: true, force: true });
        samples.fresh.push(await timedRun(hookArgs, hookInput));
      }
      // Then with a host running: the hook asks it, and works its answer out itself only when
      // nobody answers (everything above).
      const hosted = { node: [] as number[], unchanged: [] as number[], oneChanged: [] as number[] };
      const host = await runningHost(cli, box.home, box.checkout);
      try {
        await timedRun(hookArgs, hookInput);
        for (let r = 0; r < runs; r++) {
          hosted.node.push(await timedRun(['-e', '0']));
          hosted.unchanged.push(await timedRun(hookArgs, hookInput));
          await fs.writeFile(changed, scaleNote('project', 3, ++edit));
          hosted.oneChanged.push(await timedRun(hookArgs, hookInput));
        }
      } finally {
        await host.close();
      }
      rows.push({
        files: written,
        nodeFloorMs: statsOf(samples.node),
        unchangedMs: statsOf(samples.unchanged),
        sessionStartMs: statsOf(samples.start),
        oneChangedMs: statsOf(samples.oneChanged),
        freshHomeMs: statsOf(samples.fresh),
        mcpStartMs: statsOf(samples.mcp),
        hostNodeFloorMs: statsOf(hosted.node),
        hostUnchangedMs: statsOf(hosted.unchanged),
        hostOneChangedMs: statsOf(hosted.oneChanged),
        corpora: [],
      });
    } finally {
      await box.cleanup();
    }
  }
  const largest = rows.at(-1);
  if (largest) largest.corpora = await runContextCorpora(cli, largest.files, runs);
  return rows;
}

export function formatContextScaleBench(rows: readonly ContextScaleRow[], runs: number): string {
  const ratio = (s: CliStats, floor: CliStats) => `${s.median.toFixed(0)} (${(s.median / floor.median).toFixed(2)}x)`;
  return `\nThe prompt hook and the MCP start at scale (${runs} spawns each, alternating; median ms and x node -e 0 of the same run)\n${table(
    [
      ['files', 'node -e 0', 'hook, nothing changed', 'session start', 'hook, one file changed', 'hook, fresh home', 'mcp to initialize'],
      ...rows.map((r) => [String(r.files), r.nodeFloorMs.median.toFixed(0), ratio(r.unchangedMs, r.nodeFloorMs), ratio(r.sessionStartMs, r.nodeFloorMs), ratio(r.oneChangedMs, r.nodeFloorMs), ratio(r.freshHomeMs, r.nodeFloorMs), ratio(r.mcpStartMs, r.nodeFloorMs)]),
    ],
    new Set([0, 1, 2, 3, 4, 5, 6]),
  )}\nThe same hook with a host running (a \`cairn mcp\` session answers it on the home's socket)\n${table(
    [
      ['files', 'node -e 0', 'hook, nothing changed', 'hook, one file changed'],
      ...rows.map((r) => [String(r.files), r.hostNodeFloorMs.median.toFixed(0), ratio(r.hostUnchangedMs, r.hostNodeFloorMs), ratio(r.hostOneChangedMs, r.hostNodeFloorMs)]),
    ],
    new Set([0, 1, 2, 3]),
  )}\n${formatCorpora(rows.at(-1))}`;
}

function formatCorpora(r: ContextScaleRow | undefined): string {
  if (!r || r.corpora.length === 0) return '';
  const cell = (s: CliStats, floor: CliStats) => `${s.median.toFixed(0)} / ${s.p95.toFixed(0)} (${(s.median / floor.median).toFixed(2)}x)`;
  return `\nThe hooks at ${r.files} files with no Cairn process running, by corpus and checkout (median / p95 ms, x node -e 0 of the same run)\n${table(
    [
      ['corpus', 'origin', 'node -e 0', 'prompt hook', 'session start', 'first call, fresh home'],
      ...r.corpora.map((c) => [c.corpus, c.origin ? 'yes' : 'no', c.nodeFloorMs.median.toFixed(0), cell(c.promptMs, c.nodeFloorMs), cell(c.sessionStartMs, c.nodeFloorMs), `${c.coldMs.median.toFixed(0)} / ${c.coldMs.p95.toFixed(0)}`]),
    ],
    new Set([2, 3, 4, 5]),
  )}\n${contextTargets([r])
    .map((t) => `  [${t.met ? 'met   ' : 'MISSED'}] ${t.description}: ${t.value}${t.unit ?? 'x'} (limit ${t.limit})`)
    .join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `scale [CLI...]`: the scale section alone, of the built CLI or of each given one (a copy of
  // another build's out/, to compare; it needs a node_modules beside or above it).
  const onlyScale = process.argv[2] === 'scale';
  const clis = onlyScale && process.argv.length > 3 ? process.argv.slice(3).map((c) => path.resolve(c)) : [BUILT_CLI];
  (async () => {
    if (!onlyScale) process.stdout.write(formatCliBench(await runCliBench()));
    for (const cli of clis) {
      if (clis.length > 1) process.stdout.write(`\n${cli}`);
      process.stdout.write(formatContextScaleBench(await runContextScaleBench(cli), Math.max(1, envInt('BENCH_CLI_RUNS', 15))));
    }
  })().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`cairn bench (cli) failed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
