/**
 * Consolidation (issue 22, `cairn sweep`): proposals for one scope root from real usage and
 * near-duplicates, previewed by a person, applied as ONE undoable history batch, or discarded.
 * The CLI and the API call this; the storage is sweep-store.ts, the lease sweep-lease.ts, the
 * proposing an extractor (extractor.ts; `rules` now).
 *
 * Since-last-time: the baseline is the version history itself (every version is there, for SSH
 * scopes too): what changed since the last applied consolidation is every version of the scope
 * root newer than the last `sweep:<id>` batch. A scope where nothing changed since and no file is
 * unused for `days` answers "nothing to consolidate" without asking the extractor.
 *
 * Invariants:
 * - proposing writes nothing to memory (nor to usage or the history): only its record;
 * - a file is proposed for deletion (by any extractor) only when it is not pinned, has not been
 *   used (an agent's view or a write) for `days`, and was neither created nor written in them: not
 *   by its usage's last write, its mtime, nor any version in the history;
 * - apply runs under the scope root's lease and, inside it, the scope's write lock (MemoryService
 *   .writeBatch): a change whose files moved on since the proposal is skipped and reported, the
 *   rest are written as the person with cause `sweep:<id>`, one history batch (`cairn undo` of it
 *   takes back the whole sweep). Usage is not touched, so an undo brings back the files' usage too;
 * - a session sees and acts on the proposals of its own scope roots only.
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { memoryIdentity, scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import { EMPTY_USAGE } from '../../common/memory/usage';
import { decayedUsage } from '../../common/context/ranking';
import {
  SWEEP_DEFAULT_DAYS,
  SWEEP_EXPIRY_MS,
  SWEEP_MAX_CHANGES,
  sweepSummary,
  type SweepChange,
  type SweepFile,
  type SweepProposal,
  type SweepSince,
} from '../../common/sweep/proposal';
import type { HistoryStore } from '../history/history-store';
import { sha256 } from '../memory/change-outbox';
import type { MemoryService } from '../memory/memory-service';
import { scanContent } from '../memory/scanners/content-scanner';
import type { MemorySession } from '../memory/session';
import { availableScope } from '../memory/targets';
import type { UsageStore } from '../memory/usage-store';
import type { ProposedChange, SweepExtractor, SweepFileInput, SweepInput } from './extractor';
import { rulesExtractor } from './rules-sweep';
import { SweepLeases } from './sweep-lease';
import { SweepStore, newSweepId } from './sweep-store';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many changed files a proposal lists by name (it counts them all). */
const SINCE_LISTED = 50;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export interface SweepsOptions {
  readonly home: string;
  readonly service: MemoryService;
  readonly history: HistoryStore;
  readonly usage: UsageStore;
  /** The clock (ms): proposal times, expiry, "not used for N days" (tests inject it). */
  readonly now?: () => number;
  /** Extractors by name; `rules` is always there. */
  readonly extractors?: Readonly<Record<string, SweepExtractor>>;
}

export interface ProposeOptions {
  readonly scope: Scope;
  readonly days?: number;
  readonly extractor?: string;
  /** Cancels the proposal (the UI's Cancel): checked before the files are read, and before and after the extractor is asked. */
  readonly signal?: AbortSignal;
}

export type ProposeOutcome =
  | { readonly status: 'proposed'; readonly proposal: SweepProposal; readonly summary: string }
  | { readonly status: 'nothing'; readonly since: SweepSince; readonly extractorCalled: boolean; readonly summary: string };

export interface ApplyOptions {
  /** Only the changes about these paths (`/memories/<scope>/...` or relative to the scope). */
  readonly only?: readonly string[];
}

export class Sweeps {
  readonly store: SweepStore;
  private readonly leases: SweepLeases;
  private readonly now: () => number;
  private readonly extractors: Readonly<Record<string, SweepExtractor>>;

  constructor(private readonly options: SweepsOptions) {
    this.now = options.now ?? Date.now;
    this.store = new SweepStore(options.home, this.now);
    this.leases = new SweepLeases(this.store.dir, this.now);
    this.extractors = { ...options.extractors, rules: rulesExtractor };
  }

