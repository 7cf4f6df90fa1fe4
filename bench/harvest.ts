/**
 * The harvest section of `make bench`: how long a harvest of a 10 MB transcript takes
 * with the offline `rules` extractor, reading the file to the inbox (target: at most 2 s), for a
 * Claude Code transcript and a Codex rollout built from the anonymised fixtures, next to the floor
 * any reader pays: reading the file and JSON.parse of every line. Each run harvests into a fresh
 * home, so the whole transcript is a new segment every time.
 *
 * BENCH_HARVEST_RUNS (default 5) sets the runs per format.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { harvestTranscript } from '../src/main/harvest/harvest-run';
import { InboxStore } from '../src/main/inbox/inbox-store';
import { readTranscriptFile } from '../src/main/harvest/read-transcript';
import { extractByRules } from '../src/main/harvest/rules-extractor';
import { REPO_ROOT } from '../tests/support/sandbox';
import { envInt, sampleStats, table } from './common';

const TARGET_BYTES = 10 * 1024 * 1024;
const LIMIT_MS = 2000;
const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts');

export interface HarvestFormatResult {
  bytes: number;
  messages: number;
  proposed: number;
  floorMs: { median: number; p95: number };
  harvestMs: { median: number; p95: number };
}

export interface HarvestBenchResult {
  runs: number;
  claude: HarvestFormatResult;
  codex: HarvestFormatResult;
  targets: Array<{ id: string; description: string; value: number; limit: number; met: boolean; unit: 'ms' }>;
}

/** A transcript of about 10 MB: the fixture's lines again and again, each copy's ids made unique. */
function bigTranscript(fixture: string, dir: string, name: string): string {
  const lines = fs.readFileSync(fixture, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const out: string[] = [];
  let bytes = 0;
  for (let copy = 0; bytes < TARGET_BYTES; copy++) {
    for (const line of lines) {
      // A uuid's last group, and Codex's timestamps, differ per copy: every line stays its own message.
      const text = line.replace(/-([0-9a-f]{12})"/g, (_m, g: string) => `-${(copy % 0x1000).toString(16).padStart(3, '0')}${g.slice(3)}"`).replace(/"timestamp":"(\d{4})-/g, `"timestamp":"${2000 + (copy % 50)}-`);
      out.push(text);
      bytes += text.length + 1;
    }
  }
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${out.join('\n')}\n`);
  return file;
}

function parseFloor(file: string): number {
  const t0 = performance.now();
  const text = fs.readFileSync(file, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      JSON.parse(line);
      n++;
    } catch {
      // not counted
    }
  }
  if (n === 0) throw new Error('no line parsed');
  return performance.now() - t0;
}

async function measure(file: string, runs: number, temp: string): Promise<HarvestFormatResult> {
  const floor: number[] = [];
  const harvest: number[] = [];
  let messages = 0;
  let proposed = 0;
  for (let r = 0; r < runs + 1; r++) {
    const f = parseFloor(file);
    const home = fs.mkdtempSync(path.join(temp, 'home-'));
    const t0 = performance.now();
    const transcript = await readTranscriptFile(file);
    const summary = await harvestTranscript({
      home,
      transcript,
      extractor: { name: 'rules', extract: async (segment) => extractByRules(segment) },
      inbox: new InboxStore(home),
      workspaceId: null,
      projectId: null,
      memoryLines: [],
    });
    const ms = performance.now() - t0;
    fs.rmSync(home, { recursive: true, force: true });
    if (r === 0) continue; // warm-up: the page cache and the JIT
    floor.push(f);
    harvest.push(ms);
    messages = transcript.messages.length;
    proposed = summary.proposed.length;
  }
  const s = (v: number[]) => {
    const st = sampleStats(v);
    return { median: Math.round(st.median * 10) / 10, p95: Math.round(st.p95 * 10) / 10 };
  };
  return { bytes: fs.statSync(file).size, messages, proposed, floorMs: s(floor), harvestMs: s(harvest) };
}

export async function runHarvestBench(): Promise<HarvestBenchResult> {
  const runs = Math.max(1, envInt('BENCH_HARVEST_RUNS', 5));
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-harvest-'));
  try {
    const claude = await measure(bigTranscript(path.join(FIXTURES, 'claude', 'sidechain-hooks.jsonl'), temp, 'claude-10mb.jsonl'), runs, temp);
    const codex = await measure(bigTranscript(path.join(FIXTURES, 'codex', 'rollout-2025-11-20T15-02-11-019a8c3e-1f52-7d40-a6b2-3c4d5e6f7a82.jsonl'), temp, 'rollout-10mb.jsonl'), runs, temp);
    const target = (id: string, what: string, value: number) => ({ id, description: `Harvest of a 10 MB ${what} with the rules extractor, file to inbox: median <= ${LIMIT_MS} ms`, value, limit: LIMIT_MS, met: value <= LIMIT_MS, unit: 'ms' as const });
    return {
      runs,
      claude,
      codex,
      targets: [target('harvest_10mb_claude', 'Claude Code transcript', claude.harvestMs.median), target('harvest_10mb_codex', 'Codex rollout', codex.harvestMs.median)],
    };
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

export function formatHarvestBench(r: HarvestBenchResult): string {
  const row = (what: string, f: HarvestFormatResult) => [what, (f.bytes / 1024 / 1024).toFixed(1), String(f.messages), String(f.proposed), f.floorMs.median.toFixed(1), f.harvestMs.median.toFixed(1), f.harvestMs.p95.toFixed(1), (f.harvestMs.median / f.floorMs.median).toFixed(2)];
  return `\nHarvest of a 10 MB transcript, rules extractor, file to inbox (${r.runs} runs each, fresh home; ms; floor: read + JSON.parse of every line)\n${table(
    [['transcript', 'MiB', 'messages', 'proposed', 'floor', 'median', 'p95', 'x floor'], row('Claude Code', r.claude), row('Codex', r.codex)],
    new Set([1, 2, 3, 4, 5, 6, 7]),
  )}\n`;
}
