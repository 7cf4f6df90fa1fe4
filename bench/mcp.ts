/**
 * The MCP section of `make bench`: what an agent feels through MCP stdio, for three servers driven
 * by the official MCP client (@modelcontextprotocol/sdk Client + StdioClientTransport):
 *   cairn          `node out/main/cli.js mcp` (the built CLI), in a sandbox home and checkout;
 *   reference      the protocol's reference tool (BetaLocalFilesystemMemoryTool) behind the minimal
 *                  MCP stdio server of bench/ref-memory-mcp.mjs (same commands, same flat input);
 *   server-memory  @modelcontextprotocol/server-memory, the reference MCP memory server: a
 *                  knowledge graph in one JSONL file, so the workload is mapped (see MAPPING):
 *                  create -> create_entities (the 2 KiB note as one observation), view (file) ->
 *                  open_nodes, insert -> add_observations, delete -> delete_entities, view (dir)
 *                  -> read_graph, search -> search_nodes; str_replace and rename have no
 *                  counterpart and are left blank.
 * Part 1, latency: per command, one client per server, the servers taking turns in a rotating
 * order each iteration, every call timed from callTool to its result (stdio round trip included).
 * Part 1b: Cairn's same workload over Streamable HTTP (`cairn serve`'s /mcp, its own process), alone,
 * to show what the HTTP transport costs next to stdio.
 * Part 2, lost writes: 4 clients (4 server processes on the same storage) x 200 writes each, all at
 * once: inserts at line 0 of one shared file (cairn, reference) or creates of distinct entities in
 * one graph (server-memory); then every expected line or entity is looked for.
 *
 * Run alone with `npx tsx bench/mcp.ts` (after `make build`); bench/run.ts runs it as a section.
 * BENCH_MCP_ITERATIONS (default 200) and BENCH_MCP_WARMUP (default 20) size part 1.
 */
import { performance } from 'node:perf_hooks';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { BUILT_CLI, REPO_ROOT, makeSandbox, requireBuiltCli, type Sandbox } from '../tests/support/sandbox';
import { envInt, sampleStats, table, settleWrites } from './common';

export const MCP_OPS = ['view_file', 'view_dir', 'create', 'str_replace', 'insert', 'rename', 'delete', 'search'] as const;
export type McpOp = (typeof MCP_OPS)[number];
export const MCP_IMPLS = ['cairn', 'reference', 'server-memory'] as const;
export type McpImpl = (typeof MCP_IMPLS)[number];

/** What each operation is for each server (null: no counterpart). */
export const MAPPING: Record<McpImpl, Record<McpOp, string | null>> = {
  cairn: {
    view_file: 'memory view (file)',
    view_dir: 'memory view (dir)',
    create: 'memory create',
    str_replace: 'memory str_replace',
    insert: 'memory insert',
    rename: 'memory rename',
    delete: 'memory delete',
    search: 'memory_search',
  },
  reference: {
    view_file: 'memory view (file)',
    view_dir: 'memory view (dir)',
    create: 'memory create',
    str_replace: 'memory str_replace',
    insert: 'memory insert',
    rename: 'memory rename',
    delete: 'memory delete',
    search: null,
  },
  'server-memory': {
    view_file: 'open_nodes',
    view_dir: 'read_graph',
    create: 'create_entities',
    str_replace: null,
    insert: 'add_observations',
    rename: null,
    delete: 'delete_entities',
    search: 'search_nodes',
  },
};

