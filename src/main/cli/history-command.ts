/**
 * `cairn history`: the version history of the memory an agent in this checkout sees (issue 18).
 *   cairn history [PATH] [--json] [--limit N]   versions, newest first (a file, or a directory's)
 *   cairn history --deleted [PATH]              recently deleted files, with the version to restore
 *   cairn history show ID [--diff]              one version: its content, or the change as a diff
 *   cairn history gc                            collect what retention no longer keeps
 *   cairn restore PATH --to ID                  write an earlier version back (a new change)
 *   cairn undo ID | --last                      undo a change, if its files are as it left them
 * Only the versions of the session's own scope roots are listed (its global, project and
 * workspace owners). Reading history is not a use of memory.
 */
import { parseArgs } from 'node:util';
import { createTwoFilesPatch, diffLines } from 'diff';
import { SCOPES } from '../../common/memory/constants';
import { errorText } from '../../common/memory/errors';
import { scopeOwner } from '../../common/memory/identity';
import { parseMemoryPath } from '../../common/memory/paths';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import type { UndoStep } from '../memory/history-undo';
import { SESSION_OPTIONS, sessionFromFlags, withHome } from './session-flags';
import { minuteOf, writeTable } from './table';
import type { CliIo } from './tool-command';
import { HISTORY_HELP, RESTORE_HELP, UNDO_HELP, UsageError } from './usage';

const decoder = new TextDecoder('utf-8', { fatal: false });

export async function historyCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { ...SESSION_OPTIONS, json: { type: 'boolean' }, limit: { type: 'string' }, diff: { type: 'boolean' }, deleted: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout.write(HISTORY_HELP);
    return 0;
  }
  const [first, second, ...extra] = positionals;
  if (first === 'show') {
    if (second === undefined || extra.length > 0) throw new UsageError('cairn history show takes one version id');
    return withHome(values, async ({ history }) => show(history, second, values.diff === true, io));
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
  return withHome(values, async (services) => {
    const session = await sessionFromFlags(services, values);
    let owners = SCOPES.map((scope) => scopeOwner(scope, session)).filter((o): o is string => o !== null);
    let pathFilter: string | undefined;
    if (first !== undefined) {
      const parsed = parseMemoryPath(first);
      if (parsed.kind === 'root') pathFilter = undefined;
      else {
        const owner = scopeOwner(parsed.scope, session);
        owners = owner === null ? [] : [owner];
        const clean = first.replace(/\/+$/, '');
        // A file's versions, and those of everything below it when it is (or was) a directory.
        pathFilter = parsed.segments.length === 0 ? `${clean}/` : clean;
      }
    }
    if (values.deleted) {
      // Recently deleted: files whose latest version is their delete (a rename is not a delete).
      const under = pathFilter === undefined ? () => true : (p: string) => p === pathFilter || p.startsWith(pathFilter.endsWith('/') ? pathFilter : `${pathFilter}/`);
      const gone = owners
        .flatMap((owner) => services.history.recentlyDeleted(owner))
        .filter((v) => v.op === 'delete' && under(v.path))
        .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .slice(0, limit);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ deleted: gone }, null, 2)}\n`);
        return 0;
      }
      writeTable(io, [['ID', 'DELETED (UTC)', 'WHO', 'PATH'], ...gone.map((v) => [v.id, minuteOf(v.at), v.actor, v.path])]);
      io.stdout.write(gone.length === 0 ? '(nothing deleted recently)\n' : '(bring one back with: cairn restore PATH --to ID)\n');
      return 0;
    }
    const versions = owners
      .flatMap((owner) => [
        ...services.history.list({ owner, ...(pathFilter ? { path: pathFilter } : {}), limit }),
        ...(pathFilter && !pathFilter.endsWith('/') ? services.history.list({ owner, path: `${pathFilter}/`, limit }) : []),
      ])
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit);
    const incomplete = services.history.incompleteSince();
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ versions, incompleteSince: incomplete }, null, 2)}\n`);
      return 0;
    }
    writeTable(io, [
      ['ID', 'WHEN (UTC)', 'WHO', 'CAUSE', 'CHANGE', 'PATH'],
      ...versions.map((v) => [v.id, minuteOf(v.at), v.actor, v.cause, `${v.op} ${lineCounts(services.history, v)}`.trim(), placeOf(v)]),
    ]);
    if (versions.length === 0) io.stdout.write('(no versions recorded yet)\n');
    if (incomplete) io.stdout.write(`(history incomplete since ${incomplete}: some changes after it could not be recorded)\n`);
    return 0;
  });
}

/** "+3 -1": lines added and removed by a version (blank when its bytes are not known). */
function lineCounts(history: HistoryStore, v: HistoryVersion): string {
  const before = textOf(history, v.before);
  const after = textOf(history, v.after);
  if (before === undefined || after === undefined) return '';
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before ?? '', after ?? '')) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  return `+${added} -${removed}`;
}

/** A version's side as text: null (nothing there), undefined (not known or collected). */
function textOf(history: HistoryStore, sha: string | null | 'unknown'): string | null | undefined {
  const bytes = bytesOf(history, sha);
  return bytes === null || bytes === undefined ? bytes : decoder.decode(bytes);
}

