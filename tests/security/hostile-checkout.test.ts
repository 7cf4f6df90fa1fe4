// A cloned repository that commits links where Cairn keeps project memory: on a real `git clone`
// of a repository that commits them, the project scope is unavailable with a reason a person can
// act on, nothing in the checkout or its .git is read or written through memory, and a committed
// lock that is not Cairn's is reported at once instead of blocking writes. Run on the local disk
// and over a real sshd on loopback, where the remote helper makes the same checks.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localRuntime } from '../../src/main/host/memory-home';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { MemoryService, type MemorySession } from '../../src/main/memory/memory-service';
import { resolveLocalSession } from '../../src/main/workspaces/session';
import { RUNTIME_KINDS, suiteRuntime } from '../support/ssh';


function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe.each(RUNTIME_KINDS)('a hostile checkout over the %s runtime', (kind) => {
  const suite = suiteRuntime(kind);
  let dir: string;

  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-hostile-')));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /**
   * A repository whose commit holds what `plant` makes, cloned with git: the clone is what a
   * user gets. Returns the clone's path and a session for an agent working in it.
   */
  async function clone(
    plant: (repo: string) => Promise<void>,
  ): Promise<{ checkout: string; session: MemorySession; run: (input: unknown) => Promise<{ ok: boolean; output: string }> }> {
    const repo = path.join(dir, 'upstream');
    await fs.mkdir(repo);
    git(repo, 'init', '-q');
    await fs.writeFile(path.join(repo, 'README.md'), 'widgets\n');
    await plant(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'hostile');
    git(dir, 'clone', '-q', repo, 'checkout');
    const checkout = path.join(dir, 'checkout');
    const local = await resolveLocalSession({ home: path.join(dir, 'home'), cwd: checkout }, localRuntime());
    const runtime = suite();
    const session: MemorySession = runtime
      ? { ...local, scopes: { ...local.scopes, project: local.scopes.project.available ? { ...local.scopes.project, runtime } : local.scopes.project } }
      : local;
    const service = new MemoryService();
    return {
      checkout,
      session,
      run: async (input) => {
        const result = await service.execute(input, session, { mode: 'exec', actor: 'agent' });
        // No host path reaches a model.
        expect(result.output).not.toContain(dir);
        return result;
      },
    };
  }

  const writes = [
    { command: 'create', path: '/memories/project/hooks/post-checkout', file_text: '#!/bin/sh\ntouch pwned\n' },
    { command: 'str_replace', path: '/memories/project/config', old_str: '[core]', new_str: '[core]\n\tfsmonitor = "touch pwned; false"' },
    { command: 'insert', path: '/memories/project/config', insert_line: 0, insert_text: '[core]\n\tfsmonitor = "touch pwned; false"' },
    { command: 'delete', path: '/memories/project/config' },
    { command: 'rename', old_path: '/memories/project/config', new_path: '/memories/project/config.old' },
  ];

  it('a committed .cairn/memory -> ../.git makes the project scope unavailable, and .git is never read or written', async () => {
    const { checkout, session, run } = await clone(async (repo) => {
      await fs.mkdir(path.join(repo, '.cairn'));
      await fs.symlink('../.git', path.join(repo, '.cairn', 'memory'));
    });
    expect((await fs.lstat(path.join(checkout, '.cairn', 'memory'))).isSymbolicLink()).toBe(true);
    const configBefore = await fs.readFile(path.join(checkout, '.git', 'config'), 'utf8');
    const hooksBefore = (await fs.readdir(path.join(checkout, '.git', 'hooks'))).sort();
    for (const input of [{ command: 'view', path: '/memories/project' }, { command: 'view', path: '/memories/project/config' }, ...writes]) {
      const result = await run(input);
      expect(result.ok).toBe(false);
      expect(result.output).toBe(
        'Error: /memories/project is unavailable: its directory `.cairn/memory` is a symbolic link. Cairn keeps memory only in real directories, because a link (a repository can commit one) could lead memory out of its place, into .git or anywhere else. Replace `.cairn/memory` with a real directory to use this scope.',
      );
    }
    expect(await fs.readFile(path.join(checkout, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect((await fs.readdir(path.join(checkout, '.git', 'hooks'))).sort()).toEqual(hooksBefore);
    // git runs nothing planted through memory.
    git(checkout, 'status', '--short');
    await expect(fs.stat(path.join(checkout, 'pwned'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Other scopes still work, and the view of every scope and the index say why this one is out.
    expect((await run({ command: 'create', path: '/memories/workspace/ok.md', file_text: 'fine' })).ok).toBe(true);
    const all = await run({ command: 'view', path: '/memories' });
    expect(all.ok).toBe(true);
    expect(all.output).toContain('/memories/workspace/ok.md');
    expect(all.output).toContain('-\t/memories/project/ (unavailable: its directory `.cairn/memory` is a symbolic link.');
    const snapshot = await new ContextBuilder().snapshot(session);
    expect(snapshot.unavailable.map((u) => [u.scope, u.reason.split('.')[0]])).toEqual([['project', 'its directory `']]);
  });

  it.each([
    ['.cairn/memory -> ..', '.cairn/memory', async (repo: string) => {
      await fs.mkdir(path.join(repo, '.cairn'));
      await fs.symlink('..', path.join(repo, '.cairn', 'memory'));
    }],
    ['.cairn -> .git', '.cairn', async (repo: string) => {
      await fs.symlink('.git', path.join(repo, '.cairn'));
    }],
    ['.cairn -> a real directory inside the checkout', '.cairn', async (repo: string) => {
      await fs.mkdir(path.join(repo, 'docs', 'memory'), { recursive: true });
      await fs.writeFile(path.join(repo, 'docs', 'memory', 'note.md'), 'a note\n');
      await fs.symlink('docs', path.join(repo, '.cairn'));
    }],
  ])('a committed %s is refused the same way, and no file of the checkout is touched', async (_name, where, plant) => {
    const { checkout, run } = await clone(plant);
    const readme = path.join(checkout, 'README.md');
    for (const input of [
      { command: 'view', path: '/memories/project' },
      { command: 'view', path: '/memories/project/README.md' },
      { command: 'create', path: '/memories/project/new.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/project/README.md', old_str: 'widgets', new_str: 'owned' },
      { command: 'delete', path: '/memories/project/README.md' },
    ]) {
      const result = await run(input);
      expect(result.ok).toBe(false);
      expect(result.output).toContain(`/memories/project is unavailable: its directory \`${where}\` is a symbolic link.`);
    }
    expect(await fs.readFile(readme, 'utf8')).toBe('widgets\n');
    expect(git(checkout, 'status', '--porcelain')).toBe('');
  });

  it('a committed .cairn that is a file makes the project unavailable and says to move it', async () => {
    const { run } = await clone(async (repo) => {
      await fs.writeFile(path.join(repo, '.cairn'), 'not a directory\n');
    });
    const result = await run({ command: 'create', path: '/memories/project/x.md', file_text: 'x' });
    expect(result.output).toContain('/memories/project is unavailable: `.cairn`, where its directory belongs, is not a directory.');
  });

  it('a link inside the project memory leading into a .git directory is refused, and listings skip it', async () => {
    const { checkout, run } = await clone(async (repo) => {
      await fs.mkdir(path.join(repo, '.cairn', 'memory'), { recursive: true });
      await fs.writeFile(path.join(repo, '.cairn', 'memory', 'note.md'), 'a note\n');
      await fs.symlink('../../.git', path.join(repo, '.cairn', 'memory', 'repo'));
    });
    // A .git made inside the memory itself (a nested repository), and a link to it from inside.
    const root = path.join(checkout, '.cairn', 'memory');
    await fs.mkdir(path.join(root, 'nested', '.git'), { recursive: true });
    await fs.writeFile(path.join(root, 'nested', '.git', 'config'), '[core]\n');
    await fs.symlink('nested/.git', path.join(root, 'inner'));
    for (const input of [
      { command: 'view', path: '/memories/project/repo/config' },
      { command: 'view', path: '/memories/project/inner/config' },
      { command: 'view', path: '/memories/project/inner' },
      { command: 'str_replace', path: '/memories/project/inner/config', old_str: '[core]', new_str: '[core]\n\tfsmonitor = x' },
      { command: 'create', path: '/memories/project/inner/hooks/pre-commit', file_text: 'x' },
      { command: 'create', path: '/memories/project/nested/.git/hooks/pre-commit', file_text: 'x' },
      { command: 'rename', old_path: '/memories/project/note.md', new_path: '/memories/project/inner/note.md' },
    ]) {
      const result = await run(input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
    }
    const view = await run({ command: 'view', path: '/memories/project' });
    expect(view.output).toContain('/memories/project/note.md');
    expect(view.output).not.toMatch(/repo|inner|config/);
    expect(await fs.readFile(path.join(root, 'nested', '.git', 'config'), 'utf8')).toBe('[core]\n');
    await expect(fs.stat(path.join(root, 'nested', '.git', 'hooks'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([
    ['a dangling link', async (lock: string) => fs.symlink('nowhere', lock)],
    ['a link to a file', async (lock: string) => fs.symlink('../README.md', lock)],
    ['a directory with a file in it', async (lock: string) => {
      await fs.mkdir(lock);
      await fs.writeFile(path.join(lock, 'keep'), 'x');
    }],
  ])('a committed lock that is %s is reported at once, never waited on, and left as it was', async (_name, plant) => {
    const { checkout, run } = await clone(async (repo) => {
      await fs.mkdir(path.join(repo, '.cairn', 'memory'), { recursive: true });
      await fs.writeFile(path.join(repo, '.cairn', 'memory', 'note.md'), 'a note\n');
      await plant(path.join(repo, '.cairn', 'memory.lock'));
    });
    const lock = path.join(checkout, '.cairn', 'memory.lock');
    const before = await fs.lstat(lock);
    // Reads take no lock.
    expect((await run({ command: 'view', path: '/memories/project/note.md' })).ok).toBe(true);
    for (const input of [
      { command: 'create', path: '/memories/project/x.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/project/note.md', old_str: 'a note', new_str: 'b note' },
    ]) {
      // Without the check, this waited 30 s and then said the scope was busy.
      const result = await run(input);
      expect(result.output).toBe(
        'Error: /memories/project is unavailable: its lock `.cairn/memory.lock` is not a lock Cairn made (a symbolic link, or a directory with files in it), so no write can take it. Remove `.cairn/memory.lock` (it may have been committed to the repository) and try again.',
      );
    }
    const after = await fs.lstat(lock);
    expect([after.ino, after.isSymbolicLink(), after.isDirectory()]).toEqual([before.ino, before.isSymbolicLink(), before.isDirectory()]);
    expect(await fs.readFile(path.join(checkout, '.cairn', 'memory', 'note.md'), 'utf8')).toBe('a note\n');
    // Once it is removed, writes work again.
    await fs.rm(lock, { recursive: true });
    expect((await run({ command: 'create', path: '/memories/project/x.md', file_text: 'x' })).ok).toBe(true);
  });
});
