/**
 * One sync of the synced scopes with the person's git remote (sync-repo.ts holds the repository):
 *
 *   1. out: the scope's memory files are written into the work tree and committed, one commit per
 *      sync with what changed in its message (files held for review, below, are left as they are);
 *   2. fetch, and merge the remote's branch three-way; a file both sides changed differently keeps
 *      this machine's side and the other side waits in the Inbox for the person (never silently);
 *   3. in: what the merge brought is written to memory as ONE history batch by actor `sync` with the
 *      cause `sync:<commit>` (undo takes the whole of it back), each file only while it still holds
 *      what went out in step 1 (an agent's write meanwhile is never overwritten: that file waits in
 *      the Inbox instead). Incoming text is untrusted: whatever the scanners flag (a secret, an
 *      injected instruction, hidden text, a bad name), and everything for a scope in review mode,
 *      is held in the Inbox as a change from elsewhere (which remote, which commit), not written;
 *   4. push; a remote that moved on meanwhile is fetched and merged again (a few times at most).
 *
 * Offline is normal: a fetch or push that cannot reach the remote ends the sync as `offline`, with
 * this machine's commits kept for the next one. The state (`<home>/sync/state.json`) records the
 * commit memory last took in (`appliedHead`), so a sync killed between its merge and its writes
 * takes in the rest next time rather than committing memory's older side as a change; and the
 * files held in the Inbox, which step 1 leaves alone until the person decides.
 *
 * Invariant: one sync at a time per home (a lease); memory is written only through the
 * MemoryService (locks, history, journal, scanners' caps), never by git.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { CairnError } from '../../common/errors';
import { MAX_FILE_BYTES } from '../../common/memory/constants';
import { syncRunSchema, type SyncRun } from '../../common/sync/sync-status';
import { scanContent, scanPath } from '../memory/scanners/content-scanner';
import type { MemoryService } from '../memory/memory-service';
import type { MemorySession } from '../memory/session';
import { sha256 } from '../memory/change-outbox';
import type { InboxStore, SyncOrigin } from '../inbox/inbox-store';
import { reviewKey } from '../inbox/review-mode';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import { takeLease } from '../runtime/local/file-lock';
import type { Runtime, ScopeRoot } from '../runtime/runtime';
import { GitError } from './git';
import { blobId, changesBetween, SyncRepo, syncDir, syncRepoDir, type TreeChange } from './sync-repo';
import { shownRemote } from './sync-settings';

/** The scope synced, and its folder in the repository. */
const PREFIX = 'global';
/** How many times one sync fetches and merges again when a push finds the remote moved on. */
const PUSH_ATTEMPTS = 3;

const stateSchema = z.object({
  appliedHead: z.string().nullable().default(null),
  /** Repository path -> the Inbox item holding its incoming version. */
  held: z.record(z.string(), z.string()).default({}),
  lastRun: syncRunSchema.nullable().default(null),
  lastSyncedAt: z.string().nullable().default(null),
  /**
   * Repository path -> [the listing's version of the memory file, its blob id] as the last sync
   * read it: a file whose listing still gives that version is not read again (a version is null,
   * so never kept, while a file may still change unseen: ListedEntry.version).
   */
  known: z.record(z.string(), z.tuple([z.string(), z.string()])).default({}),
  /** Whether the last sync ended (its repository then holds nothing uncommitted); false while one runs. */
  clean: z.boolean().default(false),
});
export type SyncState = z.infer<typeof stateSchema>;

export function readSyncState(home: string): SyncState {
  try {
    return stateSchema.parse(JSON.parse(fs.readFileSync(path.join(syncDir(home), 'state.json'), 'utf8')));
  } catch (err) {
    // Never synced: nothing is known. A damaged state is read as none too: the next sync takes in
    // the difference from the last agreed commit again, which writes only what differs.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError || err instanceof z.ZodError) return stateSchema.parse({});
    throw err;
  }
}

