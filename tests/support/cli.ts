/** Runs the built `cairn` CLI as agents do: a real process per call, or a --jsonl stream. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CAIRN_BIN } from './sandbox';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCairn(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(CAIRN_BIN, args, { env: { ...process.env, ...options.env }, cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    giveInput(child, options.input);
  });
}

/**
 * Writes `input` (none: an empty stdin) to a child and ends its stdin. A process that exits before
 * reading its input (a refusal) closes the pipe: the write's EPIPE is not the test's failure, what
 * the process printed and its status are its result.
 */
export function giveInput(child: { readonly stdin: NodeJS.WritableStream }, input = ''): void {
  child.stdin.on('error', () => {});
  child.stdin.end(input);
}

export function spawnJsonl(args: string[], cwd?: string): ChildProcessWithoutNullStreams {
  return spawn(CAIRN_BIN, ['tool', '--jsonl', ...args], { cwd });
}

export interface JsonlLine {
  ok: boolean;
  output: string;
  ms?: number;
}

/** Feeds commands to one `cairn tool --jsonl` process and collects its answers. */
export async function runJsonl(args: string[], commands: unknown[]): Promise<JsonlLine[]> {
  const result = await runCairn(['tool', '--jsonl', ...args], { input: commands.map((c) => JSON.stringify(c)).join('\n') + '\n' });
  if (result.status !== 0) throw new Error(`cairn tool --jsonl exited ${result.status}: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JsonlLine);
}

/**
 * Stops a child process and waits until it has exited (SIGKILL after `timeoutMs`), so a test never
 * removes a sandbox under a server that is still closing, and never leaves one running.
 */
export async function stopProcess(child: import('node:child_process').ChildProcess, timeoutMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}
