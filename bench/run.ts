/**
 * Cairn's memory-tool benchmark: latency of the six commands for Cairn's MemoryService (in
 * process), the protocol's reference implementation (BetaLocalFilesystemMemoryTool) and raw
 * filesystem baselines, then 8 processes x 200 concurrent inserts into one file for Cairn's CLI and
 * for the reference; then the context index of 3 scopes x 1000 files (cold, warm, and a naive build
 * reading every file whole) and, when src/main/memory/scanners/content-scanner.ts exists, the
 * content scanner's cost next to a create; then the change feed's latency, from a write in another
 * process (through the journal, or a plain write found by the root watcher) to the event in a
 * subscriber here, beside the in-process floor; then the MCP section (bench/mcp.ts): per-command
 * latency through MCP stdio for Cairn, the reference tool behind a minimal MCP server and
 * @modelcontextprotocol/server-memory, and lost writes with 4 concurrent MCP clients each; the SSH
 * section (bench/ssh.ts); the harvest section (bench/harvest.ts: a 10 MB transcript of each agent
 * to the inbox); the consolidation section (bench/consolidation.ts: a rules proposal over 1000 files, and no
 * memory write before its apply); the sync section (bench/sync.ts: 1000 files through a bare
 * repository, first sync out and in, and a sync with nothing changed); the CLI section (bench/cli.ts): spawn to exit of `cairn context --prompt`
 * and `cairn tool` beside `node -e 0`, and the prompt hook and `cairn mcp`'s start at 100, 1000
 * and 3000 memory files (nothing changed, one file changed, a fresh home); then the UI section (bench/ui.ts): first render of 3 x 1000
 * files in Chromium, and an agent's write in
 * another process to the "agent edited" badge painted in the page; with BENCH_BASE=<rev> (`make
 * bench BASE=<rev>`), last, the CLI's waits of this build beside that revision's (bench/compare-builds.ts). Prints
 * tables and writes bench/results/latest.json.
 *
 * Run with `make bench` (builds the CLI first) or `npx tsx bench/run.ts` after `make build`.
 * Iteration counts can be lowered for a quick look: BENCH_ITERATIONS, BENCH_WARMUP,
 * BENCH_DIR_ITERATIONS, BENCH_DIR_WARMUP.
 *
 * Exit status: 0 when the bench ran (even if a target is missed; the report says which), 1 when the
 * bench itself failed, a Cairn command failed, or Cairn lost an update in the concurrency run.
 */
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import writeFileAtomic from 'write-file-atomic';
import { extractDescription } from '../src/main/memory/frontmatter';
import { renderIndex, type IndexEntry } from '../src/common/context/render';
import { MAX_FILES_PER_SCOPE, SCOPES, type Scope } from '../src/common/memory/constants';
import { memoryIdentity } from '../src/common/memory/identity';
import { formatMemoryPath } from '../src/common/memory/paths';
import { fileViewText } from '../src/common/memory/texts';
import type { UsageStats } from '../src/common/memory/usage';
import { ContextBuilder } from '../src/main/context/context-builder';
import { ContextFactsCache } from '../src/main/context/context-facts-cache';
import { LocalRuntime } from '../src/main/runtime/local/local-runtime';
import { resolveLocalSession } from '../src/main/workspaces/session';
import type { ExecuteOptions, MemorySession } from '../src/main/memory/memory-service';
import type { MemoryChangeEvent } from '../src/common/memory/events';
import { ChangeFeed, type ChangeOrigin } from '../src/main/journal/change-feed';
import { Journal } from '../src/main/journal/journal';
import { MemoryService } from '../src/main/memory/memory-service';
import { UsageStore } from '../src/main/memory/usage-store';
import { CAIRN_BIN, REPO_ROOT, makeSandbox, requireBuiltCli, type Sandbox } from '../tests/support/sandbox';
import { MAPPING as MCP_MAPPING, formatMcpBench, runMcpBench } from './mcp';
import { formatSshBench, runSshBench } from './ssh';
import { formatCliBench, formatContextScaleBench, runCliBench, runContextScaleBench, type ContextScaleRow, contextTargets } from './cli';
import { formatHarvestBench, runHarvestBench } from './harvest';
import { formatConsolidationBench, runConsolidationBench } from './consolidation';
import { formatSyncBench, runSyncBench } from './sync';
import { formatUiBench, runUiBench } from './ui';
import { formatBuildComparison, runBuildComparison } from './compare-builds';
import { envInt, sampleStats, table, type SampleStats, settleWrites } from './common';

// ---- parameters ----


const ITERATIONS = envInt('BENCH_ITERATIONS', 500);
const WARMUP = envInt('BENCH_WARMUP', 40);
const DIR_ITERATIONS = envInt('BENCH_DIR_ITERATIONS', 300);
const DIR_WARMUP = envInt('BENCH_DIR_WARMUP', 15);
const DIR_FILES = 1000;
const CONC_PROCESSES = 8;
const CONC_INSERTS = 200;
const CONC_TIMEOUT_MS = 150_000;

const EXEC: ExecuteOptions = { mode: 'exec', actor: 'agent' };
const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results', 'latest.json');
const REF_WORKER = path.join(REPO_ROOT, 'bench', 'ref-worker.mjs');

// ---- content ----

/** A ~2 KiB markdown note with exactly one `status: draft` line (the str_replace target). */
function makeNote(): string {
  const lines = ['# Project notes', '', 'status: draft', '', '## Conventions', ''];
  for (let i = 1; lines.join('\n').length < 2000; i++) {
    lines.push(`- note ${String(i).padStart(2, '0')}: builds use electron-vite, tests run under vitest.`);
  }
  return `${lines.join('\n')}\n`;
}

const NOTE = makeNote();
const OLD_STR = 'status: draft';
const NEW_STR = 'status: final';
const INSERT_LINE = 10;
const INSERT_TEXT = 'inserted: a line added by the benchmark\n';
const REPLACED = NOTE.replace(OLD_STR, NEW_STR);
const INSERTED = (() => {
  const lines = REPLACED.split('\n');
  lines.splice(INSERT_LINE, 0, INSERT_TEXT.slice(0, -1));
  return lines.join('\n');
})();
const NOTE_BYTES = Buffer.from(NOTE);
const REPLACED_BYTES = Buffer.from(REPLACED);
const INSERTED_BYTES = Buffer.from(INSERTED);
const DIR_FILE_TEXT = 'A small memory file in a directory of a thousand.\n'.repeat(4);

// ---- statistics ----

type Stats = SampleStats;
const stats = sampleStats;

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

// ---- the implementations under test ----

const OPS = ['view_file', 'view_dir', 'create', 'str_replace', 'insert', 'rename', 'delete'] as const;
type Op = (typeof OPS)[number];
type Impl = 'cairn' | 'reference' | 'raw' | 'raw+fmt';
const IMPL_ORDER: readonly Impl[] = ['cairn', 'reference', 'raw', 'raw+fmt'];

