/** The executable entry of the CLI: built to out/main/cli.js and run by bin/cairn. */
import { main } from './index';

main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (status) => {
    process.exitCode = status;
  },
  (err: unknown) => {
    process.stderr.write(`cairn: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
