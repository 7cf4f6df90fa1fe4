/**
 * `cairn sync`: memory kept in step with a git remote the person owns.
 *   cairn sync --remote URL [--scope global]   set it up, and sync now
 *   cairn sync --scope workspace               the memory of this checkout's workspace syncs too (and sync now)
 *   cairn sync                                 sync now
 *   cairn sync --status [--json]               where it stands
 *   cairn sync --off                           stop syncing (memory and the sync's repository stay)
 *   cairn sync --scope workspace --off         this workspace's memory no longer syncs
 * The work is sync/sync-run.ts's (which workspaces may sync: sync/sync-control.ts); this module
 * parses flags and prints.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryHome } from '../host/memory-home';
import type { SyncRun } from '../../common/sync/sync-status';
import { setWorkspaceSync, syncServices, syncSettingsWith, syncStatus, SyncSetupError } from '../sync/sync-control';
import { findGitRoot } from '../workspaces/identity';
import { readSyncState, runSync } from '../sync/sync-run';
import { shownRemote } from '../sync/sync-settings';
import { SESSION_OPTIONS, withMemoryHome } from './session-flags';
import { refusing, type CliIo } from './tool-command';
import { SYNC_HELP, UsageError } from './usage';

export async function syncCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...SESSION_OPTIONS,
      remote: { type: 'string' },
      scope: { type: 'string' },
      status: { type: 'boolean' },
      off: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(SYNC_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`cairn sync takes no ${positionals[0]} (see cairn sync --help)`);
  if (values.scope !== undefined && values.scope !== 'global' && values.scope !== 'workspace') throw new UsageError('--scope takes global or workspace (the memory of the workspace of --cwd or --workspace)');
  const workspaceScope = values.scope === 'workspace';
  const chosen = [values.remote !== undefined, values.status === true, values.off === true].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('cairn sync takes one of --remote, --status and --off');
  return withMemoryHome(values, (services) =>
    refusing(io, async () => {
      if (values.off && workspaceScope) return workspaceOff(services, values, io);
      if (values.off) return off(services, io);
      if (values.status) return status(services, io, values.json === true);
      if (values.remote !== undefined) {
        const remote = values.remote.trim();
        if (remote === '' || remote.startsWith('-')) throw new UsageError('--remote takes the URL or path of a git repository you can push to');
        await services.registry.setSettings({ sync: syncSettingsWith(services, remote) });
        io.stdout.write(`The global memory now syncs with ${shownRemote(remote)}.\n`);
      }
      if (workspaceScope) {
        const id = await workspaceOf(services, values, true);
        await setWorkspaceSync(services, id, true);
        io.stdout.write(`The memory of workspace ${services.registry.get(id)?.name ?? id} now syncs too, by its repository's identity (its clones on your other machines share it).\n`);
      }
      const remote = services.registry.settings().sync?.remote;
      if (!remote) {
        io.stderr.write('Sync is not set up. Set it up with: cairn sync --remote URL (a git repository you can push to)\n');
        return 1;
      }
      const record = await runSync(await syncServices(services), remote);
      io.stdout.write(runText(record, remote, services.registry.settings().sync?.workspaces.length ?? 0));
      return record.outcome === 'synced' ? 0 : 1;
    }),
  );
}

/**
 * The registered workspace the flags name: --workspace, else the git checkout holding --cwd (or
 * the working directory), registered first when `register` (turning its sync on registers it, as
 * the app lists it then).
 */
async function workspaceOf(services: MemoryHome, flags: { cwd?: string | undefined; workspace?: string | undefined }, register: boolean): Promise<string> {
  if (flags.workspace !== undefined) {
    if (!services.registry.get(flags.workspace)) throw new SyncSetupError(`No workspace ${flags.workspace} is registered (cairn workspace list shows them).`);
    return flags.workspace;
  }
  const checkout = await findGitRoot(path.resolve(flags.cwd ?? process.cwd()));
  if (!checkout) throw new SyncSetupError('This folder is not inside a git checkout, so its workspace memory has no project identity to share with your other machines; only a git checkout\'s workspace memory syncs.');
  const real = fs.realpathSync(checkout);
  const known = services.registry.list().find((w) => w.kind === 'local' && w.path === real);
  if (known) return known.id;
  if (!register) throw new SyncSetupError('This checkout is not a registered workspace, so its memory does not sync.');
  return (await services.registry.add('', real)).id;
}

