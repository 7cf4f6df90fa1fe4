/**
 * `cairn setup claude|codex|cursor`: prints (--print) or merges into the agent's own files the
 * configuration that makes it use Cairn (src/main/setup). Exit 0 done (or nothing to do), 1 a file
 * could not be read, parsed or written (nothing written then), 2 usage error.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { SetupError } from '../setup/config-file';
import { resolveLauncher } from '../setup/launcher';
import { AGENTS, applyPlan, planSetup, renderOutcomes, renderPlan, type Agent } from '../setup/setup';
import type { CliIo } from './tool-command';
import { SETUP_HELP, UsageError } from './usage';

export async function setupCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      cwd: { type: 'string' },
      home: { type: 'string' },
      print: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(SETUP_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`name one agent: cairn setup ${AGENTS.join('|')}`);
  const agent = positionals[0]!;
  if (!(AGENTS as readonly string[]).includes(agent)) throw new UsageError(`unknown agent ${JSON.stringify(agent)}; choose one of ${AGENTS.join(', ')}`);
  if (values.home === '') throw new UsageError('--home needs a directory');
  if (values.cwd === '') throw new UsageError('--cwd needs a directory');

  const chosenHome = values.home ?? (process.env.CAIRN_HOME || undefined);
  try {
    const plan = await planSetup(agent as Agent, {
      launcher: resolveLauncher(),
      home: chosenHome ? path.resolve(chosenHome) : undefined,
      cwd: values.cwd ?? process.cwd(),
    });
    if (values.print) {
      io.stdout.write(renderPlan(plan));
      return 0;
    }
    io.stdout.write(renderOutcomes(plan, await applyPlan(plan)));
    return 0;
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    io.stderr.write(`cairn setup: ${err.message}\n`);
    return 1;
  }
}
