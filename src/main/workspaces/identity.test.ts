/**
 * Project ids of checkouts without an origin: their root commit comes from git once per HEAD
 * commit, then from the home's cache, and a HEAD with other roots gets its own id.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectIdFor, projectIdFromFacts } from './identity';

let dir: string;
let repo: string;
let cache: string;
const savedPath = process.env.PATH;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' }).trim();
}

/** Runs `fn` with no git on the PATH: whatever needs git then fails. */
async function withoutGit<T>(fn: () => Promise<T>): Promise<T> {
  const empty = path.join(dir, 'no-git-here');
  await fs.mkdir(empty, { recursive: true });
  process.env.PATH = empty;
  try {
    return await fn();
  } finally {
    process.env.PATH = savedPath;
  }
}

beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-identity-')));
  repo = path.join(dir, 'repo');
  cache = path.join(dir, 'home', 'cache', 'root-commits');
  await fs.mkdir(repo);
  git('init', '-q', '--initial-branch=main');
  git('commit', '-q', '--allow-empty', '-m', 'first');
});

afterEach(async () => {
  process.env.PATH = savedPath;
  await fs.rm(dir, { recursive: true, force: true });
});

describe('projectIdFor, a repository without an origin', () => {
  it('is its root commit, which git is asked for only once per HEAD commit', async () => {
    const root = git('rev-list', '--max-parents=0', 'HEAD');
    const id = await projectIdFor(repo, cache);
    expect(id).toBe(projectIdFromFacts(null, root, repo));
    // Kept: the same id with no git to ask, also once the refs are packed.
    expect(await withoutGit(() => projectIdFor(repo, cache))).toBe(id);
    git('pack-refs', '--all');
    expect(await withoutGit(() => projectIdFor(repo, cache))).toBe(id);
    // Without the cache folder, git is asked: without git the id falls back to the path.
    expect(await withoutGit(() => projectIdFor(repo))).not.toBe(id);
  });

  it('follows HEAD to a commit with other roots (an orphan branch)', async () => {
    const first = await projectIdFor(repo, cache);
    git('checkout', '-q', '--orphan', 'other');
    git('commit', '-q', '--allow-empty', '-m', 'another root');
    const other = await projectIdFor(repo, cache);
    expect(other).toBe(projectIdFromFacts(null, git('rev-list', '--max-parents=0', 'HEAD'), repo));
    expect(other).not.toBe(first);
    git('checkout', '-q', 'main');
    expect(await withoutGit(() => projectIdFor(repo, cache))).toBe(first);
  });

  it('keeps nothing when HEAD cannot be read from the files (no commit yet)', async () => {
    const empty = path.join(dir, 'empty');
    await fs.mkdir(empty);
    execFileSync('git', ['init', '-q'], { cwd: empty });
    expect(await projectIdFor(empty, cache)).toBe(projectIdFromFacts(null, null, empty));
    await expect(fs.readdir(cache)).rejects.toThrow();
  });
});
