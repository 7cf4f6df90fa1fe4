/**
 * Project memory that arrived by git (a teammate's pull, a hostile contributor's commit) is a
 * change from elsewhere, held in the Inbox like a sync's incoming file when the scanners flag it
 * or the project scope is in review mode: listed with the commit it came with and its author, and
 * kept from agents (held-outside-edits.ts: the context leaves a held file out) until a person
 * approves it. Approving lets the text as git wrote it reach agents (flagged text stays withheld
 * from what is injected, as any flagged file); rejecting writes the previous text back as the
 * person (inbox-review.ts).
 *
 * An outside edit of the project scope came with a commit when git says so: the file (or its
 * absence) is what HEAD holds, with nothing staged or changed in the work tree for it, and either
 * the history knew other text there before, or the commit that last changed it came with HEAD's
 * last move (it is not in HEAD@{1}: the pull, merge or checkout just made). A person's own edit in
 * an editor is uncommitted, so it is never held here. Found two ways: by a host's watcher as the
 * pull writes (consider, after OutsideEdits recorded the version), and by catchUp, which records
 * the project files HEAD's last move changed while no Cairn process watched (the CLI's inbox
 * listing). Either way a file is considered only when its outside edit is newly recorded, so an
 * item decided is never proposed again for the same text.
 *
 * Invariants: never throws (a check that fails holds nothing and says why on stderr); one pending
 * item per pulled file (a later pull of the same file replaces the earlier item, keeping the text
 * from before the first); only a local checkout is asked (git runs where the files are).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_FILE_BYTES, type Scope } from '../../common/memory/constants';
import { outsideEditEvent } from '../../common/memory/events';
import { scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import type { HistoryStore } from '../history/history-store';
import { OutsideEdits } from '../memory/outside-edits';
import { scanContent, scanPath } from '../memory/scanners/content-scanner';
import type { AvailableScope, MemorySession } from '../memory/session';
import { RuntimeError } from '../runtime/runtime';
import type { ChangeItem, InboxStore, PullOrigin } from './inbox-store';

export interface PulledMemoryOptions {
  readonly inbox: InboxStore;
  readonly history: HistoryStore;
  /** Whether `scope` is in review mode as `session` sees it (read each time). */
  readonly underReview: (scope: Scope, session: MemorySession) => boolean;
  /**
   * How long a check waits for git to finish what it is doing (an index lock, or the new text
   * staged but HEAD not yet moved: a pull writes the files before it moves HEAD). Default 5 s.
   */
  readonly settleMs?: number;
}

/** How long one git command may take here (a status of a large checkout included). */
const GIT_TIMEOUT_MS = 30_000;
/** How often a check looks again while git is busy with the checkout. */
const SETTLE_POLL_MS = 100;

/** Variables that would make git look at another repository than the checkout's own. */
const GIT_LOCATION_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_NAMESPACE', 'GIT_INDEX_FILE', 'GIT_CEILING_DIRECTORIES'];

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

interface GitAnswer {
  readonly status: number;
  readonly stdout: string;
}

function git(cwd: string, args: readonly string[]): Promise<GitAnswer> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
  for (const name of GIT_LOCATION_ENV) delete env[name];
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'core.quotePath=false', ...args], { cwd, env, timeout: GIT_TIMEOUT_MS, maxBuffer: 4 * MAX_FILE_BYTES }, (err, stdout) => {
      if (err && typeof (err as { code?: unknown }).code !== 'number') reject(err);
      else resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout) });
    });
  });
}

/** What git says of one file of the checkout: the commit that last changed it, when that commit brought what is on disk. */
interface Committed {
  readonly commit: string;
  readonly author: string;
  /** The commit HEAD pointed at before its last move, when the reflog says. */
  readonly previousHead: string | null;
  /** Whether the commit came with HEAD's last move (it is not in previousHead). */
  readonly cameWithLastMove: boolean;
}

export class PulledMemory {
  private readonly settleMs: number;

  constructor(private readonly options: PulledMemoryOptions) {
    this.settleMs = options.settleMs ?? 5000;
  }

