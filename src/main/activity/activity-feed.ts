/**
 * The Activity view's rows: what agents did across every workspace and scope, newest first. Made
 * of two records that already exist (nothing is logged twice): the history's versions whose actor
 * is an agent (each with its agent and session when recorded: history-log.ts `agent`), and the
 * inbox's items (a harvest's proposal, an agent's change held for review, a sync's incoming change).
 *
 * A page keeps its rows live without listing everything again: an ActivityFollower, one per page's
 * stream, answers the rows of the versions recorded since it last looked (the history's reader reads
 * only what was appended), which the page merges into what it holds (mergeActivityRows).
 *
 * Invariants: a row's id says where it comes from (`v:<version id>`, `i:<item id>`), so reading
 * its sides goes to the one record it stands for; an old version without an agent reads as an
 * agent not recorded (null), never as a guess; the listing and a follower make a version's row the
 * same way (versionRow, isActivity), and the order and the filter are the contract's, so the rows a
 * page merges are the rows a listing would answer.
 */
import { ACTIVITY_LIMIT, activityRowPasses, compareActivityRows, sortedWorkspaces, type ActivityKind, type ActivityRow } from '../../common/api/contract/activity';
import { agentRefOf } from '../../common/activity/agents';
import { parseMemoryPath } from '../../common/memory/paths';
import type { Scope } from '../../common/memory/constants';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import type { InboxItem, InboxStore } from '../inbox/inbox-store';

export interface ActivityFilter {
  readonly workspaceId?: string | null;
  readonly scope?: Scope | null;
  readonly agent?: string | null;
  readonly limit?: number;
}

export interface ActivityListing {
  readonly rows: ActivityRow[];
  /** Every agent name and workspace met (whatever the filter), for the filters' choices. */
  readonly agents: string[];
  readonly workspaces: Array<string | null>;
}

const OPS: Readonly<Record<HistoryVersion['op'], ActivityKind>> = { create: 'create', update: 'edit', rename: 'rename', delete: 'delete' };

function versionRow(v: HistoryVersion): ActivityRow {
  return {
    id: `v:${v.id}`,
    kind: OPS[v.op],
    at: v.at,
    workspaceId: v.workspaceId,
    scope: v.scope,
    path: v.path,
    oldPath: v.oldPath ?? null,
    agent: v.agent ?? null,
    status: null,
    by: v.actor === 'sync' ? 'sync' : v.actor === 'external' ? 'external' : 'agent',
  };
}

/**
 * Whether a change made belongs in the Activity view: an agent's; a sync's (another machine's
 * change taken in); and project memory changed outside Cairn (a pull brings a teammate's memory,
 * which agents then read), not a person's own edits of their global or workspace files.
 */
function isActivity(v: HistoryVersion): boolean {
  return v.actor === 'agent' || v.actor === 'sync' || (v.actor === 'external' && v.scope === 'project');
}

/** The scope of a memory path, or null when it is none. */
function scopeOf(p: string): Scope | null {
  try {
    const parsed = parseMemoryPath(p);
    return parsed.kind === 'root' ? null : parsed.scope;
  } catch {
    return null;
  }
}

function itemRow(item: InboxItem): ActivityRow | null {
  if (item.kind === 'change') {
    const { change, source } = item;
    const kind: ActivityKind = source.from?.kind === 'sync' ? 'sync' : 'held';
    return {
      id: `i:${item.id}`,
      kind,
      at: item.createdAt,
      workspaceId: source.workspaceId,
      scope: change.scope,
      path: change.newPath ?? change.path,
      oldPath: change.newPath === null ? null : change.path,
      agent: null,
      status: item.status,
      by: null,
    };
  }
  const { candidate, source } = item;
  const target = item.approvedTo ?? item.target;
  const scope = scopeOf(target) ?? candidate.scope;
  return {
    id: `i:${item.id}`,
    kind: 'proposal',
    at: item.createdAt,
    workspaceId: source.workspaceId,
    scope,
    path: target,
    oldPath: null,
    // A person's import or adoption has no agent: it is no agent's activity.
    agent: source.agent === null ? null : (agentRefOf(source.agent, source.sessionId) ?? null),
    status: item.status,
    by: null,
  };
}

/** Rows newest first that pass `filter` (at most its limit, ACTIVITY_LIMIT by default). */
export function listActivity(history: HistoryStore, inbox: InboxStore, filter: ActivityFilter = {}): ActivityListing {
  const all: ActivityRow[] = [];
  for (const v of history.list()) if (isActivity(v)) all.push(versionRow(v));
  for (const item of inbox.list()) {
    if (item.kind === 'memory' && item.source.agent === null) continue;
    const row = itemRow(item);
    if (row) all.push(row);
  }
  all.sort(compareActivityRows);
  const agents = new Set<string>();
  const workspaces = new Set<string | null>();
  const rows: ActivityRow[] = [];
  const limit = filter.limit ?? ACTIVITY_LIMIT;
  for (const row of all) {
    if (row.agent) agents.add(row.agent.name);
    workspaces.add(row.workspaceId);
    if (rows.length < limit && activityRowPasses(row, filter)) rows.push(row);
  }
  return { rows, agents: [...agents].sort(), workspaces: sortedWorkspaces(workspaces) };
}

/**
 * Follows the history for one page: next() answers the rows of the agents' (and syncs', and
 * outside) versions recorded since the last call, newest first, or null when the history no longer
 * holds the version it last saw (collected, or its batch taken back): the page then lists again.
 */
export class ActivityFollower {
  private newest: string | null;

  constructor(private readonly history: HistoryStore) {
    this.newest = history.list({ limit: 1 })[0]?.id ?? null;
  }

  next(): ActivityRow[] | null {
    const versions = this.history.list();
    const since: HistoryVersion[] = [];
    let found = this.newest === null;
    for (const v of versions) {
      if (v.id === this.newest) {
        found = true;
        break;
      }
      since.push(v);
    }
    if (!found) {
      this.newest = versions[0]?.id ?? null;
      return null;
    }
    if (since.length > 0) this.newest = since[0]!.id;
    return since.filter(isActivity).map(versionRow);
  }
}

export interface ActivitySides {
  readonly row: ActivityRow;
  /** undefined: not recorded (or collected); null: nothing was (or is) there. */
  readonly before: string | null | undefined;
  readonly after: string | null | undefined;
}

const decoder = new TextDecoder();

/** A row's two sides as text, or null when the row is gone (collected, decided and dropped). */
export function readActivity(history: HistoryStore, inbox: InboxStore, id: string): ActivitySides | null {
  if (id.startsWith('v:')) {
    const v = history.get(id.slice(2));
    if (!v) return null;
    const text = (sha: string | null | 'unknown'): string | null | undefined => {
      if (sha === null) return null;
      if (sha === 'unknown') return undefined;
      const bytes = history.readBlob(sha);
      return bytes === null ? undefined : decoder.decode(bytes);
    };
    return { row: versionRow(v), before: text(v.before), after: text(v.after) };
  }
  if (id.startsWith('i:')) {
    const item = inbox.list().find((i) => i.id === id.slice(2));
    const row = item ? itemRow(item) : null;
    if (!item || !row) return null;
    if (item.kind === 'change') return { row, before: item.change.before, after: item.change.after };
    return { row, before: null, after: item.approvedText ?? item.candidate.text };
  }
  return null;
}
