/**
 * One sync of the synced scopes with the person's git remote (sync-repo.ts holds the repository):
 * the global scope, and each workspace turned on for sync, under a folder named by its checkout's
 * project id (so the clones of one repository on two machines share it). A scope carried for the
 * first time starts from what the repository already holds of it (the other machines' side).
 *
 *   1. out: the scopes' memory files are written into the work tree and committed, one commit per
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
 * files held in the Inbox, which step 1 leaves alone until the person decides. It also keeps what
 * lets a sync with nothing changed end after asking the remote where its branch is, with no other
 * git process: the tree of HEAD, each file's listed version, and the remote head already merged.
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
import { GitError, gitRaw } from './git';
import { blobId, changesBetween, SyncRepo, syncDir, syncRepoDir, type TreeChange } from './sync-repo';
import { shownRemote } from './sync-settings';

/**
 * The repository's top folders the synced scopes live in: `global/`, and `workspace/<project id>/`
 * per workspace that syncs (sync-repo.ts). Trees and commits cover both; what is taken in or sent
 * is only a synced scope's (a workspace synced on another machine alone stays in the repository).
 */
const PREFIX = ['global', 'workspace'] as const;
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
  /** The folders of the scopes the last sync carried (null: before workspaces synced, the global one alone). */
  folders: z.array(z.string()).nullable().default(null),
  /** The whole tree of `appliedHead` (repository path -> blob id), so an unchanged sync does not list it again. */
  tree: z.record(z.string(), z.string()).nullable().default(null),
  /** The remote's branch as a sync last found it already merged here: found again, there is nothing to merge. */
  remoteMerged: z.string().nullable().default(null),
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
  /** The workspaces whose memory syncs too, each by its checkout's project identity (none: the global memory alone). */
  readonly workspaces?: readonly SyncedWorkspace[];
}

/** A workspace whose memory syncs: its session (a person's, in it) and its project's id, which names its folder. */
export interface SyncedWorkspace {
  readonly projectId: string;
  readonly session: MemorySession;
  /** Whether the workspace scope is in review mode. */
  readonly underReview: () => boolean;
}

/** One scope a sync carries: its folder in the repository and where its memory is. */
interface SyncedScope {
  /** `global`, or `workspace/<project id>`. */
  readonly folder: string;
  readonly scope: 'global' | 'workspace';
  readonly session: MemorySession;
  readonly underReview: () => boolean;
  readonly runtime: Runtime;
  readonly root: ScopeRoot;
}

/** Another sync of the home holds its lease (a person-fixable refusal, not a git failure). */
class SyncBusyError extends CairnError {
  override readonly name = 'SyncBusyError';
}

/** The memory path of a repository path (`workspace/<project id>/x.md` is the workspace's `/memories/workspace/x.md`). */
function memoryPath(file: string): string {
  return file.startsWith('workspace/') ? `/memories/workspace/${file.split('/').slice(2).join('/')}` : `/memories/${file}`;
}

/** The synced scope a repository path belongs to, if any. */
function scopeOf(scopes: readonly SyncedScope[], file: string): SyncedScope | undefined {
  return scopes.find((s) => file.startsWith(`${s.folder}/`));
}

