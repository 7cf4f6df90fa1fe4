/**
 * Identities of checkouts, projects and workspaces on the local disk (the home's own place and
 * the form of a workspace id: ./home-dir.ts).
 * - A project's id comes from its repository (origin URL, else root commit), never from a checkout
 *   path, so clones and worktrees of one repository share it.
 * - A workspace's id is derived stably from its checkout's real path.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

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
async function commonGitDir(gitRoot: string): Promise<string | null> {
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
export function normalizeRemoteUrl(url: string): string {
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

async function rootCommit(gitRoot: string): Promise<string | null> {
  try {
    const { stdout } = await run('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: gitRoot, timeout: 5000 });
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

/** The project id of the repository at `gitRoot`. */
export async function projectIdFor(gitRoot: string): Promise<string> {
  const origin = await originUrl(gitRoot);
  if (origin) return projectIdFromFacts(origin, null, gitRoot);
  const root = await rootCommit(gitRoot);
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
