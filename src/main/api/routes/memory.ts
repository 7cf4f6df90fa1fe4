/**
 * The memory routes: a view's files, reading and a person's changes (actor `user`), the
 * scanners, badges, content search and the two live streams.
 *
 * Invariants: reads in the UI are not uses, but a read (or a save) marks the file seen, clearing
 * its badge in every window and after restarts; the change stream is filtered on the server and
 * unsubscribes when the client goes away.
 */
import { MemoryToolError } from '../../../common/memory/errors';
import { formatMemoryPath, parseMemoryPath } from '../../../common/memory/paths';
import type { MemoryChangeEvent } from '../../../common/memory/events';
import { subscribeSession } from '../../journal/session-changes';
import { promptTerms } from '../../context/relevance-index';
import { hitLine, searchFiles } from '../../context/session-search';
import { scanContent } from '../../memory/scanners/content-scanner';
import { lookedView } from '../../memory/seen-store';
import type { MemorySession } from '../../memory/session';
import type { RouterContext } from '../context';
import { os, withSession } from '../base';

/**
 * Marks a file the person was shown as seen at `at` (taken before it was read). A mark that cannot
 * be written is reported on the log and costs only the badge: the read or save itself stands.
 */
async function markSeen(context: RouterContext, session: MemorySession, rawPath: string, at: string): Promise<void> {
  const parsed = parseMemoryPath(rawPath);
  if (parsed.kind !== 'scope') return;
  try {
    await context.seen.markSeen(session.workspaceId, parsed.scope, formatMemoryPath(parsed.scope, parsed.segments), at);
  } catch (err) {
    process.stderr.write(`cairn: could not record that a file was opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); its badge may show again\n`);
  }
}

const ok = (message: string) => ({ status: 'ok' as const, message });

export const memory = {
  list: os.memory.list.use(withSession).handler(async ({ input, context }) => {
    // A root the change feed watches is listed again only after something under it changed.
    const snapshot = await context.builder.snapshot(context.session, { listingStamp: (root) => context.changes.listingStamp?.(root) ?? null });
    return {
      files: snapshot.files.map((f) => ({
        scope: f.scope,
        path: f.path,
        description: f.description,
        size: f.size,
        ...f.stats,
        flags: [...context.builder.flags(f)],
      })),
      // A scope the snapshot could not read (its root not Cairn's, its host unreachable) is
      // shown unavailable, with the reason the index gives agents; but a workspace whose folder
      // is gone is said in a person's words (agents are told there is no git repository).
      scopes: (['global', 'project', 'workspace'] as const).map((scope) => {
        const out = snapshot.unavailable.find((u) => u.scope === scope);
        const folderProblem = out && scope === 'project' && input.workspaceId !== null ? context.registry.folderProblem(input.workspaceId) : null;
        const unreadable = snapshot.unreadable.filter((u) => u.scope === scope).map((u) => u.path);
        return { scope, available: !out, reason: out ? (folderProblem ?? out.reason) : null, ...(unreadable.length > 0 ? { unreadableFolders: unreadable } : {}) };
      }),
    };
  }),
  read: os.memory.read.use(withSession).handler(async ({ input, context }) => {
    const at = context.seen.stamp();
    const doc = await context.service.read(input.path, context.session);
    await markSeen(context, context.session, input.path, at);
    return doc;
  }),
  badges: os.memory.badges.use(withSession).handler(({ context }) => {
    const lookedAt = context.seen.lookedAt(lookedView(context.session.workspaceId));
    return { badges: context.seen.badges(context.session, context.versions.store), ...(lookedAt === null ? {} : { lookedAt }) };
  }),
  markAllSeen: os.memory.markAllSeen.use(withSession).handler(async ({ context }) => ({ lookedAt: await context.seen.markLooked(lookedView(context.session.workspaceId)) })),
  save: os.memory.save.use(withSession).handler(async ({ input, context }) => {
    const at = context.seen.stamp();
    const outcome = await context.service.save(input.path, input.content, input.expectedSha256, context.session);
    if (outcome.status === 'conflict') return outcome;
    // The person chose this content: what was there before counts as seen.
    await markSeen(context, context.session, input.path, at);
    return { status: 'ok' as const, sha256: outcome.sha256, warnings: scanContent(input.content) };
  }),
  create: os.memory.create.use(withSession).handler(async ({ input, context }) => {
    if (input.kind === 'directory') return ok(await context.service.createDirectory(input.path, context.session));
    const outcome = await context.service.save(input.path, input.content, null, context.session);
    if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
    return ok(`Created ${input.path}`);
  }),
  delete: os.memory.delete.use(withSession).handler(async ({ input, context }) =>
    ok(await context.service.run({ command: 'delete', path: input.path }, context.session, { mode: 'exec', actor: 'person' })),
  ),
  rename: os.memory.rename.use(withSession).handler(async ({ input, context }) =>
    ok(await context.service.run({ command: 'rename', old_path: input.fromPath, new_path: input.toPath }, context.session, { mode: 'exec', actor: 'person' })),
  ),
  setPinned: os.memory.setPinned.use(withSession).handler(async ({ input, context }) => ok(await context.service.setPinned(input.path, input.pinned, context.session))),
  scan: os.memory.scan.handler(({ input }) => scanContent(input.content)),
  onChange: os.memory.onChange.handler(async function* ({ input, context, signal }) {
    // Resolved here, not by withSession: a view that cannot be opened ends the stream with its
    // error, as a client reading it expects.
    const session = await context.registry.session(input.workspaceId);
    const queue: MemoryChangeEvent[] = [];
    let wake: (() => void) | null = null;
    const unsubscribe = subscribeSession(context.changes, session, (event) => {
      queue.push(event);
      wake?.();
    });
    const unwatch = context.changes.watch?.(session);
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([context.changes.ready?.(), aborted]);
      if (!signal?.aborted) yield { type: 'ready' as const };
      while (!signal?.aborted) {
        if (queue.length === 0) {
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
          continue;
        }
        yield { type: 'change' as const, ...queue.shift()! };
      }
    } finally {
      unwatch?.();
      unsubscribe();
    }
  }),
  search: os.memory.search.use(withSession).handler(async ({ input, context }) => {
    // A root the change feed watches is listed again only after something under it changed.
    const snapshot = await context.builder.snapshot(context.session, { listingStamp: (root) => context.changes.listingStamp?.(root) ?? null });
    const terms = promptTerms(input.query);
    return {
      hits: searchFiles(context.builder, snapshot.files, terms, Date.now(), { limit: input.limit }).map((file) => ({
        scope: file.scope,
        path: file.path,
        ...hitLine(file, terms),
      })),
    };
  }),
  onMetaChange: os.memory.onMetaChange.handler(async function* ({ context, signal }) {
    // A burst of changes is one event per side file: the client asks for the whole list again.
    const pending = new Set<'usage' | 'seen'>();
    let wake: (() => void) | null = null;
    const unsubscribe = context.changes.onMeta?.((what) => {
      pending.add(what);
      wake?.();
    });
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    try {
      if (!signal?.aborted) yield { type: 'ready' as const };
      while (!signal?.aborted) {
        const next = pending.values().next();
        if (next.done) {
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
          wake = null;
          continue;
        }
        pending.delete(next.value);
        yield { type: next.value };
      }
    } finally {
      unsubscribe?.();
    }
  }),
};
