/**
 * How the inbox reads (issue 19): which proposals a view shows, grouped by the agent's session they
 * came from, and the words for an item's category, confidence, source and evidence. Pure, so the
 * grouping and wording are tested without a DOM.
 */
import type { InboxItemView } from '../../../common/api/contract';

export type InboxItem = InboxItemView;

/**
 * The proposals a view reviews: those from sessions in its workspace, and those from sessions in
 * no registered workspace (they can go to this view's memory, or be retargeted). The global view
 * (no workspace) reviews only the latter.
 */
export function itemsForView(items: readonly InboxItem[], workspaceId: string | null): InboxItem[] {
  return items.filter((i) => i.status === 'pending' && (i.workspaceId === null || i.workspaceId === workspaceId));
}

export interface SessionGroup {
  /** `agent:sessionId`. */
  readonly key: string;
  readonly agent: InboxItem['agent'];
  readonly sessionId: string;
  readonly extractor: string;
  readonly items: InboxItem[];
}

/** Proposals grouped by session, in the order given (newest first), each group where its first item is. */
export function groupBySession(items: readonly InboxItem[]): SessionGroup[] {
  const groups = new Map<string, { key: string; agent: InboxItem['agent']; sessionId: string; extractor: string; items: InboxItem[] }>();
  for (const item of items) {
    const key = `${item.agent}:${item.sessionId}`;
    const group = groups.get(key);
    if (group) group.items.push(item);
    else groups.set(key, { key, agent: item.agent, sessionId: item.sessionId, extractor: item.extractor, items: [item] });
  }
  return [...groups.values()];
}

export const AGENT_NAMES: Record<InboxItem['agent'], string> = { claude: 'Claude Code', codex: 'Codex' };

export const CATEGORY_LABELS: Record<InboxItem['category'], string> = {
  preference: 'Preference',
  convention: 'Convention',
  fact: 'Fact',
  command: 'Command',
  lesson: 'Lesson',
};

/** The first characters of a session id: enough to tell sessions apart. */
export function shortSession(sessionId: string): string {
  return sessionId.length > 8 ? sessionId.slice(0, 8) : sessionId;
}

/** "80% sure" from 0.8. */
export function confidenceText(confidence: number): string {
  return `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)}% sure`;
}

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
