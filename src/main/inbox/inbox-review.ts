/**
 * A person's review of the inbox: approving a candidate adds it to a memory file (the
 * suggested one, or one the person chooses; the text as proposed, or as the person edited it), and
 * rejecting it keeps its text from being proposed again. Approving an agent's change made under
 * review mode applies it as it was proposed; rejecting it drops it.
 *
 * Invariants: an approval writes through MemoryService as the person, each write checked against
 * the sha256 of the file it was computed from, so nothing is ever clobbered. It applies to the file
 * as it is now: a candidate is appended to whatever the file holds when it is written (an agent
 * writing the file meanwhile makes it read the file again and append again); an agent's edit is
 * merged into the file as it is now, line by line, and is a conflict only when the lines it
 * changes were changed since (or the file it creates appeared, or the file it deletes or renames
 * changed). The history records the cause `harvest:<item id>` or `review:<item id>`, so it can be
 * undone, and undoing it puts the item back to pending (reopenUndone). Only a pending item is decided.
 * Project memory a pull brought (pulled-memory.ts) is in the checkout already: approving it writes
 * nothing and lets it reach agents; rejecting it writes the text from before the pull back, as the
 * person (cause `review:<item id>`).
 */
import { applyPatch, structuredPatch } from 'diff';
import { scopeOwner } from '../../common/memory/identity';
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession, SaveOutcome } from '../memory/session';
import { resolveDefaultTarget } from './default-target';
import { DamagedItemError, type ChangeItem, type InboxItem, type InboxStore, type MemoryItem } from './inbox-store';

export type ReviewOutcome =
  | { readonly status: 'approved'; readonly item: InboxItem; readonly path: string; readonly created: boolean }
  | { readonly status: 'conflict'; readonly message: string }
  | { readonly status: 'rejected'; readonly item: InboxItem };

const HEADINGS: Record<MemoryItem['candidate']['category'], string> = {
  preference: 'Preferences of the user, from agents\u2019 sessions, approved in Cairn',
  convention: 'Conventions of this codebase, from agents\u2019 sessions, approved in Cairn',
  fact: 'Facts worth knowing, from agents\u2019 sessions, approved in Cairn',
  command: 'Commands to build, test and run, from agents\u2019 sessions, approved in Cairn',
  lesson: 'Lessons learned, from agents\u2019 sessions, approved in Cairn',
};

function pending(inbox: InboxStore, id: string): InboxItem {
  const item = inbox.lookup(id);
  // A damaged file is neither approved nor rejected: the person looks at it (damagedText says how).
  if (item && 'problem' in item) throw new DamagedItemError(item);
  if (!item) throw new MemoryToolError(`There is no inbox item ${JSON.stringify(id)}; list them with cairn inbox list.`);
  if (item.status !== 'pending' && item.status !== 'held') throw new MemoryToolError(`Inbox item ${id} was already ${item.status}.`);
  return item;
}

/**
 * The file with `text` added as a bullet (a new file gets a description naming where it came from).
 * Text a person wrote as a bullet already ("- Keep PRs small") keeps its one marker.
 */