  /** Proposes a consolidation of one scope root of the session, under its lease; stores it (replacing an older one). */
  async propose(session: MemorySession, options: ProposeOptions): Promise<ProposeOutcome> {
    const days = options.days ?? SWEEP_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > 3650) throw new MemoryToolError('The number of days must be a whole number from 1 to 3650.');
    const extractor = this.extractors[options.extractor ?? 'rules'];
    if (!extractor) throw new MemoryToolError(`There is no extractor ${JSON.stringify(options.extractor)}; choose one of ${Object.keys(this.extractors).join(', ')}.`);
    const { scope } = options;
    const owner = this.ownerOf(session, scope);
    return this.leases.with(owner, formatMemoryPath(scope), 'proposing', async () => {
      const b = availableScope(session, scope);
      const now = this.now();
      const cutoff = now - days * DAY_MS;
      const since = this.since(owner);
      const listed = (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true })) ?? [];
      const usage = await this.options.usage.read();
      const recent = this.recentPaths(owner, new Date(cutoff).toISOString());
      const entries = listed.map((entry) => {
        const path = formatMemoryPath(scope, entry.rel);
        const id = memoryIdentity(scope, session, entry.rel);
        const u = (id !== null && usage.get(id)) || EMPTY_USAGE;
        const fresh = entry.mtimeMs > cutoff || recent.has(path) || (u.lastWriteAt !== null && Date.parse(u.lastWriteAt) > cutoff);
        const unused = u.lastAccessedAt === null || Date.parse(u.lastAccessedAt) <= cutoff;
        return { entry, path, usage: { pinned: u.pinned, accessCount: u.accessCount, lastAccessedAt: u.lastAccessedAt, lastWriteAt: u.lastWriteAt }, score: decayedUsage(u, now), protected: u.pinned || fresh, unused };
      });
      const stale = entries.filter((e) => !e.protected && e.unused);
      // Nothing changed since the last consolidation and nothing unused: no extractor is asked.
      if (since.last !== null && since.total === 0 && stale.length === 0) return { status: 'nothing', since, extractorCalled: false, summary: sweepSummary([]) };

