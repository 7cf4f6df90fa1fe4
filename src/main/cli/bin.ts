/** The executable entry of the CLI: built to out/main/cli.js and run by bin/cairn. */
import { main } from './index';

// Output piped into a reader that stops early (`cairn stats | head`) is not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const argv = process.argv.slice(2);

main(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (status) => {
    process.exitCode = status;
    if (exitsOnceAnswered(argv)) exitOnceWritten(status);
  },
  (err: unknown) => {
    process.stderr.write(`cairn: ${String(err)}\n`);
    process.exitCode = 1;
  },
);

/**
 * `cairn context` runs before every prompt a person sends (issue 21), and leaves nothing behind
 * when its promise settles: every write it makes is awaited. It exits as soon as its output is
 * out instead of waiting for the event loop to wind down and the heap to be torn down, which
 * cost a 3000-file memory about 7 ms a prompt. Other commands may leave work running (a server, a
 * transport) and end as before.
 */
function exitsOnceAnswered(args: readonly string[]): boolean {
  return args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--home') === 'context';
}

/** Exits once stdout and stderr have taken everything written to them (a pipe may be async). */
function exitOnceWritten(status: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
}