function withBullet(current: string | null, text: string, category: MemoryItem['candidate']['category']): string {
  const bullet = `- ${text.replace(/\s*\n\s*/g, ' ').trim().replace(/^[-*+][ \t]+/, '')}\n`;
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
  if (item.kind === 'change') {
    if (options.to !== undefined || options.text !== undefined) throw new MemoryToolError(`Inbox item ${id} is ${item.source.from ? 'a change from elsewhere' : "an agent's change"}: it is approved as proposed, without --to or --text.`);
    // A pull's text is in the checkout already: approving lets it reach agents, and writes nothing.
    if (item.source.from?.kind === 'pull') return { status: 'approved', item: inbox.decide(item.id, { status: 'approved', to: item.change.path }), path: item.change.path, created: false };
    return applyChange(inbox, service, session, item);
  }
  // Without a file named, the suggested one; in a folder of its name when the person keeps one (default-target.ts).
  const to = options.to !== undefined ? options.to.replace(/\/+$/, '') : await resolveDefaultTarget(item.target, session);
  const parsed = parseMemoryPath(to);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(`${to} is not a file; give the path of a memory file.`);
  const text = (options.text ?? item.candidate.text).trim();
  if (text.length === 0) throw new MemoryToolError('The text to approve is empty.');
  // An append applies to the file as it is when it is written: when an agent wrote the file between
  // the read and the write, read it again and append again.
  let outcome: SaveOutcome | null = null;
  for (let attempt = 0; attempt < APPEND_ATTEMPTS && outcome?.status !== 'ok'; attempt++) {
    const current = await readOrNull(service, to, session);
    outcome = await service.save(to, withBullet(current?.content ?? null, text, item.candidate.category), current?.sha256 ?? null, session, `harvest:${item.id}`);
  }
  if (outcome?.status !== 'ok') return { status: 'conflict', message: `${outcome?.status === 'conflict' ? outcome.message : ''} The file kept changing while this was added; nothing was added. Approve it again.`.trim() };
  return { status: 'approved', item: inbox.decide(item.id, { status: 'approved', to, text }), path: to, created: outcome.created };
}

/** How often an approval reads the file again when it changed under it (each try is checked: nothing is clobbered). */
const APPEND_ATTEMPTS = 20;

async function readOrNull(service: MemoryService, to: string, session: MemorySession): Promise<{ content: string; sha256: string } | null> {
  try {
    return await service.read(to, session);
  } catch (err) {
    if (!(err instanceof MemoryToolError) || !/does not exist/.test(err.message)) throw err;
    return null;
  }
}

/**
 * An agent's edit (`before` to `after`) made on the file as it is now, `current`: the lines it
 * changes must still be as they were; null when they are not (then it is a conflict).
 */
function mergedEdit(before: string, after: string, current: string): string | null {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 0 });
  const merged = applyPatch(current, patch);
  return merged === false ? null : merged;
}

/** The conflict of an agent's change whose file moved on since it was proposed. */
function staleText(item: ChangeItem, conflict: Extract<SaveOutcome, { status: 'conflict' }>): string {
  const c = item.change;
  const what =
    conflict.kind === 'exists'
      ? `${c.command === 'rename' ? c.newPath : c.path} was created`
      : conflict.kind === 'deleted'
        ? `${c.path} was deleted`
        : c.command === 'str_replace' || c.command === 'insert'
          ? `the lines of ${c.path} this change edits were changed`
          : `${c.path} was changed`;
  return `${what} after the agent proposed this change, so it was not applied and nothing was overwritten. Reject it, or have the agent make it again on the file as it is now.`;
}

/**
 * Applies an agent's change as the person: only to the scope it was proposed for (the same
 * workspace's or project's memory), only while the file still holds what the change started from.
 */
