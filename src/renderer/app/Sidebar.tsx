/**
 * The left column: the registered workspaces (name, where the checkout is, reachable or not and
 * why, with a retry), "Add workspace", and the Settings entry.
 */
import { useQuery } from '@tanstack/react-query';
import { CircleAlert, FolderGit2, Loader2, Plus, RefreshCw, Server, Settings } from 'lucide-react';
import type { z } from 'zod';
import type { workspaceSchema } from '../../common/api/contract';
import { errorMessage, useApi } from '../api/api-context';
import type { View } from './view';

type Workspace = z.infer<typeof workspaceSchema>;

/** The end of a long path, which is the part that tells checkouts apart. */
function shortPath(p: string): string {
  const parts = p.split('/').filter(Boolean);
  return parts.length > 3 ? `…/${parts.slice(-2).join('/')}` : p;
}

function WorkspaceStatus({ workspace }: { workspace: Workspace }) {
  const { orpc } = useApi();
  const status = useQuery({ ...orpc.workspaces.status.queryOptions({ input: { id: workspace.id } }), staleTime: 30_000 });
  if (status.isPending)
    return (
      <span className="ws-status" role="status">
        <Loader2 size={12} className="spin" aria-hidden /> checking…
      </span>
    );
  if (status.isError || !status.data.reachable)
    return (
      <span className="ws-status bad">
        <CircleAlert size={12} aria-hidden /> {status.isError ? errorMessage(status.error) : `Unreachable: ${status.data.reason ?? 'unknown reason'}`}
        <button
          type="button"
          className="icon-btn"
          aria-label={`Retry ${workspace.name}`}
          onClick={(e) => {
            e.stopPropagation();
            void status.refetch();
          }}
        >
          <RefreshCw size={12} aria-hidden />
        </button>
      </span>
    );
  return null;
}

export function Sidebar({ view, onView, onAdd }: { view: View; onView: (view: View) => void; onAdd: () => void }) {
  const { orpc } = useApi();
  const workspaces = useQuery(orpc.workspaces.list.queryOptions());
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
            Could not load workspaces.{' '}
            <button type="button" className="link" onClick={() => void workspaces.refetch()}>
              Retry
            </button>
          </li>
        )}
        {workspaces.data?.length === 0 && <li className="muted">None yet: add the folder of a project your agents work in.</li>}
        {workspaces.data?.map((w) => {
          const current = view.kind === 'workspace' && view.workspaceId === w.id;
          const host = (w as { host?: string | null }).host ?? null;
          return (
            <li key={w.id}>
              <button type="button" className={current ? 'ws current' : 'ws'} aria-current={current ? 'page' : undefined} onClick={() => onView({ kind: 'workspace', workspaceId: w.id })}>
                {w.kind === 'local' ? <FolderGit2 size={15} aria-hidden /> : <Server size={15} aria-hidden />}
                <span className="ws-text">
                  <span className="ws-name">{w.name}</span>
                  <span className="ws-where" title={w.path}>
                    {host ? `${host}:${shortPath(w.path)}` : shortPath(w.path)}
                  </span>
                  <WorkspaceStatus workspace={w} />
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" className="btn side-btn" onClick={onAdd}>
        <Plus size={14} aria-hidden /> Add workspace
      </button>
      <div className="side-foot">
        <button type="button" className={view.kind === 'settings' ? 'ws current' : 'ws'} aria-current={view.kind === 'settings' ? 'page' : undefined} onClick={() => onView({ kind: 'settings' })}>
          <Settings size={15} aria-hidden /> Settings
        </button>
      </div>
    </nav>
  );
}
