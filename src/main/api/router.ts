/**
 * The oRPC router: the main process's side of src/common/api/contract.ts, over real services.
 * Hosts (Electron's MessagePort, `cairn serve`'s HTTP and WebSocket) serve this one router.
 *
 * Invariants: a person's actions run with actor `user`; reads in the UI are not uses, but a read
 * (or a save) marks the file seen, clearing its badge in every window and after restarts; errors
 * carry a message a person can act on and never a stack or a host path of a memory root (a
 * workspace's own folder, which the person typed, may appear); the change stream is filtered on
 * the server and unsubscribes when the client goes away.
 */
import { implement, ORPCError } from '@orpc/server';
import { contract, type HarvestStatus, type InboxItemView, type Version } from '../../common/api/contract';
import { INDEX_MAX_BYTES, SCOPES } from '../../common/memory/constants';
import { injectionFor } from '../../common/context/injection';
import { MemoryToolError } from '../../common/memory/errors';
import { formatMemoryPath, parseMemoryPath } from '../../common/memory/paths';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { subscribeSession, type ChangeSource } from '../journal/session-changes';
import { utf8Length } from '../../common/context/render';
import type { ContextBuilder } from '../memory/context-builder';
import { promptTerms } from '../memory/relevance-index';
import { hitLine, searchFiles } from '../memory/session-search';
import type { MemoryService } from '../memory/memory-service';
import { scanContent } from '../memory/scanners/content-scanner';
import type { SeenStore } from '../memory/seen-store';
import type { MemorySession } from '../memory/session';
import type { VersionHistory, VersionRow } from '../memory/version-history';
import { approveItem, rejectItem, reopenUndone } from '../harvest/harvest-review';
import { changeSummary, type InboxItem, type InboxStore } from '../harvest/inbox-store';
import { reviewKey } from '../harvest/review-mode';
import { agentGuides } from '../setup/guide';
import { resolveLauncher } from '../setup/launcher';
import { sweepExtractorFor } from '../sweep/sweep-backends';
import type { Sweeps } from '../sweep/sweeps';
import { AgentFilesError, type AgentFiles } from '../agent-files/agent-files';
import { RegistryError, workspaceInfo, type WorkspaceRegistry } from '../workspaces/registry';
import { SettingsFileError } from '../workspaces/settings-file';
import { listSetAsideFiles, removeSetAsideFile, SetAsideError } from './set-aside-files';

export interface RouterContext {
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  readonly versions: VersionHistory;
  /** When the person last opened each file: the badges (issue 20). */
  readonly seen: SeenStore;
  readonly registry: WorkspaceRegistry;
  readonly builder: ContextBuilder;
  readonly changes: ChangeSource;
  /** Cairn's home when it is not the default one (setup lines then name it); else undefined. */
  readonly setupHome?: string | undefined;
  /** The harvest's jobs and the inbox's events, in a long-lived host (host/harvest-host.ts). */
  readonly harvest?: HarvestControl | undefined;
  /** Consolidation proposals (issue 22); a host without them answers NOT_IMPLEMENTED. */
  readonly sweeps?: Sweeps | undefined;
  /** Other agents' files (issue 23); a host without them answers NOT_IMPLEMENTED. */
  readonly agentFiles?: AgentFiles | undefined;
}

/** What the router asks of a host's harvest (issue 19). */
export interface HarvestControl {
  status(workspaceId: string): HarvestStatus;
  /** Queues the workspace's sessions on this machine and runs them; how many were queued. */
  harvestNow(workspaceId: string): Promise<number>;
  /** Failed harvests of the workspace due now; how many. */
  retry(workspaceId: string): number;
  onInboxChange(listener: () => void): () => void;
  onStatusChange(listener: () => void): () => void;
}

const os = implement(contract).$context<RouterContext>();

