/** The executable entry of the CLI: built to out/main/cli.js and run by bin/cairn. */
import { main, splitGlobal } from './index';
import { exitOnceWritten, processIo } from './process-io';

const argv = process.argv.slice(2);

main(argv, processIo).then(
  (status) => {
    process.exitCode = status;
    if (exitsOnceAnswered(argv)) exitOnceWritten(status);
  },
  (err: unknown) => {
    processIo.stderr.write(`cairn: ${String(err)}\n`);
    process.exitCode = 1;
  },
);

/**
 * `cairn context` runs before every prompt a person sends, and leaves nothing behind
 * when its promise settles: every write it makes is awaited. It exits as soon as its output is
 * out instead of waiting for the event loop to wind down and the heap to be torn down, which
 * cost a 3000-file memory about 7 ms a prompt. Other commands may leave work running (a server, a
 * transport) and end as before.
 */
function exitsOnceAnswered(args: string[]): boolean {
  return splitGlobal(args).command === 'context';
}
