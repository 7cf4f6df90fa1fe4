/**
 * The left column: the registered workspaces (name, where the checkout is, reachable or not and
 * why, with a retry), each with its menu (Connect an agent…, Rename…, Remove…; the "⋯" button or a
 * right click), "Add workspace", the notice of files Cairn set aside, the Activity and Settings
 * entries. Each workspace also shows how many items wait in its Inbox and which agents are
 * connected now or were last seen (features/activity: the window's one activity stream runs here). A local workspace's reason is the
 * server's sentence for a person (its folder gone: remove it or restore the folder); an SSH one's
 * is the clause agents get, after "Unreachable:".
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Activity, CircleAlert, Ellipsis, FolderGit2, Loader2, Plus, RefreshCw, Server, Settings } from 'lucide-react';
import type { z } from 'zod';
import type { hostKeySchema, workspaceSchema } from '../../common/api/contract';
import { errorMessage, useApi } from '../api/api-context';
import { useAction } from '../lib/use-action';
import { presenceWords } from '../features/activity/activity-words';
import { useActivityOverview, useActivityStream } from '../features/activity/use-activity';
import { ConfirmDialog } from '../features/dialogs/Dialog';
import { ConnectAgentDialog } from '../features/onboarding/ConnectAgentDialog';
import { RemoveWorkspaceDialog } from '../features/workspaces/RemoveWorkspaceDialog';
import { SetAsideNotice } from '../features/set-aside/SetAsideNotice';
import { RenameWorkspaceDialog } from '../features/workspaces/RenameWorkspaceDialog';
import { WorkspaceMenu } from '../features/workspaces/WorkspaceMenu';
import type { View } from './view';
import { ErrorText } from '../lib/ErrorText';

type Workspace = z.infer<typeof workspaceSchema>;
type HostKey = z.infer<typeof hostKeySchema>;

/** The end of a long path, which is the part that tells checkouts apart. */
function shortPath(p: string): string {
  const parts = p.split('/').filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-2).join('/')}` : p;
}

function TrustDialog({ workspace, hostKey, onClose }: { workspace: Workspace; hostKey: HostKey; onClose: () => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const action = useAction();
  const trust = () =>
    action.run(async () => {
      const result = await client.workspaces.trust({ id: workspace.id, fingerprint: hostKey.fingerprint });
      if (result.status === 'error') return result.message;
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.status.queryKey({ input: { id: workspace.id } }) });
      await queryClient.invalidateQueries({ queryKey: orpc.memory.list.key() });
      onClose();
    });

  return (
    <ConfirmDialog title={`Trust ${hostKey.host}?`} confirmLabel="Trust this key" danger={hostKey.state === 'changed'} busy={action.busy} onConfirm={() => void trust()} onCancel={onClose}>
      {hostKey.state === 'changed' ? (
        <p className="error-text">
          The host now presents a different key than the one recorded. This happens when the machine was reinstalled, and also when someone is
          intercepting the connection. Trust it only if you know why it changed.
        </p>
      ) : (
        <p>Cairn has not connected to this host before. Check that the fingerprint matches the host's own (run <code>ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub</code> there).</p>
      )}
      <p>
        Fingerprint: <code className="fingerprint">{hostKey.fingerprint}</code>
      </p>
      <ErrorText>{action.error}</ErrorText>
    </ConfirmDialog>
  );
}

function WorkspaceStatus({ workspace, onRemove }: { workspace: Workspace; onRemove: () => void }) {
  const { orpc } = useApi();
  const status = useQuery({ ...orpc.workspaces.status.queryOptions({ input: { id: workspace.id } }), staleTime: 30_000 });
  const [trusting, setTrusting] = useState(false);
  if (status.isPending)
    return (
      <span className="ws-status" role="status">
        <Loader2 size={12} className="spin" aria-hidden /> {workspace.kind === 'ssh' ? 'connecting…' : 'checking…'}
      </span>
    );
  if (status.isError || !status.data.reachable) {
    const hostKey = status.data?.hostKey;
    return (
      <span className="ws-status bad">
        <span className="ws-reason">
          <CircleAlert size={12} aria-hidden />{' '}
          {status.isError ? errorMessage(status.error) : workspace.kind === 'local' && status.data.reason ? status.data.reason : `Unreachable: ${status.data.reason ?? 'unknown reason'}`}
        </span>
        {workspace.kind === 'local' && !status.isError && (
          <button type="button" className="link" onClick={onRemove}>
            Remove…
          </button>
        )}
        {hostKey && hostKey.state !== 'trusted' ? (
          <button type="button" className="link" onClick={() => setTrusting(true)}>
            Review host key…
          </button>
        ) : (
          <button type="button" className="icon-btn" aria-label={`Retry ${workspace.name}`} onClick={() => void status.refetch()}>
            <RefreshCw size={12} aria-hidden />
          </button>
        )}
        {trusting && hostKey && <TrustDialog workspace={workspace} hostKey={hostKey} onClose={() => setTrusting(false)} />}
      </span>
    );
  }
  return null;
}

/** What the person opened from a workspace's menu. */
type WorkspaceTask = { kind: 'connect' | 'rename' | 'remove'; workspace: Workspace };

export function Sidebar({ view, onView, onAdd }: { view: View; onView: (view: View) => void; onAdd: () => void }) {
  const { orpc } = useApi();
  const workspaces = useQuery(orpc.workspaces.list.queryOptions());
  const [menu, setMenu] = useState<{ workspace: Workspace; x: number; y: number; opener: HTMLElement | null } | null>(null);
  const [task, setTask] = useState<WorkspaceTask | null>(null);
  useActivityStream();
  const overview = useActivityOverview();
  const pendingOf = (id: string) => overview.data?.inboxPending.find((p) => p.workspaceId === id)?.count ?? 0;
  const presenceOf = (id: string) => presenceWords(overview.data?.agents.filter((a) => a.workspaceId === id) ?? []);
  const openMenu = (workspace: Workspace, x: number, y: number, opener: HTMLElement | null) => setMenu({ workspace, x, y, opener });
  const openMenuBelow = (workspace: Workspace, button: HTMLElement) => {
    const r = button.getBoundingClientRect();
    openMenu(workspace, r.left, r.bottom + 2, button);
  };
  return (
    <nav className="sidebar" aria-label="Workspaces">
      <div className="brand">
        <span className="logo" aria-hidden>
          ◭
        </span>{' '}
        Cairn
      </div>
      <div className="side-head">Workspaces</div>
      <ul className="ws-list">
        {workspaces.isPending && (
          <li className="muted" role="status">
            <Loader2 size={12} className="spin" aria-hidden /> Loading…
          </li>
        )}
        {workspaces.isError && (
          <li className="ws-status bad" role="alert">
            Could not load workspaces{workspaces.error?.message ? `: ${workspaces.error.message}` : '.'}{' '}
            <button type="button" className="link" onClick={() => void workspaces.refetch()}>
              Retry
            </button>
          </li>
        )}
        {workspaces.data?.length === 0 && <li className="muted">None yet: add the folder of a project your agents work in.</li>}
        {workspaces.data?.map((w) => {
          const current = view.kind === 'workspace' && view.workspaceId === w.id;
          const host = w.host;
          const pending = pendingOf(w.id);
          const presence = presenceOf(w.id);
          return (
            <li key={w.id}>
              <div className="ws-row">
                <button
                  type="button"
                  className={current ? 'ws current' : 'ws'}
                  aria-current={current ? 'page' : undefined}
                  // The workspace shown already: nothing to switch to, so nothing to ask about unsaved edits.
                  onClick={() => {
                    if (!current) onView({ kind: 'workspace', workspaceId: w.id });
                  }}
                  onContextMenu={(e) => {
                    e.preventDefault();
                    openMenu(w, e.clientX, e.clientY, e.currentTarget.parentElement?.querySelector<HTMLElement>('.ws-menu-btn') ?? null);
                  }}
                >
                  {w.kind === 'local' ? <FolderGit2 size={15} aria-hidden /> : <Server size={15} aria-hidden />}
                  <span className="ws-text">
                    <span className="ws-name" title={w.name}>
                      {w.name}
                    </span>
                    <span className="ws-where" title={w.path}>
                      {host ? `${host}:${shortPath(w.path)}` : shortPath(w.path)}
                    </span>
                    {presence && <span className="ws-agents">{presence}</span>}
                  </span>
                  {pending > 0 && (
                    <span className="ws-inbox-count" title={`${pending} waiting in the Inbox`}>
                      {pending}
                      <span className="sr-only"> waiting in the Inbox</span>
                    </span>
                  )}
                </button>
                <button
                  type="button"
                  className="icon-btn ws-menu-btn"
                  aria-label={`${w.name}: actions`}
                  title="Connect an agent, rename, remove"
                  aria-haspopup="menu"
                  aria-expanded={menu?.workspace.id === w.id}
                  onClick={(e) => openMenuBelow(w, e.currentTarget)}
                  onKeyDown={(e) => {
                    if (e.key !== 'ArrowDown') return;
                    e.preventDefault();
                    openMenuBelow(w, e.currentTarget);
                  }}
                >
                  <Ellipsis size={15} aria-hidden />
                </button>
              </div>
              <WorkspaceStatus workspace={w} onRemove={() => setTask({ kind: 'remove', workspace: w })} />
            </li>
          );
        })}
      </ul>
      <button type="button" className="btn side-btn" onClick={onAdd}>
        <Plus size={14} aria-hidden /> Add workspace
      </button>
      {menu && (
        <WorkspaceMenu
          x={menu.x}
          y={menu.y}
          label={`${menu.workspace.name}: actions`}
          items={[
            { label: 'Connect an agent…', run: () => setTask({ kind: 'connect', workspace: menu.workspace }) },
            { label: 'Rename…', run: () => setTask({ kind: 'rename', workspace: menu.workspace }) },
            { label: 'Remove…', run: () => setTask({ kind: 'remove', workspace: menu.workspace }), danger: true },
          ]}
          onClose={() => {
            // Back to the "⋯" button, also under a dialog an item opens: the dialog gives the focus
            // back to what had it when it opened.
            menu.opener?.focus();
            setMenu(null);
          }}
        />
      )}
      {task?.kind === 'connect' && <ConnectAgentDialog workspaceId={task.workspace.id} name={task.workspace.name} onClose={() => setTask(null)} />}
      {task?.kind === 'rename' && <RenameWorkspaceDialog workspace={task.workspace} onClose={() => setTask(null)} />}
      {task?.kind === 'remove' && <RemoveWorkspaceDialog workspace={task.workspace} onClose={() => setTask(null)} />}
      <SetAsideNotice />
      <div className="side-foot">
        <button type="button" className={view.kind === 'activity' ? 'ws current' : 'ws'} aria-current={view.kind === 'activity' ? 'page' : undefined} onClick={() => onView({ kind: 'activity' })}>
          <Activity size={15} aria-hidden /> Activity
        </button>
        <button type="button" className={view.kind === 'settings' ? 'ws current' : 'ws'} aria-current={view.kind === 'settings' ? 'page' : undefined} onClick={() => onView({ kind: 'settings' })}>
          <Settings size={15} aria-hidden /> Settings
        </button>
      </div>
    </nav>
  );
}
