/**
 * Consolidation (`cairn consolidate`): proposals for one scope root from real usage and
 * near-duplicates, previewed by a person, applied as ONE undoable history batch, or discarded.
 * The CLI and the API call this; the storage is consolidation-store.ts, the lease
 * consolidation-lease.ts, the proposing an extractor (extractor.ts): `rules` offline, or a model
 * backend (model-consolidation.ts, chosen by the setting `consolidationExtractor` through
 * consolidation-backends.ts).
 *
 * Since-last-time: the baseline is the version history itself (every version is there, for SSH
 * scopes too): what changed since the last applied consolidation is every version of the scope
 * root newer than the last applied proposal's batch (its cause: CONSOLIDATION_CAUSE and its id).
 * A scope where nothing changed since and no file is unused for `days` answers "nothing to
 * consolidate" without asking the extractor.
 *
 * Invariants:
 * - proposing writes nothing to memory (nor to usage or the history): only its record;
 * - a file is proposed for deletion (by any extractor) only when it is not pinned, has not been
 *   used (an agent's view or a write) for `days`, and was neither created nor written in them: not
 *   by its usage's last write, its mtime, nor any version in the history; a model's change never
 *   merges or renames away a pinned or such a fresh file either;
 * - every change an extractor answers is checked (checked()) and refused with its reason, never
 *   repaired: unknown paths, a model's change not based on the sha256 the file has now, new names
 *   breaking the path rules or leaving the scope, content over the cap or flagged by the scanners;
 * - apply runs under the scope root's lease and, inside it, the scope's write lock (MemoryService
 *   .writeBatch): a change whose files moved on since the proposal is skipped and reported, the
 *   rest are written as the person with cause CONSOLIDATION_CAUSE and the id, one history batch
 *   (`cairn undo` of it takes back the whole consolidation). Usage is not touched, so an undo brings back the files' usage too;
 * - a session sees and acts on the proposals of its own scope roots only;
 * - what asking a model sent (calls, characters, tokens when its API reported them) is on the
 *   outcome and kept with the proposal; when no model was asked (the rules) neither says a cost.
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { memoryIdentity, scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath, parseMemoryPath } from '../../common/memory/paths';
import { EMPTY_USAGE } from '../../common/memory/usage';
import { decayedUsage } from '../../common/context/ranking';
import {
  CONSOLIDATION_CAUSE,
  CONSOLIDATION_DEFAULT_DAYS,
  CONSOLIDATION_EXPIRY_MS,
  CONSOLIDATION_MAX_CHANGES,
  consolidationSummary,
  type ConsolidationChange,
  type ConsolidationFile,
  type ConsolidationProposal,
  type ConsolidationRefusal,
  type ConsolidationSince,
} from '../../common/consolidation/proposal';
import { NO_COST, type ModelCost } from '../harvest/harvest-run';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import { OutsideEdits } from '../memory/outside-edits';
import { outsideEditEvent } from '../../common/memory/events';
import { sha256 } from '../memory/change-outbox';
import type { MemoryService } from '../memory/memory-service';
import { scanContent } from '../memory/scanners/content-scanner';
import type { MemorySession } from '../memory/session';
import { availableScope } from '../memory/targets';
import type { UsageStore } from '../memory/usage-store';
import type { BasedOn, ProposedChange, ConsolidationExtractor, ConsolidationFileInput, ConsolidationInput } from './extractor';
import { rulesExtractor } from './rules-consolidation';
import { ConsolidationLeases } from './consolidation-lease';
import { ConsolidationStore, newConsolidationId } from './consolidation-store';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How many changed files a proposal lists by name (it counts them all). */
const SINCE_LISTED = 50;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export interface ConsolidationsOptions {
  readonly home: string;
  readonly service: MemoryService;
  readonly history: HistoryStore;
  readonly usage: UsageStore;
  /** The clock (ms): proposal times, expiry, "not used for N days" (tests inject it). */
  readonly now?: () => number;
  /** Extractors by name; `rules` is always there. */
  readonly extractors?: Readonly<Record<string, ConsolidationExtractor>>;
}