/** Where a version is, and was for a rename. */
function placeOf(v: HistoryVersion): string {
  return v.oldPath ? `${v.path} (from ${v.oldPath})` : v.path;
}

/** Writes a failure as the tool writes one (`Error: ...` on stdout); exit status 1. */
function fail(io: CliIo, text: string): number {
  io.stdout.write(`${errorText(text)}\n`);
  return 1;
}

function show(history: HistoryStore, id: string, diff: boolean, io: CliIo): number {
  const v = history.get(id);
  if (!v) return fail(io, `no version ${JSON.stringify(id)} in the history (it may have been collected); run \`cairn history\` to list them.`);
  io.stdout.write(`${v.id}  ${v.at}  ${v.actor}  ${v.cause}  ${v.op}  ${placeOf(v)}\n`);
  const before = textOf(history, v.before);
  const after = textOf(history, v.after);
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
 * holds now; a deleted file is created again. The version must be one of PATH's (its path, or the
 * path it was renamed from) in a scope this checkout sees.
 */
export async function restoreCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { ...SESSION_OPTIONS, to: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.stdout.write(RESTORE_HELP);
    return 0;
  }
  if (positionals.length !== 1 || values.to === undefined) throw new UsageError('cairn restore takes one path and --to ID (see cairn history)');
  const target = positionals[0]!;
  const id = values.to;
  return withHome(values, async (services) => {
    const session = await sessionFromFlags(services, values);
    const parsed = parseMemoryPath(target);
    const v = services.history.get(id);
    if (parsed.kind === 'root' || parsed.segments.length === 0) return fail(io, `${target} is not a file; give the path of a memory file.`);
    if (!v) return fail(io, `no version ${JSON.stringify(id)} in the history (it may have been collected); run \`cairn history ${target}\` to list its versions.`);
    const path = target.replace(/\/+$/, '');
    if ((v.path !== path && v.oldPath !== path) || v.owner !== scopeOwner(parsed.scope, session)) return fail(io, `version ${id} is not a version of ${path}; run \`cairn history ${path}\` to list its versions.`);
    const content = textOf(services.history, v.op === 'delete' ? v.before : v.after);
    if (content === null || content === undefined) return fail(io, `the content of version ${id} is not known (it was not readable when recorded, or has been collected).`);
    const { created } = await services.service.restore(path, content, `restore:${v.id}`, session);
    io.stdout.write(`Restored ${path} to version ${v.id} (${created ? 'created again' : 'replaced its content'}).\n`);
    return 0;
  });
}

/**
 * `cairn undo ID | --last`: undoes the change version ID belongs to (the whole command it was
 * part of: a directory's delete brings every file back), or the newest change in the scopes this
 * checkout sees, only if every file is still what it left; otherwise it says what conflicts and
 * changes nothing. The undo is itself a change (cause `undo:<batch>`), so it can be undone.
 */
export async function undoCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { ...SESSION_OPTIONS, last: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.stdout.write(UNDO_HELP);
    return 0;
  }
  if ((positionals.length === 1) === (values.last === true) || positionals.length > 1) throw new UsageError('cairn undo takes one version id, or --last');
  return withHome(values, async (services) => {
    const session = await sessionFromFlags(services, values);
    const owners = SCOPES.map((scope) => scopeOwner(scope, session)).filter((o): o is string => o !== null);
    let chosen: HistoryVersion | null;
    if (values.last) {
      chosen = owners.flatMap((owner) => services.history.list({ owner, limit: 1 })).sort((a, b) => (a.id < b.id ? 1 : -1))[0] ?? null;
      if (!chosen) return fail(io, 'there is no change to undo in the scopes this checkout sees.');
    } else {
      chosen = services.history.get(positionals[0]!);
      if (!chosen || !owners.includes(chosen.owner)) return fail(io, `no version ${JSON.stringify(positionals[0])} in the history of the scopes this checkout sees; run \`cairn history\` to list them.`);
    }
    const batch = services.history.list({ batch: chosen.batch });
    const steps: UndoStep[] = [];
    for (const v of batch) {
      const before = bytesOf(services.history, v.before);
      const after = bytesOf(services.history, v.after);
      if (before === undefined || after === undefined) return fail(io, `${v.path}'s bytes ${before === undefined ? 'before' : 'after'} that change are not known, so it cannot be undone; \`cairn restore\` can still write back a version that is.`);
      steps.push({ path: v.path, ...(v.oldPath !== undefined ? { oldPath: v.oldPath } : {}), op: v.op, before, after });
    }
    const outcome = await services.service.undo(steps, `undo:${chosen.batch}`, session);
    if (outcome.status === 'conflict') return fail(io, outcome.message);
    io.stdout.write(`Undid ${chosen.op} of ${batch.length === 1 ? chosen.path : `${batch.length} files`} (${chosen.actor}, ${minuteOf(chosen.at)} UTC): ${outcome.paths.join(', ')}\n`);
    return 0;
  });
}

/** A version's side as bytes: null (nothing there), undefined (not known or collected). */
function bytesOf(history: HistoryStore, sha: string | null | 'unknown'): Uint8Array | null | undefined {
  if (sha === null) return null;
  if (sha === 'unknown') return undefined;
  return history.readBlob(sha) ?? undefined;
}