async function applyChange(inbox: InboxStore, service: MemoryService, session: MemorySession, item: ChangeItem): Promise<ReviewOutcome> {
  const c = item.change;
  if (scopeOwner(c.scope, session) !== item.source.owner) {
    const where = item.source.workspaceId ? ` --workspace ${item.source.workspaceId}` : '';
    throw new MemoryToolError(
      `This change is to ${c.path} of another ${c.scope === 'project' ? 'project' : 'workspace'} than the one open here; approve it from that workspace (cairn inbox approve ${item.id}${where}).`,
    );
  }
  const cause = `review:${item.id}`;
  let outcome: { readonly status: 'ok' } | Extract<SaveOutcome, { status: 'conflict' }>;
  let created = false;
  switch (c.command) {
    case 'create': {
      const saved = await service.save(c.path, c.after ?? '', c.beforeSha256, session, cause);
      created = saved.status === 'ok' && saved.created;
      outcome = saved;
      break;
    }
    case 'str_replace':
    case 'insert': {
      // As proposed when the file is unchanged; else merged into the file as it is now, every try
      // checked against what it was computed from.
      let saved: SaveOutcome = await service.save(c.path, c.after ?? '', c.beforeSha256, session, cause);
      for (let attempt = 0; saved.status === 'conflict' && saved.kind === 'changed' && attempt < APPEND_ATTEMPTS; attempt++) {
        const current = await readOrNull(service, c.path, session);
        const merged = current && c.before !== null && c.after !== null ? mergedEdit(c.before, c.after, current.content) : null;
        if (current === null || merged === null) break;
        saved = await service.save(c.path, merged, current.sha256, session, cause);
      }
      outcome = saved;
      break;
    }
    case 'delete':
      outcome = await service.changeFile({ command: 'delete', path: c.path }, c.beforeSha256 ?? '', session, cause);
      break;
    case 'rename':
      outcome = await service.changeFile({ command: 'rename', old_path: c.path, new_path: c.newPath ?? '' }, c.beforeSha256 ?? '', session, cause);
      break;
  }
  if (outcome.status === 'conflict') return { status: 'conflict', message: staleText(item, outcome) };
  const to = c.newPath ?? c.path;
  return { status: 'approved', item: inbox.decide(item.id, { status: 'approved', to }), path: to, created };
}

/** Rejects an item that came with no pull (a pull's needs its checkout to write the previous text back: rejectRestoring). */
export function rejectItem(inbox: InboxStore, id: string): ReviewOutcome {
  const item = pending(inbox, id);
  if (item.kind === 'change' && item.source.from?.kind === 'pull') throw new MemoryToolError(`Inbox item ${id} came with a pull; reject it from its checkout, so that the text from before the pull is written back.`);
  return { status: 'rejected', item: inbox.decide(item.id, { status: 'rejected' }) };
}

/**
 * Rejects any item. A pull's text is in the checkout already, so rejecting it writes the previous
 * text back as the person (with the service and the session of its project), only while the file
 * still holds what the pull wrote; a conflict otherwise, and the item stays pending.
 */
export async function rejectRestoring(inbox: InboxStore, service: MemoryService, session: MemorySession, id: string): Promise<ReviewOutcome> {
  const item = pending(inbox, id);
  if (item.kind === 'change' && item.source.from?.kind === 'pull') {
    const conflict = await restorePulled(service, session, item);
    if (conflict !== null) return conflict;
  }
  return { status: 'rejected', item: inbox.decide(item.id, { status: 'rejected' }) };
}

/** Writes back what a pulled file held before the pull, as the person; null when done, else the conflict. */
async function restorePulled(service: MemoryService, session: MemorySession, item: ChangeItem): Promise<ReviewOutcome | null> {
  const c = item.change;
  if (scopeOwner(c.scope, session) !== item.source.owner) {
    throw new MemoryToolError(`This change is to ${c.path} of another project than the one open here; reject it from that project's checkout.`);
  }
  const cause = `review:${item.id}`;
  const outcome =
    c.before === null
      ? await service.changeFile({ command: 'delete', path: c.path }, c.beforeSha256 ?? '', session, cause)
      : await service.save(c.path, c.before, c.beforeSha256, session, cause);
  if (outcome.status === 'ok') return null;
  return { status: 'conflict', message: `${c.path} was changed after the pull brought it, so the text from before the pull was not written back and nothing was overwritten. Look at the file, then reject this again or approve it.` };
}

/**
 * After an undo of the change whose cause is `cause`: when that change was an inbox approval
 * (`harvest:<id>`, `review:<id>`), the item is pending again, as proposed. Returns it, or null.
 */
export function reopenUndone(inbox: InboxStore, cause: string | null | undefined): InboxItem | null {
  const m = /^(?:harvest|review):(.+)$/.exec(cause ?? '');
  return m ? inbox.reopen(m[1]!) : null;
}