export interface ProposeOptions {
  readonly scope: Scope;
  readonly days?: number;
  /** An extractor by name (default `rules`), or one built for this call (consolidation-backends.ts, from the settings). */
  readonly extractor?: string | ConsolidationExtractor;
  /** Cancels the proposal (the UI's Cancel): checked before the files are read, and before and after the extractor is asked. */
  readonly signal?: AbortSignal;
}

/**
 * `refused`: the extractor's changes the checks refused, with why (also kept in the proposal).
 * `cost`: what asking a model sent (also kept in the proposal); absent when no model was asked.
 */
export type ProposeOutcome =
  | { readonly status: 'proposed'; readonly proposal: ConsolidationProposal; readonly summary: string; readonly refused: readonly ConsolidationRefusal[]; readonly cost?: ModelCost }
  | { readonly status: 'nothing'; readonly since: ConsolidationSince; readonly extractorCalled: boolean; readonly summary: string; readonly refused: readonly ConsolidationRefusal[]; readonly cost?: ModelCost };

export interface ApplyOptions {
  /** Only the changes about these paths (`/memories/<scope>/...` or relative to the scope). */
  readonly only?: readonly string[];
}

export class Consolidations {
  readonly store: ConsolidationStore;
  private readonly leases: ConsolidationLeases;
  private readonly now: () => number;
  private readonly extractors: Readonly<Record<string, ConsolidationExtractor>>;

  constructor(private readonly options: ConsolidationsOptions) {
    this.now = options.now ?? Date.now;
    this.store = new ConsolidationStore(options.home, this.now);
    this.leases = new ConsolidationLeases(this.store.dir, this.now);
    this.extractors = { ...options.extractors, rules: rulesExtractor };
  }

  /** Proposes a consolidation of one scope root of the session, under its lease; stores it (replacing an older one). */
  async propose(session: MemorySession, options: ProposeOptions): Promise<ProposeOutcome> {
    const days = options.days ?? CONSOLIDATION_DEFAULT_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > 3650) throw new MemoryToolError('The number of days must be a whole number from 1 to 3650.');
    const extractor = typeof options.extractor === 'object' ? options.extractor : this.extractors[options.extractor ?? 'rules'];
    if (!extractor) throw new MemoryToolError(`There is no extractor ${JSON.stringify(options.extractor)}; choose one of ${Object.keys(this.extractors).join(', ')}.`);
    const { scope } = options;
    const owner = this.ownerOf(session, scope);
    return this.leases.with(owner, formatMemoryPath(scope), 'proposing', async () => {
      const b = availableScope(session, scope);
      const now = this.now();
      const cutoff = now - days * DAY_MS;
      const listed = (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true })) ?? [];
      // Edits made while no Cairn process watched (an editor, a pull) are recorded first, so the
      // history, the baseline of "since last time", knows what is on disk.
      await this.recordOutsideEdits(session, scope, owner, listed.map((e) => e.rel));
      const since = this.since(owner);
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
      if (since.last !== null && since.total === 0 && stale.length === 0) return { status: 'nothing', since, extractorCalled: false, summary: consolidationSummary([]), refused: [] };