/** The message of an error a person caused and can fix; anything else stays inside. */
function personError(err: unknown): string | null {
  if (err instanceof MemoryToolError || err instanceof RegistryError || err instanceof AgentFilesError || err instanceof SettingsFileError || err instanceof SetAsideError) return err.message;
  return null;
}

function fail(err: unknown): never {
  const message = personError(err);
  if (message !== null) throw new ORPCError('BAD_REQUEST', { message });
  process.stderr.write(`cairn: ${(err as Error)?.stack ?? String(err)}\n`);
  throw new ORPCError('INTERNAL_SERVER_ERROR', { message: 'Cairn could not complete this; see its log.' });
}

async function sessionOf(context: RouterContext, workspaceId: string | null): Promise<MemorySession> {
  try {
    return await context.registry.session(workspaceId);
  } catch (err) {
    fail(err);
  }
}

/** Runs what a person asked for: its typed result, or `error` with a refusal they can act on. */
async function orRefusal<T>(run: () => Promise<T>): Promise<T | { status: 'error'; message: string }> {
  try {
    return await run();
  } catch (err) {
    const message = personError(err);
    if (message === null) fail(err);
    return { status: 'error', message };
  }
}

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

/** Runs a change a person asked for, as a typed result. */
function change(run: () => Promise<string>): Promise<{ status: 'ok' | 'error'; message: string }> {
  return orRefusal(async () => ({ status: 'ok' as const, message: await run() }));
}