function writeSyncState(home: string, state: SyncState): void {
  writeOwnFileSync(path.join(syncDir(home), 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
}

/** What a sync needs of a home's services. */
export interface SyncServices {
  readonly home: string;
  readonly service: MemoryService;
  readonly inbox: InboxStore;
  /** The session whose global scope is synced (a person's, with no workspace). */
  readonly session: MemorySession;
  /** Whether the global scope is in review mode (everything incoming is then held). */
  readonly underReview: () => boolean;
}

/** Another sync of the home holds its lease (a person-fixable refusal, not a git failure). */
export class SyncBusyError extends CairnError {
  override readonly name = 'SyncBusyError';
}

/** The memory path of a repository path under PREFIX. */
function memoryPath(file: string): string {
  return `/memories/${file}`;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function textOf(data: Uint8Array): string | null {
  try {
    const text = decoder.decode(data);
    return text.includes('\0') ? null : text;
  } catch {
    return null; // not UTF-8: no memory file can hold it
  }
}

/** Runs one sync with `remote`; resolves to what it did (also kept in the state). */
export async function runSync(services: SyncServices, remote: string): Promise<SyncRun> {
  const { home } = services;
  fs.mkdirSync(syncDir(home), { recursive: true, mode: 0o700 });
  const lease = await takeLease(syncDir(home), { lockfilePath: path.join(syncDir(home), 'sync.lock') });
  if (!lease) throw new SyncBusyError('Another sync of this home is running; this one was not started.');
  try {
    return await syncUnderLease(services, remote);
  } finally {
    await lease.release();
  }
}

async function syncUnderLease(services: SyncServices, remote: string): Promise<SyncRun> {
  const { home } = services;
  const repo = new SyncRepo(syncRepoDir(home));
  const state = readSyncState(home);
  const record: SyncRun = { at: new Date().toISOString(), outcome: 'synced', error: null, sent: [], received: [], held: [], conflicts: [], waiting: 0 };
  const binding = services.session.scopes.global;
  if (!binding.available) throw new GitError(`The global scope is unavailable: ${binding.reason}`, null, '');
  const scope = { runtime: binding.runtime, root: binding.root };
  // What records and Inbox items name the remote by: never with a password or token.
  const shown = shownRemote(remote);
  let held = { ...state.held };
  let appliedHead = state.appliedHead;
  let known = state.known;
  let clean = false;
  const save = () => writeSyncState(home, { appliedHead, held, known, clean, lastRun: record, lastSyncedAt: record.outcome === 'synced' ? record.at : state.lastSyncedAt });
  try {
    await repo.open(remote, state.clean);
    // Files held in the Inbox stay held while their item waits; once decided, memory says what the person chose.
    held = Object.fromEntries(Object.entries(held).filter(([, id]) => services.inbox.get(id)?.status === 'pending'));
    // A sync killed after its merge: take in what it had not yet (memory still holds the older side).
    const head = await repo.head();
    if (head && appliedHead && head !== appliedHead) {
      const missed = changesBetween(await repo.treeOf(appliedHead, PREFIX), await repo.treeOf(head, PREFIX));
      await takeIn(services, repo, scope, missed, appliedHead, head, shown, held, record);
    }
    appliedHead = await repo.head();
    save();

    const { changes: sent, known: nowKnown } = await sendOut(repo, scope, held, known);
    known = nowKnown;
    if (sent.length > 0) {
      await repo.commitAll(PREFIX, commitMessage(sent));
      record.sent.push(...sent.map((c) => memoryPath(c.path)));
    }
    appliedHead = await repo.head();
    save();

    for (let attempt = 1; ; attempt++) {
      try {
        await repo.fetch();
      } catch (err) {
        if (!(err instanceof GitError)) throw err;
        record.outcome = 'offline';
        record.error = `${err.message} Your changes are kept and go out with the next sync.`;
        break;
      }
      const remoteHead = await repo.remoteHead();
      // Nothing new there (the remote's branch is already in HEAD): no merge to make.
      if (remoteHead && !(await repo.contains(remoteHead))) {
        const before = await repo.head();
        const { conflicts } = await repo.merge(`Cairn: merge from ${shown}`);
        const after = (await repo.head())!;
        for (const c of conflicts) await holdConflict(services, scope, c, after, shown, record);
        const incoming = changesBetween(await repo.treeOf(before, PREFIX), await repo.treeOf(after, PREFIX)).filter((c) => !conflicts.some((k) => k.path === c.path));
        await takeIn(services, repo, scope, incoming, before, after, shown, held, record);
        appliedHead = after;
        save();
      }
      // Nothing on either side yet, or nothing of this machine's the remote lacks.
      if (!(await repo.head()) || (await repo.ahead()) === 0) break;
      let pushed: boolean;
      try {
        pushed = await repo.push();
      } catch (err) {
        if (!(err instanceof GitError)) throw err;
        record.outcome = 'offline';
        record.error = `${err.message} Your changes are kept and go out with the next sync.`;
        break;
      }
      if (pushed) break;
      if (attempt >= PUSH_ATTEMPTS) {
        record.outcome = 'offline';
        record.error = 'The remote kept changing while this sync merged; the next sync tries again.';
        break;
      }
    }
    record.waiting = await repo.ahead();
    clean = true;
  } catch (err) {
    record.outcome = 'failed';
    record.error = err instanceof Error ? err.message : String(err);
    save();
    throw err;
  }
  save();
  return record;
}

/**
 * Writes memory's files into the work tree (held ones left as they are); returns what differs from
 * HEAD, and what is now known of each file (`known`: a file unchanged since is not read).
 */
async function sendOut(
  repo: SyncRepo,
  scope: { runtime: Runtime; root: ScopeRoot },
  held: Readonly<Record<string, string>>,
  known: Readonly<Record<string, readonly [string, string]>>,
): Promise<{ changes: TreeChange[]; known: Record<string, [string, string]> }> {
  const listed = (await scope.runtime.list(scope.root, [], { depth: 64, limit: 100_000, filesOnly: true })) ?? [];
  const committed = await repo.treeOf(await repo.head(), PREFIX);
  const mine = new Map<string, string>();
  const nowKnown: Record<string, [string, string]> = {};
  const changes: TreeChange[] = [];
  for (const entry of listed) {
    const file = [PREFIX, ...entry.rel].join('/');
    if (held[file]) continue;
    const was = known[file];
    let id: string;
    // Unchanged since the last sync read it, and committed as it is: nothing to read or write.
    if (entry.version !== null && was && was[0] === entry.version && committed.get(file) === was[1]) id = was[1];
    else {
      let data: Uint8Array;
      try {
        data = (await scope.runtime.readFile(scope.root, entry.rel, MAX_FILE_BYTES)).data;
      } catch {
        continue; // gone since the listing, or not a file memory reads (a link, too large): not sent
      }
      id = blobId(data);
      if (committed.get(file) !== id) {
        repo.writeWorkFile(file, data);
        changes.push({ path: file, status: committed.has(file) ? 'modified' : 'added' });
      }
    }
    mine.set(file, id);
    if (entry.version !== null) nowKnown[file] = [entry.version, id];
  }
  for (const file of committed.keys()) {
    if (mine.has(file) || held[file]) continue;
    repo.writeWorkFile(file, null);
    changes.push({ path: file, status: 'deleted' });
  }
  return { changes, known: nowKnown };
}

function commitMessage(changes: readonly TreeChange[]): string {
  const lines = changes.slice(0, 50).map((c) => `${c.status === 'added' ? 'create' : c.status === 'deleted' ? 'delete' : 'edit'} ${memoryPath(c.path)}`);
  const more = changes.length > 50 ? [`... and ${changes.length - 50} more`] : [];
  return [`Cairn: ${changes.length} change${changes.length === 1 ? '' : 's'} of the global memory`, '', ...lines, ...more].join('\n');
}

/** Why incoming text may not be written as it is (a scanner's finding), or null. */
function flagOf(file: string, text: string | null): string | null {
  if (text === null) return null;
  const named = scanPath(file.split('/').slice(1));
  if (named.length > 0) return named[0]!.message;
  const found = scanContent(text);
  return found.length > 0 ? found[0]!.message : null;
}

/**
 * Takes `changes` (from `base` to `to`) into memory: held in the Inbox what is flagged or under
 * review, written as one batch what is not, each file only while memory holds `base`'s side.
 */
async function takeIn(
  services: SyncServices,
  repo: SyncRepo,
  scope: { runtime: Runtime; root: ScopeRoot },
  changes: readonly TreeChange[],
  base: string | null,
  to: string,
  remote: string,
  held: Record<string, string>,
  record: SyncRun,
): Promise<void> {
  if (changes.length === 0) return;
  const [baseTree, toTree] = [await repo.treeOf(base, PREFIX), await repo.treeOf(to, PREFIX)];
  const bytes = await repo.blobs(changes.flatMap((c) => [baseTree.get(c.path), toTree.get(c.path)].filter((id): id is string => id !== undefined)));
  const at = (tree: ReadonlyMap<string, string>, file: string) => {
    const id = tree.get(file);
    return id === undefined ? null : (bytes.get(id) ?? null);
  };
  const groups: Array<{ key: string; files: Array<{ path: string; expectedSha256: string | null; content: string | null }> }> = [];
  const texts = new Map<string, string | null>();
  for (const change of changes) {
    const incoming = change.status === 'deleted' ? null : at(toTree, change.path);
    const previous = at(baseTree, change.path);
    const text = incoming === null ? null : textOf(incoming);
    const p = memoryPath(change.path);
    if (incoming !== null && (text === null || incoming.length > MAX_FILE_BYTES)) {
      record.error = `${p} from the remote is not a memory file (not UTF-8 text, or over ${MAX_FILE_BYTES / 1024} KiB); it was not taken in.`;
      continue;
    }
    texts.set(change.path, text);
    const flag = flagOf(change.path, text);
    if (flag !== null || services.underReview()) {
      await holdIncoming(services, scope, change.path, text, to, remote, held, record, flag);
      continue;
    }
    groups.push({ key: change.path, files: [{ path: p, expectedSha256: previous ? sha256(previous) : null, content: text }] });
  }
  if (groups.length === 0) return;
  const outcome = await services.service.writeBatch(groups, `sync:${to.slice(0, 12)}`, services.session, 'sync');
  for (const key of outcome.applied) record.received.push(memoryPath(key));
  // Changed here since it went out (an agent's write meanwhile): the remote's side waits for the person.
  for (const conflict of outcome.conflicts) await holdIncoming(services, scope, conflict.key, texts.get(conflict.key) ?? null, to, remote, held, record, null);
}

async function currentText(scope: { runtime: Runtime; root: ScopeRoot }, file: string): Promise<string | null> {
  try {
    return textOf((await scope.runtime.readFile(scope.root, file.split('/').slice(1), MAX_FILE_BYTES)).data);
  } catch {
    return null; // no file here (or none memory reads)
  }
}

/**
 * Puts the remote's version of `file` (null: deleted there) in the Inbox as a change from elsewhere,
 * against what memory holds now; returns the item's id, or null when memory already holds it.
 */
async function proposeIncoming(services: SyncServices, scope: { runtime: Runtime; root: ScopeRoot }, file: string, text: string | null, from: SyncOrigin): Promise<string | null> {
  const before = await currentText(scope, file);
  if (before === text) return null;
  const item = services.inbox.addChange(
    {
      command: text === null ? 'delete' : 'create',
      scope: 'global',
      path: memoryPath(file),
      newPath: null,
      before,
      beforeSha256: before === null ? null : sha256(new TextEncoder().encode(before)),
      after: text,
    },
    { workspaceId: null, projectId: null, owner: reviewKey('global', services.session) ?? 'global', cwd: null, from },
  );
  return item.id;
}

/** Holds the remote's version of `file` in the Inbox (flagged, under review, or changed here meanwhile): memory keeps its own until the person decides. */
async function holdIncoming(
  services: SyncServices,
  scope: { runtime: Runtime; root: ScopeRoot },
  file: string,
  text: string | null,
  commit: string,
  remote: string,
  held: Record<string, string>,
  record: SyncRun,
  flag: string | null,
): Promise<void> {
  const id = await proposeIncoming(services, scope, file, text, { kind: 'sync', remote, commit, flag });
  if (id === null) return;
  held[file] = id;
  record.held.push(memoryPath(file));
}

/** A conflict: this machine's side stays in memory and in the merge; the remote's waits in the Inbox. */
async function holdConflict(
  services: SyncServices,
  scope: { runtime: Runtime; root: ScopeRoot },
  conflict: { path: string; theirs: Uint8Array | null },
  commit: string,
  remote: string,
  record: SyncRun,
): Promise<void> {
  const text = conflict.theirs === null ? null : textOf(conflict.theirs);
  // Not marked held: the merge kept this machine's side, so memory and the repository agree on it.
  const id = await proposeIncoming(services, scope, conflict.path, text, { kind: 'sync', remote, commit, flag: null, conflict: true });
  if (id !== null) record.conflicts.push(memoryPath(conflict.path));
}