      options.signal?.throwIfAborted();
      const readable = entries.filter((e) => e.entry.size <= MAX_FILE_BYTES);
      const heads = await b.runtime.readHeads(b.root, readable.map((e) => e.entry.rel), MAX_FILE_BYTES);
      const files: ConsolidationFileInput[] = [];
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
      const input: ConsolidationInput = {
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
      let answer;
      try {
        answer = await extractor.propose(input);
      } catch (err) {
        options.signal?.throwIfAborted();
        // A model backend's failure (its command, its API, its answer) is the person's to fix: said as such.
        if (extractor.offline || !(err instanceof Error) || err instanceof MemoryToolError) throw err;
        throw new MemoryToolError(`The ${extractor.name} extractor proposed nothing: ${err.message}`);
      }
      options.signal?.throwIfAborted();
      const cost = answer.cost ?? NO_COST;
      const asked = cost.calls > 0 ? { cost } : {};
      const { changes, more, refused } = this.checked(answer.changes, input, extractor, new Set(entries.map((e) => e.path)));
      refused.unshift(...(answer.refused ?? []));
      if (changes.length === 0) return { status: 'nothing', since, extractorCalled: true, summary: consolidationSummary([]), refused, ...asked };
      const id = newConsolidationId(now);
      const proposal: ConsolidationProposal = {
        v: 1,
        id,
        scope,
        owner,
        workspaceId: session.workspaceId,
        extractor: extractor.name,
        days,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + CONSOLIDATION_EXPIRY_MS).toISOString(),
        state: 'open',
        replacedBy: null,
        changes,
        more,
        since,
        result: null,
        ...(refused.length > 0 ? { refused } : {}),
        ...asked,
      };
      this.store.add(proposal);
      return { status: 'proposed', proposal, summary: consolidationSummary(changes), refused, ...asked };
    });
  }

  /** The proposals of the session's scope roots, newest first. */
  list(session: MemorySession): ConsolidationProposal[] {
    const owners = this.owners(session);
    return this.store.list().filter((p) => owners.includes(p.owner));
  }

  /** One proposal of the session's scope roots, or the error saying there is none. */
  get(id: string, session: MemorySession): ConsolidationProposal {
    const p = this.store.get(id);
    if (!p || !this.owners(session).includes(p.owner)) throw new MemoryToolError(`There is no proposal ${JSON.stringify(id)} for the scopes this session sees; list them with \`cairn consolidate list\`.`);
    return p;
  }

  /**
   * Applies an open proposal (all its changes, or those `only` names) under the scope's lease: a
   * change whose files moved on since is skipped and reported; the rest are one history batch.
   */
  async apply(id: string, session: MemorySession, options: ApplyOptions = {}): Promise<ConsolidationProposal> {
    const first = this.get(id, session);
    return this.leases.with(first.owner, formatMemoryPath(first.scope), 'applying', async () => {
      const p = this.get(id, session);
      this.mustBeOpen(p);
      const chosen = this.select(p, options.only);
      const cause = `${CONSOLIDATION_CAUSE}${p.id}`;
      const outcome = await this.options.service.writeBatch(
        chosen.map((c) => ({ key: c.path, files: c.files.map((f) => ({ path: f.path, expectedSha256: f.created ? null : f.sha256, ...(f.content !== undefined ? { content: f.content } : {}) })) })),
        cause,
        session,
      );
      const batch = outcome.applied.length > 0 ? (this.options.history.list({ owner: p.owner, limit: 200 }).find((v) => v.cause === cause)?.batch ?? null) : null;
      const applied: ConsolidationProposal = {
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
  discard(id: string, session: MemorySession): ConsolidationProposal {
    const p = this.get(id, session);
    this.mustBeOpen(p);
    const discarded: ConsolidationProposal = { ...p, state: 'discarded' };
    this.store.write(discarded);
    return discarded;
  }

  private mustBeOpen(p: ConsolidationProposal): void {
    switch (p.state) {
      case 'open':
        return;
      case 'applied':
        throw new MemoryToolError(`Proposal ${p.id} was applied at ${p.result?.at ?? 'an earlier time'}${p.result?.batch ? `; undo it with \`cairn undo ${p.result.batch}\`` : ''}.`);
      case 'discarded':
        throw new MemoryToolError(`Proposal ${p.id} was discarded; run \`cairn consolidate\` for a new one.`);
      case 'replaced':
        throw new MemoryToolError(`Proposal ${p.id} was replaced by a newer one, ${p.replacedBy ?? ''}; apply that one, or run \`cairn consolidate\` again.`);
      case 'expired':
        throw new MemoryToolError(`Proposal ${p.id} expired at ${p.expiresAt} (proposals are kept open 7 days); run \`cairn consolidate\` for a new one.`);
    }
  }

  /** The changes `only` names (each path must name one: a change's file, or one of the files it touches). */
  private select(p: ConsolidationProposal, only: readonly string[] | undefined): ConsolidationChange[] {
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
   * An extractor's answer as the proposal's changes, each checked (a change failing a check is
   * refused with its reason, never repaired):
   * - its files among those given (`listed`: every path of the scope, for new names), none in two
   *   changes; a model's change based on the sha256 each file it deletes, writes or moves has now;
   * - a file deleted only when the host found it unused (ConsolidationInput.stale: not pinned, not used,
   *   created or written within `days`); never a pinned file merged away, nor, by a model, a fresh
   *   one (the rules may: its lines stay in the kept file); never a pinned or fresh file renamed;
   * - a new name (a rename's, a model's merge into a new file) by the path rules, in the scope, not
   *   an existing file or folder, not inside a file;
   * - a model's content well-formed, within MAX_FILE_BYTES, and free of what the content scanners
   *   flag (secrets, injected instructions);
   * - at most CONSOLIDATION_MAX_CHANGES (`more`: how many passed past it).
   */
  private checked(
    proposed: readonly ProposedChange[],
    input: ConsolidationInput,
    extractor: ConsolidationExtractor,
    listed: ReadonlySet<string>,
  ): { changes: ConsolidationChange[]; more: number; refused: ConsolidationRefusal[] } {
    const byPath = new Map(input.files.map((f) => [f.path, f]));
    const stale = new Set(input.stale);
    const taken = new Set<string>();
    const folders = new Set<string>();
    for (const p of listed) for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) folders.add(p.slice(0, i));
    const root = formatMemoryPath(input.scope);
    const fileOf = (f: ConsolidationFileInput, content: string | null | undefined): ConsolidationFile => ({ path: f.path, sha256: f.sha256, usage: f.usage, ...(content !== undefined ? { content } : {}) });
    const createdFile = (path: string, content: string): ConsolidationFile => ({ path, sha256: sha256(new TextEncoder().encode(content)), created: true, usage: { pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null }, content });
    const days = `${input.days} ${input.days === 1 ? 'day' : 'days'}`;
    // A new name as the proposal records it (parsed by newName first: trailing slash dropped).
    const normal = (path: string): string => {
      const parsed = parseMemoryPath(path);
      return parsed.kind === 'scope' ? formatMemoryPath(parsed.scope, parsed.segments) : path;
    };

    // Each check answers why a change may not be proposed, or null.
    const known = (path: string): string | null => (byPath.has(path) ? null : listed.has(path) ? `${path} was not read (larger than ${MAX_FILE_BYTES / 1024} KiB, or not UTF-8 text)` : `${path} is not a file of ${root}`);
    const free = (path: string): string | null => (taken.has(path) ? `${path} is already in another change of this proposal` : null);
    const based = (path: string, basedOn: BasedOn | undefined): string | null => {
      const f = byPath.get(path)!;
      if (basedOn === undefined || !(path in basedOn)) return extractor.offline ? null : `it does not say which version of ${path} it was based on (basedOn)`;
      const was = basedOn[path] ?? null;
      if (was !== f.sha256) return `it was based on ${was === null ? 'no file' : `version ${was.slice(0, 12)}`} of ${path}, which is at ${f.sha256.slice(0, 12)} now`;
      return null;
    };
    const removable = (path: string, what: 'deleted' | 'merged away' | 'renamed'): string | null => {
      const f = byPath.get(path)!;
      if (f.usage.pinned) return `${path} is pinned: it is never ${what}`;
      if (what === 'deleted' && !stale.has(path)) return f.protected ? `${path} was created or written within ${days}` : `${path} was used by an agent within ${days}`;
      if (what !== 'deleted' && f.protected && !(what === 'merged away' && extractor.offline)) return `${path} was created or written within ${days}: it is not ${what}`;
      return null;
    };
    const newName = (path: string): string | null => {
      let parsed;
      try {
        parsed = parseMemoryPath(path);
      } catch (err) {
        if (err instanceof MemoryToolError) return err.message;
        throw err;
      }
      if (parsed.kind !== 'scope' || parsed.scope !== input.scope || parsed.segments.length === 0) return `${path} is not a file path inside ${root}`;
      const name = formatMemoryPath(parsed.scope, parsed.segments);
      if (listed.has(name)) return `${name} exists already`;
      if (folders.has(name)) return `${name} is a folder`;
      for (let i = name.lastIndexOf('/'); i > root.length; i = name.lastIndexOf('/', i - 1)) if (listed.has(name.slice(0, i))) return `${name.slice(0, i)} is a file, not a folder`;
      return free(name);
    };
    const text = (content: string): string | null => {
      if (!content.isWellFormed() || content.includes('\0')) return 'its content is not plain text (a NUL character, or broken UTF-16)';
      const bytes = new TextEncoder().encode(content).length;
      if (bytes > MAX_FILE_BYTES) return `its content is ${bytes} bytes; a memory file holds at most ${MAX_FILE_BYTES / 1024} KiB`;
      if (extractor.offline) return null;
      const findings = scanContent(content);
      return findings.length === 0 ? null : `its content is flagged by the content scanners: ${findings[0]!.message}`;
    };
    const first = (...checks: Array<() => string | null>): string | null => {
      for (const check of checks) {
        const problem = check();
        if (problem !== null) return problem;
      }
      return null;
    };

    const out: ConsolidationChange[] = [];
    const refused: ConsolidationRefusal[] = [];
    for (const c of proposed) {
      let problem: string | null;
      let change: ConsolidationChange | null = null;
      let what: string;
      if (c.kind === 'delete') {
        what = `delete ${c.path}`;
        problem = first(() => known(c.path), () => free(c.path), () => based(c.path, c.basedOn), () => removable(c.path, 'deleted'));
        if (problem === null) change = { kind: 'delete', path: c.path, reason: c.reason, files: [fileOf(byPath.get(c.path)!, null)] };
      } else if (c.kind === 'merge') {
        what = `merge ${c.others.join(', ')} into ${c.keep}`;
        const paths = [c.keep, ...c.others];
        const creates = !byPath.has(c.keep) && !listed.has(c.keep) && !extractor.offline;
        problem = first(
          () => (c.others.length === 0 ? 'it names no file to merge' : new Set(paths).size !== paths.length ? 'it names a file twice' : null),
          ...c.others.flatMap((o) => [() => known(o), () => free(o), () => based(o, c.basedOn), () => removable(o, 'merged away')]),
          () => (creates ? newName(c.keep) : first(() => known(c.keep), () => free(c.keep))),
          () => (creates ? (c.basedOn?.[c.keep] === null ? null : `${c.keep} does not exist: a merge into a new file is based on no file (basedOn null)`) : c.content !== undefined ? based(c.keep, c.basedOn) : null),
          () => (creates && c.content === undefined ? `a merge into the new file ${c.keep} needs its content` : null),
          () => (c.content !== undefined ? text(c.content) : null),
        );
        if (problem === null) {
          const others = c.others.map((o) => fileOf(byPath.get(o)!, null));
          const kept = creates ? createdFile(normal(c.keep), c.content!) : fileOf(byPath.get(c.keep)!, c.content);
          change = { kind: 'merge', path: kept.path, reason: c.reason, files: [kept, ...others] };
        }
      } else if (c.kind === 'rewrite') {
        what = `rewrite ${c.path}`;
        problem = first(
          () => known(c.path),
          () => free(c.path),
          () => based(c.path, c.basedOn),
          () => text(c.content),
          () => (c.content === byPath.get(c.path)!.content ? 'its content is what the file holds already' : null),
        );
        if (problem === null) change = { kind: 'rewrite', path: c.path, reason: c.reason, files: [fileOf(byPath.get(c.path)!, c.content)] };
      } else {
        what = `rename ${c.path} to ${c.to}`;
        problem = first(
          () => known(c.path),
          () => free(c.path),
          () => based(c.path, c.basedOn),
          () => removable(c.path, 'renamed'),
          () => newName(c.to),
          // The new file is written from the text read: bytes that text does not give back (a byte-order mark) would not move as they are.
          () => (sha256(new TextEncoder().encode(byPath.get(c.path)!.content)) === byPath.get(c.path)!.sha256 ? null : `${c.path} starts with a byte-order mark, which a rename would not keep`),
        );
        if (problem === null) {
          const f = byPath.get(c.path)!;
          change = { kind: 'rename', path: f.path, reason: c.reason, files: [fileOf(f, null), createdFile(normal(c.to), f.content)] };
        }
      }
      if (change === null) {
        refused.push({ change: what, reason: problem ?? 'refused' });
        continue;
      }
      for (const f of change.files) taken.add(f.path);
      out.push(change);
    }
    return { changes: out.slice(0, CONSOLIDATION_MAX_CHANGES), more: Math.max(0, out.length - CONSOLIDATION_MAX_CHANGES), refused };
  }

  /**
   * Records as outside edits what differs between the scope's files on disk (`rels`, as listed)
   * and the history's last version of each: a file written, created or deleted while no Cairn
   * process watched the root. A file the history already holds as it is records nothing.
   */
  private async recordOutsideEdits(session: MemorySession, scope: Scope, owner: string, rels: ReadonlyArray<readonly string[]>): Promise<void> {
    const outside = new OutsideEdits(this.options.history);
    const onDisk = new Set<string>();
    for (const rel of rels) {
      const event = outsideEditEvent(scope, rel, 'update', null, session);
      onDisk.add(event.path);
      await outside.record(event, session);
    }
    // Files the history last knew as present that are gone from disk (not knowable when the listing
    // stopped at the cap: a file past it is not gone).
    if (rels.length >= MAX_FILES_PER_SCOPE) return;
    const latest = new Map<string, HistoryVersion>();
    for (const v of this.options.history.list({ owner })) {
      if (!latest.has(v.path)) latest.set(v.path, v);
      if (v.oldPath !== undefined && v.oldPath !== v.path && !latest.has(v.oldPath)) latest.set(v.oldPath, v);
    }
    for (const [path, v] of latest) {
      if (onDisk.has(path) || v.path !== path || v.after === null) continue;
      const parsed = parseMemoryPath(path);
      if (parsed.kind !== 'scope' || parsed.scope !== scope) continue;
      await outside.record(outsideEditEvent(scope, parsed.segments, 'delete', null, session), session);
    }
  }

  /** What changed in `owner`'s root since its last applied consolidation (the history is the baseline). */
  since(owner: string): ConsolidationSince {
    let last: ConsolidationSince['last'] = null;
    const latest = new Map<string, { path: string; op: string; actor: string; at: string }>();
    for (const v of this.options.history.list({ owner })) {
      if (v.cause.startsWith(CONSOLIDATION_CAUSE)) {
        last = { id: v.cause.slice(CONSOLIDATION_CAUSE.length), at: v.at };
        break;
      }
      if (!latest.has(v.path)) latest.set(v.path, { path: v.path, op: v.op, actor: v.actor, at: v.at });
    }
    const changed = [...latest.values()];
    return { last, changed: changed.slice(0, SINCE_LISTED), total: changed.length };
  }

  /**
   * Paths a version created, wrote or renamed into at or after `sinceIso` (they are fresh). An
   * outside edit's version is when Cairn found it, perhaps long after it was made: the file's own
   * mtime says when that was, so it is left to that.
   */
  private recentPaths(owner: string, sinceIso: string): Set<string> {
    const out = new Set<string>();
    for (const v of this.options.history.list({ owner })) {
      if (v.at < sinceIso) break;
      if (v.op !== 'delete' && v.actor !== 'external') out.add(v.path);
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