export interface McpStats {
  n: number;
  median: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

export interface McpConcurrency {
  clients: number;
  writesPerClient: number;
  what: string;
  ok: number;
  failed: number;
  present: number;
  lost: number;
  wallMs: number;
  firstError: string | null;
}

export interface McpTarget {
  id: string;
  description: string;
  value: number;
  limit: number;
  met: boolean;
}

export interface McpBenchResult {
  iterations: number;
  warmup: number;
  seedFiles: number;
  noteBytes: number;
  latencyMs: Record<McpImpl, Partial<Record<McpOp, McpStats>>>;
  concurrency: Record<McpImpl, McpConcurrency>;
  targets: McpTarget[];
  /** Failed calls in part 1 (any is a broken bench or server). */
  failures: Record<McpImpl, number>;
  firstFailure: Record<McpImpl, string | null>;
  /** Cairn over Streamable HTTP (`cairn serve` /mcp): the same workload, alone. */
  httpLatencyMs: Partial<Record<McpOp, McpStats>>;
  /** Median fsync of a 2 KiB file in the temp dir, sampled around part 1: what one durable write costs here. */
  fsyncMs: number;
  /** The same for a new file (as Cairn's temp file is): its fsync also commits the new inode and name. */
  newFileFsyncMs: number;
  durationSeconds: number;
}

const SEED = 20;
const CONC_CLIENTS = 4;
const CONC_WRITES = 200;
const REF_SERVER = path.join(REPO_ROOT, 'bench', 'ref-memory-mcp.mjs');
const SERVER_MEMORY = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');


/** A ~2 KiB markdown note with one `status: draft` line (the str_replace target). */
function makeNote(): string {
  const lines = ['# Project notes', '', 'status: draft', '', '## Conventions', ''];
  for (let i = 1; lines.join('\n').length < 2000; i++) lines.push(`- note ${String(i).padStart(2, '0')}: builds use electron-vite, tests run under vitest.`);
  return `${lines.join('\n')}\n`;
}
const NOTE = makeNote();

function statsOf(samples: readonly number[]): McpStats {
  const { n, median, p95, p99, min, max } = sampleStats(samples);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { n, median: r(median), p95: r(p95), p99: r(p99), min: r(min), max: r(max) };
}

/**
 * Median time of fsync after writing a 2 KiB file in `dir` (Cairn's writes wait for one; the
 * references' never do): rewriting one file in place, or (`fresh`) writing a new file each time,
 * as Cairn's temp files are, renamed over a name afterwards.
 */
function fsyncMedian(dir: string, fresh = false, samples = 40): number {
  const file = path.join(dir, 'fsync-probe');
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const temp = `${file}.${i}`;
    const fd = fsSync.openSync(fresh ? temp : file, fresh ? 'wx' : 'w');
    fsSync.writeSync(fd, NOTE);
    const t0 = performance.now();
    fsSync.fsyncSync(fd);
    ms.push(performance.now() - t0);
    fsSync.closeSync(fd);
    if (fresh) fsSync.renameSync(temp, file);
  }
  fsSync.rmSync(file, { force: true });
  return statsOf(ms).median;
}

