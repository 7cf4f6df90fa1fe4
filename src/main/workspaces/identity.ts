/**
 * Identities of checkouts, projects and workspaces on the local disk (the home's own place and
 * the form of a workspace id: ./home-dir.ts).
 * - A project's id comes from its repository (origin URL, else root commit), never from a checkout
 *   path, so clones and worktrees of one repository share it.
 * - A workspace's id is derived stably from its checkout's real path.
 * - A repository without an origin gets its id from its root commit, which only `git rev-list`
 *   tells: the answer is kept in the home (`<home>/cache/root-commits`, one small file per
 *   repository and HEAD commit), since the commits reachable from a commit never change. HEAD is
 *   read from the git directory's files; when it cannot be (an unusual layout, a shallow clone, a
 *   GIT_* variable pointing git elsewhere), git is asked and nothing is kept.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeOwnFile } from '../runtime/local/atomic-write';

/** The home's folder of kept root commits (projectIdFor's `cacheDir`), below the home. */
export const ROOT_COMMITS_CACHE = path.join('cache', 'root-commits');

function shortHash(text: string, length = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** The nearest ancestor of `dir` (itself included) holding `.git`, or null. */
export async function findGitRoot(dir: string): Promise<string | null> {
  let current = path.resolve(dir);
  for (;;) {
    try {
      await fs.lstat(path.join(current, '.git'));
      return current;
    } catch {
      // No .git here (or a folder that cannot be searched, so no checkout Cairn could use): the parent.
      const parent = path.dirname(current);
      if (parent === current) return null;
      current = parent;
    }
  }
}

/** The git directory holding the repository's shared config (worktrees point at it). */
export async function commonGitDir(gitRoot: string): Promise<string | null> {
  const dotGit = path.join(gitRoot, '.git');
  try {
    const st = await fs.stat(dotGit);
    if (st.isDirectory()) return dotGit;
    const pointer = (await fs.readFile(dotGit, 'utf8')).match(/^gitdir:\s*(.+)$/m)?.[1]?.trim();
    if (!pointer) return null;
    const gitDir = path.resolve(gitRoot, pointer);
    const common = (await fs.readFile(path.join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
    return common ? path.resolve(gitDir, common) : gitDir;
  } catch {
    return null; // no .git file to follow: not a linked worktree
  }
}

/** `git@host:org/repo.git`, `https://user@host/org/repo` -> `host/org/repo`. */
function normalizeRemoteUrl(url: string): string {
  let u = url.trim();
  const scp = /^[^/@:]+@([^:/]+):(.+)$/.exec(u);
  if (scp) u = `${scp[1]}/${scp[2]}`;
  else u = u.replace(/^[a-z+]+:\/\//i, '').replace(/^[^@/]+@/, '');
  return u.replace(/\.git\/?$/, '').replace(/\/+$/, '').replace(/^([^/]+)/, (h) => h.toLowerCase().replace(/:\d+$/, ''));
}

async function originUrl(gitRoot: string): Promise<string | null> {
  const dir = await commonGitDir(gitRoot);
  if (!dir) return null;
  return originFromConfig(await fs.readFile(path.join(dir, 'config'), 'utf8').catch(() => ''));
}

/** Variables that make git read another repository than the checkout's own files say. */
const GIT_LOCATION_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_NAMESPACE', 'GIT_INDEX_FILE', 'GIT_CEILING_DIRECTORIES'];

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The git directory of the checkout at `gitRoot` (a linked worktree's own, not the common one). */
export async function ownGitDir(gitRoot: string): Promise<string | null> {
  const dotGit = path.join(gitRoot, '.git');
  const st = await fs.stat(dotGit).catch(() => null);
  if (!st) return null;
  if (st.isDirectory()) return dotGit;
  const pointer = (await fs.readFile(dotGit, 'utf8').catch(() => '')).match(/^gitdir:\s*(.+)$/m)?.[1]?.trim();
  return pointer ? path.resolve(gitRoot, pointer) : null;
}

/** The commit HEAD names, read from the git directory's files (loose ref, else packed-refs), or null. */
export async function headCommit(gitDir: string, commonDir: string): Promise<string | null> {
  const head = (await fs.readFile(path.join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim();
  if (COMMIT_ID.test(head)) return head;
  const ref = /^ref:\s*(refs\/\S+)$/.exec(head)?.[1];
  if (!ref || ref.split('/').includes('..')) return null;
  for (const dir of gitDir === commonDir ? [gitDir] : [gitDir, commonDir]) {
    const loose = (await fs.readFile(path.join(dir, ref), 'utf8').catch(() => '')).trim();
    if (COMMIT_ID.test(loose)) return loose;
    // A symbolic ref inside refs, or anything else: git knows better.
    if (loose !== '') return null;
  }
  const packed = await fs.readFile(path.join(commonDir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [id, name] = line.trim().split(' ');
    if (name === ref && id && COMMIT_ID.test(id)) return id;
  }
  return null;
}

/**
 * Where the root commit of the checkout's HEAD is kept under `cacheDir`, or null when it is not
 * to be kept (git would be asked about another repository, a shallow clone's roots move, HEAD
 * could not be read).
 */
async function rootCommitCacheFile(gitRoot: string, cacheDir: string): Promise<string | null> {
  if (GIT_LOCATION_ENV.some((name) => process.env[name] !== undefined)) return null;
  const [gitDir, commonDir] = await Promise.all([ownGitDir(gitRoot), commonGitDir(gitRoot)]);
  if (!gitDir || !commonDir) return null;
  if (await fs.lstat(path.join(commonDir, 'shallow')).then(() => true, () => false)) return null;
  const head = await headCommit(gitDir, commonDir);
  if (!head) return null;
  const repository = await fs.realpath(commonDir).catch(() => null);
  return repository ? path.join(cacheDir, shortHash(`${repository}\0${head}`, 40)) : null;
}

/**
 * The repository's root commit; with `cacheDir`, kept there by HEAD's commit, so that a
 * checkout without an origin runs git once per HEAD rather than on every call.
 */
async function rootCommit(gitRoot: string, cacheDir?: string): Promise<string | null> {
  const file = cacheDir === undefined ? null : await rootCommitCacheFile(gitRoot, cacheDir).catch(() => null);
  if (file) {
    const kept = (await fs.readFile(file, 'utf8').catch(() => '')).trim();
    if (COMMIT_ID.test(kept)) return kept;
  }
  const root = await rootCommitFromGit(gitRoot);
  if (root && file) {
    try {
      await writeOwnFile(file, `${root}\n`);
    } catch {
      // Only a slower next call.
    }
  }
  return root;
}

async function rootCommitFromGit(gitRoot: string): Promise<string | null> {
  try {
    // Loaded only here: every hook resolves an identity, and nearly every one finds it kept.
    const [{ execFile }, { promisify }] = await Promise.all([import('node:child_process'), import('node:util')]);
    const { stdout } = await promisify(execFile)('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: gitRoot, timeout: 5000 });
    const commits = stdout.split('\n').filter(Boolean).sort();
    return commits[0] ?? null;
  } catch {
    return null; // no commit yet, or no git: the identity comes from the origin or the path
  }
}

/** The origin URL in the text of a git config file, or null. */
export function originFromConfig(config: string): string | null {
  const section = /\[remote "origin"\]([^[]*)/.exec(config)?.[1];
  return section ? (/^\s*url\s*=\s*(.+)$/m.exec(section)?.[1]?.trim() ?? null) : null;
}

/**
 * A project id from a repository's facts: its origin URL, else its root commit, else where it is
 * (`fallback`, a path that also names the host for a remote checkout). Local and remote clones of
 * one repository get the same id from the first two.
 */
export function projectIdFromFacts(origin: string | null, rootCommit: string | null, fallback: string): string {
  if (origin) return `p-${shortHash(`origin:${normalizeRemoteUrl(origin)}`)}`;
  if (rootCommit) return `p-${shortHash(`root:${rootCommit}`)}`;
  return `p-${shortHash(`path:${fallback}`)}`;
}

/**
 * Whether the project id of the checkout at `dir` comes from running git: a repository without an
 * origin (its root commit is asked of git, with the asking process's environment).
 */
export async function projectIdNeedsGit(dir: string): Promise<boolean> {
  const gitRoot = await findGitRoot(dir);
  return gitRoot !== null && (await originUrl(gitRoot)) === null;
}

/**
 * The project id of the repository at `gitRoot` (`cacheDir`: where the root commit of a repository
 * without an origin is kept, the home's `ROOT_COMMITS_CACHE`; without it git is asked every time).
 */
export async function projectIdFor(gitRoot: string, cacheDir?: string): Promise<string> {
  const origin = await originUrl(gitRoot);
  if (origin) return projectIdFromFacts(origin, null, gitRoot);
  const root = await rootCommit(gitRoot, cacheDir);
  if (root) return projectIdFromFacts(null, root, gitRoot);
  const real = await fs.realpath(gitRoot).catch(() => gitRoot);
  return projectIdFromFacts(null, null, real);
}

/** The default id of a remote checkout: its name, made safe, and a hash of host and path. */
export function sshWorkspaceIdFor(hostKey: string, remotePath: string): string {
  const base = remotePath.split('/').filter(Boolean).pop() ?? '';
  const name = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40);
  return `${name || 'ws'}-${shortHash(`ssh:${hostKey}:${remotePath}`, 8)}`;
}

/** The default workspace id of a checkout: its name, made safe, and a hash of its real path. */
export async function workspaceIdFor(checkout: string): Promise<string> {
  const real = await fs.realpath(checkout).catch(() => path.resolve(checkout));
  const name = path.basename(real).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40);
  return `${name || 'ws'}-${shortHash(`local:${real}`, 8)}`;
}
