/**
 * The Activity view's words: what a row did, who did it, when, and the line that says which agents
 * a workspace has seen. Pure, so each sentence is tested once.
 */
import type { ActivityKind, ActivityRow, AgentSeenView } from '../../../common/api/contract';
import { agentLabel } from '../../../common/activity/agents';
import { relativeTime } from '../../lib/relative-time';

const KIND_WORDS: Readonly<Record<ActivityKind, string>> = {
  create: 'created',
  edit: 'edited',
  rename: 'renamed',
  delete: 'deleted',
  held: 'held for review',
  proposal: 'proposed to the Inbox',
  sync: 'synced in',
};

/** "edited", "proposed to the Inbox"... */
export function kindWords(kind: ActivityKind): string {
  return KIND_WORDS[kind];
}

/** The agent in words ("Claude Code"), or "An agent" when it was not recorded. */
export function agentWords(row: Pick<ActivityRow, 'agent' | 'kind' | 'by'>): string {
  if (row.agent) return agentLabel(row.agent.name);
  if (row.by === 'external') return 'Outside Cairn (a pull or an editor)';
  if (row.by === 'sync') return 'Another machine (sync)';
  return row.kind === 'sync' ? 'A sync' : 'An agent';
}

/** A session id short enough to tell sessions apart in a row ("session 3f2a9c1b"), or null. */
export function sessionWords(row: Pick<ActivityRow, 'agent'>): string | null {
  const s = row.agent?.session ?? '';
  return s === '' ? null : `session ${s.length > 8 ? s.slice(0, 8) : s}`;
}

/** The file a row is about: its path, or a rename's "<old> to <new>". */
export function pathWords(row: Pick<ActivityRow, 'kind' | 'path' | 'oldPath'>): string {
  return row.kind === 'rename' && row.oldPath ? `${row.oldPath} to ${row.path}` : row.path;
}

/** An inbox item's state, when the row shows it (a held change and a sync's say theirs in their kind). */
export function statusWords(row: Pick<ActivityRow, 'kind' | 'status'>): string | null {
  return row.status && row.kind !== 'held' && row.kind !== 'sync' ? row.status : null;
}

/** The row as one sentence: "Claude Code edited /memories/project/a.md, 5 min ago". */
export function rowSentence(row: ActivityRow, now = Date.now()): string {
  return `${agentWords(row)} ${kindWords(row.kind)} ${pathWords(row)}, ${relativeTime(row.at, now) ?? row.at}`;
}

/**
 * A row's accessible name: every word it shows, in the order it shows them (so a person who reads
 * the row can say it to voice control, and axe's label-in-name holds), then whether it is new:
 * "Claude Code edited /memories/project/a.md, widgets, project, session 3f2a9c1b, 5 min ago, new".
 */
export function rowLabel(row: ActivityRow, workspace: string, isNew: boolean, now = Date.now()): string {
  const session = sessionWords(row);
  const status = statusWords(row);
  const parts = [`${agentWords(row)} ${kindWords(row.kind)} ${pathWords(row)}`, workspace, row.scope, session, status, relativeTime(row.at, now) ?? row.at, isNew ? 'new' : null];
  return parts.filter((p): p is string => p !== null).join(', ');
}

/**
 * The line a workspace shows of its agents: those connected now ("Claude Code connected"), else
 * the one seen last ("Codex seen 5 min ago"); null when none was ever seen.
 */
export function presenceWords(agents: readonly AgentSeenView[], now = Date.now()): string | null {
  const connected = [...new Set(agents.filter((a) => a.connected).map((a) => agentLabel(a.name)))];
  if (connected.length > 0) return `${connected.join(', ')} connected`;
  const last = [...agents].sort((a, b) => (a.at < b.at ? 1 : -1))[0];
  return last ? `${agentLabel(last.name)} seen ${relativeTime(last.at, now) ?? 'before'}` : null;
}

/** Where the "New since you last looked" divider goes: the index of the first row not new (rows newest first); 0 when none is new. */
export function newRowsCount(rows: readonly Pick<ActivityRow, 'at'>[], seenAt: string | null): number {
  if (seenAt === null) return rows.length;
  let n = 0;
  while (n < rows.length && rows[n]!.at > seenAt) n++;
  return n;
}
