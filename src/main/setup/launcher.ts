/**
 * The command agents run to reach Cairn: the absolute path of this checkout's `bin/cairn` (found
 * from the built CLI's location, out/main/cli.js), else `cairn` from the PATH; and POSIX shell
 * quoting for the places that take a command line rather than an argv (hooks, printed commands).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The launcher beside the running CLI: `<checkout>/bin/cairn` when the CLI runs from
 * `<checkout>/out/main/cli.js` (bin/cairn itself, or node run on the built file); `cairn` otherwise.
 */
export function resolveLauncher(): string {
  const dirs = new Set<string>();
  const script = process.argv[1];
  if (script) dirs.add(path.dirname(path.resolve(script)));
  try {
    dirs.add(path.dirname(fileURLToPath(import.meta.url)));
  } catch {
    // Not loaded from a file (bundled into a test, say): argv[1] alone is looked at.
  }
  for (const dir of dirs) {
    // out/main/cli.js, or a chunk of it in out/main/chunks/.
    for (const up of ['../..', '../../..']) {
      const candidate = path.resolve(dir, up, 'bin', 'cairn');
      if (isFile(candidate) && isFile(path.resolve(candidate, '..', '..', 'out', 'main', 'cli.js'))) {
        try {
          return fs.realpathSync(candidate);
        } catch {
          return candidate;
        }
      }
    }
  }
  return 'cairn';
}

/** Quotes one word for a POSIX shell; words made only of safe characters stay as they are. */
function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
