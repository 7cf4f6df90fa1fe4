/**
 * The SSH section of `make bench`: Cairn's memory commands and the context index of a 1000-file
 * remote scope through SshRuntime, with the real OpenSSH sshd of the tests behind an in-process
 * TCP proxy that delays every chunk by a known amount each way (tests/support/tcp-proxy.ts).
 *
 * Round trips are measured at the proxy, not assumed: a turn is a burst of client->server data
 * after the server spoke. Times are also given as a multiple of the added round-trip time (the
 * loopback's own is ~0.1 ms). Next to Cairn's index: a naive implementation that runs one remote
 * command per file (`stat` + `head -c 4096`) on an already open shell, after one `find`, which is
 * the cheapest a command-per-file design can be (a fresh exec channel per file costs 2-3 turns).
 *
 * Without sshd (it is installed by `make test`), the section is skipped and says so.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { INDEX_HEAD_BYTES, MAX_FILES_PER_SCOPE } from '../src/common/memory/constants';
import { ContextBuilder } from '../src/main/context/context-builder';
import { MemoryService, type MemorySession } from '../src/main/memory/memory-service';
import { SshConnection } from '../src/main/runtime/ssh/ssh-connection';
import { SshRuntime } from '../src/main/runtime/ssh/ssh-runtime';
import { makeSandbox } from '../tests/support/sandbox';
import { testTarget } from '../tests/support/ssh';
import { table, settleWrites } from './common';
import { SSHD_BIN, startSshd } from '../tests/support/sshd';
import { startProxy } from '../tests/support/tcp-proxy';

/** One-way delay added by the proxy; the added round trip is twice this. */
const ONE_WAY_MS = Number(process.env.BENCH_SSH_DELAY_MS ?? 5);
const RTT_MS = 2 * ONE_WAY_MS;
const ITERATIONS = Number(process.env.BENCH_SSH_ITERATIONS ?? 7);

export interface SshRow {
  readonly name: string;
  /** Median requests SshRuntime sent (each one request/response on the helper's channel). */
  readonly requests: number;
  /** Median, min and max turns per run. */
  readonly roundTrips: { median: number; min: number; max: number };
  readonly medianMs: number;
  readonly rttMultiple: number;
}