      options.signal?.throwIfAborted();
      const readable = entries.filter((e) => e.entry.size <= MAX_FILE_BYTES);
      const heads = await b.runtime.readHeads(b.root, readable.map((e) => e.entry.rel), MAX_FILE_BYTES);
      const files: SweepFileInput[] = [];
      readable.forEach((e, i) => {
        const head = heads[i];
        if (!head) return;
        let content: string;
        try {
          content = strictUtf8.decode(head.data);
        } catch {
          return;
        }
        files.push({ path: e.path, sha256: sha256(head.data), size: head.data.length, mtimeMs: e.entry.mtimeMs, content, usage: e.usage, score: e.score, protected: e.protected });
      });
      files.sort((x, y) => y.score - x.score || y.usage.accessCount - x.usage.accessCount || (x.path < y.path ? -1 : 1));
      const readablePaths = new Set(files.map((f) => f.path));
      const input: SweepInput = {
        scope,
        now,
        days,
        files,
        stale: stale
          .filter((e) => readablePaths.has(e.path))
          .sort((x, y) => (x.usage.lastAccessedAt ?? '').localeCompare(y.usage.lastAccessedAt ?? '') || x.entry.mtimeMs - y.entry.mtimeMs)
          .map((e) => e.path),
        since,
        ...(options.signal ? { signal: options.signal } : {}),
      };
      options.signal?.throwIfAborted();
      const answer = await extractor.propose(input);
      options.signal?.throwIfAborted();
      const { changes, more } = this.checked(answer, input, extractor);
      if (changes.length === 0) return { status: 'nothing', since, extractorCalled: true, summary: sweepSummary([]) };
      const id = newSweepId(now);
      const proposal: SweepProposal = {
        v: 1,
        id,
        scope,
        owner,
        workspaceId: session.workspaceId,
        extractor: extractor.name,
        days,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + SWEEP_EXPIRY_MS).toISOString(),
        state: 'open',
        replacedBy: null,
        changes,
        more,
        since,
        result: null,
      };
      this.store.add(proposal);
      return { status: 'proposed', proposal, summary: sweepSummary(changes) };
    });
  }

  /** The proposals of the session's scope roots, newest first. */
  list(session: MemorySession): SweepProposal[] {
    const owners = this.owners(session);
    return this.store.list().filter((p) => owners.includes(p.owner));
  }

  /** One proposal of the session's scope roots, or the error saying there is none. */
  get(id: string, session: MemorySession): SweepProposal {
    const p = this.store.get(id);
    if (!p || !this.owners(session).includes(p.owner)) throw new MemoryToolError(`There is no proposal ${JSON.stringify(id)} for the scopes this session sees; list them with \`cairn sweep list\`.`);
    return p;
  }

  /**
   * Applies an open proposal (all its changes, or those `only` names) under the scope's lease: a
   * change whose files moved on since is skipped and reported; the rest are one history batch.
   */
  async apply(id: string, session: MemorySession, options: ApplyOptions = {}): Promise<SweepProposal> {
    const first = this.get(id, session);
    return this.leases.with(first.owner, formatMemoryPath(first.scope), 'applying', async () => {
      const p = this.get(id, session);
      this.mustBeOpen(p);
      const chosen = this.select(p, options.only);
      const cause = `sweep:${p.id}`;
      const outcome = await this.options.service.writeBatch(
        chosen.map((c) => ({ key: c.path, files: c.files.map((f) => ({ path: f.path, expectedSha256: f.sha256, ...(f.content !== undefined ? { content: f.content } : {}) })) })),
        cause,
        session,
      );
      const batch = outcome.applied.length > 0 ? (this.options.history.list({ owner: p.owner, limit: 200 }).find((v) => v.cause === cause)?.batch ?? null) : null;
      const applied: SweepProposal = {
        ...p,
        state: 'applied',
        result: {
          at: new Date(this.now()).toISOString(),
          batch,
          applied: [...outcome.applied],
          skipped: outcome.conflicts.map((c) => ({ path: c.key, file: c.path, kind: c.kind, message: c.message })),
        },
      };
      this.store.write(applied);
      return applied;
    });
  }

  /** Discards an open proposal: nothing is written but its record's state. */
  discard(id: string, session: MemorySession): SweepProposal {
    const p = this.get(id, session);
    this.mustBeOpen(p);
    const discarded: SweepProposal = { ...p, state: 'discarded' };
    this.store.write(discarded);
    return discarded;
  }

  private mustBeOpen(p: SweepProposal): void {
    switch (p.state) {
      case 'open':
        return;
      case 'applied':
        throw new MemoryToolError(`Proposal ${p.id} was applied at ${p.result?.at ?? 'an earlier time'}${p.result?.batch ? `; undo it with \`cairn undo ${p.result.batch}\`` : ''}.`);
      case 'discarded':
        throw new MemoryToolError(`Proposal ${p.id} was discarded; run \`cairn sweep\` for a new one.`);
      case 'replaced':
        throw new MemoryToolError(`Proposal ${p.id} was replaced by a newer one, ${p.replacedBy ?? ''}; apply that one, or run \`cairn sweep\` again.`);
      case 'expired':
        throw new MemoryToolError(`Proposal ${p.id} expired at ${p.expiresAt} (proposals are kept open 7 days); run \`cairn sweep\` for a new one.`);
    }
  }

  /** The changes `only` names (each path must name one: a change's file, or one of the files it touches). */
  private select(p: SweepProposal, only: readonly string[] | undefined): SweepChange[] {
    if (only === undefined || only.length === 0) return p.changes;
    const wanted = only.map((raw) => {
      const full = raw.startsWith('/') ? raw.replace(/\/+$/, '') : formatMemoryPath(p.scope, raw.split('/').filter(Boolean));
      const change = p.changes.find((c) => c.path === full) ?? p.changes.find((c) => c.files.some((f) => f.path === full));
      if (!change) throw new MemoryToolError(`${full} is not in proposal ${p.id}; its changes are about ${p.changes.map((c) => c.path).join(', ')}.`);
      return change;
    });
    return p.changes.filter((c) => wanted.includes(c));
  }

  /**
   * An extractor's answer as the proposal's changes, each checked: its files among those given,
   * none in two changes; a file deleted only when the host found it unused (SweepInput.stale: not
   * pinned, not used, created or written within `days`), never a pinned file merged away (a fresh one may be: its lines stay in the kept
   * file); a model's content within the cap and free of secrets and injected instructions; at most
   * SWEEP_MAX_CHANGES (`more`: how many passed past it). A change failing a check is dropped,
   * never repaired.
   */
  private checked(proposed: readonly ProposedChange[], input: SweepInput, extractor: SweepExtractor): { changes: SweepChange[]; more: number } {
    const byPath = new Map(input.files.map((f) => [f.path, f]));
    const stale = new Set(input.stale);
    const taken = new Set<string>();
    const fileOf = (f: SweepFileInput, content: string | null | undefined): SweepFile => ({ path: f.path, sha256: f.sha256, usage: f.usage, ...(content !== undefined ? { content } : {}) });
    const textOk = (text: string) => text.isWellFormed() && !text.includes('\0') && new TextEncoder().encode(text).length <= MAX_FILE_BYTES && (extractor.offline || scanContent(text).length === 0);
    const out: SweepChange[] = [];
    for (const c of proposed) {
      if (c.kind === 'delete') {
        const f = byPath.get(c.path);
        if (!f || !stale.has(f.path) || taken.has(f.path)) continue;
        taken.add(f.path);
        out.push({ kind: 'delete', path: f.path, reason: c.reason, files: [fileOf(f, null)] });
      } else if (c.kind === 'merge') {
        const keep = byPath.get(c.keep);
        const others = c.others.map((p) => byPath.get(p));
        const paths = [c.keep, ...c.others];
        if (!keep || others.length === 0 || new Set(paths).size !== paths.length || paths.some((p) => taken.has(p))) continue;
        if (others.some((o) => o === undefined || o.usage.pinned)) continue;
        if (c.content !== undefined && !textOk(c.content)) continue;
        paths.forEach((p) => taken.add(p));
        out.push({ kind: 'merge', path: keep.path, reason: c.reason, files: [fileOf(keep, c.content), ...others.map((o) => fileOf(o!, null))] });
      } else {
        const f = byPath.get(c.path);
        if (!f || taken.has(f.path) || !textOk(c.content) || c.content === f.content) continue;
        taken.add(f.path);
        out.push({ kind: 'rewrite', path: f.path, reason: c.reason, files: [fileOf(f, c.content)] });
      }
    }
    return { changes: out.slice(0, SWEEP_MAX_CHANGES), more: Math.max(0, out.length - SWEEP_MAX_CHANGES) };
  }

  /** What changed in `owner`'s root since its last applied consolidation (the history is the baseline). */
  since(owner: string): SweepSince {
    let last: SweepSince['last'] = null;
    const latest = new Map<string, { path: string; op: string; actor: string; at: string }>();
    for (const v of this.options.history.list({ owner })) {
      if (v.cause.startsWith('sweep:')) {
        last = { id: v.cause.slice('sweep:'.length), at: v.at };
        break;
      }
      if (!latest.has(v.path)) latest.set(v.path, { path: v.path, op: v.op, actor: v.actor, at: v.at });
    }
    const changed = [...latest.values()];
    return { last, changed: changed.slice(0, SINCE_LISTED), total: changed.length };
  }

  /** Paths a version created, wrote or renamed into at or after `sinceIso` (they are fresh). */
  private recentPaths(owner: string, sinceIso: string): Set<string> {
    const out = new Set<string>();
    for (const v of this.options.history.list({ owner })) {
      if (v.at < sinceIso) break;
      if (v.op !== 'delete') out.add(v.path);
    }
    return out;
  }

  private ownerOf(session: MemorySession, scope: Scope): string {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new MemoryToolError(`Choose a scope: one of ${SCOPES.join(', ')}.`);
    const owner = scopeOwner(scope, session);
    if (owner === null) throw new MemoryToolError(`This session has no ${scope} scope to consolidate; choose another scope (global, project or workspace).`);
    return owner;
  }

  private owners(session: MemorySession): string[] {
    return SCOPES.map((s) => scopeOwner(s, session)).filter((o): o is string => o !== null);
  }
}