export const router = os.router({
  memory: {
    list: os.memory.list.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      const snapshot = await context.builder.snapshot(session);
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
          return { scope, available: !out, reason: out ? (folderProblem ?? out.reason) : null };
        }),
      };
    }),
    read: os.memory.read.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      const at = context.seen.stamp();
      let doc: { content: string; sha256: string };
      try {
        doc = await context.service.read(input.path, session);
      } catch (err) {
        fail(err);
      }
      await markSeen(context, session, input.path, at);
      return doc;
    }),
    badges: os.memory.badges.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        return { badges: context.seen.badges(session, context.versions.store) };
      } catch (err) {
        fail(err);
      }
    }),
    save: os.memory.save.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return orRefusal(async () => {
        const at = context.seen.stamp();
        const outcome = await context.service.save(input.path, input.content, input.expectedSha256, session);
        if (outcome.status === 'conflict') return outcome;
        // The person chose this content: what was there before counts as seen.
        await markSeen(context, session, input.path, at);
        return { status: 'ok' as const, sha256: outcome.sha256, warnings: scanContent(input.content) };
      });
    }),
    create: os.memory.create.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return change(async () => {
        if (input.kind === 'directory') return context.service.createDirectory(input.path, session);
        const outcome = await context.service.save(input.path, input.content, null, session);
        if (outcome.status === 'conflict') throw new MemoryToolError(outcome.message);
        return `Created ${input.path}`;
      });
    }),
    delete: os.memory.delete.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return change(() => context.service.run({ command: 'delete', path: input.path }, session, { mode: 'exec', actor: 'user' }));
    }),
    rename: os.memory.rename.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return change(() =>
        context.service.run({ command: 'rename', old_path: input.fromPath, new_path: input.toPath }, session, { mode: 'exec', actor: 'user' }),
      );
    }),
    setPinned: os.memory.setPinned.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return change(() => context.service.setPinned(input.path, input.pinned, session));
    }),
    scan: os.memory.scan.handler(({ input }) => scanContent(input.content)),
    onChange: os.memory.onChange.handler(async function* ({ input, context, signal }) {
      const session = await sessionOf(context, input.workspaceId);
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
    search: os.memory.search.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        const snapshot = await context.builder.snapshot(session);
        const terms = promptTerms(input.query);
        return {
          hits: searchFiles(context.builder, snapshot.files, terms, Date.now(), { limit: input.limit }).map((file) => ({
            scope: file.scope,
            path: file.path,
            ...hitLine(file, terms),
          })),
        };
      } catch (err) {
        fail(err);
      }
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
  },
  context: {
    preview: os.context.preview.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        // The same builder and render functions as `cairn context`: the same bytes.
        const snapshot = await context.builder.snapshot(session);
        const index = context.builder.index(snapshot);
        // Within the view's injection settings (issue 23), as agents of this workspace get it.
        const { hotSetMaxBytes } = injectionFor(context.registry.settings(), session.workspaceId);
        const hot = await context.builder.hotSet(snapshot, session, hotSetMaxBytes);
        return { index: { text: index, bytes: utf8Length(index), budget: INDEX_MAX_BYTES }, hot: { text: hot, bytes: utf8Length(hot), budget: hotSetMaxBytes } };
      } catch (err) {
        fail(err);
      }
    }),
  },
  history: {
    list: os.history.list.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        const { versions, incompleteSince } = context.versions.list(session, { path: input.path ?? undefined, scope: input.scope ?? undefined, limit: input.limit });
        return { versions: versions.map(versionOut), incompleteSince };
      } catch (err) {
        fail(err);
      }
    }),
    deleted: os.history.deleted.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        return { versions: context.versions.deleted(session, { path: input.path ?? undefined, scope: input.scope ?? undefined, limit: input.limit }).map(versionOut) };
      } catch (err) {
        fail(err);
      }
    }),
    read: os.history.read.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        const { version, before, after } = context.versions.read(input.id, session);
        return { version: versionOut(version), before: before ?? null, after: after ?? null, beforeKnown: before !== undefined, afterKnown: after !== undefined };
      } catch (err) {
        fail(err);
      }
    }),
    undo: os.history.undo.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return orRefusal(async () => {
        const outcome = await context.versions.undo(input.id, session);
        if (outcome.status === 'conflict') return outcome;
        const v = outcome.version;
        const what = outcome.files === 1 ? v.path : `${outcome.files} files`;
        const reopened = reopenUndone(context.inbox, v.cause) !== null;
        return { status: 'ok' as const, message: `Undid the ${v.op} of ${what}.${reopened ? ' Its inbox item is pending again.' : ''}`, paths: [...outcome.paths] };
      });
    }),
    restore: os.history.restore.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return orRefusal(async () => {
        const { path, created, restored } = await context.versions.restore(input.path, input.id, session);
        return { status: 'ok' as const, message: created ? `Restored ${path}: created again.` : `Restored ${path} to that version.`, versionId: restored };
      });
    }),
  },
  inbox: {
    list: os.inbox.list.handler(async ({ input, context }) => {
      const { items, damaged, unread } = context.inbox.listing(input.all ? undefined : input.held ? 'held' : 'pending');
      return { items: items.map(inboxItemOut), damaged, unread };
    }),
    approve: os.inbox.approve.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      return orRefusal(async () => {
        const outcome = await approveItem(context.inbox, context.service, session, input.id, { to: input.to ?? undefined, text: input.text ?? undefined });
        if (outcome.status === 'conflict') return { status: 'conflict' as const, message: outcome.message };
        if (outcome.status !== 'approved') return { status: 'error' as const, message: 'Nothing was approved.' };
        const message = outcome.item.kind === 'change' ? `Applied: ${changeSummary(outcome.item.change)}.` : `Added to ${outcome.path}${outcome.created ? ' (a new file)' : ''}.`;
        return { status: 'ok' as const, message, path: outcome.path };
      });
    }),
    reject: os.inbox.reject.handler(async ({ input, context }) =>
      change(async () => {
        rejectItem(context.inbox, input.id);
        return 'Rejected; the same text will not be proposed again for 90 days.';
      }),
    ),
    reviewScopes: os.inbox.reviewScopes.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      const on = new Set(context.registry.settings().reviewScopes);
      return SCOPES.map((scope) => {
        const key = reviewKey(scope, session);
        return { scope, key, on: key !== null && on.has(key) };
      });
    }),
    rejectSession: os.inbox.rejectSession.handler(async ({ input, context }) =>
      change(async () => {
        const items = context.inbox.list('pending').filter((i) => i.kind === 'memory' && i.source.sessionId === input.sessionId);
        for (const item of items) rejectItem(context.inbox, item.id);
        return `Rejected ${items.length} proposal${items.length === 1 ? '' : 's'} from that session.`;
      }),
    ),
    onChange: os.inbox.onChange.handler(async function* ({ context, signal }) {
      yield* notified(signal, (wake) => context.harvest?.onInboxChange(wake) ?? (() => {}), () => ({ pending: context.inbox.list('pending').length }));
    }),
  },
  harvest: {
    status: os.harvest.status.handler(({ input, context }) => harvestOf(context).status(workspaceIdOf(input.workspaceId))),
    now: os.harvest.now.handler(({ input, context }) =>
      change(async () => {
        const n = await harvestOf(context).harvestNow(workspaceIdOf(input.workspaceId));
        return n === 0 ? 'No session of Claude Code, Codex, Gemini CLI or Copilot CLI was found for this workspace on this machine.' : `Queued ${n} session${n === 1 ? '' : 's'} for harvest; proposals arrive in the inbox.`;
      }),
    ),
    retry: os.harvest.retry.handler(({ input, context }) =>
      change(async () => {
        const n = harvestOf(context).retry(workspaceIdOf(input.workspaceId));
        return n === 0 ? 'No failed harvest to retry.' : `Retrying ${n} session${n === 1 ? '' : 's'} now.`;
      }),
    ),
    onStatus: os.harvest.onStatus.handler(async function* ({ input, context, signal }) {
      const harvest = harvestOf(context);
      const workspaceId = workspaceIdOf(input.workspaceId);
      yield* notified(signal, (wake) => harvest.onStatusChange(wake), () => harvest.status(workspaceId));
    }),
  },
  sweep: {
    propose: os.sweep.propose.handler(async ({ input, context, signal }) => {
      const sweeps = sweepsOf(context);
      const session = await sessionOf(context, input.workspaceId);
      // The client's Cancel aborts `signal` (oRPC passes it over HTTP, WebSocket and MessagePort):
      // the proposal stops, nothing is stored, the lease is freed; a cancel is no server error.
      return orRefusal(async () => {
        try {
          // The extractor is the setting sweepExtractor's (rules, or a model configured as the harvest's).
          const extractor = sweepExtractorFor(context.registry.settings());
          const outcome = await sweeps.propose(session, { scope: input.scope, extractor, ...(input.days !== undefined ? { days: input.days } : {}), ...(signal ? { signal } : {}) });
          // "Nothing" says what the checks refused too (a model's answer, every change refused).
          return outcome.status === 'nothing' ? { ...outcome, refused: [...outcome.refused] } : outcome;
        } catch (err) {
          if (signal?.aborted) return { status: 'error' as const, message: 'Cancelled: nothing was proposed and nothing was written.' };
          throw err;
        }
      });
    }),
    list: os.sweep.list.handler(async ({ input, context }) => ({ proposals: sweepsOf(context).list(await sessionOf(context, input.workspaceId)) })),
    get: os.sweep.get.handler(async ({ input, context }) => {
      const session = await sessionOf(context, input.workspaceId);
      try {
        return sweepsOf(context).get(input.id, session);
      } catch (err) {
        fail(err);
      }
    }),
    apply: os.sweep.apply.handler(async ({ input, context }) => {
      const sweeps = sweepsOf(context);
      const session = await sessionOf(context, input.workspaceId);
      return orRefusal(async () => ({ status: 'ok' as const, proposal: await sweeps.apply(input.id, session, input.only ? { only: input.only } : {}) }));
    }),
    discard: os.sweep.discard.handler(async ({ input, context }) => {
      const sweeps = sweepsOf(context);
      const session = await sessionOf(context, input.workspaceId);
      return change(async () => `Discarded proposal ${sweeps.discard(input.id, session).id}; nothing was written.`);
    }),
  },
  agentFiles: {
    list: os.agentFiles.list.handler(async ({ input, context }) => {
      try {
        return await agentFilesOf(context).list(input.workspaceId);
      } catch (err) {
        fail(err);
      }
    }),
    read: os.agentFiles.read.handler(async ({ input, context }) => {
      try {
        return await agentFilesOf(context).read(input.workspaceId, input.id);
      } catch (err) {
        fail(err);
      }
    }),
    write: os.agentFiles.write.handler(({ input, context }) =>
      orRefusal(async () => {
        const outcome = await agentFilesOf(context).write(input.workspaceId, input.id, input.content, input.expectedSha256);
        return outcome.status === 'ok' ? { ...outcome, warnings: [...outcome.warnings] } : outcome;
      }),
    ),
    search: os.agentFiles.search.handler(async ({ input, context }) => {
      try {
        return { hits: await agentFilesOf(context).search(input.workspaceId, input.query, input.limit) };
      } catch (err) {
        fail(err);
      }
    }),
    adopt: os.agentFiles.adopt.handler(({ input, context }) =>
      orRefusal(() => agentFilesOf(context).adopt(input.workspaceId, { id: input.id, scope: input.scope, lines: input.lines, text: input.text })),
    ),
    compare: os.agentFiles.compare.handler(async ({ input, context }) => {
      try {
        return await agentFilesOf(context).compare(input.workspaceId, input.ids);
      } catch (err) {
        fail(err);
      }
    }),
    history: os.agentFiles.history.handler(async ({ input, context }) => {
      try {
        return { versions: await agentFilesOf(context).history(input.workspaceId, input.id, input.limit) };
      } catch (err) {
        fail(err);
      }
    }),
  },
  workspaces: {
    list: os.workspaces.list.handler(({ context }) => {
      try {
        return context.registry.list().map(workspaceInfo);
      } catch (err) {
        fail(err);
      }
    }),
    add: os.workspaces.add.handler(async ({ input, context }) => {
      try {
        if (input.ssh) return workspaceInfo((await context.registry.addSsh({ name: input.name, host: input.ssh, path: input.path, identity: input.identity ?? null })).entry);
        return workspaceInfo(await context.registry.add(input.name, input.path));
      } catch (err) {
        fail(err);
      }
    }),
    remove: os.workspaces.remove.handler(async ({ input, context }) =>
      change(async () => {
        if (!(await context.registry.remove(input.id))) throw new RegistryError(`No workspace ${input.id} is registered.`);
        return 'Removed the workspace (its checkout and project memory are untouched).';
      }),
    ),
    rename: os.workspaces.rename.handler(({ input, context }) => change(async () => `Renamed to ${await context.registry.rename(input.id, input.name)}.`)),
    status: os.workspaces.status.handler(({ input, context }) => context.registry.status(input.id)),
    trust: os.workspaces.trust.handler(({ input, context }) => change(() => context.registry.trust(input.id, input.fingerprint))),
  },
  setup: {
    guide: os.setup.guide.handler(async ({ input, context }) => {
      const workspace = input.workspaceId === null ? undefined : (await context.registry.list()).find((w) => w.id === input.workspaceId);
      const checkout = workspace && workspace.kind === 'local' ? workspace.path : null;
      return agentGuides({ launcher: resolveLauncher(), home: context.setupHome, checkout });
    }),
  },
  settings: {
    get: os.settings.get.handler(({ context }) => {
      try {
        return context.registry.settings();
      } catch (err) {
        fail(err);
      }
    }),
    set: os.settings.set.handler(({ input, context }) => context.registry.setSettings(input).catch(fail)),
  },
  setAside: {
    list: os.setAside.list.handler(({ context }) => {
      try {
        return { files: listSetAsideFiles(context.registry.home) };
      } catch (err) {
        fail(err);
      }
    }),
    remove: os.setAside.remove.handler(({ input, context }) => change(async () => removeSetAsideFile(context.registry.home, input.aside))),
  },
});

