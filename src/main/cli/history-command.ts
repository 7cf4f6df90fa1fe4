/**
 * `cairn history`: the version history of the memory an agent in this checkout sees.
 *   cairn history [PATH] [--scope S] [--json] [--limit N]   versions, newest first
 *   cairn history --deleted [PATH]              recently deleted files, with the version to restore
 *   cairn history show ID [--diff]              one version: its content, or the change as a diff
 *   cairn history gc                            collect what retention no longer keeps
 *   cairn restore PATH --to ID                  write an earlier version back (a new change)
 *   cairn undo ID | --last                      undo a change, if its files are as it left them
 * The history itself is VersionHistory's (memory/version-history.ts), shared with the app's API;
 * this module parses flags and prints.
 */
import { createTwoFilesPatch } from 'diff';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { reopenUndone } from '../inbox/inbox-review';
import type { VersionRow } from '../memory/version-history';
import type { HomeServices } from '../host/home-services';
import { SESSION_OPTIONS, sessionFromFlags, withHome } from './session-flags';
import { minuteOf, writeTable, writeJson } from './table';
import { refusing, type CliIo } from './tool-command';
import { commandArgs } from './command-args';
import { HISTORY_HELP, RESTORE_HELP, UNDO_HELP, UsageError } from './usage';

export async function historyCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, HISTORY_HELP, {
    ...SESSION_OPTIONS,
    json: { type: 'boolean' },
    limit: { type: 'string' },
    scope: { type: 'string' },
    diff: { type: 'boolean' },
    deleted: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const [first, second, ...extra] = positionals;
  if (first === 'show') {
    if (second === undefined || extra.length > 0) throw new UsageError('cairn history show takes one version id');
    return withHome(values, (services) => refusing(io, () => show(services, second, values.diff === true, values, io)));
  }
  if (first === 'gc') {
    if (second !== undefined) throw new UsageError('cairn history gc takes no argument');
    return withHome(values, async ({ history }) => {
      const removed = history.gc();
      io.stdout.write(`Collected ${removed.versions} versions and ${removed.blobs} stored contents (${removed.bytes} bytes).\n`);
      return 0;
    });
  }
  if (second !== undefined) throw new UsageError('cairn history takes at most one path');
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
  if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(values.scope)) throw new UsageError(`--scope takes one of ${SCOPES.join(', ')}`);
  const options = { path: first, scope: values.scope as Scope | undefined, limit };
  return withHome(values, (services) =>
    refusing(io, async () => {
      const session = await sessionFromFlags(services, values);
      if (values.deleted) {
        const gone = services.versions.deleted(session, options);
        if (values.json) return writeJson(io, { deleted: gone });
        writeTable(io, [['ID', 'DELETED (UTC)', 'WHO', 'PATH'], ...gone.map((v) => [v.id, minuteOf(v.at), v.actor, v.path])]);
        io.stdout.write(gone.length === 0 ? '(nothing deleted recently)\n' : '(bring one back with: cairn restore PATH --to ID)\n');
        return 0;
      }
      const { versions, incompleteSince } = services.versions.list(session, options);
      if (values.json) return writeJson(io, { versions, incompleteSince });
      writeTable(io, [
        ['ID', 'WHEN (UTC)', 'WHO', 'CAUSE', 'CHANGE', 'PATH'],
        ...versions.map((v) => [v.id, minuteOf(v.at), v.actor, v.cause, `${v.op} ${lineCounts(v)}`.trim(), placeOf(v)]),
      ]);
      if (versions.length === 0) io.stdout.write('(no versions recorded yet)\n');
      if (incompleteSince) io.stdout.write(`(history incomplete since ${incompleteSince}: some changes after it could not be recorded)\n`);
      return 0;
    }),
  );
}

/** "+3 -1": lines added and removed by a version (blank when its bytes are not known). */
function lineCounts(v: VersionRow): string {
  return v.added === null || v.removed === null ? '' : `+${v.added} -${v.removed}`;
}

/** Where a version is, and was for a rename. */
function placeOf(v: VersionRow): string {
  return v.oldPath ? `${v.path} (from ${v.oldPath})` : v.path;
}

async function show(services: HomeServices, id: string, diff: boolean, flags: Parameters<typeof sessionFromFlags>[1], io: CliIo): Promise<number> {
  const { version: v, before, after } = services.versions.read(id, await sessionFromFlags(services, flags));
  io.stdout.write(`${v.id}  ${v.at}  ${v.actor}  ${v.cause}  ${v.op}  ${placeOf(v)}\n`);
  if (diff) {
    if (before === undefined || after === undefined) io.stdout.write('(the bytes of one side of this change are not known)\n');
    else io.stdout.write(createTwoFilesPatch(v.oldPath ?? v.path, v.path, before ?? '', after ?? '', 'before', 'after'));
    return 0;
  }
  // The content this version left; for a delete, what it took away.
  const content = v.op === 'delete' ? before : after;
  if (content === undefined) io.stdout.write('(the content of this version is not known)\n');
  else if (content === null) io.stdout.write('(no content)\n');
  else io.stdout.write(content.endsWith('\n') ? content : `${content}\n`);
  return 0;
}

/**
 * `cairn restore PATH --to ID`: writes the content version ID left (for a delete, what it took
 * away) back to PATH, as a new change of the person's (cause `restore:<ID>`), whatever the file
 * holds now; a deleted file is created again (VersionHistory.restore).
 */
export async function restoreCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, RESTORE_HELP, { ...SESSION_OPTIONS, to: { type: 'string' } });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || values.to === undefined) throw new UsageError('cairn restore takes one path and --to ID (see cairn history)');
  const target = positionals[0]!;
  const id = values.to;
  return withHome(values, (services) =>
    refusing(io, async () => {
      const session = await sessionFromFlags(services, values);
      const { path, version, created } = await services.versions.restore(target, id, session);
      io.stdout.write(`Restored ${path} to version ${version.id} (${created ? 'created again' : 'replaced its content'}).\n`);
      return 0;
    }),
  );
}

/**
 * `cairn undo ID | --last`: undoes the change version ID belongs to (the whole command it was
 * part of), or the newest change in the scopes this checkout sees, only if every file is still
 * what it left; otherwise it says what conflicts and changes nothing (VersionHistory.undo).
 */
export async function undoCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, UNDO_HELP, { ...SESSION_OPTIONS, last: { type: 'boolean' } });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if ((positionals.length === 1) === (values.last === true) || positionals.length > 1) throw new UsageError('cairn undo takes one version id, or --last');
  return withHome(values, (services) =>
    refusing(io, async () => {
      const session = await sessionFromFlags(services, values);
      const outcome = await services.versions.undo(values.last ? 'last' : positionals[0]!, session);
      if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
      const v = outcome.version;
      io.stdout.write(`Undid ${v.op} of ${outcome.files === 1 ? v.path : `${outcome.files} files`} (${v.actor}, ${minuteOf(v.at)} UTC): ${outcome.paths.join(', ')}\n`);
      const reopened = reopenUndone(services.inbox, v.cause);
      if (reopened) io.stdout.write(`Its approval is undone: inbox item ${reopened.id} is pending again (cairn inbox show ${reopened.id}).\n`);
      return 0;
    }),
  );
}
