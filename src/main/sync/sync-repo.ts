/**
 * The sync's git repository: `<home>/sync/repo`, a work tree Cairn alone writes, outside every
 * memory root (a root inside a git work tree is refused by containment, and the person's checkouts
 * are never touched). Its files are the synced scopes' memory files under a folder per scope
 * (`global/...`; a workspace's under `workspace/<project id>/...`, so the clones of one repository
 * on every machine share it); its HEAD is what this machine last agreed with the remote, the base of the next
 * three-way merge.
 *
 * Invariant: the repository is Cairn's own, so whatever an interrupted sync left in it (a lock
 * file, a merge in progress, files written but not committed) is thrown away at the start of the
 * next one, under the sync's lease: memory is the truth for this machine's side, and the commits
 * are the truth for what was agreed. Nothing of the person's is in it that memory does not hold.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { originFromConfig } from '../workspaces/identity';
import { git, GitError, gitRaw, gitWords } from './git';

/** The branch every machine syncs through. */
const SYNC_BRANCH = 'main';
const REMOTE_REF = `refs/remotes/origin/${SYNC_BRANCH}`;
const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export function syncDir(home: string): string {
  return path.join(home, 'sync');
}

export function syncRepoDir(home: string): string {
  return path.join(syncDir(home), 'repo');
}

/** A change between two commits: a file added, modified or deleted (renames are a delete and an add). */
export interface TreeChange {
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted';
}

/** The id git gives a blob of these bytes (so a file is compared with a commit's without running git). */
export function blobId(data: Uint8Array): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