  /**
   * An outside edit of `memoryPath` in `session`'s project memory, just recorded: held in the Inbox
   * when a commit brought it and the scanners flag it or the scope is under review. `since`: the
   * commit HEAD named before the moves being caught up (else HEAD's previous position). Resolves to
   * the item's id, or null when nothing is held.
   */
  async consider(memoryPath: string, session: MemorySession, since?: string | null): Promise<string | null> {
    try {
      return await this.considerOrThrow(memoryPath, session, since);
    } catch (err) {
      process.stderr.write(`cairn: whether ${memoryPath} came with a pull could not be told (${err instanceof Error ? (err as NodeJS.ErrnoException).code ?? err.name : 'error'}); it is not held in the Inbox.\n`);
      return null;
    }
  }

  /**
   * The pull no Cairn process watched: the project memory files HEAD's last move changed (git diff
   * HEAD@{1} HEAD), or every move since `since` (a commit HEAD named when Cairn last looked), are
   * recorded as outside edits where the history did not hold them yet, and each one recorded is
   * considered. Resolves to the ids of the items held.
   */
  async catchUp(session: MemorySession, since?: string | null): Promise<string[]> {
    const b = localProject(session);
    if (!b) return [];
    const checkout = b.root.anchor;
    const rootRel = path.relative(checkout, b.root.path).split(path.sep).join('/');
    if (rootRel === '' || rootRel.startsWith('..')) return [];
    let changed: GitAnswer;
    try {
      const diff = (from: string) => git(checkout, ['diff', '--name-only', '-z', '--no-renames', from, 'HEAD', '--', rootRel]);
      changed = since ? await diff(since) : { status: 1, stdout: '' };
      // A commit no longer there (history rewritten and pruned): HEAD's last move, as without one.
      if (changed.status !== 0) changed = await diff('HEAD@{1}');
    } catch {
      return []; // no git to ask
    }
    if (changed.status !== 0) return []; // no earlier HEAD (a fresh clone), or no repository
    const outside = new OutsideEdits(this.options.history);
    const held: string[] = [];
    for (const name of changed.stdout.split('\0')) {
      if (!name.startsWith(`${rootRel}/`)) continue;
      const segments = name.slice(rootRel.length + 1).split('/');
      const event = outsideEditEvent('project', segments, 'update', null, session);
      if ((await outside.record(event, session)) === undefined) continue; // known as it is: seen, or decided
      const id = await this.consider(event.path, session, since);
      if (id !== null) held.push(id);
    }
    return held;
  }

  private async considerOrThrow(memoryPath: string, session: MemorySession, since?: string | null): Promise<string | null> {
    const b = localProject(session);
    const owner = scopeOwner('project', session);
    const prefix = `${formatMemoryPath('project')}/`;
    if (!b || owner === null || !memoryPath.startsWith(prefix)) return null;
    const segments = memoryPath.slice(prefix.length).split('/');
    const now = await currentText(b, segments);
    if (now === undefined) return null; // no memory file Cairn reads (not UTF-8, too large)
    const checkout = b.root.anchor;
    const rel = path.relative(checkout, path.join(b.root.path, ...segments)).split(path.sep).join('/');
    if (rel.startsWith('..')) return null;
    const known = this.knownBefore(owner, memoryPath, now);
    const committed = await this.committed(checkout, rel, now === null, since);
    if (committed === null) return null;
    if (!(committed.cameWithLastMove || (known !== undefined && known !== now))) return null;
    const flag = flagOf(segments, now);
    if (flag === null && !this.options.underReview('project', session)) return null;

    const waiting = this.options.inbox
      .list('pending')
      .filter((i): i is ChangeItem => i.kind === 'change' && i.source.from?.kind === 'pull' && i.source.owner === owner && i.change.path === memoryPath);
    const same = waiting.find((i) => i.change.after === now);
    if (same) return same.id;
    // The text before the first pull still waiting, else what the history knew, else git's.
    const before = waiting.length > 0 ? waiting[waiting.length - 1]!.change.before : known !== undefined ? known : await textAt(checkout, committed.previousHead ?? `${committed.commit}^`, rel);
    if (before === now) return null;
    const from: PullOrigin = { kind: 'pull', commit: committed.commit, author: committed.author, flag };
    const item = this.options.inbox.addChange(
      {
        command: now === null ? 'delete' : before === null ? 'create' : 'str_replace',
        scope: 'project',
        path: memoryPath,
        newPath: null,
        before,
        // What an approval or a rejection expects on disk: the text as git wrote it.
        beforeSha256: now === null ? null : sha256(now),
        after: now,
      },
      { workspaceId: session.workspaceId, projectId: session.projectId, owner, cwd: checkout, from },
    );
    // The earlier pull's item gives way to this one (its hold goes once this one holds the file).
    for (const older of waiting) this.options.inbox.decide(older.id, { status: 'rejected' });
    return item.id;
  }