/** Every step of one implementation; the `key` makes each iteration's file names fresh. */
interface Subject {
  readonly name: 'cairn' | 'reference' | 'raw';
  viewFile(record: (impl: Impl, ms: number) => void): Promise<void>;
  viewDir(): Promise<unknown>;
  create(key: string): Promise<unknown>;
  strReplace(key: string): Promise<unknown>;
  insert(key: string): Promise<unknown>;
  rename(key: string): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function writeTree(dir: string): Promise<void> {
  await fs.mkdir(path.join(dir, 'notes'), { recursive: true, mode: 0o700 });
  await fs.mkdir(path.join(dir, 'big'), { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(dir, 'notes', 'view.md'), NOTE, { mode: 0o600 });
  for (let i = 0; i < DIR_FILES; i++) {
    await fs.writeFile(path.join(dir, 'big', `file-${String(i).padStart(4, '0')}.md`), DIR_FILE_TEXT, { mode: 0o600 });
  }
}

/**
 * Cairn in process. The 1000-file directory lives in a second sandbox: a scope holds at most 1000
 * files, so it would make every create in the same scope fail with "scope full".
 */
async function cairnSubject(main: Sandbox, dirBox: Sandbox): Promise<Subject> {
  await fs.mkdir(path.join(main.roots.global, 'notes'), { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(main.roots.global, 'notes', 'view.md'), NOTE, { mode: 0o600 });
  await writeTree(dirBox.roots.global);
  const run = async (box: Sandbox, input: Record<string, unknown>): Promise<string> => {
    const r = await box.service.execute(input, box.session, EXEC);
    if (!r.ok) throw new Error(`Cairn ${String(input.command)} failed: ${r.output}`);
    return r.output;
  };
  const p = (key: string) => `/memories/global/notes/new-${key}.md`;
  const q = (key: string) => `/memories/global/notes/renamed-${key}.md`;
  return {
    name: 'cairn',
    viewFile: async (record) => record('cairn', await timed(() => run(main, { command: 'view', path: '/memories/global/notes/view.md' }))),
    viewDir: () => run(dirBox, { command: 'view', path: '/memories/global/big' }),
    create: (key) => run(main, { command: 'create', path: p(key), file_text: NOTE }),
    strReplace: (key) => run(main, { command: 'str_replace', path: p(key), old_str: OLD_STR, new_str: NEW_STR }),
    insert: (key) => run(main, { command: 'insert', path: p(key), insert_line: INSERT_LINE, insert_text: INSERT_TEXT }),
    rename: (key) => run(main, { command: 'rename', old_path: p(key), new_path: q(key) }),
    delete: (key) => run(main, { command: 'delete', path: q(key) }),
  };
}

async function referenceSubject(base: string): Promise<{ subject: Subject; tool: BetaLocalFilesystemMemoryTool }> {
  const tool = await BetaLocalFilesystemMemoryTool.init(base);
  await writeTree(path.join(base, 'memories'));
  const p = (key: string) => `/memories/notes/new-${key}.md`;
  const q = (key: string) => `/memories/notes/renamed-${key}.md`;
  return {
    tool,
    subject: {
      name: 'reference',
      viewFile: async (record) => record('reference', await timed(() => tool.view({ command: 'view', path: '/memories/notes/view.md' }))),
      viewDir: () => tool.view({ command: 'view', path: '/memories/big' }),
      create: (key) => tool.create({ command: 'create', path: p(key), file_text: NOTE }),
      strReplace: (key) => tool.str_replace({ command: 'str_replace', path: p(key), old_str: OLD_STR, new_str: NEW_STR }),
      insert: (key) => tool.insert({ command: 'insert', path: p(key), insert_line: INSERT_LINE, insert_text: INSERT_TEXT }),
      rename: (key) => tool.rename({ command: 'rename', old_path: p(key), new_path: q(key) }),
      delete: (key) => tool.delete({ command: 'delete', path: q(key) }),
    },
  };
}

/** readdir + stat of every entry, two levels deep, as a directory view walks. */
async function rawWalk(dir: string, level: number, out: { name: string; size: number }[]): Promise<void> {
  const names = (await fs.readdir(dir)).sort();
  for (const name of names) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const full = path.join(dir, name);
    const st = await fs.stat(full);
    out.push({ name: full, size: st.size });
    if (st.isDirectory() && level < 2) await rawWalk(full, level + 1, out);
  }
}

async function rawSubject(base: string): Promise<Subject> {
  await writeTree(base);
  const view = path.join(base, 'notes', 'view.md');
  const p = (key: string) => path.join(base, 'notes', `new-${key}.md`);
  const q = (key: string) => path.join(base, 'notes', `renamed-${key}.md`);
  return {
    name: 'raw',
    viewFile: async (record) => {
      record('raw', await timed(() => fs.readFile(view)));
      record('raw+fmt', await timed(async () => fileViewText('/memories/notes/view.md', await fs.readFile(view, 'utf8'))));
    },
    viewDir: async () => {
      const out: { name: string; size: number }[] = [];
      await rawWalk(path.join(base, 'big'), 1, out);
      if (out.length !== DIR_FILES) throw new Error(`raw walk found ${out.length} entries`);
    },
    create: (key) => writeFileAtomic(p(key), NOTE_BYTES),
    strReplace: (key) => writeFileAtomic(p(key), REPLACED_BYTES),
    insert: (key) => writeFileAtomic(p(key), INSERTED_BYTES),
    rename: (key) => fs.rename(p(key), q(key)),
    delete: (key) => fs.rm(q(key)),
  };
}

// ---- latency phase ----

type Samples = Record<Op, Partial<Record<Impl, number[]>>>;

function emptySamples(): Samples {
  return Object.fromEntries(OPS.map((op) => [op, {}])) as Samples;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = ((by % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

const CYCLE: readonly { op: Exclude<Op, 'view_file' | 'view_dir'>; run: (s: Subject, key: string) => Promise<unknown> }[] = [
  { op: 'create', run: (s, key) => s.create(key) },
  { op: 'str_replace', run: (s, key) => s.strReplace(key) },
  { op: 'insert', run: (s, key) => s.insert(key) },
  { op: 'rename', run: (s, key) => s.rename(key) },
  { op: 'delete', run: (s, key) => s.delete(key) },
];

/**
 * Each iteration runs view (file), create, str_replace, insert, rename and delete of a fresh file,
 * step by step, every implementation in turn, the order rotating per iteration. Every created file
 * is deleted in the same iteration, so each scope holds the same files throughout.
 */
async function measureCommands(subjects: readonly Subject[], samples: Samples): Promise<void> {
  const progressEvery = Math.max(1, Math.floor(ITERATIONS / 4));
  for (let it = -WARMUP; it < ITERATIONS; it++) {
    const recordIt = it >= 0;
    const key = recordIt ? `m${it}` : `w${-it}`;
    const order = rotate(subjects, it);
    const record = (op: Op) => (impl: Impl, ms: number) => {
      if (recordIt) (samples[op][impl] ??= []).push(ms);
    };
    for (const s of order) await s.viewFile(record('view_file'));
    for (const step of CYCLE) {
      for (const s of order) record(step.op)(s.name, await timed(() => step.run(s, key)));
    }
    if (recordIt && (it + 1) % progressEvery === 0) process.stderr.write(`  commands: ${it + 1}/${ITERATIONS}\n`);
  }
}

async function measureDirView(subjects: readonly Subject[], samples: Samples): Promise<void> {
  for (let it = -DIR_WARMUP; it < DIR_ITERATIONS; it++) {
    for (const s of rotate(subjects, it)) {
      const ms = await timed(() => s.viewDir());
      if (it >= 0) (samples.view_dir[s.name] ??= []).push(ms);
    }
  }
}

/** The texts must match (modulo the scope segment), or the comparison is not like for like. */
async function checkSameTexts(cairn: Sandbox, dirBox: Sandbox, ref: BetaLocalFilesystemMemoryTool): Promise<string[]> {
  const warnings: string[] = [];
  const c = await cairn.run({ command: 'view', path: '/memories/global/notes/view.md' });
  const r = await ref.view({ command: 'view', path: '/memories/notes/view.md' });
  if (c.output.replaceAll('/memories/global/', '/memories/') !== r) warnings.push('view (file): Cairn and the reference return different texts');
  const cd = await dirBox.run({ command: 'view', path: '/memories/global/big' });
  const rd = await ref.view({ command: 'view', path: '/memories/big' });
  const rows = (t: string) => t.split('\n').filter((l) => /\tfile-\d{4}\.md$|\/file-\d{4}\.md$/.test(l)).length;
  if (rows(cd.output) !== DIR_FILES || rows(rd) !== DIR_FILES) {
    warnings.push(`view (dir): expected ${DIR_FILES} file rows, Cairn listed ${rows(cd.output)}, the reference ${rows(rd)}`);
  }
  const cdBody = cd.output.split('\n').slice(1).map((l) => l.replace('/memories/global/', '/memories/'));
  const rdBody = rd.split('\n').slice(1);
  const extra = cdBody.filter((l) => !rdBody.includes(l));
  if (extra.length > 0) warnings.push(`view (dir): Cairn's text has ${extra.length} line(s) the reference's lacks, e.g. ${JSON.stringify(extra[0])}`);
  return warnings;
}

/** The formatting part of a file view alone, in process, on the same content. */
function measureFormatting(iterations: number): Stats {
  const out: number[] = [];
  for (let i = -200; i < iterations; i++) {
    const t0 = performance.now();
    fileViewText('/memories/notes/view.md', NOTE);
    const ms = performance.now() - t0;
    if (i >= 0) out.push(ms);
  }
  return stats(out);
}

// ---- concurrency phase ----

interface ProcOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns every process first, then feeds their stdin, then waits for all of them. */
async function runTogether(specs: readonly { cmd: string; args: string[]; input?: string }[]): Promise<{ wallMs: number; outcomes: ProcOutcome[] }> {
  const started = performance.now();
  const children = specs.map((s) => spawn(s.cmd, s.args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] }));
  const done = children.map(
    (child) =>
      new Promise<ProcOutcome>((resolve, reject) => {
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`process ${child.pid} did not finish within ${CONC_TIMEOUT_MS} ms`));
        }, CONC_TIMEOUT_MS);
        child.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          resolve({ code, signal, stdout, stderr });
        });
      }),
  );
  children.forEach((child, i) => child.stdin.end(specs[i]!.input ?? ''));
  const outcomes = await Promise.all(done);
  return { wallMs: performance.now() - started, outcomes };
}

interface ConcurrencyResult {
  processes: number;
  insertsPerProcess: number;
  wallMs: number;
  insertsPerSecond: number;
  succeeded: number;
  failed: number;
  presentLines: number;
  lostUpdates: number;
  finalLineCount: number;
  perInsertMs?: Stats;
  firstError?: string;
}

function countPresent(finalText: string, expected: readonly string[]): number {
  const present = new Set(finalText.split('\n'));
  return expected.filter((l) => present.has(l)).length;
}

