/**
 * Settings › Sync: the global memory kept in step with a git repository the person owns. Off: a
 * field for the remote and what it does; on: the remote, the last sync (when, what went out and
 * came in, what waits in the Inbox, errors in words), Sync now, and Turn off; and a switch per
 * workspace whose memory syncs too (off until turned on; by its repository's identity).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SyncStatus } from '../../../common/api/contract';
import { useApi } from '../../api/api-context';
import { relativeTime } from '../../lib/relative-time';
import { useAction } from '../../lib/use-action';

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function WorkspaceSwitches({ status, busy, set }: { status: SyncStatus; busy: boolean; set: (id: string, on: boolean) => void }) {
  if (status.workspaces.length === 0) return null;
  return (
    <fieldset className="sync-workspaces">
      <legend>Workspace memory</legend>
      <p className="muted">A workspace&rsquo;s memory syncs too when you turn it on, matched by its repository, so its clones on your other machines share it.</p>
      {status.workspaces.map((w) => (
        <label key={w.id} className="row">
          <input type="checkbox" checked={w.syncing} disabled={busy} onChange={(e) => set(w.id, e.target.checked)} />
          Sync the memory of {w.name}
        </label>
      ))}
    </fieldset>
  );
}

function LastRun({ status }: { status: SyncStatus }) {
  const run = status.lastRun;
  if (!run) return <p className="muted">Not synced yet.</p>;
  const when = relativeTime(run.at, Date.now());
  return (
    <div className="sync-last" aria-label="Last sync">
      {run.outcome === 'synced' ? (
        <p>
          Synced {when}: {count(run.sent.length, 'file')} sent, {count(run.received.length, 'file')} taken in.
        </p>
      ) : (
        <p className={run.outcome === 'offline' ? 'warn' : 'error'} role="status">
          {run.outcome === 'offline' ? 'Offline' : 'Failed'} {when}: {run.error}
        </p>
      )}
      {run.held.length > 0 && <p>{count(run.held.length, 'incoming file')} held in the Inbox for your review (a scanner flagged it, or the global memory is in review mode).</p>}
      {run.conflicts.length > 0 && <p>{count(run.conflicts.length, 'file')} changed on both machines: this machine&rsquo;s side stays; the other waits in the Inbox.</p>}
      {run.waiting > 0 && <p className="muted">{count(run.waiting, 'commit')} of this machine waiting to go out.</p>}
      {status.lastSyncedAt && run.outcome !== 'synced' && <p className="muted">Last synced {relativeTime(status.lastSyncedAt, Date.now())}.</p>}
    </div>
  );
}

export function SyncSettingsPanel() {
  const { orpc, client } = useApi();
  const queryClient = useQueryClient();
  const status = useQuery(orpc.sync.status.queryOptions());
  const action = useAction();
  const [remote, setRemote] = useState('');
  const done = (next: SyncStatus): void => {
    queryClient.setQueryData(orpc.sync.status.queryKey(), next);
  };
  const s = status.data;
  return (
    <section className="sync-settings" role="tabpanel" aria-label="Sync">
      <p>
        Keep your global memory in step across your machines through a git repository you own (a private repository on a forge, a bare repository over SSH, or a path). Cairn runs your own git, with your credentials. Pins
        and usage stay on each machine.
      </p>
      {!s ? null : s.remote === null ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => done(await client.sync.setUp({ remote })));
          }}
        >
          <label>
            Repository
            <input type="text" value={remote} onChange={(e) => setRemote(e.target.value)} placeholder="git@github.com:you/cairn-memory.git" spellCheck={false} required />
          </label>
          <button type="submit" className="btn primary" disabled={action.busy || remote.trim() === ''}>
            {action.busy ? 'Syncing…' : 'Set up and sync'}
          </button>
        </form>
      ) : (
        <>
          <p>
            The global memory syncs with <code>{s.remote}</code>, a while after it changes and every few minutes while Cairn runs.
          </p>
          <LastRun status={s} />
          <WorkspaceSwitches status={s} busy={action.busy} set={(id, on) => void action.run(async () => done(await client.sync.setWorkspace({ id, on })))} />
          <div className="row">
            <button type="button" className="btn primary" disabled={action.busy} onClick={() => void action.run(async () => done(await client.sync.now()))}>
              {action.busy ? 'Syncing…' : 'Sync now'}
            </button>
            <button type="button" className="btn" disabled={action.busy} onClick={() => void action.run(async () => done(await client.sync.off()))}>
              Turn off
            </button>
          </div>
        </>
      )}
      {action.error && (
        <p className="error" role="alert">
          {action.error}
        </p>
      )}
    </section>
  );
}
