/**
 * `cairn export [--scope S] [--cwd DIR | --workspace ID] > memory.tar`: the memory files
 * of the session's scope roots as a deterministic tar on stdout (src/main/import/memory-tar.ts
 * says what is in it); what was exported, and what was not and why, on stderr. Pins, usage,
 * history and the inbox are not exported. `cairn import --from cairn memory.tar` reads it back.
 * Exit 0 written, 1 the chosen scope is not available (nothing written), 2 usage error (also when
 * stdout is a terminal: a tar is not for reading there).
 */
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { exportMemory } from '../import/memory-tar';
import { SESSION_OPTIONS, sessionFromFlags, withMemoryHome } from './session-flags';
import type { CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { EXPORT_HELP, UsageError } from './usage';

export async function exportCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, EXPORT_HELP, { ...SESSION_OPTIONS, scope: { type: 'string' } });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError('cairn export takes no argument; redirect its output to a file: cairn export > memory.tar');
  if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(values.scope)) throw new UsageError(`--scope is one of ${SCOPES.join(', ')}`);
  if (values.cwd !== undefined && values.workspace !== undefined) throw new UsageError('give --cwd or --workspace, not both');
  if ((io.stdout as { isTTY?: boolean }).isTTY) throw new UsageError('the export is a tar archive; redirect it to a file: cairn export > memory.tar');
  const scopes: readonly Scope[] = values.scope === undefined ? SCOPES : [values.scope as Scope];
  return withMemoryHome(values, (services) =>
    // Errors go to stderr: stdout is the archive.
    onStderr(io, async () => {
      const session = await sessionFromFlags(services, values);
      const outcome = await exportMemory(session, scopes);
      if (values.scope !== undefined && outcome.unavailable.length > 0) {
        throw new MemoryToolError(`/memories/${values.scope} is not available here (${outcome.unavailable[0]!.reason}); nothing was exported.`);
      }
      await new Promise<void>((resolve, reject) => io.stdout.write(outcome.tar, (err) => (err ? reject(err) : resolve())));
      const lines = [`Exported ${outcome.files} memory file${outcome.files === 1 ? '' : 's'} (${scopes.filter((s) => !outcome.unavailable.some((u) => u.scope === s)).join(', ') || 'no scope'}); pins, usage and history are not exported.`];
      for (const u of outcome.unavailable) lines.push(`  /memories/${u.scope} was not exported: it is not available here (${u.reason})`);
      for (const p of outcome.skipped) lines.push(`  ${p} was left out: too large, unreadable or not UTF-8`);
      io.stderr.write(`${lines.join('\n')}\n`);
      return 0;
    }),
  );
}

async function onStderr(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof MemoryToolError)) throw err;
    io.stderr.write(`cairn export: ${err.message}\n`);
    return 1;
  }
}