async function connect(command: string, args: string[], env: Record<string, string> = {}): Promise<Client> {
  const transport = new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'cairn-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const textOf = (r: CallResult) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

/** One server under test: how it does each operation for iteration key `k` (null: no counterpart). */
interface Driver {
  readonly impl: McpImpl;
  readonly client: Client;
  readonly ops: Partial<Record<McpOp, (k: string) => Promise<CallResult>>>;
}

function memoryToolDriver(impl: 'cairn' | 'reference', client: Client, dir: string): Driver {
  const call = (args: Record<string, unknown>) => client.callTool({ name: 'memory', arguments: args });
  const p = (k: string) => `${dir}/n-${k}.md`;
  return {
    impl,
    client,
    ops: {
      create: (k) => call({ command: 'create', path: p(k), file_text: NOTE }),
      view_file: (k) => call({ command: 'view', path: p(k) }),
      str_replace: (k) => call({ command: 'str_replace', path: p(k), old_str: 'status: draft', new_str: `status: final ${k}` }),
      insert: (k) => call({ command: 'insert', path: p(k), insert_line: 0, insert_text: `inserted ${k}` }),
      view_dir: () => call({ command: 'view', path: dir }),
      rename: (k) => call({ command: 'rename', old_path: p(k), new_path: `${dir}/r-${k}.md` }),
      delete: (k) => call({ command: 'delete', path: `${dir}/r-${k}.md` }),
      ...(impl === 'cairn' ? { search: () => client.callTool({ name: 'memory_search', arguments: { query: 'electron vite seed 7' } }) } : {}),
    },
  };
}

function graphDriver(client: Client): Driver {
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const name = (k: string) => `note-${k}`;
  return {
    impl: 'server-memory',
    client,
    ops: {
      create: (k) => call('create_entities', { entities: [{ name: name(k), entityType: 'note', observations: [NOTE] }] }),
      view_file: (k) => call('open_nodes', { names: [name(k)] }),
      insert: (k) => call('add_observations', { observations: [{ entityName: name(k), contents: [`inserted ${k}`] }] }),
      view_dir: () => call('read_graph', {}),
      delete: (k) => call('delete_entities', { entityNames: [name(k)] }),
      search: () => call('search_nodes', { query: 'seed 7' }),
    },
  };
}

/** The order the operations run in within one iteration (each needs the file the previous left). */
const SEQUENCE: readonly McpOp[] = ['create', 'view_file', 'str_replace', 'insert', 'view_dir', 'search', 'rename', 'delete'];

interface Servers {
  drivers: Driver[];
  close(): Promise<void>;
}

async function startServers(box: Sandbox, refBase: string, graphFile: string): Promise<Servers> {
  const cairn = await connect(process.execPath, [BUILT_CLI, 'mcp', '--home', box.home, '--cwd', box.checkout]);
  const ref = await connect(process.execPath, [REF_SERVER, refBase]);
  const graph = await connect(process.execPath, [SERVER_MEMORY], { MEMORY_FILE_PATH: graphFile });
  const drivers = [memoryToolDriver('cairn', cairn, '/memories/project/bench'), memoryToolDriver('reference', ref, '/memories/bench'), graphDriver(graph)];
  // The same seed for all: SEED notes beside the ones the iterations create and delete.
  for (let i = 0; i < SEED; i++) {
    for (const d of drivers) {
      const r = await d.ops.create!(`seed-${i}`);
      if (r.isError) throw new Error(`${d.impl}: seeding failed: ${textOf(r)}`);
    }
  }
  await settleWrites();
  return { drivers, close: async () => void (await Promise.all(drivers.map((d) => d.client.close().catch(() => {})))) };
}

async function measureLatency(drivers: readonly Driver[], iterations: number, warmup: number, failures: Record<McpImpl, number>, firstFailure: Record<McpImpl, string | null>) {
  const samples: Record<McpImpl, Partial<Record<McpOp, number[]>>> = { cairn: {}, reference: {}, 'server-memory': {} };
  for (let i = 0; i < warmup + iterations; i++) {
    const order = drivers.map((_, j) => drivers[(i + j) % drivers.length]!);
    for (const d of order) {
      const k = `i${i}`;
      for (const op of SEQUENCE) {
        const run = d.ops[op];
        if (!run) continue;
        const t0 = performance.now();
        const r = await run(k);
        const ms = performance.now() - t0;
        if (r.isError) {
          failures[d.impl]++;
          firstFailure[d.impl] ??= `${op}: ${textOf(r).slice(0, 200)}`;
        }
        if (i >= warmup) (samples[d.impl][op] ??= []).push(ms);
      }
    }
  }
  const out: Record<McpImpl, Partial<Record<McpOp, McpStats>>> = { cairn: {}, reference: {}, 'server-memory': {} };
  for (const impl of MCP_IMPLS) for (const op of MCP_OPS) if (samples[impl][op]?.length) out[impl][op] = statsOf(samples[impl][op]!);
  return out;
}

/** Cairn's workload through `cairn serve`'s /mcp (Streamable HTTP), one session, on its own. */
async function measureHttp(box: Sandbox, iterations: number, warmup: number, failures: Record<McpImpl, number>): Promise<Partial<Record<McpOp, McpStats>>> {
  const server = spawn(process.execPath, [BUILT_CLI, 'serve', '--port', '0', '--home', box.home], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^MCP \(Streamable HTTP\) at (\S+),/m.exec(out);
        if (m) resolve(m[1]!);
      });
      server.on('exit', (code) => reject(new Error(`cairn serve exited ${code}`)));
    });
    const token = (await fs.readFile(path.join(box.home, 'mcp-token'), 'utf8')).trim();
    const client = new Client({ name: 'cairn-bench-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}?cwd=${encodeURIComponent(box.checkout)}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const driver = memoryToolDriver('cairn', client, '/memories/project/bench');
      for (let i = 0; i < SEED; i++) await driver.ops.create!(`seed-${i}`);
      const samples: Partial<Record<McpOp, number[]>> = {};
      for (let i = 0; i < warmup + iterations; i++) {
        for (const op of SEQUENCE) {
          const run = driver.ops[op];
          if (!run) continue;
          const t0 = performance.now();
          const r = await run(`h${i}`);
          const ms = performance.now() - t0;
          if (r.isError) failures.cairn++;
          if (i >= warmup) (samples[op] ??= []).push(ms);
        }
      }
      return Object.fromEntries(Object.entries(samples).map(([op, v]) => [op, statsOf(v)]));
    } finally {
      await client.close().catch(() => {});
    }
  } finally {
    const closed = new Promise((r) => server.once('close', r));
    server.kill('SIGTERM');
    await closed;
  }
}