async function concurrencyCairn(box: Sandbox): Promise<ConcurrencyResult> {
  const file = '/memories/global/log.md';
  const seeded = await box.run({ command: 'create', path: file, file_text: 'seed' });
  if (!seeded.ok) throw new Error(`could not seed the concurrency file: ${seeded.output}`);
  const expected: string[] = [];
  const specs = Array.from({ length: CONC_PROCESSES }, (_, w) => {
    const lines: string[] = [];
    for (let n = 0; n < CONC_INSERTS; n++) {
      const text = `cairn w${w} n${n}`;
      expected.push(text);
      lines.push(JSON.stringify({ command: 'insert', path: file, insert_line: 0, insert_text: `${text}\n` }));
    }
    return { cmd: CAIRN_BIN, args: ['tool', '--jsonl', '--home', box.home, '--cwd', box.checkout], input: `${lines.join('\n')}\n` };
  });
  const { wallMs, outcomes } = await runTogether(specs);
  let succeeded = 0;
  let failed = 0;
  let firstError: string | undefined;
  const ms: number[] = [];
  for (const o of outcomes) {
    if (o.code !== 0) {
      failed += CONC_INSERTS;
      firstError ??= `exit ${o.code ?? o.signal}: ${o.stderr.trim().slice(0, 500)}`;
      continue;
    }
    const results = o.stdout.split('\n').filter((l) => l.trim() !== '');
    if (results.length !== CONC_INSERTS) {
      failed += Math.max(0, CONC_INSERTS - results.length);
      firstError ??= `a process answered ${results.length} of ${CONC_INSERTS} commands`;
    }
    for (const line of results) {
      const r = JSON.parse(line) as { ok: boolean; output: string; ms?: number };
      if (r.ok) succeeded++;
      else {
        failed++;
        firstError ??= r.output;
      }
      if (typeof r.ms === 'number') ms.push(r.ms);
    }
  }
  const finalText = await fs.readFile(path.join(box.roots.global, 'log.md'), 'utf8');
  const presentLines = countPresent(finalText, expected);
  return {
    processes: CONC_PROCESSES,
    insertsPerProcess: CONC_INSERTS,
    wallMs,
    insertsPerSecond: (CONC_PROCESSES * CONC_INSERTS) / (wallMs / 1000),
    succeeded,
    failed,
    presentLines,
    lostUpdates: expected.length - presentLines,
    finalLineCount: finalText.split('\n').length,
    ...(ms.length > 0 ? { perInsertMs: stats(ms) } : {}),
    ...(firstError !== undefined ? { firstError } : {}),
  };
}

async function concurrencyReference(base: string): Promise<ConcurrencyResult> {
  const file = '/memories/log.md';
  await BetaLocalFilesystemMemoryTool.init(base);
  await fs.writeFile(path.join(base, 'memories', 'log.md'), 'seed', { mode: 0o600 });
  const expected: string[] = [];
  for (let w = 0; w < CONC_PROCESSES; w++) for (let n = 0; n < CONC_INSERTS; n++) expected.push(`ref w${w} n${n}`);
  const specs = Array.from({ length: CONC_PROCESSES }, (_, w) => ({
    cmd: process.execPath,
    args: [REF_WORKER, base, file, String(w), String(CONC_INSERTS)],
  }));
  const { wallMs, outcomes } = await runTogether(specs);
  let succeeded = 0;
  let failed = 0;
  let firstError: string | undefined;
  const ms: number[] = [];
  for (const o of outcomes) {
    if (o.code !== 0) throw new Error(`a reference worker failed (exit ${o.code ?? o.signal}): ${o.stderr.trim().slice(0, 500)}`);
    const summary = JSON.parse(o.stdout.trim()) as { done: number; errors: number; firstError: string | null; insertMs: number[] };
    succeeded += summary.done;
    failed += summary.errors;
    ms.push(...summary.insertMs);
    if (summary.firstError) firstError ??= summary.firstError;
  }
  const finalText = await fs.readFile(path.join(base, 'memories', 'log.md'), 'utf8');
  const presentLines = countPresent(finalText, expected);
  return {
    processes: CONC_PROCESSES,
    insertsPerProcess: CONC_INSERTS,
    wallMs,
    insertsPerSecond: (CONC_PROCESSES * CONC_INSERTS) / (wallMs / 1000),
    succeeded,
    failed,
    presentLines,
    lostUpdates: expected.length - presentLines,
    finalLineCount: finalText.split('\n').length,
    ...(ms.length > 0 ? { perInsertMs: stats(ms) } : {}),
    ...(firstError !== undefined ? { firstError } : {}),
  };
}

// ---- context: the memory index of 3 scopes x 1000 files, and the content scanner ----

const CTX_FILES_PER_SCOPE = 1000;
const CTX_DIRS = 20;
/** Fresh builders (cold head cache), each building the index once. */
const CTX_COLD_RUNS = 5;
const CTX_WARM_RUNS = 20;
const CTX_WARM_WARMUP = 3;
const CTX_NAIVE_RUNS = 5;
const CTX_TOPICS = ['build', 'testing', 'release', 'database', 'auth', 'frontend', 'deploy', 'logging', 'caching', 'api'] as const;
const SCANNER_MODULE = path.join(REPO_ROOT, 'src', 'main', 'memory', 'scanners', 'content-scanner.ts');
const SCAN_ITERATIONS = 2000;
const SCAN_WARMUP = 200;