  /**
   * The text the history knew at `memoryPath` before the outside edit that left `now` there: the
   * last version's `before` when that version is the edit (recorded just now), else its `after`;
   * null for no file; undefined when the history does not know.
   */
  private knownBefore(owner: string, memoryPath: string, now: string | null): string | null | undefined {
    const [latest] = this.options.history.list({ owner, path: memoryPath, limit: 1 });
    if (!latest) return undefined;
    const textOf = (sha: string | null | 'unknown'): string | null | undefined => {
      if (sha === null) return null;
      if (sha === 'unknown') return undefined;
      const data = this.options.history.readBlob(sha);
      if (data === null) return undefined;
      try {
        return utf8.decode(data);
      } catch {
        return undefined;
      }
    };
    if (latest.path !== memoryPath) return null; // renamed away: no file was known there
    const after = textOf(latest.after);
    return latest.actor === 'external' && after === now ? textOf(latest.before) : after;
  }

  /**
   * The commit that brought what is on disk at `rel` (its absence, when `deleted`), when git says the
   * work tree and the index hold HEAD's version of it; else null. Waits while git is still busy
   * with the checkout (its index lock, or the file staged while HEAD has not moved yet).
   */
  private async committed(checkout: string, rel: string, deleted: boolean, since?: string | null): Promise<Committed | null> {
    const until = Date.now() + this.settleMs;
    for (;;) {
      const busy = fs.existsSync(path.join(checkout, '.git', 'index.lock'));
      const status = busy ? null : await git(checkout, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', rel]);
      if (status !== null && status.status !== 0) return null; // no repository git can read here
      if (status !== null && status.stdout === '') break;
      // Staged only (index differs from HEAD, work tree from neither): a pull between its index and its HEAD.
      const stagedOnly = status !== null && /^[MADR] $/.test(status.stdout.slice(0, 2));
      if ((!busy && !stagedOnly) || Date.now() >= until) return null;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    }
    const tracked = await git(checkout, ['ls-files', '-z', '--', rel]);
    if ((tracked.stdout !== '') === deleted) return null; // not committed (ignored, or never added)
    const log = await git(checkout, ['log', '-1', '--format=%H%x00%an <%ae>', '--', rel]);
    const [commit, author] = log.stdout.trim().split('\0');
    if (log.status !== 0 || !commit || author === undefined) return null;
    // What HEAD named before: the commit a catch-up started from, else HEAD's previous position.
    const previous = await git(checkout, ['rev-parse', '-q', '--verify', `${since ?? 'HEAD@{1}'}^{commit}`]);
    const previousHead = previous.status === 0 ? previous.stdout.trim() : null;
    const cameWithLastMove = previousHead !== null && (await git(checkout, ['merge-base', '--is-ancestor', commit, previousHead])).status === 1;
    return { commit, author, previousHead, cameWithLastMove };
  }
}

/** The session's project scope when it is a local checkout's. */
function localProject(session: MemorySession): AvailableScope | null {
  const b = session.scopes.project;
  return b.available && b.runtime.label === 'local' ? b : null;
}

/** The file's text now: null when there is none, undefined when it is no memory file (not UTF-8, too large, not a file). */
async function currentText(b: AvailableScope, segments: readonly string[]): Promise<string | null | undefined> {
  try {
    return utf8.decode((await b.runtime.readFile(b.root, segments, MAX_FILE_BYTES)).data);
  } catch (err) {
    return err instanceof RuntimeError && err.code === 'ENOENT' ? null : undefined;
  }
}

/** The text of `rel` at `commit`, or null when it held no such file. */
async function textAt(checkout: string, commit: string, rel: string): Promise<string | null> {
  const shown = await git(checkout, ['show', `${commit}:${rel}`]);
  return shown.status === 0 ? shown.stdout : null;
}

/** Why pulled text may not reach agents as it is (a scanner's finding, as a sync says it), or null. */
function flagOf(segments: readonly string[], text: string | null): string | null {
  if (text === null) return null;
  const named = scanPath(segments);
  if (named.length > 0) return named[0]!.message;
  const found = scanContent(text);
  return found.length > 0 ? found[0]!.message : null;
}