/** What changed from tree `from` to tree `to` (both: path -> blob id), in path order. */
export function changesBetween(from: ReadonlyMap<string, string>, to: ReadonlyMap<string, string>): TreeChange[] {
  const changes: TreeChange[] = [];
  for (const [file, id] of to) {
    const was = from.get(file);
    if (was === undefined) changes.push({ path: file, status: 'added' });
    else if (was !== id) changes.push({ path: file, status: 'modified' });
  }
  for (const file of from.keys()) if (!to.has(file)) changes.push({ path: file, status: 'deleted' });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export class SyncRepo {
  /** Whole trees by commit (see treeOf). */
  private readonly trees = new Map<string, Map<string, string>>();

  constructor(readonly dir: string) {}

  /**
   * Makes the repository if missing, points `origin` at `remote`, and (unless the last sync ended
   * cleanly: `clean`) clears what an interrupted sync left.
   */
  async open(remote: string, clean = false): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    if (!fs.existsSync(path.join(this.dir, '.git'))) await git(this.dir, ['init', '-q', '-b', SYNC_BRANCH]);
    // Read, not asked of git: two processes fewer on every sync (the file is git's own config format).
    const config = fs.readFileSync(path.join(this.dir, '.git', 'config'), 'utf8');
    // Set last (a sync killed before this sets them again next time).
    if (!/^\s*auto\s*=\s*0\s*$/m.test(/\[gc\]([^[]*)/.exec(config)?.[1] ?? '')) {
      const host = os.hostname() || 'this machine';
      // The repository's own settings: the person's global config (credentials, ssh, url rewrites)
      // still applies; these only keep Cairn's commits alike on every machine.
      for (const [key, value] of [
        ['user.name', `Cairn on ${host}`],
        ['user.email', 'cairn@localhost'],
        ['commit.gpgsign', 'false'],
        ['core.autocrlf', 'false'],
        ['core.quotepath', 'false'],
        ['merge.renames', 'false'],
        ['gc.auto', '0'], // the last one set: its presence says the others are
      ] as const) {
        await git(this.dir, ['config', key, value]);
      }
    }
    const origin = originFromConfig(config);
    if (origin === null) await git(this.dir, ['remote', 'add', 'origin', remote]);
    else if (origin !== remote) await git(this.dir, ['remote', 'set-url', 'origin', remote]);
    if (!clean) await this.clearInterrupted();
  }

  /** Throws away a merge in progress, a stale index lock and uncommitted files (see the header). */
  private async clearInterrupted(): Promise<void> {
    // Only a sync holding the lease gets here, so an index.lock is a dead git's.
    fs.rmSync(path.join(this.dir, '.git', 'index.lock'), { force: true });
    if (fs.existsSync(path.join(this.dir, '.git', 'MERGE_HEAD'))) await git(this.dir, ['merge', '--abort']).catch(() => git(this.dir, ['reset', '-q', '--merge']));
    if (await this.head()) await git(this.dir, ['reset', '-q', '--hard', 'HEAD']);
    await git(this.dir, ['clean', '-q', '-fd']);
  }

  /** The commit HEAD names, or null before the first commit. */
  async head(): Promise<string | null> {
    return this.ref('HEAD');
  }

  /** The remote branch as last fetched, or null when the remote has none yet. */
  async remoteHead(): Promise<string | null> {
    return this.ref(REMOTE_REF);
  }

  /**
   * The commit `name` (HEAD or a full ref) points at, or null when it points nowhere yet. Read from
   * the git directory's files, as git keeps them in a repository only Cairn writes (a loose ref,
   * else packed-refs): a process spawn fewer each time, which is most of what an unchanged sync
   * costs. Anything unexpected there is asked of git.
   */
  private async ref(name: string): Promise<string | null> {
    const gitDir = path.join(this.dir, '.git');
    const read = (file: string): string | null => {
      try {
        return fs.readFileSync(path.join(gitDir, file), 'utf8').trim();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    };
    let ref = name;
    if (name === 'HEAD') {
      const head = read('HEAD');
      const symbolic = head === null ? null : /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
      if (head !== null && COMMIT_ID.test(head)) return head;
      if (!symbolic || symbolic.split('/').includes('..')) return this.refFromGit(name);
      ref = symbolic;
    }
    const loose = read(ref);
    if (loose !== null) return COMMIT_ID.test(loose) ? loose : this.refFromGit(name);
    for (const line of (read('packed-refs') ?? '').split('\n')) {
      const [id, packed] = line.split(' ');
      if (packed === ref && id && COMMIT_ID.test(id)) return id;
    }
    return null;
  }

  private async refFromGit(name: string): Promise<string | null> {
    const r = await gitRaw(this.dir, ['rev-parse', '--verify', '-q', name]);
    return r.status === 0 ? r.stdout.trim() : null;
  }

  /**
   * The files of `commit` under the folders `prefixes`: repository path -> blob id (an empty map for
   * null: no commit yet). A commit's tree never changes, so the whole tree is read once per commit
   * (or given by `rememberTree`) and kept.
   */
  async treeOf(commit: string | null, prefixes: string | readonly string[]): Promise<Map<string, string>> {
    const tree = new Map<string, string>();
    if (commit === null) return tree;
    let whole = this.trees.get(commit);
    if (!whole) {
      whole = new Map<string, string>();
      const out = await git(this.dir, ['ls-tree', '-r', '-z', '--full-tree', commit]);
      for (const line of out.split('\0')) {
        // "<mode> blob <id>\t<path>"
        const tab = line.indexOf('\t');
        if (tab < 0) continue;
        const [, type, id] = line.slice(0, tab).split(' ');
        if (type === 'blob') whole.set(line.slice(tab + 1), id!);
      }
      this.rememberTree(commit, whole);
    }
    const folders = (typeof prefixes === 'string' ? [prefixes] : prefixes).map((p) => `${p}/`);
    for (const [file, id] of whole) if (folders.some((f) => file.startsWith(f))) tree.set(file, id);
    return tree;
  }

  /** Keeps `files` as the whole tree of `commit` (what a sync recorded of it), so it is not read again. */
  rememberTree(commit: string, files: ReadonlyMap<string, string>): void {
    // The last few are all a sync looks at (the base, HEAD, the merge); older ones go.
    if (this.trees.size >= 4) this.trees.delete(this.trees.keys().next().value!);
    this.trees.set(commit, new Map(files));
  }

  /** The whole tree of `commit` as kept, if it is (for the sync's state to record). */
  keptTree(commit: string): ReadonlyMap<string, string> | undefined {
    return this.trees.get(commit);
  }

  /** The bytes of blobs by id, read by one `git cat-file --batch` (one process for any number). */
  blobs(ids: readonly string[]): Promise<Map<string, Uint8Array>> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return Promise.resolve(new Map());
    return new Promise((resolve, reject) => {
      const child = execFile('git', ['cat-file', '--batch'], { cwd: this.dir, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 }, (err, stdout) => {
        if (err) {
          reject(new GitError(gitWords(['cat-file'], String(err.message)), null, ''));
          return;
        }
        // Each answer: "<id> blob <size>\n<bytes>\n" (or "<id> missing\n").
        const found = new Map<string, Uint8Array>();
        let at = 0;
        for (const id of wanted) {
          const eol = stdout.indexOf(10, at);
          const head = stdout.subarray(at, eol).toString('latin1').split(' ');
          at = eol + 1;
          if (head[1] !== 'blob') continue;
          const size = Number(head[2]);
          found.set(id, new Uint8Array(stdout.subarray(at, at + size)));
          at += size + 1;
        }
        resolve(found);
      });
      child.stdin?.end(`${wanted.join('\n')}\n`);
    });
  }

  /** Writes (or, with null, removes) a file of the work tree. */
  writeWorkFile(file: string, data: Uint8Array | null): void {
    const at = path.join(this.dir, ...file.split('/'));
    if (data === null) {
      fs.rmSync(at, { force: true });
      return;
    }
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, data);
  }

  /** Stages everything under the folders `prefixes` and commits it with `message`; returns whether there was anything to commit. */
  async commitAll(prefixes: string | readonly string[], message: string): Promise<boolean> {
    const folders = typeof prefixes === 'string' ? [prefixes] : prefixes;
    // git refuses a folder it finds neither in the work tree nor in the index: name only those that are.
    const committed = await this.treeOf(await this.head(), folders);
    const present = folders.filter((p) => fs.existsSync(path.join(this.dir, p)) || [...committed.keys()].some((f) => f.startsWith(`${p}/`)));
    if (present.length === 0) return false;
    await git(this.dir, ['add', '-A', '--', ...present]);
    const staged = await gitRaw(this.dir, ['diff', '--cached', '--quiet']);
    if (staged.status === 0) return false;
    await git(this.dir, ['commit', '-q', '--no-verify', '-F', '-'], message);
    return true;
  }

  /** Fetches the sync branch from origin; throws a GitError when the remote cannot be reached. */
  async fetch(): Promise<void> {
    // Where the remote's branch is, asked first: when it has not moved (most syncs), that is all,
    // sparing a fetch's own checks and the processes it starts.
    const listed = await gitRaw(this.dir, ['ls-remote', '--heads', 'origin', `refs/heads/${SYNC_BRANCH}`]);
    if (listed.status !== 0) throw new GitError(gitWords(['ls-remote'], listed.stderr), listed.status, listed.stderr);
    const there = listed.stdout.split('\t')[0]!.trim();
    if (there === '' || there === (await this.remoteHead())) return; // no branch there yet, or nothing new
    await git(this.dir, ['fetch', '-q', '--no-tags', '--no-auto-gc', 'origin', `+refs/heads/${SYNC_BRANCH}:${REMOTE_REF}`]).catch(async (err: unknown) => {
      // A remote with no branch yet (a new, empty repository) is not an error: there is nothing to take.
      const heads = await gitRaw(this.dir, ['ls-remote', '--heads', 'origin']);
      if (heads.status === 0 && !heads.stdout.includes(`refs/heads/${SYNC_BRANCH}`)) return;
      throw err;
    });
  }

  /**
   * Merges the fetched remote branch into HEAD, three-way. Files both sides changed differently are
   * the conflicts: each is left as `ours` in the merge (this machine's memory stays as it is) and
   * returned with the remote's bytes (`theirs`, null: deleted there), for a person to choose.
   */
  async merge(message: string): Promise<{ conflicts: Array<{ path: string; theirs: Uint8Array | null }> }> {
    // Nothing of this machine's yet: the remote's branch is the start.
    if (!(await this.head())) {
      await git(this.dir, ['reset', '-q', '--hard', REMOTE_REF]);
      return { conflicts: [] };
    }
    // A fast-forward when only the remote moved (no merge commit to send back and forth).
    const r = await gitRaw(this.dir, ['merge', '-q', '--no-edit', '--allow-unrelated-histories', '-m', message, REMOTE_REF]);
    if (r.status === 0) return { conflicts: [] };
    const unmerged = (await git(this.dir, ['diff', '--name-only', '-z', '--diff-filter=U'])).split('\0').filter(Boolean);
    if (unmerged.length === 0) throw new GitError(`git merge failed: ${r.stderr.trim() || r.stdout.trim()}`, r.status, r.stderr);
    // Per unmerged file, its stages: 2 is this machine's side, 3 the remote's (absent: deleted there).
    const stages = new Map<string, Map<string, string>>();
    for (const line of (await git(this.dir, ['ls-files', '-u', '-z'])).split('\0')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const [, id, stage] = line.slice(0, tab).split(' ');
      const file = line.slice(tab + 1);
      if (!stages.has(file)) stages.set(file, new Map());
      stages.get(file)!.set(stage!, id!);
    }
    const bytes = await this.blobs([...stages.values()].flatMap((s) => [...s.values()]));
    const conflicts: Array<{ path: string; theirs: Uint8Array | null }> = [];
    for (const file of unmerged) {
      const theirsId = stages.get(file)?.get('3');
      const oursId = stages.get(file)?.get('2');
      conflicts.push({ path: file, theirs: theirsId ? (bytes.get(theirsId) ?? null) : null });
      if (oursId === undefined) {
        await git(this.dir, ['rm', '-q', '--cached', '--ignore-unmatch', '--', file]);
        this.writeWorkFile(file, null);
      } else {
        this.writeWorkFile(file, bytes.get(oursId) ?? new Uint8Array());
        await git(this.dir, ['add', '--', file]);
      }
    }
    await git(this.dir, ['commit', '-q', '--no-verify', '-F', '-'], `${message}\n\nKept this machine's side of: ${unmerged.join(', ')} (the other side waits in the Inbox).`);
    return { conflicts };
  }

  /** Pushes HEAD to the remote's sync branch; false when the remote moved on meanwhile (fetch, merge, again). */
  async push(): Promise<boolean> {
    const r = await gitRaw(this.dir, ['push', '-q', '--porcelain', 'origin', `HEAD:refs/heads/${SYNC_BRANCH}`]);
    if (r.status === 0) return true;
    if (/\[rejected\]|non-fast-forward|fetch first/.test(r.stdout + r.stderr)) return false;
    throw new GitError(gitWords(['push'], r.stderr), r.status, r.stderr);
  }

  /** Whether `commit` is HEAD or one of its ancestors (already merged here). */
  async contains(commit: string): Promise<boolean> {
    const head = await this.head();
    if (!head) return false;
    if (head === commit) return true;
    return (await gitRaw(this.dir, ['merge-base', '--is-ancestor', commit, 'HEAD'])).status === 0;
  }

  /** The number of commits HEAD has that the remote branch has not (what waits to go out). */
  async ahead(): Promise<number> {
    const [remote, head] = [await this.remoteHead(), await this.head()];
    if (!head || head === remote) return 0;
    const r = await gitRaw(this.dir, ['rev-list', '--count', remote ? `${REMOTE_REF}..HEAD` : 'HEAD']);
    return r.status === 0 ? Number(r.stdout.trim()) : 0;
  }
}
