/** The executable entry of the CLI: built to out/main/cli.js and run by bin/cairn. */
import { main } from './index';

// Output piped into a reader that stops early (`cairn stats | head`) is not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (status) => {
    process.exitCode = status;
  },
  (err: unknown) => {
    process.stderr.write(`cairn: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
