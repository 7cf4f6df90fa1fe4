/**
 * The arguments of a `cairn` command, parsed as every command parses them: strictly (an unknown
 * flag is a usage error, exit 2, through index.ts), with -h/--help printing the command's help on
 * stdout. Light on purpose: `cairn context` loads it on every prompt.
 */
import { parseArgs } from 'node:util';
import type { CliIo } from './tool-command';

type OptionsConfig = NonNullable<Parameters<typeof parseArgs>[0]>['options'] & object;

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

type Parsed<O extends OptionsConfig, P extends boolean> = ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: P; options: O & typeof HELP_OPTION }>>;

/**
 * `args` parsed with `options` (and --help), or null once the help is written (the command then
 * exits 0). Positional arguments are refused, as parseArgs refuses them, unless `allowPositionals`.
 */
export function commandArgs<O extends OptionsConfig, P extends boolean = true>(args: string[], io: CliIo, help: string, options: O, allowPositionals: P = true as P): Parsed<O, P> | null {
  const parsed = parseArgs({ args, strict: true, allowPositionals, options: { ...options, ...HELP_OPTION } });
  if ((parsed.values as { help?: boolean }).help) {
    io.stdout.write(help);
    return null;
  }
  return parsed as Parsed<O, P>;
}
