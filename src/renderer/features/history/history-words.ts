/**
 * How the version history reads to a person: what a version did ("Edited", "Renamed from a.md"),
 * who made it and how ("An agent, with the memory tool", "You, saved in Cairn"), the lines it
 * changed, and times (relative in lists, exact on hover and in the detail). Pure, so the wording is
 * tested without a DOM.
 */
import type { Version } from '../../../common/api/contract';
import { relativeTime } from '../../lib/relative-time';

/** The exact local time of an ISO timestamp, to the second ("24 Nov 2026, 12:00:03"). */
export function exactTime(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(t));
}

/** "5 min ago", or the exact time when the timestamp is no time. */
export function whenText(iso: string, now = Date.now()): string {
  return relativeTime(iso, now) ?? exactTime(iso);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function dirName(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

/** What the version did to the file: "Created", "Edited", "Deleted", "Renamed from a.md", "Moved from /memories/...". */
export function opWords(v: Pick<Version, 'op' | 'path' | 'oldPath'>): string {
  switch (v.op) {
    case 'create':
      return 'Created';
    case 'update':
      return 'Edited';
    case 'delete':
      return 'Deleted';
    case 'rename':
      if (!v.oldPath) return 'Renamed';
      return dirName(v.oldPath) === dirName(v.path) ? `Renamed from ${baseName(v.oldPath)}` : `Moved from ${v.oldPath}`;
  }
}

const WHO: Record<Version['actor'], string> = { person: 'You', agent: 'An agent', external: 'Outside Cairn', sync: 'Another machine' };

/**
 * Who made the version, and how, in plain words. `restoredAt` gives the time of the version a
 * restore brought back, when it is known (it is in the same list).
 */
export function byWords(v: Pick<Version, 'actor' | 'cause'>, restoredAt?: string | null, now = Date.now()): string {
  const who = WHO[v.actor];
  if (v.cause === 'ui') return `${who}, saved in Cairn`;
  if (v.cause === 'tool') return `${who}, with the memory tool`;
  if (v.cause === 'external') return v.actor === 'external' ? 'Outside Cairn (another editor, git, ...)' : `${who}, outside Cairn`;
  if (v.cause.startsWith('undo:')) return `${who}, with Undo`;
  if (v.cause.startsWith('sync:')) return `${who}, through sync (commit ${v.cause.slice(5, 12)})`;
  if (v.cause.startsWith('harvest:')) return `${who}, approving a proposal from the Inbox`;
  if (v.cause.startsWith('review:')) return `${who}, approving an agent's change from the Inbox`;
  if (v.cause.startsWith('restore:')) return restoredAt ? `${who}, restoring the version of ${whenText(restoredAt, now)}` : `${who}, restoring an earlier version`;
  return v.actor === 'external' ? who : `${who} (${v.cause})`;
}

/** The id of the version a restore brought back (`restore:<id>`), or null. */
export function restoredId(cause: string): string | null {
  return cause.startsWith('restore:') ? cause.slice('restore:'.length) : null;
}

/** "+3 −1" for the eye; null when the lines are not known. */
export function linesShort(v: Pick<Version, 'added' | 'removed'>): { added: string; removed: string } | null {
  if (v.added === null || v.removed === null) return null;
  return { added: `+${v.added}`, removed: `\u2212${v.removed}` };
}

/** "3 lines added, 1 removed" for a screen reader (and the detail). */
export function linesWords(v: Pick<Version, 'added' | 'removed'>): string {
  if (v.added === null || v.removed === null) return 'lines changed not known';
  const added = `${v.added} ${v.added === 1 ? 'line' : 'lines'} added`;
  return `${added}, ${v.removed} removed`;
}

/**
 * A version's whole description, one sentence: the accessible name of its entry in a list. It says
 * every word the entry shows, in the order the entry shows them (so a person can say what they see
 * to voice control, and axe's label-in-name holds); what the eye gets from the signs and the hover
 * (the lines in words, the exact time) is in brackets, which that rule does not count:
 * "Edited, latest, +3 −1 (3 lines added, 1 removed), An agent, with the memory tool, 5 min ago (23 Nov 2026, 11:55:00)."
 */
export function versionLabel(v: Version, restoredAt?: string | null, latest = false, now = Date.now()): string {
  const lines = linesShort(v);
  const parts = [opWords(v), latest ? 'latest' : null, lines ? `${lines.added} ${lines.removed} (${linesWords(v)})` : null, byWords(v, restoredAt, now), `${whenText(v.at, now)} (${exactTime(v.at)})`];
  return `${parts.filter((p): p is string => p !== null).join(', ')}.${lines ? '' : ` ${linesWords(v).replace(/^l/, 'L')}.`}`;
}

/**
 * The content a version stands for, which restoring it writes back: what it left, or for a delete
 * what it took away. Undefined when that side was not recorded (or has been collected).
 */
export function versionContent(text: { version: Pick<Version, 'op'>; before: string | null; after: string | null; beforeKnown: boolean; afterKnown: boolean }): string | null | undefined {
  if (text.version.op === 'delete') return text.beforeKnown ? text.before : undefined;
  return text.afterKnown ? text.after : undefined;
}
