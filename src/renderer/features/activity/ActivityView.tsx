/**
 * The Activity view: what agents changed across every workspace and scope, newest first. Each row
 * says who (the agent in words and its session), what (created, edited, renamed, deleted, held for
 * review, proposed to the Inbox, synced in) and when; choosing it opens its diff (the history's
 * LineDiff). Filters by workspace, scope and agent. Rows newer than the person's last "Mark all
 * seen" (kept by the server, so every window and reload agrees) stand above a divider "New since
 * you last looked". The list is virtual (the tree's library): a home's whole history can be long.
 * Live: the sidebar's one activity stream asks for the rows again when anything changes.
 *
 * Keyboard: the filters and "Mark all seen" are ordinary controls; in the list, Up and Down move
 * between rows, Home and End go to the ends, Enter or Space opens a row's diff.
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Activity as ActivityIcon, CheckCheck } from 'lucide-react';
import { useCallback, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { ActivityRow } from '../../../common/api/contract';
import { agentLabel } from '../../../common/activity/agents';
import { SCOPES, type Scope } from '../../../common/memory/constants';
import { useApi } from '../../api/api-context';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { relativeTime } from '../../lib/relative-time';
import { useAction } from '../../lib/use-action';
import { LineDiff } from '../history/LineDiff';
import { agentWords, kindWords, newRowsCount, pathWords, rowLabel, rowSentence, sessionWords, statusWords } from './activity-words';

const ROW_HEIGHT = 52;
const DIVIDER_HEIGHT = 30;

type Item = { kind: 'row'; row: ActivityRow; isNew: boolean } | { kind: 'divider' };

export function ActivityView() {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [workspaceId, setWorkspaceId] = useState<string | null>(null);
  const [scope, setScope] = useState<Scope | null>(null);
  const [agent, setAgent] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const workspaces = useQuery(orpc.workspaces.list.queryOptions());
  const list = useQuery({ ...orpc.activity.list.queryOptions({ input: { workspaceId, scope, agent } }), placeholderData: keepPreviousData });
  const mark = useAction();
  const names = useMemo(() => new Map((workspaces.data ?? []).map((w) => [w.id, w.name])), [workspaces.data]);
  const workspaceName = (id: string | null) => (id === null ? 'no workspace' : (names.get(id) ?? id));

  const rows = list.data?.rows;
  const seenAt = list.data?.seenAt ?? null;
  const items = useMemo<Item[]>(() => {
    if (!rows) return [];
    const fresh = newRowsCount(rows, seenAt);
    const out: Item[] = rows.map((row, i) => ({ kind: 'row', row, isNew: i < fresh }));
    // The divider sits under the new rows when there are older ones below them.
    if (fresh > 0 && fresh < rows.length) out.splice(fresh, 0, { kind: 'divider' });
    return out;
  }, [rows, seenAt]);
  const freshCount = rows ? newRowsCount(rows, seenAt) : 0;

  const scrollRef = useRef<HTMLDivElement>(null);
  const estimateSize = useCallback((i: number) => (items[i]!.kind === 'divider' ? DIVIDER_HEIGHT : ROW_HEIGHT), [items]);
  const getItemKey = useCallback((i: number) => {
    const item = items[i]!;
    return item.kind === 'divider' ? 'divider' : item.row.id;
  }, [items]);
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scrollRef.current, estimateSize, getItemKey, overscan: 8 });

  const markAllSeen = () =>
    mark.run(async () => {
      const newest = rows?.[0]?.at;
      if (!newest) return;
      await client.activity.markSeen({ at: newest });
      await queryClient.invalidateQueries({ queryKey: orpc.activity.list.key() });
    });

  /** Moves the focus to the row `index` of `items` (skipping the divider), scrolled into view first. */
  const focusItem = (index: number) => {
    const target = Math.max(0, Math.min(items.length - 1, index));
    virtualizer.scrollToIndex(target);
    requestAnimationFrame(() => scrollRef.current?.querySelector<HTMLElement>(`[data-index="${target}"] .activity-row`)?.focus());
  };
  const onRowKey = (e: KeyboardEvent, index: number) => {
    const step = (dir: 1 | -1) => {
      let next = index + dir;
      if (items[next]?.kind === 'divider') next += dir;
      if (next >= 0 && next < items.length) focusItem(next);
    };
    if (e.key === 'ArrowDown') step(1);
    else if (e.key === 'ArrowUp') step(-1);
    else if (e.key === 'Home') focusItem(0);
    else if (e.key === 'End') focusItem(items.length - 1);
    else return;
    e.preventDefault();
  };

  const agents = list.data?.agents ?? [];
  const workspaceChoices = list.data?.workspaces ?? [];
  return (
    <section className="activity-view" aria-labelledby="activity-title">
      <header className="activity-head">
        <h1 id="activity-title">
          <ActivityIcon size={18} aria-hidden /> Activity
        </h1>
        <p className="muted">What agents changed, in every workspace, newest first.</p>
        <div className="activity-filters" role="group" aria-label="Filters">
          <label>
            Workspace{' '}
            <select value={workspaceId ?? ''} onChange={(e) => setWorkspaceId(e.target.value === '' ? null : e.target.value)}>
              <option value="">All</option>
              {[...new Set([...(workspaces.data ?? []).map((w) => w.id), ...workspaceChoices.filter((w): w is string => w !== null)])].map((id) => (
                <option key={id} value={id}>
                  {workspaceName(id)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Scope{' '}
            <select value={scope ?? ''} onChange={(e) => setScope(e.target.value === '' ? null : (e.target.value as Scope))}>
              <option value="">All</option>
              {SCOPES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Agent{' '}
            <select value={agent ?? ''} onChange={(e) => setAgent(e.target.value === '' ? null : e.target.value)}>
              <option value="">All</option>
              {agents.map((a) => (
                <option key={a} value={a}>
                  {agentLabel(a)}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="btn" onClick={() => void markAllSeen()} disabled={mark.busy || freshCount === 0}>
            <CheckCheck size={14} aria-hidden /> Mark all seen
          </button>
          <span className="muted" role="status">
            {freshCount > 0 ? `${freshCount} new` : ''}
          </span>
        </div>
        {mark.error && (
          <p className="error-text" role="alert">
            {mark.error}
          </p>
        )}
      </header>
      <div className="activity-body">
        {list.isPending ? (
          <Loading what="the activity" />
        ) : list.isError ? (
          <LoadFailed what="the activity" error={list.error} onRetry={() => void list.refetch()} />
        ) : items.length === 0 ? (
          <p className="muted activity-empty">{workspaceId || scope || agent ? 'No activity matches these filters.' : 'No agent has changed memory yet. Changes appear here as agents make them.'}</p>
        ) : (
          <div className="activity-list" ref={scrollRef} role="list" aria-label="Changes by agents, newest first">
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((v) => {
                const item = items[v.index]!;
                return (
                  <div key={v.key} data-index={v.index} role="listitem" style={{ position: 'absolute', top: 0, left: 0, right: 0, height: v.size, transform: `translateY(${v.start}px)` }}>
                    {item.kind === 'divider' ? (
                      <div className="activity-divider">
                        <span>New since you last looked</span>
                      </div>
                    ) : (
                      <ActivityRowView row={item.row} isNew={item.isNew} open={openId === item.row.id} workspace={workspaceName(item.row.workspaceId)} onOpen={() => setOpenId(openId === item.row.id ? null : item.row.id)} onKeyDown={(e) => onRowKey(e, v.index)} />
                    )}
                  </div>
                );
              })}
            </div>
          </div>
        )}
        {openId && <ActivityDiff id={openId} onClose={() => setOpenId(null)} />}
      </div>
    </section>
  );
}

function ActivityRowView({ row, isNew, open, workspace, onOpen, onKeyDown }: { row: ActivityRow; isNew: boolean; open: boolean; workspace: string; onOpen: () => void; onKeyDown: (e: KeyboardEvent) => void }) {
  const now = Date.now();
  const session = sessionWords(row);
  const status = statusWords(row);
  const when = relativeTime(row.at, now) ?? row.at;
  return (
    <button type="button" className={`activity-row${isNew ? ' new' : ''}${open ? ' open' : ''}`} aria-expanded={open} aria-label={rowLabel(row, workspace, isNew, now)} onClick={onOpen} onKeyDown={onKeyDown}>
      <span className="activity-line">
        <span className="activity-agent">{agentWords(row)}</span> <span className={`activity-kind kind-${row.kind}`}>{kindWords(row.kind)}</span>{' '}
        <span className="activity-path" title={row.path}>
          {pathWords(row)}
        </span>
      </span>{' '}
      {/* Spaces between the parts: not drawn (flex items), but they keep the words apart in the row's text, which its name must hold. */}
      <span className="activity-meta">
        <span>{workspace}</span> <span>{row.scope}</span> {session && <span>{session}</span>} {status && <span>{status}</span>}{' '}
        <time dateTime={row.at} title={new Date(row.at).toLocaleString()}>
          {when}
        </time>
      </span>
    </button>
  );
}

function ActivityDiff({ id, onClose }: { id: string; onClose: () => void }) {
  const { orpc } = useApi();
  const sides = useQuery(orpc.activity.read.queryOptions({ input: { id } }));
  return (
    <section className="activity-diff" aria-label="What the change did">
      <div className="activity-diff-head">
        <strong>{sides.data ? rowSentence(sides.data.row) : 'The change'}</strong>
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
      {sides.isPending ? (
        <Loading what="the change" />
      ) : sides.isError ? (
        <LoadFailed what="the change" error={sides.error} onRetry={() => void sides.refetch()} />
      ) : !sides.data.beforeKnown || !sides.data.afterKnown ? (
        <p className="history-hint">What this change did is not known: the content {sides.data.beforeKnown ? 'after' : 'before'} it was not recorded (or has been collected).</p>
      ) : (
        <LineDiff oldText={sides.data.before ?? ''} newText={sides.data.after ?? ''} oldLabel="before the change" newLabel="after it" />
      )}
    </section>
  );
}
