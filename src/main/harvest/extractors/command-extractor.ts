/**
 * The `command` backend of the harvest: the command line a person configured (setting
 * `harvestCommand`, such as `claude -p --output-format json` or `codex exec --skip-git-repo-check -`)
 * runs through `/bin/sh -c`, gets the harvest prompt on stdin, and prints the answer on stdout.
 *
 * Invariants:
 * - the child's environment carries HARVEST_CHILD_ENV=1: Cairn's own hooks do nothing inside it, so
 *   a harvest never harvests itself (its session's prompt also begins with HARVEST_PROMPT_MARKER);
 * - it runs in an empty directory of its own (removed afterwards) unless told otherwise: a model
 *   reading untrusted transcript text has no checkout to read or change;
 * - it is stopped (its whole process group: the shell and what it started) when it outlives the
 *   timeout or prints more than MAX_COMMAND_OUTPUT; a failure is an Error a person can act on, with
 *   the first lines of the command's stderr;
 * - a Cancel (`signal`) stops it the same way and rejects with a CancelledError.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HARVEST_CHILD_ENV } from '../harvest-child';
import { excerpt } from './json-answer';
import { CancelledError, duration, realTimer, type ModelAnswer, type StartTimer } from './model-extractor';

/** Set to "1" in the command's environment; Cairn's hooks do nothing when they see it. */
export { HARVEST_CHILD_ENV };
export const DEFAULT_COMMAND_TIMEOUT_MS = 10 * 60_000;
/** The most a command may print on stdout (bytes). */
const MAX_COMMAND_OUTPUT = 4 * 1024 * 1024;
/** How long a command stopped with SIGTERM has before SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** Of stderr, only the beginning is kept: the first lines say what went wrong. */
const STDERR_KEPT = 16 * 1024;
const STDERR_LINES = 5;

export interface CommandOptions {
  readonly timeoutMs?: number;
  /** The clock of the timeout (tests inject one they fire themselves). */
  readonly startTimer?: StartTimer;
  /** The environment the command inherits (default: this process's); HARVEST_CHILD_ENV is added. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where it runs (default: a fresh empty directory, removed afterwards). */
  readonly cwd?: string;
  /** A person's Cancel: the command is stopped and the call rejects with a CancelledError. */
  readonly signal?: AbortSignal;
}

const CANCELLED = 'Cancelled: the model command was stopped before it answered.';

/** The first lines of stderr, on one line, for an error message. */
function stderrLines(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, STDERR_LINES)
    .map((l) => excerpt(l, 300));
  return lines.length === 0 ? ' It printed nothing on stderr.' : ` Its stderr began: ${lines.join(' / ')}`;
}

/** Runs the command with the prompt on stdin; its stdout, or an Error a person can act on. */
export async function runHarvestCommand(command: string, prompt: string, options: CommandOptions = {}): Promise<string> {
  if (command.trim() === '') throw new Error('No harvest command is set: set harvestCommand (for example `claude -p --output-format json`) or choose another extractor.');
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const startTimer = options.startTimer ?? realTimer;
  if (options.signal?.aborted) throw new CancelledError(CANCELLED);
  const ownDir = options.cwd === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-harvest-')) : null;
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], {
        cwd: options.cwd ?? ownDir!,
        env: { ...(options.env ?? process.env), [HARVEST_CHILD_ENV]: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group, so that stopping it stops what the shell started too.
        detached: true,
      });
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = '';
      let stopped: string | null = null;
      let cancelled = false;
      let cancelKill = (): void => {};
      const stop = (why: string): void => {
        if (stopped !== null) return;
        stopped = why;
        const group = (signal: NodeJS.Signals): void => {
          try {
            process.kill(-child.pid!, signal);
          } catch {
            // Already gone.
          }
        };
        group('SIGTERM');
        cancelKill = startTimer(KILL_GRACE_MS, () => group('SIGKILL'));
      };
      const onAbort = (): void => {
        cancelled = true;
        stop(CANCELLED);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const cancelTimeout = startTimer(timeoutMs, () => stop(`The harvest command did not finish within ${duration(timeoutMs)} and was stopped. Check that it answers without asking anything (it gets no terminal), or choose a faster model.`));
      child.stdout.on('data', (data: Buffer) => {
        stdoutBytes += data.length;
        if (stdoutBytes > MAX_COMMAND_OUTPUT) stop(`The harvest command printed more than ${MAX_COMMAND_OUTPUT / (1024 * 1024)} MiB on stdout and was stopped; it should print only the answer.`);
        else stdout.push(data);
      });
      child.stderr.on('data', (data: Buffer) => {
        if (stderr.length < STDERR_KEPT) stderr += data.toString('utf8');
      });
      // A command that exits without reading all of its stdin closes the pipe: not an error in itself.
      child.stdin.on('error', () => {});
      child.stdin.end(prompt);
      child.on('error', (err) => {
        cancelTimeout();
        cancelKill();
        options.signal?.removeEventListener('abort', onAbort);
        reject(new Error(`The harvest command could not be started: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        cancelTimeout();
        cancelKill();
        options.signal?.removeEventListener('abort', onAbort);
        const out = Buffer.concat(stdout).toString('utf8');
        if (stopped !== null) return reject(cancelled ? new CancelledError(stopped) : new Error(stopped));
        if (code === 127) return reject(new Error(`The harvest command was not found (exit status 127): check harvestCommand and that its program is on the PATH Cairn runs with.${stderrLines(stderr)}`));
        if (code === 126) return reject(new Error(`The harvest command could not be run (exit status 126: not executable).${stderrLines(stderr)}`));
        if (code !== 0) return reject(new Error(code === null ? `The harvest command was killed by ${signal}.${stderrLines(stderr)}` : `The harvest command failed with exit status ${code}.${stderrLines(stderr)}`));
        if (out.trim() === '') return reject(new Error(`The harvest command printed nothing on stdout; it should print the model's answer there.${stderrLines(stderr)}`));
        resolve(out);
      });
    });
  } finally {
    if (ownDir !== null) fs.rmSync(ownDir, { recursive: true, force: true });
  }
}

/** The runner of the `command` backend: one prompt, one run of the command (see the header). */
export function commandAsk(command: string, options: CommandOptions = {}): (prompt: string, signal?: AbortSignal) => Promise<ModelAnswer> {
  return async (prompt, signal) => ({ text: await runHarvestCommand(command, prompt, signal ? { ...options, signal } : options) });
}
