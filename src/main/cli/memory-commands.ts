/**
 * `cairn pin`, `cairn unpin` and `cairn stats`: pins and usage from the sidecar. Each opens the
 * home's memory (src/main/host/memory-home.ts) for the one command and closes it after.
 * (`cairn context`,
 * which hooks run on every prompt, is ./context-command.ts: it must load much less.)
 */
import { cappedScopeNote } from '../../common/context/render';
import { formatMemoryPath } from '../../common/memory/paths';
import type { MemoryHome } from '../host/memory-home';
import { SESSION_OPTIONS, sessionFromFlags, withMemoryHome, type SessionFlags } from './session-flags';
import { minuteOf, writeTable } from './table';
import { refusing, type CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { PIN_HELP, STATS_HELP, UsageError } from './usage';

export async function pinCommand(args: string[], io: CliIo, pinned: boolean): Promise<number> {
  const parsed = commandArgs(args, io, PIN_HELP, SESSION_OPTIONS);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`give one memory path, e.g. cairn ${pinned ? 'pin' : 'unpin'} /memories/project/build.md`);
  return withMemoryHome(values, async (services) => {
    const session = await sessionFromFlags(services, values);
    return refusing(io, async () => {
      io.stdout.write(`${await services.service.setPinned(positionals[0]!, pinned, session)}\n`);
      return 0;
    });
  });
}

export async function statsCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, STATS_HELP, { ...SESSION_OPTIONS, json: { type: 'boolean' } }, false);
  if (!parsed) return 0;
  const { values } = parsed;
  return withMemoryHome(values, (services) => stats(services, values, io));
}

async function stats(services: MemoryHome, values: SessionFlags & { json?: boolean | undefined }, io: CliIo): Promise<number> {
  const session = await sessionFromFlags(services, values);
  const snapshot = await services.builder.snapshot(session);
  if (values.json) {
    const files = snapshot.files.map((f) => ({ path: f.path, scope: f.scope, size: f.size, description: f.description, ...f.stats }));
    io.stdout.write(`${JSON.stringify({ workspaceId: session.workspaceId, projectId: session.projectId, files, unavailable: snapshot.unavailable, capped: snapshot.capped }, null, 2)}\n`);
    return 0;
  }
  writeTable(io, [['PIN', 'USES', 'LAST USED (UTC)', 'LAST WRITTEN (UTC)', 'PATH'], ...snapshot.files.map((f) => [f.stats.pinned ? 'yes' : '', String(f.stats.accessCount), minuteOf(f.stats.lastAccessedAt), minuteOf(f.stats.lastWriteAt), f.path])]);
  for (const scope of snapshot.capped) io.stdout.write(`${cappedScopeNote(formatMemoryPath(scope))}\n`);
  for (const u of snapshot.unavailable) io.stdout.write(`(/memories/${u.scope} is unavailable: ${u.reason})\n`);
  return 0;
}