/** A repository path's place inside its scope's root. */
function relOf(scope: SyncedScope, file: string): string[] {
  return file.slice(scope.folder.length + 1).split('/');
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

/**
 * The scopes this sync carries: the global one, and each synced workspace by its project's id (the
 * first of two workspaces of one project; the other is said in the record).
 */
function syncedScopes(services: SyncServices, record: SyncRun): SyncedScope[] {
  const global = services.session.scopes.global;
  if (!global.available) throw new GitError(`The global scope is unavailable: ${global.reason}`, null, '');
  const scopes: SyncedScope[] = [{ folder: 'global', scope: 'global', session: services.session, underReview: services.underReview, runtime: global.runtime, root: global.root }];
  for (const w of services.workspaces ?? []) {
    const binding = w.session.scopes.workspace;
    const folder = `workspace/${w.projectId}`;
    if (!binding.available) continue;
    if (scopes.some((s) => s.folder === folder)) {
      record.error = `Workspace ${w.session.workspaceId ?? ''} is a checkout of the same repository as another synced workspace; only the first one's memory syncs.`;
      continue;
    }
    scopes.push({ folder, scope: 'workspace', session: w.session, underReview: w.underReview, runtime: binding.runtime, root: binding.root });
  }
  return scopes;
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
  const scopes = syncedScopes(services, record);
  const folders = scopes.map((s) => s.folder);
  if (state.tree && state.appliedHead) repo.rememberTree(state.appliedHead, new Map(Object.entries(state.tree)));
  // What records and Inbox items name the remote by: never with a password or token.
  const shown = shownRemote(remote);
  let held = { ...state.held };
  let appliedHead = state.appliedHead;
  let known = state.known;
  let clean = false;
  let remoteMerged = state.remoteMerged;
  let carried = state.folders ?? ['global'];
  const save = () => {
    const tree = appliedHead ? repo.keptTree(appliedHead) : undefined;
    writeSyncState(home, {
      appliedHead,
      held,
      known,
      clean,
      folders: carried,
      tree: tree ? Object.fromEntries(tree) : null,
      remoteMerged,
      lastRun: record,
      lastSyncedAt: record.outcome === 'synced' ? record.at : state.lastSyncedAt,
    });
  };
  try {
    await repo.open(remote, state.clean);
    // Files held in the Inbox stay held while their item waits; once decided, memory says what the person chose.
    held = Object.fromEntries(Object.entries(held).filter(([, id]) => services.inbox.get(id)?.status === 'pending'));
    // A sync killed after its merge: take in what it had not yet (memory still holds the older side).
    const head = await repo.head();
    if (head && appliedHead && head !== appliedHead) {
      const missed = changesBetween(await repo.treeOf(appliedHead, PREFIX), await repo.treeOf(head, PREFIX));
      await takeIn(services, repo, scopes, missed, appliedHead, head, shown, held, record);
    }
    // A scope carried for the first time (a workspace just turned on) starts from what the
    // repository holds of it, as if memory had none: its files come in, and a file that differs
    // here waits in the Inbox, rather than this machine's side overwriting (or deleting) the others'.
    const fresh = folders.filter((f) => !carried.includes(f));
    if (head && fresh.length > 0) {
      await takeIn(services, repo, scopes, changesBetween(new Map(), await repo.treeOf(head, fresh)), null, head, shown, held, record);
    }
    carried = folders;
    appliedHead = await repo.head();
    save();

    const { changes: sent, known: nowKnown } = await sendOut(repo, scopes, held, known);
    known = nowKnown;
    if (sent.length > 0) {
      await repo.commitAll(folders, commitMessage(sent));
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
      // Nothing new there (the remote's branch is already in HEAD): no merge to make. HEAD only
      // moves on from a commit it holds, so a remote head found merged before still is.
      if (remoteHead && remoteHead !== remoteMerged && !(await repo.contains(remoteHead))) {
        const before = await repo.head();
        const merged = await repo.merge(`Cairn: merge from ${shown}`);
        const conflicts = before ? await settleDeleteConflicts(repo, before, remoteHead, merged.conflicts) : merged.conflicts;
        const after = (await repo.head())!;
        for (const c of conflicts) await holdConflict(services, scopes, c, after, shown, record);
        const incoming = changesBetween(await repo.treeOf(before, PREFIX), await repo.treeOf(after, PREFIX)).filter((c) => !conflicts.some((k) => k.path === c.path));
        await takeIn(services, repo, scopes, incoming, before, after, shown, held, record);
        appliedHead = after;
        save();
      }
      remoteMerged = remoteHead;
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
    appliedHead = await repo.head();
    if (appliedHead) await repo.treeOf(appliedHead, PREFIX); // kept in the state for the next sync
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
  scopes: readonly SyncedScope[],
  held: Readonly<Record<string, string>>,
  known: Readonly<Record<string, readonly [string, string]>>,
): Promise<{ changes: TreeChange[]; known: Record<string, [string, string]> }> {
  const committed = await repo.treeOf(await repo.head(), scopes.map((s) => s.folder));
  const mine = new Map<string, string>();
  const nowKnown: Record<string, [string, string]> = {};
  const changes: TreeChange[] = [];
  for (const scope of scopes) {
    const listed = (await scope.runtime.list(scope.root, [], { depth: 64, limit: 100_000, filesOnly: true })) ?? [];
    for (const entry of listed) {
    const file = [scope.folder, ...entry.rel].join('/');
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
  const what = changes.every((c) => c.path.startsWith('global/')) ? 'the global memory' : changes.every((c) => c.path.startsWith('workspace/')) ? 'workspace memory' : 'memory';
  return [`Cairn: ${changes.length} change${changes.length === 1 ? '' : 's'} of ${what}`, '', ...lines, ...more].join('\n');
}

/** Why incoming text may not be written as it is (a scanner's finding), or null. */
function flagOf(scope: SyncedScope, file: string, text: string | null): string | null {
  if (text === null) return null;
  const named = scanPath(relOf(scope, file));
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
  scopes: readonly SyncedScope[],
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
  // One batch per scope: each is written through its own session.
  const batches = new Map<SyncedScope, Array<{ key: string; files: Array<{ path: string; expectedSha256: string | null; content: string | null }> }>>();
  const texts = new Map<string, string | null>();
  for (const change of changes) {
    const scope = scopeOf(scopes, change.path);
    if (!scope) continue; // a folder this machine does not sync (a workspace synced elsewhere alone)
    const incoming = change.status === 'deleted' ? null : at(toTree, change.path);
    const previous = at(baseTree, change.path);
    const text = incoming === null ? null : textOf(incoming);
    const p = memoryPath(change.path);
    if (incoming !== null && (text === null || incoming.length > MAX_FILE_BYTES)) {
      record.error = `${p} from the remote is not a memory file (not UTF-8 text, or over ${MAX_FILE_BYTES / 1024} KiB); it was not taken in.`;
      continue;
    }
    texts.set(change.path, text);
    const flag = flagOf(scope, change.path, text);
    if (flag !== null || scope.underReview()) {
      await holdIncoming(services, scope, change.path, text, to, remote, held, record, flag);
      continue;
    }
    if (!batches.has(scope)) batches.set(scope, []);
    batches.get(scope)!.push({ key: change.path, files: [{ path: p, expectedSha256: previous ? sha256(previous) : null, content: text }] });
  }
  for (const [scope, groups] of batches) {
    const outcome = await services.service.writeBatch(groups, `sync:${to.slice(0, 12)}`, scope.session, 'sync');
    for (const key of outcome.applied) record.received.push(memoryPath(key));
    // Changed here since it went out (an agent's write meanwhile): the remote's side waits for the person.
    for (const conflict of outcome.conflicts) await holdIncoming(services, scope, conflict.key, texts.get(conflict.key) ?? null, to, remote, held, record, null);
  }
}

async function currentText(scope: SyncedScope, file: string): Promise<string | null> {
  try {
    return textOf((await scope.runtime.readFile(scope.root, relOf(scope, file), MAX_FILE_BYTES)).data);
  } catch {
    return null; // no file here (or none memory reads)
  }
}

/**
 * Puts the remote's version of `file` (null: deleted there) in the Inbox as a change from elsewhere,
 * against what memory holds now; returns the item's id, or null when memory already holds it.
 */
async function proposeIncoming(services: SyncServices, scope: SyncedScope, file: string, text: string | null, from: SyncOrigin): Promise<string | null> {
  const before = await currentText(scope, file);
  if (before === text) return null;
  const item = services.inbox.addChange(
    {
      command: text === null ? 'delete' : 'create',
      scope: scope.scope,
      path: memoryPath(file),
      newPath: null,
      before,
      beforeSha256: before === null ? null : sha256(new TextEncoder().encode(before)),
      after: text,
    },
    {
      workspaceId: scope.scope === 'workspace' ? scope.session.workspaceId : null,
      projectId: scope.scope === 'workspace' ? scope.session.projectId : null,
      owner: reviewKey(scope.scope, scope.session) ?? scope.scope,
      cwd: null,
      from,
    },
  );
  return item.id;
}

/** Holds the remote's version of `file` in the Inbox (flagged, under review, or changed here meanwhile): memory keeps its own until the person decides. */
async function holdIncoming(
  services: SyncServices,
  scope: SyncedScope,
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

/**
 * The merge's conflicts where one side deleted the file and the other edited it, settled as a
 * person expects rather than asked about: when the deleting side made a file with the base's very
 * bytes (a rename: the repository's merge does not look for renames), that file takes the edit and
 * the old name goes; otherwise the edit wins and the file stays (the delete is kept in the
 * history). Settled in the repository as one commit after the merge, so what goes out and what is
 * taken in both hold it. Returns the conflicts left for a person: both sides edited the file.
 */
async function settleDeleteConflicts(repo: SyncRepo, ours: string, theirs: string, conflicts: ReadonlyArray<{ path: string; theirs: Uint8Array | null }>): Promise<Array<{ path: string; theirs: Uint8Array | null }>> {
  if (conflicts.length === 0) return [];
  const baseCommit = (await gitRaw(repo.dir, ['merge-base', ours, theirs])).stdout.trim() || null;
  const [baseTree, oursTree, theirsTree] = await Promise.all([repo.treeOf(baseCommit, PREFIX), repo.treeOf(ours, PREFIX), repo.treeOf(theirs, PREFIX)]);
  /** The file `side` made with `file`'s base bytes where the other side has none: its new name. */
  const renamedTo = (file: string, side: ReadonlyMap<string, string>, other: ReadonlyMap<string, string>) => {
    const id = baseTree.get(file);
    return id === undefined ? undefined : [...side].find(([p, sideId]) => sideId === id && !baseTree.has(p) && !other.has(p))?.[0];
  };
  const editedHere = conflicts.filter((c) => c.theirs === null && oursTree.has(c.path)).map((c) => c.path);
  const edited = await repo.blobs(editedHere.map((file) => oursTree.get(file)!));
  const left: Array<{ path: string; theirs: Uint8Array | null }> = [];
  const notes: string[] = [];
  for (const c of conflicts) {
    let edit: Uint8Array;
    let to: string | undefined;
    if (c.theirs === null && oursTree.has(c.path)) {
      // Edited here, deleted there: the merge kept this machine's file.
      edit = edited.get(oursTree.get(c.path)!)!;
      to = renamedTo(c.path, theirsTree, oursTree);
      if (to !== undefined) repo.writeWorkFile(c.path, null);
    } else if (c.theirs !== null && !oursTree.has(c.path)) {
      // Deleted here, edited there: the merge kept no file.
      edit = c.theirs;
      to = renamedTo(c.path, oursTree, theirsTree);
    } else {
      left.push(c); // both sides edited it: a person chooses
      continue;
    }
    repo.writeWorkFile(to ?? c.path, edit);
    notes.push(to === undefined ? `kept the edit of ${memoryPath(c.path)} over its delete` : `carried the edit of ${memoryPath(c.path)} to its new name ${memoryPath(to)}`);
  }
  if (notes.length > 0) await repo.commitAll(PREFIX, ['Cairn: edits kept against deletes and renames', '', ...notes].join('\n'));
  return left;
}

/** A conflict: this machine's side stays in memory and in the merge; the remote's waits in the Inbox. */
async function holdConflict(
  services: SyncServices,
  scopes: readonly SyncedScope[],
  conflict: { path: string; theirs: Uint8Array | null },
  commit: string,
  remote: string,
  record: SyncRun,
): Promise<void> {
  const scope = scopeOf(scopes, conflict.path);
  if (!scope) return; // a folder this machine does not sync: the merge's side is as good as any
  const text = conflict.theirs === null ? null : textOf(conflict.theirs);
  // Not marked held: the merge kept this machine's side, so memory and the repository agree on it.
  const id = await proposeIncoming(services, scope, conflict.path, text, { kind: 'sync', remote, commit, flag: null, conflict: true });
  if (id !== null) record.conflicts.push(memoryPath(conflict.path));
}
