/**
 * The CLI's io on this process's own stdio (bin.ts). A command reads its input and writes its
 * answer whole, through the descriptors (CliIo.readInput, CliIo.writeOutput), and falls back on the
 * stream where a descriptor will not block (a non-blocking pipe): what was read or written so far
 * is kept, the rest goes through the stream, in order. (Making stdout and stderr only when first
 * used was measured against making them at once, and saved nothing a hook waits for.)
 *
 * Output piped into a reader that stops early (`cairn stats | head`) is not an error: the process
 * stops quietly, whether the stream or the descriptor met the closed pipe.
 */
import * as fs from 'node:fs';
import { isatty } from 'node:tty';
import type { CliIo } from './tool-command';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

function wouldBlock(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EAGAIN';
}

async function readInput(evenFromTerminal: boolean): Promise<string | null> {
  if (!evenFromTerminal && isatty(0)) return null;
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buffer, 0, buffer.length, null);
    } catch (err) {
      // Windows pipes once said EOF as an error (nodejs/node#35997).
      if ((err as NodeJS.ErrnoException).code === 'EOF') break;
      if (!wouldBlock(err)) throw err;
      // A non-blocking pipe: the stream waits for the rest.
      for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
      break;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether stdout went through its stream once (then everything after does too, in order). */
let stdoutStreamed = false;

function writeOutput(text: string): void {
  const data = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (!stdoutStreamed && done < data.length) done += fs.writeSync(1, data, done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') process.exit(process.exitCode ?? 0);
    if (!wouldBlock(err)) throw err;
    stdoutStreamed = true;
  }
  if (stdoutStreamed && done < data.length) process.stdout.write(data.subarray(done));
}

export const processIo: CliIo = {
  // Made only when a command reads through the stream: a pipe's stream turns the descriptor
  // non-blocking, and readInput reads the descriptor first.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  readInput,
  writeOutput,
};

/** Exits with `status` once stdout and stderr have taken everything written to them. */
export function exitOnceWritten(status: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
}
