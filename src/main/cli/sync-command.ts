/**
 * `cairn sync`: the global memory kept in step with a git remote the person owns.
 *   cairn sync --remote URL [--scope global]   set it up, and sync now
 *   cairn sync                                 sync now
 *   cairn sync --status [--json]               where it stands
 *   cairn sync --off                           stop syncing (memory and the sync's repository stay)
 * The work is sync/sync-run.ts's; this module parses flags and prints.
 */
import { parseArgs } from 'node:util';
import type { HomeServices } from '../host/home-services';
import type { SyncRun } from '../../common/sync/sync-status';
import { syncServices } from '../sync/sync-control';
import { readSyncState, runSync } from '../sync/sync-run';
import { shownRemote } from '../sync/sync-settings';
import { SESSION_OPTIONS, withHome } from './session-flags';
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
  if (values.scope !== undefined && values.scope !== 'global') throw new UsageError('--scope takes global (the global memory is what syncs)');
  const chosen = [values.remote !== undefined, values.status === true, values.off === true].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('cairn sync takes one of --remote, --status and --off');
  return withHome(values, (services) =>
    refusing(io, async () => {
      if (values.off) return off(services, io);
      if (values.status) return status(services, io, values.json === true);
      if (values.remote !== undefined) {
        const remote = values.remote.trim();
        if (remote === '' || remote.startsWith('-')) throw new UsageError('--remote takes the URL or path of a git repository you can push to');
        await services.registry.setSettings({ sync: { remote } });
        io.stdout.write(`The global memory now syncs with ${shownRemote(remote)}.\n`);
      }
      const remote = services.registry.settings().sync?.remote;
      if (!remote) {
        io.stderr.write('Sync is not set up. Set it up with: cairn sync --remote URL (a git repository you can push to)\n');
        return 1;
      }
      const record = await runSync(await syncServices(services), remote);
      io.stdout.write(runText(record, remote));
      return record.outcome === 'synced' ? 0 : 1;
    }),
  );
}

function runText(record: SyncRun, remote: string): string {
  const where = shownRemote(remote);
  const parts = [`${record.sent.length} sent`, `${record.received.length} taken in`];
  if (record.held.length > 0) parts.push(`${record.held.length} held in the Inbox for your review`);
  if (record.conflicts.length > 0) parts.push(`${record.conflicts.length} changed on both sides (the other side waits in the Inbox)`);
  const lines = [];
  if (record.outcome === 'synced') lines.push(`Synced the global memory with ${where}: ${parts.join(', ')}.`);
  else if (record.outcome === 'offline') lines.push(`Could not sync with ${where}: ${record.error ?? 'the remote could not be reached.'}`, `So far: ${parts.join(', ')}.`);
  else lines.push(`The sync with ${where} failed: ${record.error ?? 'unknown error'}`);
  if (record.outcome === 'synced' && record.error) lines.push(record.error);
  for (const p of record.held) lines.push(`  held: ${p}`);
  for (const p of record.conflicts) lines.push(`  both changed: ${p}`);
  return `${lines.join('\n')}\n`;
}

async function off(services: HomeServices, io: CliIo): Promise<number> {
  const was = services.registry.settings().sync?.remote;
  await services.registry.setSettings({ sync: null });
  io.stdout.write(was ? `The global memory no longer syncs with ${shownRemote(was)}. Memory stays as it is on this machine.\n` : 'Sync was not set up; nothing changed.\n');
  return 0;
}

function status(services: HomeServices, io: CliIo, json: boolean): number {
  const remote = services.registry.settings().sync?.remote ?? null;
  const state = readSyncState(services.home);
  if (json) {
    io.stdout.write(`${JSON.stringify({ remote: remote ? shownRemote(remote) : null, lastSyncedAt: state.lastSyncedAt, lastRun: state.lastRun, held: Object.keys(state.held).length }, null, 2)}\n`);
    return 0;
  }
  if (!remote) {
    io.stdout.write('Sync is off. Set it up with: cairn sync --remote URL\n');
    return 0;
  }
  const last = state.lastRun;
  const lines = [`The global memory syncs with ${shownRemote(remote)}.`];
  lines.push(state.lastSyncedAt ? `Last synced: ${state.lastSyncedAt}.` : 'Not synced yet.');
  if (last && last.outcome !== 'synced') lines.push(`Last try (${last.at}): ${last.outcome}: ${last.error ?? ''}`.trimEnd());
  if (last) lines.push(`Last run: ${last.sent.length} sent, ${last.received.length} taken in, ${last.held.length} held, ${last.conflicts.length} changed on both sides; ${last.waiting} commit${last.waiting === 1 ? '' : 's'} waiting to go out.`);
  const held = Object.keys(state.held).length;
  if (held > 0) lines.push(`${held} incoming file${held === 1 ? '' : 's'} wait in the Inbox for your review (cairn inbox list).`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