async function workspaceOff(services: MemoryHome, flags: { cwd?: string | undefined; workspace?: string | undefined }, io: CliIo): Promise<number> {
  const id = await workspaceOf(services, flags, false);
  const was = services.registry.settings().sync?.workspaces.includes(id) ?? false;
  await setWorkspaceSync(services, id, false);
  const name = services.registry.get(id)?.name ?? id;
  io.stdout.write(was ? `The memory of workspace ${name} no longer syncs. It stays as it is on this machine and in the sync's repository.\n` : `The memory of workspace ${name} was not syncing; nothing changed.\n`);
  return 0;
}

function runText(record: SyncRun, remote: string, workspaces: number): string {
  const where = shownRemote(remote);
  const what = workspaces === 0 ? 'the global memory' : `the global memory and ${workspaces === 1 ? "a workspace's" : `${workspaces} workspaces'`}`;
  const parts = [`${record.sent.length} sent`, `${record.received.length} taken in`];
  if (record.held.length > 0) parts.push(`${record.held.length} held in the Inbox for your review`);
  if (record.conflicts.length > 0) parts.push(`${record.conflicts.length} changed on both sides (the other side waits in the Inbox)`);
  const lines = [];
  if (record.outcome === 'synced') lines.push(`Synced ${what} with ${where}: ${parts.join(', ')}.`);
  else if (record.outcome === 'offline') lines.push(`Could not sync with ${where}: ${record.error ?? 'the remote could not be reached.'}`, `So far: ${parts.join(', ')}.`);
  else lines.push(`The sync with ${where} failed: ${record.error ?? 'unknown error'}`);
  if (record.outcome === 'synced' && record.error) lines.push(record.error);
  for (const p of record.held) lines.push(`  held: ${p}`);
  for (const p of record.conflicts) lines.push(`  both changed: ${p}`);
  return `${lines.join('\n')}\n`;
}

async function off(services: MemoryHome, io: CliIo): Promise<number> {
  const was = services.registry.settings().sync?.remote;
  await services.registry.setSettings({ sync: null });
  io.stdout.write(was ? `The global memory no longer syncs with ${shownRemote(was)}. Memory stays as it is on this machine.\n` : 'Sync was not set up; nothing changed.\n');
  return 0;
}

function status(services: MemoryHome, io: CliIo, json: boolean): number {
  const remote = services.registry.settings().sync?.remote ?? null;
  const state = readSyncState(services.home);
  const now = syncStatus(services);
  if (json) {
    io.stdout.write(`${JSON.stringify(now, null, 2)}\n`);
    return 0;
  }
  if (!remote) {
    io.stdout.write('Sync is off. Set it up with: cairn sync --remote URL\n');
    return 0;
  }
  const last = state.lastRun;
  const lines = [`The global memory syncs with ${shownRemote(remote)}.`];
  const workspaces = now.workspaces.filter((w) => w.syncing);
  if (workspaces.length > 0) lines.push(`The memory of ${workspaces.length === 1 ? 'workspace' : 'workspaces'} ${workspaces.map((w) => w.name).join(', ')} syncs too.`);
  lines.push(state.lastSyncedAt ? `Last synced: ${state.lastSyncedAt}.` : 'Not synced yet.');
  if (last && last.outcome !== 'synced') lines.push(`Last try (${last.at}): ${last.outcome}: ${last.error ?? ''}`.trimEnd());
  if (last) lines.push(`Last run: ${last.sent.length} sent, ${last.received.length} taken in, ${last.held.length} held, ${last.conflicts.length} changed on both sides; ${last.waiting} commit${last.waiting === 1 ? '' : 's'} waiting to go out.`);
  const held = Object.keys(state.held).length;
  if (held > 0) lines.push(`${held} incoming file${held === 1 ? '' : 's'} wait in the Inbox for your review (cairn inbox list).`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
