/**
 * How the inbox reads: which proposals a view shows, grouped by the agent's session they
 * came from (agents' changes held by review mode apart), and the words for an item's category,
 * confidence, source and evidence, and for a change. Pure, so the grouping and wording are tested
 * without a DOM. The agents' names and short session ids are the harvest's own
 * (common/api/harvest-status-text.ts), as the status line and the CLI write them.
 */
import { changeTitle } from '../../../common/api/inbox-text';
import type { DamagedInboxItemView, InboxItemView } from '../../../common/api/contract';

export type InboxItem = InboxItemView;
export type DamagedInboxItem = DamagedInboxItemView;

/**
 * The proposals a view reviews: those from sessions in its workspace, and those from sessions in
 * no registered workspace (they can go to this view's memory, or be retargeted). The global view
 * (no workspace) reviews only the latter.
 */
export function itemsForView(items: readonly InboxItem[], workspaceId: string | null, status: 'pending' | 'held' = 'pending'): InboxItem[] {
  return items.filter((i) => i.status === status && (i.workspaceId === null || i.workspaceId === workspaceId));
}

type Agent = NonNullable<InboxItem['agent']>;
type Category = NonNullable<InboxItem['category']>;

/** The agents' changes held by review mode, and the proposals from sessions, each in the order given. */
export function splitKinds(items: readonly InboxItem[]): { changes: InboxItem[]; proposals: InboxItem[] } {
  return { changes: items.filter((i) => i.kind === 'change'), proposals: items.filter((i) => i.kind === 'memory') };
}

export interface SessionGroup {
  /** `agent:sessionId`. */
  readonly key: string;
  /** Null for a file a person imported or adopted (session `import:<file>`, `adopt:<file>`). */
  readonly agent: Agent | null;
  readonly sessionId: string;
  readonly extractor: string;
  readonly items: InboxItem[];
}

/** Proposals grouped by session, in the order given (newest first), each group where its first item is. */
export function groupBySession(items: readonly InboxItem[]): SessionGroup[] {
  const groups = new Map<string, { key: string; agent: Agent | null; sessionId: string; extractor: string; items: InboxItem[] }>();
  for (const item of items) {
    // A change held by review mode comes from no session: it is shown apart.
    if (item.kind !== 'memory') continue;
    const key = `${item.agent ?? ''}:${item.sessionId}`;
    const group = groups.get(key);
    if (group) group.items.push(item);
    else groups.set(key, { key, agent: item.agent, sessionId: item.sessionId, extractor: item.extractor, items: [item] });
  }
  return [...groups.values()];
}

export const CATEGORY_LABELS: Record<Category, string> = {
  preference: 'Preference',
  convention: 'Convention',
  fact: 'Fact',
  command: 'Command',
  lesson: 'Lesson',
};

/**
 * "80% sure" from 0.8: how sure an extractor is. An entry imported or adopted from a file was read,
 * not guessed (`fromFile`), so it gets no confidence words.
 */
export function confidenceText(confidence: number | null, fromFile = false): string {
  return confidence === null || fromFile ? '' : `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)}% sure`;
}

/**
 * Where an imported or adopted entry's quote was read: "From the file CLAUDE.md, line 3" (its
 * message id is `<file>:<line>`), never "You said": a file, not the person, said it.
 */
export function fileEvidenceText(file: string, messageId: string): string {
  const line = messageId.startsWith(`${file}:`) ? messageId.slice(file.length + 1) : '';
  return /^\d+$/.test(line) ? `From the file ${file}, line ${line}` : `From the file ${file}`;
}

type Change = NonNullable<InboxItem['change']>;

/** What an agent's change held for review does, as the heading of its card. */
export { changeTitle };

/** The confirmation once a change is approved (it is in memory now). */
export function changeApprovedText(change: Change): string {
  switch (change.command) {
    case 'create':
      return `Approved: ${change.path} is created.`;
    case 'delete':
      return `Approved: ${change.path} is deleted.`;
    case 'rename':
      return `Approved: ${change.path} is renamed to ${change.newPath}.`;
    default:
      return `Approved: the agent\u2019s edit of ${change.path} is in memory.`;
  }
}

/** The two sides of a change's diff, as LineDiff names them. */
export const CHANGE_SIDES = { old: 'the file now', new: 'the agent\u2019s version' } as const;

/**
 * Who said an evidence quote, as the transcript records it; for an item proposed before the host
 * recorded speakers, what the checks imply (a preference or a convention needs the person's words).
 */
export function evidenceSpeaker(category: InboxItem['category'], speaker: InboxItem['evidence'][number]['speaker'] = null): string {
  if (speaker === 'person') return 'You said';
  if (speaker === 'agent') return 'The agent said';
  if (speaker === 'tool') return 'A tool\u2019s output';
  return category === 'preference' || category === 'convention' ? 'You said' : 'In the session';
}

/** The file name at the end of a memory path. */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Why a target a person typed cannot be used, or null when it looks like a memory file's path. */
export function targetProblem(path: string): string | null {
  const p = path.trim();
  if (p.length === 0) return 'Give the memory file to add it to.';
  if (!/^\/memories\/(global|project|workspace)\/[^/]/.test(p)) return 'A memory file\u2019s path starts with /memories/global/, /memories/project/ or /memories/workspace/.';
  if (p.endsWith('/')) return 'That is a directory; give a file name.';
  return null;
}

/** The item a focus should move to after `id` leaves the list: the next one, else the one before. */
export function neighbourOf(items: readonly InboxItem[], id: string): string | null {
  const at = items.findIndex((i) => i.id === id);
  if (at < 0) return items[0]?.id ?? null;
  return items[at + 1]?.id ?? items[at - 1]?.id ?? null;
}