export interface SshBenchResult {
  readonly available: boolean;
  readonly reason?: string;
  readonly oneWayDelayMs?: number;
  readonly rttMs?: number;
  readonly connect?: { roundTrips: number; ms: number };
  readonly commands?: SshRow[];
  readonly index?: { files: number; cairnCold: SshRow; cairnWarm: SshRow; naive: SshRow; sameDescriptions: boolean };
  readonly targets: Array<{ id: string; description: string; value: number; limit: number; met: boolean; unit: 'rt' }>;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

function row(name: string, turns: number[], ms: number[], requests: number[]): SshRow {
  const m = median(ms);
  return { name, requests: median(requests), roundTrips: { median: median(turns), min: Math.min(...turns), max: Math.max(...turns) }, medianMs: Math.round(m * 100) / 100, rttMultiple: Math.round((m / RTT_MS) * 100) / 100 };
}

/** `'...'` for a POSIX shell: the naive baseline's one quoting rule. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export async function runSshBench(): Promise<SshBenchResult> {
  if (!SSHD_BIN) return { available: false, reason: 'sshd is not installed (make test installs openssh-server)', targets: [] };
  const sshd = await startSshd();
  const proxy = await startProxy(sshd.port, { delayMs: ONE_WAY_MS });
  const sb = await makeSandbox();
  const connections: SshConnection[] = [];
  try {
    const knownHosts = path.join(sb.dir, 'known_hosts');
    await fs.writeFile(knownHosts, `[127.0.0.1]:${proxy.port} ${sshd.hostPublicKey}\n`);
    const newRuntime = () => {
      const c = new SshConnection(testTarget(sshd, { port: proxy.port, knownHosts }));
      connections.push(c);
      return new SshRuntime(c);
    };
    const runtime = newRuntime();
    const root = { path: sb.roots.project, anchor: sb.checkout };
    const session: MemorySession = { ...sb.session, scopes: { ...sb.session.scopes, project: { scope: 'project', available: true, runtime, root } } };
    const service = new MemoryService();

    proxy.resetStats();
    let t = performance.now();
    await runtime.probe();
    const connect = { roundTrips: proxy.stats.turns, ms: Math.round((performance.now() - t) * 10) / 10 };

    // Commands, each on an open connection; a fresh file per iteration where the command needs one.
    const note = `${'- a line of a project note, as agents write them.\n'.repeat(40)}status: draft\n`;
    await fs.mkdir(path.join(sb.roots.project, 'dir'), { recursive: true });
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(sb.roots.project, 'dir', `f${i}.md`), note);
    const p = (rel: string) => `/memories/project/${rel}`;
    const commands: Array<[string, (i: number) => Promise<void>, (i: number) => unknown]> = [
      ['view (file)', async () => {}, () => ({ command: 'view', path: p('dir/f0.md') })],
      ['view (directory, 20 files)', async () => {}, () => ({ command: 'view', path: p('dir') })],
      ['create', async () => {}, (i) => ({ command: 'create', path: p(`c${i}.md`), file_text: note })],
      // As agents work: the file was viewed (or written) first, so the edit goes with the bytes it is based on.
      [
        'str_replace',
        async (i) => {
          await fs.writeFile(path.join(sb.roots.project, `s${i}.md`), note);
          await service.execute({ command: 'view', path: p(`s${i}.md`) }, session, { mode: 'exec', actor: 'agent' });
        },
        (i) => ({ command: 'str_replace', path: p(`s${i}.md`), old_str: 'status: draft', new_str: 'status: done' }),
      ],
      // A file this process never read: its bytes must come first (one more round trip).
      ['str_replace (file never read)', async (i) => fs.writeFile(path.join(sb.roots.project, `u${i}.md`), note), (i) => ({ command: 'str_replace', path: p(`u${i}.md`), old_str: 'status: draft', new_str: 'status: done' })],
      ['insert', async () => {}, (i) => ({ command: 'insert', path: p(`c${i}.md`), insert_line: 0, insert_text: 'top' })],
      ['rename', async () => {}, (i) => ({ command: 'rename', old_path: p(`c${i}.md`), new_path: p(`r${i}.md`) })],
      ['delete', async () => {}, (i) => ({ command: 'delete', path: p(`r${i}.md`) })],
    ];
    const rows: SshRow[] = [];
    const perCommand = new Map<string, { turns: number[]; ms: number[]; requests: number[] }>();
    const connection = connections[0]!;
    for (let i = 0; i < ITERATIONS; i++) {
      for (const [name, prepare, input] of commands) {
        await prepare(i);
        // Let the previous command's pipelined unlock land, so it is not counted here.
        await new Promise((r) => setTimeout(r, 3 * ONE_WAY_MS));
        proxy.resetStats();
        const before = connection.counters.requests;
        t = performance.now();
        const result = await service.execute(input(i), session, { mode: 'exec', actor: 'agent' });
        const ms = performance.now() - t;
        if (!result.ok) throw new Error(`ssh bench: ${name} failed: ${result.output}`);
        const entry = perCommand.get(name) ?? { turns: [], ms: [], requests: [] };
        entry.turns.push(proxy.stats.turns);
        entry.ms.push(ms);
        // The pipelined unlock is sent after the answer; it is not a round trip of this command.
        entry.requests.push(connection.counters.requests - before - (/create|str_replace|insert|rename|delete/.test(name) ? 1 : 0));
        perCommand.set(name, entry);
      }
    }
    for (const [name] of commands) rows.push(row(name, perCommand.get(name)!.turns, perCommand.get(name)!.ms, perCommand.get(name)!.requests));

    // The index of a 1000-file remote scope.
    await fs.rm(sb.roots.project, { recursive: true, force: true });
    const bulk = path.join(sb.roots.project, 'notes');
    await fs.mkdir(bulk, { recursive: true });
    for (let i = 0; i < MAX_FILES_PER_SCOPE; i++) {
      await fs.writeFile(path.join(bulk, `n${String(i).padStart(4, '0')}.md`), `---\ndescription: remote note ${i}\n---\n${note}`);
    }
    await settleWrites();
    const indexRuns = Math.max(3, Math.ceil(ITERATIONS / 2));
    const cold = { turns: [] as number[], ms: [] as number[], requests: [] as number[] };
    const warm = { turns: [] as number[], ms: [] as number[], requests: [] as number[] };
    let cairnDescriptions: string[] = [];
    for (let i = 0; i < indexRuns; i++) {
      const builder = new ContextBuilder();
      proxy.resetStats();
      let before = connection.counters.requests;
      t = performance.now();
      const snap = await builder.snapshot(session);
      cold.ms.push(performance.now() - t);
      cold.turns.push(proxy.stats.turns);
      cold.requests.push(connection.counters.requests - before);
      cairnDescriptions = snap.files.filter((f) => f.scope === 'project').map((f) => `${f.path}\t${f.description}`);
      proxy.resetStats();
      before = connection.counters.requests;
      t = performance.now();
      await builder.snapshot(session);
      warm.ms.push(performance.now() - t);
      warm.turns.push(proxy.stats.turns);
      warm.requests.push(connection.counters.requests - before);
    }

    // Naive: one remote command per file on an open shell.
    const naive = { turns: [] as number[], ms: [] as number[], requests: [] as number[] };
    let naiveDescriptions: string[] = [];
    const naiveRuns = 1;
    for (let i = 0; i < naiveRuns; i++) {
      // A shell on its own channel of the same open connection (its ssh2 Client is private to
      // SshConnection; the bench reaches in rather than widen that API for a baseline).
      const sshClient = (connections[0] as unknown as { client: import('ssh2').Client }).client;
      const shell = await new Promise<import('ssh2').ClientChannel>((resolve, reject) => sshClient.exec('sh', (err, ch) => (err ? reject(err) : resolve(ch))));
      let buffered = '';
      const waiters: Array<{ lines: number; resolve: (lines: string[]) => void }> = [];
      const pump = () => {
        for (let w = waiters[0]; w; w = waiters[0]) {
          const parts = buffered.split('\n');
          if (parts.length - 1 < w.lines) return;
          waiters.shift();
          buffered = parts.slice(w.lines).join('\n');
          w.resolve(parts.slice(0, w.lines));
        }
      };
      shell.on('data', (d: Buffer) => {
        buffered += d.toString('utf8');
        pump();
      });
      const take = (lines: number) =>
        new Promise<string[]>((resolve) => {
          waiters.push({ lines, resolve });
          pump();
        });
      const ask = (command: string, lines: number) => {
        const answer = take(lines);
        shell.write(`${command}\n`);
        return answer;
      };
      await ask('echo ready', 1);
      proxy.resetStats();
      t = performance.now();
      const countLine = await ask(`find ${q(sb.roots.project)} -type f | LC_ALL=C sort > /tmp/.cairn-bench-naive-$$; wc -l < /tmp/.cairn-bench-naive-$$; cat /tmp/.cairn-bench-naive-$$; rm -f /tmp/.cairn-bench-naive-$$`, 1);
      const files = await take(Number(countLine[0]!.trim()));
      const descriptions: string[] = [];
      for (const file of files) {
        const [, head] = await ask(`stat -c %s -- ${q(file)}; head -c ${INDEX_HEAD_BYTES} -- ${q(file)} | base64 -w0; echo`, 2);
        const text = Buffer.from(head!, 'base64').toString('utf8');
        const description = /^---\ndescription: (.*)\n---/.exec(text)?.[1] ?? null;
        descriptions.push(`/memories/project/${path.relative(sb.roots.project, file)}\t${description}`);
      }
      naive.ms.push(performance.now() - t);
      naive.turns.push(proxy.stats.turns);
      naive.requests.push(files.length + 1);
      naiveDescriptions = descriptions;
      shell.end('exit\n');
    }

    const commandRows = rows;
    const index = {
      files: MAX_FILES_PER_SCOPE,
      cairnCold: row(`index of ${MAX_FILES_PER_SCOPE} remote files, cold (fresh builder)`, cold.turns, cold.ms, cold.requests),
      cairnWarm: row(`index of ${MAX_FILES_PER_SCOPE} remote files, warm (unchanged tree)`, warm.turns, warm.ms, warm.requests),
      naive: row(`naive: one remote command per file (${MAX_FILES_PER_SCOPE} files)`, naive.turns, naive.ms, naive.requests),
      sameDescriptions: JSON.stringify(cairnDescriptions) === JSON.stringify(naiveDescriptions),
    };
    const rt = (id: string, description: string, value: number, limit: number) => ({ id, description, value, limit, met: value <= limit, unit: 'rt' as const });
    // Requests are the round trips a command waits for; the proxy's turns also count SSH flow
    // control (a WINDOW_ADJUST the client sends while a reply over 1 MiB streams in).
    const targets = [
      // An edit of bytes Cairn has never seen cannot be computed without them: one read, one write.
      ...commandRows.map((r) => {
        const limit = r.name.includes('never read') ? 2 : 1;
        return rt(`ssh_${r.name.replace(/[^a-z_]+/g, '_').replace(/_+$/, '')}_round_trips`, `SSH: ${r.name} on an open connection, requests (round trips waited for) <= ${limit}`, r.requests, limit);
      }),
      rt('ssh_index_round_trips', `SSH: index of a ${MAX_FILES_PER_SCOPE}-file remote scope, requests <= 1 (naive: ${index.naive.requests})`, index.cairnCold.requests, 1),
    ];
    return { available: true, oneWayDelayMs: ONE_WAY_MS, rttMs: RTT_MS, connect, commands: commandRows, index, targets };
  } finally {
    for (const c of connections) c.close();
    await proxy.close();
    await sshd.stop();
    await sb.cleanup();
  }
}

export function formatSshBench(r: SshBenchResult): string {
  if (!r.available) return `\nSSH: skipped (${r.reason})\n`;
  const lines = [`\nSSH (real sshd behind a proxy adding ${r.oneWayDelayMs} ms each way: RTT ${r.rttMs} ms; round trips counted at the proxy)`];
  const rows = [['operation', 'requests', 'turns at proxy (median, min-max)', 'median ms', 'x RTT']];
  const add = (x: SshRow) => rows.push([x.name, String(x.requests), `${x.roundTrips.median} (${x.roundTrips.min}-${x.roundTrips.max})`, x.medianMs.toFixed(1), x.rttMultiple.toFixed(2)]);
  for (const c of r.commands ?? []) add(c);
  if (r.index) {
    add(r.index.cairnCold);
    add(r.index.cairnWarm);
    add(r.index.naive);
  }
  lines.push(table(rows, new Set([1, 2, 3, 4])));
  lines.push(`requests: what SshRuntime waited for; turns: client bursts after server data, counted at the proxy (SSH window adjusts included)`);
  lines.push(`connect (TCP + SSH handshake + auth + helper start): ${r.connect?.roundTrips} turns, ${r.connect?.ms} ms`);
  if (r.index) lines.push(`naive and Cairn index descriptions identical: ${r.index.sameDescriptions ? 'yes' : 'NO'}`);
  return `${lines.join('\n')}\n`;
}

// `npx tsx bench/ssh.ts` runs this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  runSshBench().then(
    (r) => {
      process.stdout.write(formatSshBench(r));
      for (const t of r.targets) process.stdout.write(`  [${t.met ? 'met   ' : 'MISSED'}] ${t.description}: ${t.value}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`ssh bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