/** A 1-3 KiB markdown note with a frontmatter description, different for every file. */
function contextNote(scope: Scope, i: number): string {
  const topic = CTX_TOPICS[i % CTX_TOPICS.length]!;
  const lines = [
    '---',
    i % 3 === 0 ? `description: "How ${scope} ${topic} work is done (note ${i}), with the commands to run"` : `description: How ${scope} ${topic} work is done, note ${i}`,
    `tags: [${topic}, ${scope}]`,
    '---',
    `# ${topic} notes ${i}`,
    '',
  ];
  const size = 1024 + ((i * 397) % 2048);
  for (let k = 1; lines.join('\n').length < size; k++) {
    lines.push(`- ${topic} rule ${k}: run \`make ${topic}\` before pushing, and read docs/${topic}.md when it fails.`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes 1000 notes per scope in CTX_DIRS directories, and a sidecar with usage of every tenth. */
async function writeContextTree(box: Sandbox): Promise<number> {
  const files: Record<string, UsageStats> = {};
  const now = Date.now();
  let bytes = 0;
  for (const scope of SCOPES) {
    for (let d = 0; d < CTX_DIRS; d++) await fs.mkdir(path.join(box.roots[scope], `topic-${String(d).padStart(2, '0')}`), { recursive: true, mode: 0o700 });
    for (let i = 0; i < CTX_FILES_PER_SCOPE; i++) {
      const rel = [`topic-${String(i % CTX_DIRS).padStart(2, '0')}`, `note-${String(i).padStart(4, '0')}.md`];
      const text = contextNote(scope, i);
      bytes += Buffer.byteLength(text);
      await fs.writeFile(path.join(box.roots[scope], ...rel), text, { mode: 0o600 });
      const id = memoryIdentity(scope, box.session, rel);
      if (i % 10 === 0 && id !== null) files[id] = { pinned: i % 100 === 0, accessCount: 1 + (i % 7), lastAccessedAt: new Date(now - i * 60_000).toISOString(), lastWriteAt: null, lastWriteBy: null };
    }
  }
  await fs.writeFile(path.join(box.home, 'memory-meta.json'), `${JSON.stringify({ version: 1, files }, null, 1)}\n`, { mode: 0o600 });
  return bytes;
}

/** The naive index: list, read every file whole, parse its frontmatter, render. */
async function naiveIndex(box: Sandbox): Promise<string> {
  const entries: IndexEntry[] = [];
  const walk = async (root: string, dir: readonly string[], scope: Scope): Promise<void> => {
    const names = (await fs.readdir(path.join(root, ...dir), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of names) {
      if (e.name.startsWith('.')) continue;
      const rel = [...dir, e.name];
      if (e.isDirectory()) await walk(root, rel, scope);
      else if (e.isFile()) entries.push({ path: formatMemoryPath(scope, rel), description: extractDescription(await fs.readFile(path.join(root, ...rel), 'utf8')) });
    }
  };
  for (const scope of SCOPES) await walk(box.roots[scope], [], scope);
  return renderIndex(entries);
}

async function buildIndex(builder: ContextBuilder, session: MemorySession): Promise<string> {
  return builder.index(await builder.snapshot(session));
}

interface ContextIndexResult {
  files: number;
  bytes: number;
  indexBytes: number;
  firstColdMs: number;
  coldMs: Stats;
  /** A fresh builder and runtime over the home's facts cache (a new `cairn context` or `cairn mcp`). */
  cachedColdMs: Stats;
  warmMs: Stats;
  naiveMs: Stats;
  /** Where a warm build's time goes, each part measured alone (medians). */
  warmBreakdownMs: { listAndStat: number; usageRead: number; indexRender: number; other: number };
  sameAsNaive: boolean;
}

async function measureContextIndex(box: Sandbox): Promise<ContextIndexResult> {
  const bytes = await writeContextTree(box);
  await settleWrites();
  const usage = new UsageStore(box.home);
  const cold: number[] = [];
  let index = '';
  for (let r = 0; r < CTX_COLD_RUNS; r++) {
    // Cold as a new process sees it: a fresh builder and a fresh runtime (no cached listings).
    const fresh = new ContextBuilder(new UsageStore(box.home));
    const freshSession = await resolveLocalSession({ home: box.home, cwd: box.checkout }, new LocalRuntime());
    const t0 = performance.now();
    index = await buildIndex(fresh, freshSession);
    cold.push(performance.now() - t0);
  }
  // A new process of a home whose facts cache is made (by an earlier call of any process).
  await buildIndex(new ContextBuilder(new UsageStore(box.home), { factsCache: new ContextFactsCache(box.home) }), box.session);
  const cachedCold: number[] = [];
  for (let r = 0; r < CTX_COLD_RUNS; r++) {
    const fresh = new ContextBuilder(new UsageStore(box.home), { factsCache: new ContextFactsCache(box.home) });
    const freshSession = await resolveLocalSession({ home: box.home, cwd: box.checkout }, new LocalRuntime());
    const t0 = performance.now();
    const again = await buildIndex(fresh, freshSession);
    cachedCold.push(performance.now() - t0);
    if (again !== index) throw new Error('the index over the facts cache differs from a fresh build');
  }
  const builder = new ContextBuilder(usage);
  await buildIndex(builder, box.session);
  const warm: number[] = [];
  for (let r = -CTX_WARM_WARMUP; r < CTX_WARM_RUNS; r++) {
    const t0 = performance.now();
    const again = await buildIndex(builder, box.session);
    const ms = performance.now() - t0;
    if (again !== index) throw new Error('the warm index differs from the cold one over an unchanged tree');
    if (r >= 0) warm.push(ms);
  }
  const naive: number[] = [];
  let naiveText = '';
  for (let r = 0; r < CTX_NAIVE_RUNS; r++) {
    const t0 = performance.now();
    naiveText = await naiveIndex(box);
    naive.push(performance.now() - t0);
  }
  // The parts of a warm build, each alone.
  const parts = { list: [] as number[], usage: [] as number[], render: [] as number[] };
  const snap = await builder.snapshot(box.session);
  for (let r = 0; r < CTX_WARM_RUNS; r++) {
    let t0 = performance.now();
    for (const scope of SCOPES) {
      const b = box.session.scopes[scope];
      if (b.available) await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true });
    }
    parts.list.push(performance.now() - t0);
    t0 = performance.now();
    await usage.read();
    parts.usage.push(performance.now() - t0);
    t0 = performance.now();
    builder.index(snap);
    parts.render.push(performance.now() - t0);
  }
  const warmStats = stats(warm);
  const listAndStat = stats(parts.list).median;
  const usageRead = stats(parts.usage).median;
  const indexRender = stats(parts.render).median;
  return {
    files: snap.files.length,
    bytes,
    indexBytes: Buffer.byteLength(index),
    firstColdMs: cold[0]!,
    coldMs: stats(cold),
    cachedColdMs: stats(cachedCold),
    warmMs: warmStats,
    naiveMs: stats(naive),
    warmBreakdownMs: { listAndStat, usageRead, indexRender, other: Math.max(0, warmStats.median - listAndStat - usageRead - indexRender) },
    sameAsNaive: naiveText === index,
  };
}

/** A ~10 KiB note as agents write them: headings, prose, commands, a code block, links; no secrets. */
function makeScanNote(): string {
  const parts = [
    '# Service notes: payments gateway',
    '',
    'These notes record what we learned while working on the payments gateway. Keep them short and current.',
    '',
  ];
  const sections = ['Build', 'Local setup', 'Testing', 'Release', 'Incidents', 'Conventions', 'Open questions'];
  for (let s = 0; Buffer.byteLength(parts.join('\n')) < 10 * 1024 - 400; s++) {
    const name = sections[s % sections.length]!;
    parts.push(`## ${name} (${Math.floor(s / sections.length) + 1})`, '');
    parts.push(`The ${name.toLowerCase()} steps changed in release 4.${s}; the old wiki page is out of date, so prefer these notes.`);
    parts.push(`- Run \`npm run ${name.toLowerCase().replace(/ /g, '-')}\` from the repository root; it takes about ${20 + s} seconds.`);
    parts.push(`- Environment: set PAYMENTS_ENV=staging and point the client at https://staging.example.com/api/v${1 + (s % 3)}.`);
    parts.push(`- If the job fails with "connection reset", retry once; twice in a row means the sandbox is down (see docs/runbook.md#${name.toLowerCase().replace(/ /g, '-')}).`);
    parts.push('', '```ts', `export async function check${s}(client: Client): Promise<boolean> {`, `  const res = await client.get('/health?probe=${s}');`, '  return res.status === 200;', '}', '```', '');
  }
  parts.push('Last reviewed by the platform team.');
  return `${parts.join('\n')}\n`;
}

interface ScannerResult {
  available: boolean;
  reason?: string;
  noteBytes: number;
  createMs?: Stats;
  scanMs?: Stats;
  ratio?: number;
}

/** scanContent from the scanner module, or why it cannot be used. */
async function loadScanner(): Promise<{ scan: (text: string) => unknown } | { reason: string }> {
  try {
    await fs.access(SCANNER_MODULE);
  } catch {
    return { reason: `${path.relative(REPO_ROOT, SCANNER_MODULE)} does not exist` };
  }
  try {
    const mod: unknown = await import(pathToFileURL(SCANNER_MODULE).href);
    const scan = (mod as { scanContent?: unknown }).scanContent;
    if (typeof scan !== 'function') return { reason: 'the scanner module exports no scanContent function' };
    return { scan: (text: string): unknown => (scan as (t: string) => unknown)(text) };
  } catch (err) {
    return { reason: `the scanner module could not be loaded: ${((err as Error)?.message ?? String(err)).split('\n')[0]}` };
  }
}

async function measureScanner(box: Sandbox): Promise<ScannerResult> {
  const note = makeScanNote();
  const noteBytes = Buffer.byteLength(note);
  // Cairn's create of the same note, measured whether or not the scanner exists (with the scanner
  // in place, create includes it).
  const create: number[] = [];
  for (let i = -WARMUP; i < ITERATIONS; i++) {
    const file = `/memories/global/scan/note-${i < 0 ? `w${-i}` : i}.md`;
    const t0 = performance.now();
    const r = await box.service.execute({ command: 'create', path: file, file_text: note }, box.session, EXEC);
    const ms = performance.now() - t0;
    if (!r.ok) return { available: false, reason: `Cairn refused to create the 10 KiB note: ${r.output}`, noteBytes };
    if (i >= 0) create.push(ms);
    const d = await box.service.execute({ command: 'delete', path: file }, box.session, EXEC);
    if (!d.ok) throw new Error(`could not delete ${file}: ${d.output}`);
  }
  const createMs = stats(create);
  const loaded = await loadScanner();
  if ('reason' in loaded) return { available: false, reason: loaded.reason, noteBytes, createMs };
  try {
    const scan: number[] = [];
    for (let i = -SCAN_WARMUP; i < SCAN_ITERATIONS; i++) {
      const t0 = performance.now();
      loaded.scan(note);
      const ms = performance.now() - t0;
      if (i >= 0) scan.push(ms);
    }
    const scanMs = stats(scan);
    return { available: true, noteBytes, scanMs, createMs, ratio: scanMs.median / createMs.median };
  } catch (err) {
    return { available: false, reason: `scanContent failed: ${(err as Error)?.message ?? String(err)}`, noteBytes, createMs };
  }
}

// ---- change feed ----
//
// Latency from a write finishing in process A to its event reaching a ChangeFeed subscriber in
// process B (this one), for a write by `cairn tool --jsonl` (through the journal) and for a plain
// fs write by another process (through the root watcher). Both ends read the wall clock: the
// subscriber stamps performance.timeOrigin + performance.now() on delivery; the writer's stamp is,
// for a journal write, the event's `at` (Date at the emit, just before the journal append; whole
// milliseconds, so a figure reads up to 1 ms high), and for an external edit the child's
// performance.timeOrigin + performance.now() printed right after writeFileSync returns. The floor
// is this process's own MemoryService reaching the same feed through onChange, measured the same
// way (so it is the method's resolution, not a cost). Each write waits for its event before the next.

const FEED_TIMEOUT_MS = 5_000;
/** A writer of plain files: one JSON {file, text} per stdin line, the wall time after each write on stdout. */
const EXTERNAL_WRITER = `
const fs = require('node:fs');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { file, text } = JSON.parse(line);
  fs.writeFileSync(file, text);
  process.stdout.write(String(performance.timeOrigin + performance.now()) + '\\n');
});
`;

type FeedStats = Stats;

function feedStats(samples: readonly number[]): FeedStats {
  if (samples.length === 0) throw new Error('change feed: no event arrived');
  return stats(samples);
}

interface ChangeFeedResult {
  writes: number;
  floorMs: FeedStats;
  journalMs: FeedStats;
  /** Journal writes, from the command sent to the child to the event, in this process's clock (includes running the command). */
  journalRequestMs: FeedStats;
  /** Edits of existing files (a few files in turn, each rewritten well after its last change). */
  externalMs: FeedStats;
  /** New files, one per write, in one directory that grows to ITERATIONS + WARMUP files. */
  externalCreateMs: FeedStats;
  /** Events beyond one per write (a Cairn write also reported as external, or one reported twice). */
  duplicates: number;
  /** Writes whose event did not arrive within FEED_TIMEOUT_MS, or arrived with the wrong origin or actor. */
  missed: number;
}

const wallNow = (): number => performance.timeOrigin + performance.now();

type Arrival = { t: number; event: MemoryChangeEvent; origin: ChangeOrigin };

/** The key of one change: its path and the sha256 of the content written. */
const changeKey = (p: string, sha256: string | null): string => `${p}\0${sha256 ?? ''}`;
const sha256Of = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Records when each change's events arrive, and how many. */
class Arrivals {
  private readonly first = new Map<string, Arrival>();
  private readonly waiting = new Map<string, () => void>();
  private readonly counts = new Map<string, number>();
  readonly listener = (event: MemoryChangeEvent, origin: ChangeOrigin): void => {
    const t = wallNow();
    const key = changeKey(event.path, event.sha256);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (!this.first.has(key)) this.first.set(key, { t, event, origin });
    this.waiting.get(key)?.();
  };

  async wait(key: string): Promise<Arrival | null> {
    if (!this.first.has(key)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FEED_TIMEOUT_MS);
        this.waiting.set(key, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiting.delete(key);
    }
    return this.first.get(key) ?? null;
  }

  duplicates(keys: readonly string[]): number {
    return keys.reduce((n, k) => n + Math.max(0, (this.counts.get(k) ?? 0) - 1), 0);
  }
}

/** The lines a child prints, one at a time. */
function lineQueue(stream: NodeJS.ReadableStream): () => Promise<string> {
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (d: string) => {
    const parts = (rest + d).split('\n');
    rest = parts.pop()!;
    for (const l of parts) {
      const w = waiters.shift();
      if (w) w(l);
      else lines.push(l);
    }
  });
  return () => (lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiters.push(resolve)));
}