export type AppRouter = typeof router;

/** An inbox item as the API gives it (a change's sha256 and checkout stay inside). */
function inboxItemOut(item: InboxItem): InboxItemView {
  const decided = { workspaceId: item.source.workspaceId, decidedAt: item.decidedAt ?? null, approvedTo: item.approvedTo ?? null };
  if (item.kind === 'change') {
    const c = item.change;
    return {
      id: item.id,
      kind: 'change',
      createdAt: item.createdAt,
      status: item.status,
      category: null,
      text: changeSummary(c),
      scope: c.scope,
      confidence: null,
      rationale: '',
      evidence: [],
      target: c.newPath ?? c.path,
      agent: null,
      sessionId: '',
      extractor: 'review',
      ...decided,
      change: { command: c.command, path: c.path, newPath: c.newPath, before: c.before, after: c.after },
    };
  }
  const c = item.candidate;
  return {
    id: item.id,
    kind: 'memory',
    createdAt: item.createdAt,
    status: item.status,
    category: c.category,
    text: c.text,
    scope: c.scope,
    confidence: c.confidence,
    rationale: c.rationale,
    evidence: c.evidence.map((e) => ({ messageId: e.messageId, quote: e.quote, speaker: e.speaker ?? null, at: e.at ?? null })),
    target: item.target,
    agent: item.source.agent,
    sessionId: item.source.sessionId,
    extractor: item.source.extractor,
    ...decided,
    change: null,
  };
}