async function concurrent(
  what: string,
  clients: Client[],
  write: (client: Client, worker: number, n: number) => Promise<CallResult>,
  count: () => Promise<(worker: number, n: number) => boolean>,
): Promise<McpConcurrency> {
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (client, w) => {
      for (let n = 0; n < CONC_WRITES; n++) {
        try {
          const r = await write(client, w, n);
          if (r.isError) {
            failed++;
            firstError ??= textOf(r).slice(0, 200);
          } else ok++;
        } catch (err) {
          failed++;
          firstError ??= String((err as Error)?.message ?? err).slice(0, 200);
        }
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const present = await count();
  let found = 0;
  for (let w = 0; w < clients.length; w++) for (let n = 0; n < CONC_WRITES; n++) if (present(w, n)) found++;
  const expected = clients.length * CONC_WRITES;
  return { clients: clients.length, writesPerClient: CONC_WRITES, what, ok, failed, present: found, lost: expected - found, wallMs: Math.round(wallMs), firstError };
}

async function measureConcurrency(box: Sandbox, refBase: string, graphFile: string): Promise<Record<McpImpl, McpConcurrency>> {
  const many = async (start: () => Promise<Client>) => {
    // One after the other: start-up (and Cairn's first registration of the checkout) is not measured.
    const out: Client[] = [];
    for (let i = 0; i < CONC_CLIENTS; i++) out.push(await start());
    return out;
  };
  const closeAll = (cs: Client[]) => Promise.all(cs.map((c) => c.close().catch(() => {})));
  const lineSet = async (file: string) => new Set((await fs.readFile(file, 'utf8')).split('\n'));

  const cairnClients = await many(() => connect(process.execPath, [BUILT_CLI, 'mcp', '--home', box.home, '--cwd', box.checkout]));
  await cairnClients[0]!.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/project/log.md', file_text: 'start\n' } });
  const cairn = await concurrent(
    'insert at line 0 of one file',
    cairnClients,
    (c, w, n) => c.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/project/log.md', insert_line: 0, insert_text: `c${w}-${n}` } }),
    async () => {
      const lines = await lineSet(path.join(box.roots.project, 'log.md'));
      return (w, n) => lines.has(`c${w}-${n}`);
    },
  );
  await closeAll(cairnClients);

  const refClients = await many(() => connect(process.execPath, [REF_SERVER, refBase]));
  await refClients[0]!.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/log.md', file_text: 'start\n' } });
  const reference = await concurrent(
    'insert at line 0 of one file',
    refClients,
    (c, w, n) => c.callTool({ name: 'memory', arguments: { command: 'insert', path: '/memories/log.md', insert_line: 0, insert_text: `c${w}-${n}` } }),
    async () => {
      const lines = await lineSet(path.join(refBase, 'memories', 'log.md'));
      return (w, n) => lines.has(`c${w}-${n}`);
    },
  );
  await closeAll(refClients);

  const graphClients = await many(() => connect(process.execPath, [SERVER_MEMORY], { MEMORY_FILE_PATH: graphFile }));
  const graph = await concurrent(
    'create_entities of distinct entities in one graph',
    graphClients,
    (c, w, n) => c.callTool({ name: 'create_entities', arguments: { entities: [{ name: `c${w}-${n}`, entityType: 'write', observations: [] }] } }),
    async () => {
      const names = new Set<string>();
      for (const line of (await fs.readFile(graphFile, 'utf8')).split('\n')) {
        try {
          const item = JSON.parse(line) as { type?: string; name?: string };
          if (item.type === 'entity' && item.name) names.add(item.name);
        } catch {
          // a torn line counts as lost entities, which is what it is
        }
      }
      return (w, n) => names.has(`c${w}-${n}`);
    },
  );
  await closeAll(graphClients);
  return { cairn, reference, 'server-memory': graph };
}

/** Runs both parts in fresh sandboxes and temp dirs of its own (removed afterwards). */
export async function runMcpBench(): Promise<McpBenchResult> {
  await requireBuiltCli();
  const iterations = envInt('BENCH_MCP_ITERATIONS', 200);
  const warmup = envInt('BENCH_MCP_WARMUP', 20);
  const t0 = performance.now();
  const boxes: Sandbox[] = [];
  const temps: string[] = [];
  const temp = async (prefix: string) => {
    const d = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
    temps.push(d);
    return d;
  };
  const box = async () => {
    const b = await makeSandbox();
    boxes.push(b);
    return b;
  };
  try {
    const failures: Record<McpImpl, number> = { cairn: 0, reference: 0, 'server-memory': 0 };
    const firstFailure: Record<McpImpl, string | null> = { cairn: null, reference: null, 'server-memory': null };
    const servers = await startServers(await box(), await temp('cairn-bench-mcp-ref-'), path.join(await temp('cairn-bench-mcp-graph-'), 'memory.jsonl'));
    let latencyMs: McpBenchResult['latencyMs'];
    const probeDir = await temp('cairn-bench-mcp-fsync-');
    const fsyncBefore = fsyncMedian(probeDir);
    const newFileBefore = fsyncMedian(probeDir, true);
    try {
      latencyMs = await measureLatency(servers.drivers, iterations, warmup, failures, firstFailure);
    } finally {
      await servers.close();
    }
    const fsyncMs = Math.round(((fsyncBefore + fsyncMedian(probeDir)) / 2) * 1000) / 1000;
    const newFileFsyncMs = Math.round(((newFileBefore + fsyncMedian(probeDir, true)) / 2) * 1000) / 1000;
    const httpLatencyMs = await measureHttp(await box(), Math.max(1, Math.floor(iterations / 2)), Math.min(warmup, 10), failures);
    const concurrency = await measureConcurrency(await box(), await temp('cairn-bench-mcp-refconc-'), path.join(await temp('cairn-bench-mcp-graphconc-'), 'memory.jsonl'));

    // The guard: on every command, Cairn's median within 1.10x of the faster reference
    // implementation that has a counterpart (the reference tool, or server-memory).
    let worst = { ratio: 0, op: null as McpOp | null };
    for (const o of MCP_OPS) {
      const mine = latencyMs.cairn[o];
      const faster = Math.min(...(['reference', 'server-memory'] as const).map((other) => latencyMs[other][o]?.median ?? Number.POSITIVE_INFINITY));
      if (!mine || !Number.isFinite(faster)) continue;
      if (mine.median / faster > worst.ratio) worst = { ratio: Math.round((mine.median / faster) * 1000) / 1000, op: o };
    }
    const targets: McpTarget[] = [
      {
        id: 'mcp_median_vs_faster_reference',
        description: `MCP stdio: Cairn's median <= 1.10x the faster reference's on every command (worst: ${worst.op})`,
        value: worst.ratio,
        limit: 1.1,
        met: worst.ratio <= 1.1,
      },
      {
        id: 'mcp_concurrency_no_lost_writes',
        description: `MCP stdio: Cairn loses no write, ${CONC_CLIENTS} clients x ${CONC_WRITES} inserts into one file`,
        value: concurrency.cairn.lost,
        limit: 0,
        met: concurrency.cairn.lost === 0 && concurrency.cairn.failed === 0,
      },
    ];
    return {
      iterations,
      warmup,
      seedFiles: SEED,
      noteBytes: Buffer.byteLength(NOTE),
      latencyMs,
      concurrency,
      targets,
      failures,
      firstFailure,
      httpLatencyMs,
      fsyncMs,
      newFileFsyncMs,
      durationSeconds: Math.round((performance.now() - t0) / 100) / 10,
    };
  } finally {
    await Promise.all([...boxes.map((b) => b.cleanup()), ...temps.map((d) => fs.rm(d, { recursive: true, force: true }))]);
  }
}


/** The section's tables, as `make bench` prints them. */
export function formatMcpBench(r: McpBenchResult): string {
  const out: string[] = [];
  out.push(
    `\nMCP stdio latency (${r.iterations} iterations, +${r.warmup} warm-up; callTool -> result, ms; ${r.seedFiles} seed notes of ${r.noteBytes} B; server-memory mapped: see "does")`,
  );
  const rows: string[][] = [['operation', 'server', 'does', 'median', 'p95', 'p99', 'x cairn']];
  for (const op of MCP_OPS) {
    for (const impl of MCP_IMPLS) {
      const s = r.latencyMs[impl][op];
      const cairn = r.latencyMs.cairn[op];
      rows.push([
        impl === 'cairn' ? op : '',
        impl,
        MAPPING[impl][op] ?? '(no counterpart)',
        s ? s.median.toFixed(3) : '-',
        s ? s.p95.toFixed(3) : '-',
        s ? s.p99.toFixed(3) : '-',
        s && cairn ? (s.median / cairn.median).toFixed(2) : '-',
      ]);
    }
  }
  out.push(table(rows, new Set([3, 4, 5, 6])));
  out.push(
    `Cairn's create, str_replace and insert each wait for the fsync of a new temp file (median ${r.newFileFsyncMs.toFixed(3)} ms on this disk during the run; ${r.fsyncMs.toFixed(3)} ms to rewrite a file in place, for comparison); and every write takes the scope's cross-process lock. server-memory never fsyncs and neither reference takes a lock, which is what the lost writes below cost.`,
  );
  const httpOps = MCP_OPS.filter((op) => r.httpLatencyMs[op]);
  if (httpOps.length > 0) {
    out.push(`\nCairn over Streamable HTTP (\`cairn serve\` /mcp, one session, on its own; ms)`);
    out.push(
      table(
        [
          ['operation', 'median', 'p95', 'stdio median'],
          ...httpOps.map((op) => [op, r.httpLatencyMs[op]!.median.toFixed(3), r.httpLatencyMs[op]!.p95.toFixed(3), r.latencyMs.cairn[op]?.median.toFixed(3) ?? '-']),
        ],
        new Set([1, 2, 3]),
      ),
    );
  }
  const failed = MCP_IMPLS.filter((i) => r.failures[i] > 0);
  for (const i of failed) out.push(`${i}: ${r.failures[i]} failed call(s) in the latency run; first: ${r.firstFailure[i]}`);
  const c = r.concurrency;
  out.push(`\nMCP stdio lost writes (${c.cairn.clients} clients, each its own server process on shared storage, x ${c.cairn.writesPerClient} writes, all at once)`);
  out.push(
    table(
      [
        ['server', 'writes', 'ok', 'failed', 'present', 'lost', 'wall s'],
        ...MCP_IMPLS.map((i) => [i, c[i].what, String(c[i].ok), String(c[i].failed), String(c[i].present), String(c[i].lost), (c[i].wallMs / 1000).toFixed(2)]),
      ],
      new Set([2, 3, 4, 5, 6]),
    ),
  );
  for (const i of MCP_IMPLS) if (c[i].firstError) out.push(`${i} first error: ${c[i].firstError}`);
  out.push(`MCP section took ${r.durationSeconds.toFixed(1)} s`);
  return `${out.join('\n')}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMcpBench().then(
    (r) => {
      process.stdout.write(formatMcpBench(r));
      for (const t of r.targets) process.stdout.write(`  [${t.met ? 'met   ' : 'MISSED'}] ${t.description}: ${t.value} (limit ${t.limit})\n`);
      process.exit(r.concurrency.cairn.lost > 0 || r.failures.cairn > 0 ? 1 : 0);
    },
    (err: unknown) => {
      process.stderr.write(`cairn bench (mcp) failed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
