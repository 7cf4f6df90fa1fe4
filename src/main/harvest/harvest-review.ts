/**
 * A person's review of the inbox (issue 19): approving a candidate adds it to a memory file (the
 * suggested one, or one the person chooses; the text as proposed, or as the person edited it), and
 * rejecting it keeps its text from being proposed again.
 *
 * Invariants: an approval writes through MemoryService as the person, checked against the sha256
 * of the file it read (a change made meanwhile is a conflict, shown, never clobbered), with the
 * cause `harvest:<item id>` in the history, so it can be undone; only a pending item is decided.
 */
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession } from '../memory/session';
import type { InboxItem, InboxStore } from './inbox-store';

export type ReviewOutcome =
  | { readonly status: 'approved'; readonly item: InboxItem; readonly path: string; readonly created: boolean }
  | { readonly status: 'conflict'; readonly message: string }
  | { readonly status: 'rejected'; readonly item: InboxItem };

const HEADINGS: Record<InboxItem['candidate']['category'], string> = {
  preference: 'Preferences of the user, from agents\u2019 sessions, approved in Cairn',
  convention: 'Conventions of this codebase, from agents\u2019 sessions, approved in Cairn',
  fact: 'Facts worth knowing, from agents\u2019 sessions, approved in Cairn',
  command: 'Commands to build, test and run, from agents\u2019 sessions, approved in Cairn',
  lesson: 'Lessons learned, from agents\u2019 sessions, approved in Cairn',
};

function pending(inbox: InboxStore, id: string): InboxItem {
  const item = inbox.get(id);
  if (!item) throw new MemoryToolError(`There is no inbox item ${JSON.stringify(id)}; list them with cairn inbox list.`);
  if (item.status !== 'pending') throw new MemoryToolError(`Inbox item ${id} was already ${item.status}.`);
  return item;
}

/** The file with `text` added as a bullet (a new file gets a description naming where it came from). */
function withBullet(current: string | null, text: string, category: InboxItem['candidate']['category']): string {
  const bullet = `- ${text.replace(/\s*\n\s*/g, ' ').trim()}\n`;
  if (current === null) return `---\ndescription: ${HEADINGS[category]}\n---\n\n${bullet}`;
  return current.length === 0 || current.endsWith('\n') ? `${current}${bullet}` : `${current}\n${bullet}`;
}

export async function approveItem(
  inbox: InboxStore,
  service: MemoryService,
  session: MemorySession,
  id: string,
  options: { to?: string | undefined; text?: string | undefined } = {},
): Promise<ReviewOutcome> {
  const item = pending(inbox, id);
  const to = (options.to ?? item.target).replace(/\/+$/, '');
  const parsed = parseMemoryPath(to);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(`${to} is not a file; give the path of a memory file.`);
  const text = (options.text ?? item.candidate.text).trim();
  if (text.length === 0) throw new MemoryToolError('The text to approve is empty.');
  let current: { content: string; sha256: string } | null = null;
  try {
    current = await service.read(to, session);
  } catch (err) {
    if (!(err instanceof MemoryToolError) || !/does not exist/.test(err.message)) throw err;
  }
  const outcome = await service.save(to, withBullet(current?.content ?? null, text, item.candidate.category), current?.sha256 ?? null, session, `harvest:${item.id}`);
  if (outcome.status === 'conflict') return { status: 'conflict', message: `${outcome.message} Nothing was added; approve it again to add it to the file as it is now.` };
  return { status: 'approved', item: inbox.decide(item.id, { status: 'approved', to, text }), path: to, created: outcome.created };
}

export function rejectItem(inbox: InboxStore, id: string): ReviewOutcome {
  const item = pending(inbox, id);
  return { status: 'rejected', item: inbox.decide(item.id, { status: 'rejected' }) };
}