/** A version as the API gives it (the store's owner and hashes stay inside). */
function versionOut(v: VersionRow): Version {
  return { id: v.id, at: v.at, batch: v.batch, scope: v.scope, path: v.path, oldPath: v.oldPath ?? null, op: v.op, actor: v.actor, cause: v.cause, added: v.added, removed: v.removed };
}

/** The router's context from a host's services (one set per process: see src/main/host). */
export function createRouterContext(options: RouterContext): RouterContext {
  return {
    service: options.service,
    inbox: options.inbox,
    versions: options.versions,
    seen: options.seen,
    registry: options.registry,
    builder: options.builder,
    changes: options.changes,
    setupHome: options.setupHome,
    harvest: options.harvest,
    sweeps: options.sweeps,
    agentFiles: options.agentFiles,
  };
}

function agentFilesOf(context: RouterContext): AgentFiles {
  if (!context.agentFiles) throw new ORPCError('NOT_IMPLEMENTED', { message: "This host does not show other agents' files." });
  return context.agentFiles;
}

function sweepsOf(context: RouterContext): Sweeps {
  if (!context.sweeps) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no consolidation.' });
  return context.sweeps;
}

function harvestOf(context: RouterContext): HarvestControl {
  if (!context.harvest) throw new ORPCError('NOT_IMPLEMENTED', { message: 'This host runs no harvest.' });
  return context.harvest;
}

function workspaceIdOf(workspaceId: string | null): string {
  if (workspaceId === null) throw new ORPCError('BAD_REQUEST', { message: 'Choose a workspace first: harvest works per workspace.' });
  return workspaceId;
}

/**
 * A stream of `snapshot()`: one now, then one after each notification (several notifications
 * while the client reads one snapshot give one more, not several); ends when the client goes.
 */
async function* notified<T>(signal: AbortSignal | undefined, subscribe: (wake: () => void) => () => void, snapshot: () => T): AsyncGenerator<T> {
  let dirty = true;
  let wake: (() => void) | null = null;
  const unsubscribe = subscribe(() => {
    dirty = true;
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  try {
    while (!signal?.aborted) {
      if (!dirty) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = null;
        continue;
      }
      dirty = false;
      yield snapshot();
    }
  } finally {
    unsubscribe();
  }
}