async function measureChangeFeed(sandbox: () => Promise<Sandbox>): Promise<ChangeFeedResult> {
  let missed = 0;
  let duplicates = 0;

  // Floor: this process's MemoryService, through the feed's onChange source.
  const floor: number[] = [];
  {
    const box = await sandbox();
    const service = new MemoryService({ sink: new Journal(box.home) });
    const feed = new ChangeFeed({ home: box.home, service });
    let record = false;
    const stop = feed.subscribe((e) => {
      if (record) floor.push(wallNow() - Date.parse(e.at));
    });
    for (let i = -WARMUP; i < ITERATIONS; i++) {
      record = i >= 0;
      const r = await service.execute({ command: 'create', path: `/memories/global/floor/f${i + WARMUP}.md`, file_text: `floor ${i}\n` }, box.session, EXEC);
      if (!r.ok) throw new Error(`change feed floor: ${r.output}`);
    }
    stop();
    await feed.close();
  }

  // Journal: `cairn tool --jsonl` in a child process; the root is watched too, as a host does.
  const journal: number[] = [];
  const journalRequest: number[] = [];
  {
    const box = await sandbox();
    await fs.mkdir(box.roots.global, { recursive: true });
    const feed = new ChangeFeed({ home: box.home });
    const arrivals = new Arrivals();
    const stop = feed.subscribe(arrivals.listener);
    const unwatch = feed.watch(box.session);
    await feed.ready();
    const child = spawn(CAIRN_BIN, ['tool', '--jsonl', '--home', box.home, '--cwd', box.checkout], { stdio: ['pipe', 'pipe', 'pipe'] });
    const reply = lineQueue(child.stdout);
    const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const keys: string[] = [];
    try {
      for (let i = -WARMUP; i < ITERATIONS; i++) {
        const p = `/memories/global/feed/j${i + WARMUP}.md`;
        const text = `journal ${i}\n`;
        keys.push(changeKey(p, sha256Of(text)));
        const sent = wallNow();
        child.stdin.write(`${JSON.stringify({ command: 'create', path: p, file_text: text })}\n`);
        const [arrival, line] = await Promise.all([arrivals.wait(keys.at(-1)!), reply()]);
        const answer = JSON.parse(line) as { ok: boolean; output: string };
        if (!answer.ok) throw new Error(`change feed: cairn tool failed: ${answer.output}`);
        if (!arrival || arrival.origin !== 'journal' || arrival.event.actor !== 'agent') {
          missed++;
          continue;
        }
        if (i < 0) continue;
        journal.push(arrival.t - Date.parse(arrival.event.at));
        journalRequest.push(arrival.t - sent);
      }
    } finally {
      child.stdin.end();
      await closed;
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // late duplicates, if any
    duplicates += arrivals.duplicates(keys);
    stop();
    unwatch();
    await feed.close();
  }

  const externalEdit = await measureExternal(await sandbox(), 'edit');
  const externalCreate = await measureExternal(await sandbox(), 'create');
  missed += externalEdit.missed + externalCreate.missed;
  duplicates += externalEdit.duplicates + externalCreate.duplicates;

  return {
    writes: ITERATIONS,
    floorMs: feedStats(floor),
    journalMs: feedStats(journal),
    journalRequestMs: feedStats(journalRequest),
    externalMs: feedStats(externalEdit.samples),
    externalCreateMs: feedStats(externalCreate.samples),
    duplicates,
    missed,
  };
}

/**
 * Plain writes by a child node process into a watched root: `edit` rewrites 10 existing files in
 * turn, `create` writes a new file each time.
 */
async function measureExternal(box: Sandbox, kind: 'edit' | 'create'): Promise<{ samples: number[]; missed: number; duplicates: number }> {
  const dir = path.join(box.roots.global, 'ext');
  await fs.mkdir(dir, { recursive: true });
  const EDITED = 10;
  if (kind === 'edit') for (let f = 0; f < EDITED; f++) await fs.writeFile(path.join(dir, `e${f}.md`), `initial ${f}\n`);
  const feed = new ChangeFeed({ home: box.home });
  const arrivals = new Arrivals();
  const stop = feed.subscribe(arrivals.listener);
  const unwatch = feed.watch(box.session);
  await feed.ready();
  const child = spawn(process.execPath, ['-e', EXTERNAL_WRITER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const reply = lineQueue(child.stdout);
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const samples: number[] = [];
  const keys: string[] = [];
  let missed = 0;
  try {
    for (let i = -WARMUP; i < ITERATIONS; i++) {
      const name = kind === 'edit' ? `e${(i + WARMUP) % EDITED}.md` : `e${i + WARMUP}.md`;
      const text = `external ${kind} ${i}\n`;
      keys.push(changeKey(`/memories/global/ext/${name}`, sha256Of(text)));
      child.stdin.write(`${JSON.stringify({ file: path.join(dir, name), text })}\n`);
      const [arrival, line] = await Promise.all([arrivals.wait(keys.at(-1)!), reply()]);
      const op = kind === 'edit' ? 'update' : 'create';
      if (!arrival || arrival.origin !== 'external' || arrival.event.actor !== 'external' || arrival.event.op !== op) {
        missed++;
        continue;
      }
      if (i >= 0) samples.push(arrival.t - Number(line));
    }
  } finally {
    child.stdin.end();
    await closed;
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const duplicates = arrivals.duplicates(keys);
  stop();
  unwatch();
  await feed.close();
  return { samples, missed, duplicates };
}

// ---- targets and report ----

interface Target {
  id: string;
  description: string;
  value: number;
  limit: number;
  met: boolean;
  /** Absent: a ratio (x). 'rt': round trips. */
  unit?: 'ms' | 'rt';
}

function target(id: string, description: string, value: number, limit: number, unit?: 'ms'): Target {
  return { id, description, value: round(value), limit, met: value <= limit, ...(unit ? { unit } : {}) };
}

/** The prompt hook's targets, at the largest memory measured (3000 files in a full run). */
function contextScaleTargets(rows: readonly ContextScaleRow[]): Target[] {
  const r = rows.at(-1);
  if (!r) return [];
  const x = (s: { median: number }) => s.median / r.nodeFloorMs.median;
  return [
    target('context_hook_unchanged_vs_node', `The prompt hook (cairn context --format claude-hook) at ${r.files} files, nothing changed: median <= 2.5x node -e 0`, x(r.unchangedMs), 2.5),
    target('context_hook_one_change_vs_node', `The prompt hook at ${r.files} files, one file changed since the last call: median <= 3x node -e 0`, x(r.oneChangedMs), 3),
    target('context_hook_fresh_home', `The prompt hook at ${r.files} files, first call on a fresh home (no facts cache): median <= 1500 ms`, r.freshHomeMs.median, 1500, 'ms'),
    target('mcp_start_vs_node', `cairn mcp at ${r.files} files, spawn to the initialize answer with its instructions: median <= 2.5x node -e 0`, x(r.mcpStartMs), 2.5),
    target('context_hook_hosted_unchanged_vs_node', `The prompt hook at ${r.files} files answered by a running host (a cairn mcp session), nothing changed: median <= 2.5x node -e 0`, r.hostUnchangedMs.median / r.hostNodeFloorMs.median, 2.5),
    target('context_hook_hosted_one_change_vs_node', `The prompt hook at ${r.files} files answered by a running host, one file changed since the last call: median <= 3x node -e 0`, r.hostOneChangedMs.median / r.hostNodeFloorMs.median, 3),
  ];
}

/** Stats as the results file reports them (p95 only where a section adds it). */
type ReportedStats = Omit<Stats, 'p95'>;

function roundStats(s: Stats, digits: number): ReportedStats {
  return { n: s.n, median: round(s.median, digits), p99: round(s.p99, digits), mean: round(s.mean, digits), min: round(s.min, digits), max: round(s.max, digits) };
}

function feedReport(s: FeedStats): FeedStats {
  return { ...roundStats(s, 3), p95: round(s.p95, 3) };
}

function concurrencyReport(c: ConcurrencyResult): Omit<ConcurrencyResult, 'perInsertMs'> & { perInsertMs?: ReportedStats } {
  return {
    ...c,
    wallMs: round(c.wallMs, 1),
    insertsPerSecond: round(c.insertsPerSecond, 1),
    ...(c.perInsertMs ? { perInsertMs: roundStats(c.perInsertMs, 2) } : {}),
  };
}

function printTable(rows: readonly string[][], rightAligned: ReadonlySet<number>): void {
  process.stdout.write(`${table(rows, rightAligned)}\n`);
}

async function main(): Promise<number> {
  await requireBuiltCli();
  const t0 = performance.now();
  const temps: string[] = [];
  const sandboxes: Sandbox[] = [];
  const tempDir = async (prefix: string) => {
    const d = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
    temps.push(d);
    return d;
  };
  const sandbox = async () => {
    const s = await makeSandbox();
    sandboxes.push(s);
    return s;
  };
  try {
    process.stderr.write(`cairn bench: ${os.cpus().length} CPUs, node ${process.version}, note ${NOTE_BYTES.length} B, tmp ${os.tmpdir()}\n`);
    const cairnBox = await sandbox();
    const cairnDirBox = await sandbox();
    const cairn = await cairnSubject(cairnBox, cairnDirBox);
    const { subject: reference, tool: refTool } = await referenceSubject(await tempDir('cairn-bench-ref-'));
    const raw = await rawSubject(await tempDir('cairn-bench-raw-'));
    const subjects = [cairn, reference, raw];

    const warnings = await checkSameTexts(cairnBox, cairnDirBox, refTool);
    for (const w of warnings) process.stderr.write(`  warning: ${w}\n`);

    const samples = emptySamples();
    process.stderr.write(`latency: ${ITERATIONS} iterations (+${WARMUP} warm-up) of view/create/str_replace/insert/rename/delete\n`);
    await measureCommands(subjects, samples);
    process.stderr.write(`latency: ${DIR_ITERATIONS} iterations (+${DIR_WARMUP} warm-up) of a view of ${DIR_FILES} files\n`);
    await measureDirView(subjects, samples);
    const formatting = measureFormatting(2000);
    const latencyMs = performance.now() - t0;

    process.stderr.write(`concurrency: ${CONC_PROCESSES} processes x ${CONC_INSERTS} inserts into one file, Cairn CLI\n`);
    const concCairn = await concurrencyCairn(await sandbox());
    process.stderr.write(`concurrency: ${CONC_PROCESSES} processes x ${CONC_INSERTS} inserts into one file, reference\n`);
    const concRef = await concurrencyReference(await tempDir('cairn-bench-refconc-'));

    process.stderr.write(
      `context: index of ${SCOPES.length} scopes x ${CTX_FILES_PER_SCOPE} files (${CTX_COLD_RUNS} cold, ${CTX_WARM_RUNS} warm, ${CTX_NAIVE_RUNS} naive builds)\n`,
    );
    const ctxIndex = await measureContextIndex(await sandbox());
    if (!ctxIndex.sameAsNaive) warnings.push("context: the naive index (every file read whole) differs from Cairn's");
    process.stderr.write('scanner: scanContent of a 10 KiB note vs Cairn create of it\n');
    const scanner = await measureScanner(await sandbox());
    process.stderr.write(`change feed: ${ITERATIONS} writes (+${WARMUP} warm-up) each: in-process floor, cairn tool --jsonl in another process, plain writes by another process\n`);
    const feed = await measureChangeFeed(sandbox);
    if (feed.duplicates > 0) warnings.push(`change feed: ${feed.duplicates} write(s) were delivered more than once`);
    if (feed.missed > 0) warnings.push(`change feed: ${feed.missed} write(s) were not delivered within ${FEED_TIMEOUT_MS} ms, or with the wrong origin`);
    process.stderr.write('mcp: per-command latency through MCP stdio (Cairn, reference tool, server-memory), then 4 clients x 200 writes each\n');
    const mcp = await runMcpBench();
    for (const impl of ['cairn', 'reference', 'server-memory'] as const) {
      if (mcp.failures[impl] > 0) warnings.push(`mcp: ${impl} failed ${mcp.failures[impl]} call(s) in the latency run; first: ${mcp.firstFailure[impl]}`);
    }
    process.stderr.write('ssh: commands and a 1000-file index through SshRuntime (real sshd behind a latency proxy), next to one remote command per file\n');
    const ssh = await runSshBench();
    process.stderr.write('cli: cairn context --prompt and cairn tool, spawn to exit, next to node -e 0\n');
    const cli = await runCliBench();
    process.stderr.write('cli: the prompt hook (nothing changed, one file changed, fresh home) and cairn mcp to initialize, at 100, 1000 and 3000 files, next to node -e 0\n');
    const ctxScale = await runContextScaleBench();
    process.stderr.write('harvest: a 10 MB Claude Code transcript and a 10 MB Codex rollout, rules extractor, file to inbox\n');
    const harvest = await runHarvestBench();
    process.stderr.write('consolidation: a rules proposal (cairn consolidate) over 1000 files, then its apply\n');
    const consolidation = await runConsolidationBench();
    process.stderr.write('sync: 1000 files of global memory through a bare repository over file:// (first sync out, first sync in, nothing changed)\n');
    const sync = await runSyncBench();
    process.stderr.write('ui: first render of 3 x 1000 files in Chromium, then agent writes in another process -> "agent edited" painted\n');
    const ui = await runUiBench();
    if (ui.badge.missed > 0) warnings.push(`ui: ${ui.badge.missed} agent write(s) got no "agent edited" badge in the page`);
    // BENCH_BASE (make bench BASE=<rev>): the CLI's waits of this build beside that revision's, alternating.
    const base = process.env.BENCH_BASE;
    if (base) process.stderr.write(`compare: this build's CLI waits beside ${base}'s build, alternating\n`);
    const buildComparison = base ? await runBuildComparison(base) : null;

    // Figures.
    const results: Record<string, Partial<Record<Impl, Stats>>> = {};
    for (const op of OPS) {
      results[op] = {};
      for (const impl of IMPL_ORDER) {
        const s = samples[op][impl];
        if (s && s.length > 0) results[op][impl] = stats(s);
      }
    }
    const med = (op: Op, impl: Impl): number => {
      const s = results[op]?.[impl];
      if (!s) throw new Error(`no figures for ${op}/${impl}`);
      return s.median;
    };
    const targets: Target[] = [
      // The guards for the write path in process.
      target('create_vs_raw', 'Cairn create median <= 1.3x write-file-atomic of the same bytes', med('create', 'cairn') / med('create', 'raw'), 1.3),
      target('str_replace_vs_raw', 'Cairn str_replace median <= 1.3x write-file-atomic of the same bytes', med('str_replace', 'cairn') / med('str_replace', 'raw'), 1.3),
      target('view_file_vs_raw_fmt', 'Cairn view (file) median <= 1.5x (raw readFile + line-number formatting)', med('view_file', 'cairn') / med('view_file', 'raw+fmt'), 1.5),
      target('view_file_vs_reference', 'Cairn view (file) median no slower than the reference', med('view_file', 'cairn') / med('view_file', 'reference'), 1.0),
      target('view_dir_vs_reference', 'Cairn view (1000-file dir) median no slower than the reference', med('view_dir', 'cairn') / med('view_dir', 'reference'), 1.0),
      { id: 'concurrency_no_lost_updates', description: 'Cairn loses no update: 8 processes x 200 inserts into one file', value: concCairn.lostUpdates, limit: 0, met: concCairn.lostUpdates === 0 && concCairn.failed === 0 },
      target('context_index_warm', 'Index of 3 scopes x 1000 files, warm (unchanged tree, same builder): median <= 5 ms', ctxIndex.warmMs.median, 5, 'ms'),
      target('context_index_cold', 'Index of 3 scopes x 1000 files, cold (fresh builder): median <= 60 ms', ctxIndex.coldMs.median, 60, 'ms'),
      target('context_index_cold_cached', 'Index of 3 scopes x 1000 files, cold over the facts cache (fresh builder and runtime, as a new process): median <= 60 ms', ctxIndex.cachedColdMs.median, 60, 'ms'),
      ...(scanner.ratio !== undefined ? [target('scanner_vs_create', 'scanContent of a 10 KiB note < 10% of Cairn create of it (medians)', scanner.ratio, 0.1)] : []),
      target('change_feed_journal_p95', 'Change feed: a `cairn tool` write in another process reaches a subscriber, p95 < 100 ms', feed.journalMs.p95, 100, 'ms'),
      target('change_feed_external_p95', 'Change feed: a plain edit by another process of a file in a watched root reaches a subscriber, p95 < 100 ms', feed.externalMs.p95, 100, 'ms'),
      target('change_feed_external_create_p95', `Change feed: a new file written by another process (directory of ${ITERATIONS + WARMUP}) reaches a subscriber, p95 < 100 ms`, feed.externalCreateMs.p95, 100, 'ms'),
      ...mcp.targets,
      ...ssh.targets,
      ...ui.targets,
      ...harvest.targets,
      ...consolidation.targets,
      ...sync.targets,
      ...contextScaleTargets(ctxScale),
      ...contextTargets(ctxScale),
      target('harvest_hook_p95', "Claude Code's harvest hook (cairn harvest --hook) spawn to exit, harvest off, p95 <= 150 ms", cli.harvestHookMs.p95, 150, 'ms'),
      target('harvest_hook_on_p95', "Claude Code's harvest hook with harvest on (queues the session, starts the worker) spawn to exit, p95 <= 150 ms", cli.harvestHookOnMs.p95, 150, 'ms'),
    ];
    const targetsOf = (op: Op): Target[] =>
      targets.filter((t) => t.id.startsWith(`${op}_`) || (op === 'view_file' && t.id.startsWith('view_file')) || (op === 'view_dir' && t.id.startsWith('view_dir')));

    // Latency table.
    const labels: Record<Op, string> = {
      view_file: 'view (file, 2 KiB)',
      view_dir: `view (dir, ${DIR_FILES} files)`,
      create: 'create (2 KiB)',
      str_replace: 'str_replace',
      insert: 'insert',
      rename: 'rename',
      delete: 'delete',
    };
    const implLabel: Record<Impl, string> = {
      cairn: 'cairn',
      reference: 'reference',
      raw: 'raw',
      'raw+fmt': 'raw+format',
    };
    const rawNote: Record<Op, string> = {
      view_file: 'readFile',
      view_dir: 'readdir+stat',
      create: 'write-file-atomic',
      str_replace: 'write-file-atomic',
      insert: 'write-file-atomic',
      rename: 'fs.rename',
      delete: 'fs.rm',
    };
    const rows: string[][] = [['operation', 'impl', 'median ms', 'p99 ms', 'x raw', 'x ref', 'target', 'met?']];
    for (const op of OPS) {
      for (const impl of IMPL_ORDER) {
        const s = results[op]?.[impl];
        if (!s) continue;
        const vsRaw = s.median / med(op, 'raw');
        const vsRef = s.median / med(op, 'reference');
        const ts = impl === 'cairn' ? targetsOf(op) : [];
        rows.push([
          impl === 'cairn' ? labels[op] : '',
          impl === 'raw' ? `raw (${rawNote[op]})` : implLabel[impl],
          s.median.toFixed(3),
          s.p99.toFixed(3),
          impl === 'raw' ? '1.00' : vsRaw.toFixed(2),
          impl === 'reference' ? '1.00' : vsRef.toFixed(2),
          ts.map((t) => `<=${t.limit}x ${t.id.endsWith('reference') ? 'ref' : t.id.endsWith('raw_fmt') ? 'raw+fmt' : 'raw'} (${t.value.toFixed(2)})`).join('; '),
          ts.length === 0 ? '' : ts.every((t) => t.met) ? 'met' : ts.some((t) => t.met) ? `MISSED ${ts.filter((t) => !t.met).length}/${ts.length}` : 'MISSED',
        ]);
      }
    }
    process.stdout.write(`\nLatency (${ITERATIONS} iterations, ${DIR_ITERATIONS} for the directory view; ms)\n`);
    printTable(rows, new Set([2, 3, 4, 5]));
    process.stdout.write(`formatting alone (fileViewText of the 2 KiB note, in process): median ${formatting.median.toFixed(4)} ms, p99 ${formatting.p99.toFixed(4)} ms\n`);

    process.stdout.write(`\nConcurrency (${CONC_PROCESSES} processes x ${CONC_INSERTS} inserts at line 0 of one file, process start-up included)\n`);
    const crow = (name: string, c: ConcurrencyResult): string[] => [
      name,
      (c.wallMs / 1000).toFixed(2),
      c.insertsPerSecond.toFixed(0),
      String(c.succeeded),
      String(c.failed),
      String(c.presentLines),
      String(c.lostUpdates),
      c.perInsertMs ? `${c.perInsertMs.median.toFixed(1)} / ${c.perInsertMs.p99.toFixed(1)}` : '-',
    ];
    printTable(
      [['impl', 'wall s', 'inserts/s', 'ok', 'failed', 'lines present', 'lost updates', 'insert median/p99 ms'], crow('cairn (CLI --jsonl)', concCairn), crow('reference', concRef)],
      new Set([1, 2, 3, 4, 5, 6, 7]),
    );
    if (concCairn.firstError) process.stdout.write(`cairn first error: ${concCairn.firstError}\n`);
    if (concRef.firstError) process.stdout.write(`reference first error: ${concRef.firstError}\n`);

    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    process.stdout.write(
      `\nContext: index of ${SCOPES.length} scopes x ${CTX_FILES_PER_SCOPE} files (${ctxIndex.files} files, ${kib(ctxIndex.bytes)}; index ${kib(ctxIndex.indexBytes)})\n`,
    );
    const ctxTarget = (id: string) => {
      const t = targets.find((x) => x.id === id)!;
      return [`<=${t.limit} ms`, t.met ? 'met' : 'MISSED'];
    };
    printTable(
      [
        ['build', 'median ms', 'p99 ms', 'runs', 'x warm', 'target', 'met?'],
        ['cold (fresh ContextBuilder)', ctxIndex.coldMs.median.toFixed(2), ctxIndex.coldMs.p99.toFixed(2), String(ctxIndex.coldMs.n), (ctxIndex.coldMs.median / ctxIndex.warmMs.median).toFixed(1), ...ctxTarget('context_index_cold')],
        ['  first build in the process', ctxIndex.firstColdMs.toFixed(2), '-', '1', (ctxIndex.firstColdMs / ctxIndex.warmMs.median).toFixed(1), '', ''],
        ['cold over the facts cache (a new process)', ctxIndex.cachedColdMs.median.toFixed(2), ctxIndex.cachedColdMs.p99.toFixed(2), String(ctxIndex.cachedColdMs.n), (ctxIndex.cachedColdMs.median / ctxIndex.warmMs.median).toFixed(1), ...ctxTarget('context_index_cold_cached')],
        ['warm (unchanged tree)', ctxIndex.warmMs.median.toFixed(2), ctxIndex.warmMs.p99.toFixed(2), String(ctxIndex.warmMs.n), '1.0', ...ctxTarget('context_index_warm')],
        ['naive (readFile every file)', ctxIndex.naiveMs.median.toFixed(2), ctxIndex.naiveMs.p99.toFixed(2), String(ctxIndex.naiveMs.n), (ctxIndex.naiveMs.median / ctxIndex.warmMs.median).toFixed(1), '', ''],
      ],
      new Set([1, 2, 3, 4]),
    );
    const wb = ctxIndex.warmBreakdownMs;
    process.stdout.write(
      `warm breakdown (medians, each part alone): list+stat ${wb.listAndStat.toFixed(2)} ms, usage read ${wb.usageRead.toFixed(2)} ms, index render ${wb.indexRender.toFixed(2)} ms, other (cache lookups, identities) ${wb.other.toFixed(2)} ms\n`,
    );
    if (scanner.available && scanner.scanMs && scanner.createMs && scanner.ratio !== undefined) {
      process.stdout.write(
        `scanner: scanContent of a ${kib(scanner.noteBytes)} note median ${scanner.scanMs.median.toFixed(4)} ms (p99 ${scanner.scanMs.p99.toFixed(4)}), Cairn create of it median ${scanner.createMs.median.toFixed(3)} ms: ${(scanner.ratio * 100).toFixed(1)}% (target < 10%)\n`,
      );
    } else {
      const create = scanner.createMs ? `; Cairn create of a ${kib(scanner.noteBytes)} note: median ${scanner.createMs.median.toFixed(3)} ms` : '';
      process.stdout.write(`scanner: not available (${scanner.reason ?? 'unknown reason'})${create}\n`);
    }

    process.stdout.write(`\nChange feed (write done in process A -> event in a subscriber in this process; ${feed.writes} writes each; ms, wall clock)\n`);
    const feedTarget = (id: string) => {
      const t = targets.find((x) => x.id === id)!;
      return [`p95 <${t.limit} ms`, t.met ? 'met' : 'MISSED'];
    };
    const frow = (name: string, s: FeedStats, t: string[]) => [name, s.median.toFixed(2), s.p95.toFixed(2), s.p99.toFixed(2), s.max.toFixed(2), ...t];
    printTable(
      [
        ['source', 'p50', 'p95', 'p99', 'max', 'target', 'met?'],
        frow('in-process MemoryService.onChange (floor)', feed.floorMs, ['', '']),
        frow('journal (cairn tool --jsonl, another process)', feed.journalMs, feedTarget('change_feed_journal_p95')),
        frow('  same, command sent -> event (one clock)', feed.journalRequestMs, ['', '']),
        frow('external edit (plain write, another process)', feed.externalMs, feedTarget('change_feed_external_p95')),
        frow(`external create (new file; dir grows to ${ITERATIONS + WARMUP})`, feed.externalCreateMs, feedTarget('change_feed_external_create_p95')),
      ],
      new Set([1, 2, 3, 4]),
    );
    process.stdout.write(
      `duplicates ${feed.duplicates}, missed ${feed.missed}; the floor and journal rows use the event's \`at\` (whole ms: up to 1 ms high); external edits include the watcher's 50 ms debounce\n`,
    );

    process.stdout.write(formatMcpBench(mcp));
    process.stdout.write(formatSshBench(ssh));
    process.stdout.write(formatCliBench(cli));
    process.stdout.write(formatContextScaleBench(ctxScale, envInt('BENCH_CLI_RUNS', 15)));
    process.stdout.write(formatHarvestBench(harvest));
    process.stdout.write(formatConsolidationBench(consolidation));
    process.stdout.write(formatSyncBench(sync));
    process.stdout.write(formatUiBench(ui));
    if (buildComparison) process.stdout.write(formatBuildComparison(buildComparison));

    process.stdout.write('\nTargets\n');
    for (const t of targets) {
      const shown =
        t.id === 'concurrency_no_lost_updates' || t.id === 'mcp_concurrency_no_lost_writes' ? `${t.value} lost` : t.id === 'consolidation_no_writes_before_apply' ? `${t.value} write(s)` : t.unit === 'rt' ? `${t.value} round trip(s) (limit ${t.limit})` : t.unit === 'ms' ? `${t.value.toFixed(3)} ms (limit ${t.limit} ms)` : `${t.value.toFixed(3)}x (limit ${t.limit}x)`;
      process.stdout.write(`  [${t.met ? 'met   ' : 'MISSED'}] ${t.description}: ${shown}\n`);
    }
    for (const w of warnings) process.stdout.write(`  warning: ${w}\n`);

    const totalMs = performance.now() - t0;
    process.stdout.write(`\nbench took ${(totalMs / 1000).toFixed(1)} s (latency phase ${(latencyMs / 1000).toFixed(1)} s)\n`);

    const cpus = os.cpus();
    const report = {
      date: new Date().toISOString(),
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model ?? null,
        node: process.version,
        platform: os.platform(),
        release: os.release(),
        arch: os.arch(),
        totalMemBytes: os.totalmem(),
        tmpdir: os.tmpdir(),
      },
      parameters: {
        iterations: ITERATIONS,
        warmup: WARMUP,
        dirIterations: DIR_ITERATIONS,
        dirWarmup: DIR_WARMUP,
        dirFiles: DIR_FILES,
        noteBytes: NOTE_BYTES.length,
        concurrency: { processes: CONC_PROCESSES, insertsPerProcess: CONC_INSERTS, insertLine: 0 },
        baselines: rawNote,
        percentile: 'nearest rank',
      },
      latencyMs: Object.fromEntries(
        OPS.map((op) => [
          op,
          Object.fromEntries(
            Object.entries(results[op] ?? {}).map(([impl, s]) => [
              impl,
              {
                ...roundStats(s, 4),
                ratioVsRaw: round(s.median / med(op, 'raw')),
                ratioVsReference: round(s.median / med(op, 'reference')),
              },
            ]),
          ),
        ]),
      ),
      formattingMs: roundStats(formatting, 5),
      concurrency: { cairn: concurrencyReport(concCairn), reference: concurrencyReport(concRef) },
      context: {
        index: {
          scopes: SCOPES.length,
          filesPerScope: CTX_FILES_PER_SCOPE,
          files: ctxIndex.files,
          bytes: ctxIndex.bytes,
          indexBytes: ctxIndex.indexBytes,
          firstColdMs: round(ctxIndex.firstColdMs, 2),
          coldMs: roundStats(ctxIndex.coldMs, 3),
          cachedColdMs: roundStats(ctxIndex.cachedColdMs, 3),
          warmMs: roundStats(ctxIndex.warmMs, 3),
          naiveMs: roundStats(ctxIndex.naiveMs, 3),
          warmBreakdownMs: Object.fromEntries(Object.entries(ctxIndex.warmBreakdownMs).map(([k, v]) => [k, round(v, 3)])),
          naive: 'recursive readdir, fs.promises.readFile of every file, extractDescription, renderIndex',
        },
      },
      scanner:
        scanner.available && scanner.scanMs && scanner.createMs && scanner.ratio !== undefined
          ? { available: true, noteBytes: scanner.noteBytes, scanMs: roundStats(scanner.scanMs, 5), createMs: roundStats(scanner.createMs, 4), ratio: round(scanner.ratio, 4) }
          : { available: false, noteBytes: scanner.noteBytes, reason: scanner.reason ?? null, ...(scanner.createMs ? { createMs: roundStats(scanner.createMs, 4) } : {}) },
      changeFeed: {
        writes: feed.writes,
        method:
          'wall clock at both ends: the subscriber stamps performance.timeOrigin + performance.now() on delivery; the writer stamp is the event `at` (ms resolution) for the floor and journal rows, and the child process performance.timeOrigin + performance.now() after writeFileSync for external edits; journalRequestMs is command sent -> event in this process clock',
        floorMs: feedReport(feed.floorMs),
        journalMs: feedReport(feed.journalMs),
        journalRequestMs: feedReport(feed.journalRequestMs),
        externalMs: feedReport(feed.externalMs),
        externalCreateMs: feedReport(feed.externalCreateMs),
        duplicates: feed.duplicates,
        missed: feed.missed,
      },
      mcp: {
        method:
          'official MCP client over stdio to each server process; callTool -> result; servers take turns in a rotating order each iteration; server-memory runs a mapped workload (see mapping)',
        iterations: mcp.iterations,
        warmup: mcp.warmup,
        seedFiles: mcp.seedFiles,
        noteBytes: mcp.noteBytes,
        mapping: MCP_MAPPING,
        latencyMs: mcp.latencyMs,
        concurrency: mcp.concurrency,
        failures: mcp.failures,
        httpLatencyMs: mcp.httpLatencyMs,
        fsyncMs: mcp.fsyncMs,
        newFileFsyncMs: mcp.newFileFsyncMs,
        durationSeconds: mcp.durationSeconds,
      },
      ui: (({ targets: _targets, ...rest }) => rest)(ui),
      ssh,
      cli,
      contextScale: ctxScale,
      harvest: (({ targets: _targets, ...rest }) => rest)(harvest),
      consolidation: (({ targets: _targets, ...rest }) => rest)(consolidation),
      sync: (({ targets: _targets, ...rest }) => rest)(sync),
      ...(buildComparison ? { buildComparison } : {}),
      targets,
      warnings,
      durationSeconds: round(totalMs / 1000, 1),
    };
    await fs.mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    await fs.writeFile(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);

    if (mcp.concurrency.cairn.lost > 0 || mcp.concurrency.cairn.failed > 0 || mcp.failures.cairn > 0) {
      process.stderr.write(`cairn bench: through MCP, Cairn lost ${mcp.concurrency.cairn.lost} write(s) and failed ${mcp.concurrency.cairn.failed + mcp.failures.cairn} call(s)\n`);
      return 1;
    }
    if (concCairn.lostUpdates > 0 || concCairn.failed > 0) {
      process.stderr.write(`cairn bench: Cairn lost ${concCairn.lostUpdates} update(s) and failed ${concCairn.failed} insert(s) in the concurrency run\n`);
      return 1;
    }
    return 0;
  } finally {
    await Promise.all([...sandboxes.map((s) => s.cleanup()), ...temps.map((d) => fs.rm(d, { recursive: true, force: true }))]);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cairn bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
