// `cairn setup` in a checkout whose config files (or their directories) are symlinks committed to
// the repository. A link that leads out of the checkout, or into its .git, is refused
// before anything is written: the message names the link and what to do, its target is not written,
// no backup is put beside it, and the other files of the run are not written either. A link that
// stays inside the checkout is written through, and the report says where the content went.
// Through bin/cairn on a real `git init` checkout with the links committed.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { requireBuiltCli } from '../support/sandbox';

let dir: string;
let project: string;
let outside: string;
let env: NodeJS.ProcessEnv;

const OUTSIDE_TEXT = `${JSON.stringify({ mcpServers: { mine: { command: 'my-server', args: [] } } }, null, 2)}\n`;

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: project, stdio: 'pipe' });
}

/** Commits everything in the checkout, links included, as a repository would ship them. */
function commit(): void {
  git('add', '-A');
  git('commit', '-q', '-m', 'links');
}

/** Every file below `root` with its content (a link as `-> target`), to tell that nothing changed. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(d: string): Promise<void> {
    for (const entry of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      const rel = path.relative(root, p);
      if (entry.isSymbolicLink()) out[rel] = `-> ${await fs.readlink(p)}`;
      else if (entry.isDirectory()) await walk(p);
      else out[rel] = await fs.readFile(p, 'utf8');
    }
  }
  await walk(root);
  return out;
}

beforeAll(async () => {
  await requireBuiltCli();
});
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-link-')));
  project = path.join(dir, 'checkout');
  outside = path.join(dir, 'outside');
  await fs.mkdir(project);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'mcp.json'), OUTSIDE_TEXT);
  await fs.writeFile(path.join(outside, 'settings.json'), '{}\n');
  git('init', '-q');
  await fs.writeFile(path.join(project, 'README.md'), '# widgets\n');
  env = { HOME: path.join(dir, 'userhome'), CODEX_HOME: path.join(dir, 'codex'), CAIRN_HOME: '' };
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const setup = (agent: string) => runCairn(['setup', agent, '--cwd', project], { env, cwd: dir });

describe('a symlink that leads out of the checkout, or into its .git, is refused', () => {
  type Case = [name: string, agent: 'claude' | 'cursor', make: () => Promise<void>, link: string, fragment: string];
  const cases: Case[] = [
    ['.mcp.json to a file outside (absolute)', 'claude', () => fs.symlink(path.join(outside, 'mcp.json'), path.join(project, '.mcp.json')), '.mcp.json', 'leads out of the checkout'],
    ['.mcp.json to a file outside (relative)', 'claude', () => fs.symlink('../outside/mcp.json', path.join(project, '.mcp.json')), '.mcp.json', 'leads out of the checkout'],
    ['.mcp.json dangling, to a file outside that does not exist yet', 'claude', () => fs.symlink('../outside/new.json', path.join(project, '.mcp.json')), '.mcp.json', 'leads out of the checkout'],
    ['.mcp.json out through a detour inside', 'claude', async () => {
      await fs.mkdir(path.join(project, 'config'));
      await fs.writeFile(path.join(project, 'config', 'keep'), '');
      await fs.symlink('config/../../outside/mcp.json', path.join(project, '.mcp.json'));
    }, '.mcp.json', 'leads out of the checkout'],
    ['.mcp.json to a link inside that leads outside', 'claude', async () => {
      await fs.symlink('../outside/mcp.json', path.join(project, 'shared.json'));
      await fs.symlink('shared.json', path.join(project, '.mcp.json'));
    }, '.mcp.json', 'leads out of the checkout'],
    ['.claude, the directory of settings.json, to a directory outside', 'claude', () => fs.symlink(outside, path.join(project, '.claude')), '.claude', 'leads out of the checkout'],
    ['.claude/settings.json to a file outside', 'claude', async () => {
      await fs.mkdir(path.join(project, '.claude'));
      await fs.symlink(path.join(outside, 'settings.json'), path.join(project, '.claude', 'settings.json'));
    }, '.claude/settings.json', 'leads out of the checkout'],
    ['.cursor/mcp.json to a file outside', 'cursor', async () => {
      await fs.mkdir(path.join(project, '.cursor'));
      await fs.symlink('../../outside/mcp.json', path.join(project, '.cursor', 'mcp.json'));
    }, '.cursor/mcp.json', 'leads out of the checkout'],
    ['.cursor to a directory outside', 'cursor', () => fs.symlink(outside, path.join(project, '.cursor')), '.cursor', 'leads out of the checkout'],
    ['.mcp.json into .git', 'claude', () => fs.symlink('.git/hooks/post-checkout', path.join(project, '.mcp.json')), '.mcp.json', "leads into the checkout's .git directory"],
    ['.claude into .git', 'claude', () => fs.symlink('.git', path.join(project, '.claude')), '.claude', "leads into the checkout's .git directory"],
  ];

  it.each(cases)('%s', async (_name, agent, make, link, fragment) => {
    await make();
    commit();
    const before = { checkout: await snapshot(project), outside: await snapshot(outside) };
    const result = await setup(agent);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    // Names the link and where it leads, says why and what to do.
    expect(result.stderr).toContain(`cairn setup: ${path.join(project, link)}`);
    expect(result.stderr).toContain(`is a symbolic link to ${await fs.readlink(path.join(project, link))}, which ${fragment}`);
    expect(result.stderr).toContain('nothing was changed');
    expect(result.stderr).toContain(`Replace ${path.join(project, link)} with a real`);
    expect(result.stderr).toContain(`merge the configuration by hand (\`cairn setup ${agent} --print\` shows it)`);
    // Nothing changed: not the target, no file beside it, not the checkout (the other file of the
    // run included), and git sees the same tree.
    expect(await snapshot(outside)).toEqual(before.outside);
    expect(await snapshot(project)).toEqual(before.checkout);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: project, encoding: 'utf8' })).toBe('');
  });
});

describe('a symlink that stays inside the checkout', () => {
  it('is written through to its target; the link stays, the backup is in the Cairn home (not beside the target), the report says where', async () => {
    await fs.mkdir(path.join(project, 'config'));
    await fs.writeFile(path.join(project, 'config', 'mcp.json'), OUTSIDE_TEXT);
    await fs.symlink('config/mcp.json', path.join(project, '.mcp.json'));
    commit();
    const result = await setup('claude');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`${path.join(project, '.mcp.json')}: added MCP server "cairn"`);
    expect(result.stdout).toContain(`  it is a symbolic link: written to ${path.join(project, 'config', 'mcp.json')}`);
    expect(await fs.readlink(path.join(project, '.mcp.json'))).toBe('config/mcp.json');
    const written = JSON.parse(await fs.readFile(path.join(project, 'config', 'mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(written.mcpServers)).toEqual(['mine', 'cairn']);
    expect(await fs.readdir(path.join(project, 'config'))).toEqual(['mcp.json']);
    const home = path.join(dir, 'userhome', '.cairn', 'backups');
    const backups = (await fs.readdir(home)).filter((n) => n.endsWith('.before-setup'));
    expect(backups).toEqual([expect.stringMatching(new RegExp(`^${path.join(project, '.mcp.json').split(path.sep).join('%').replace(/\./g, '\\.')}\\.`)) as string]);
    expect(await fs.readFile(path.join(home, backups[0]!), 'utf8')).toBe(OUTSIDE_TEXT);
    expect(result.stdout).toContain(`the previous file is kept in ${path.join(home, backups[0]!)}`);
    expect(await snapshot(outside)).toEqual({ 'mcp.json': OUTSIDE_TEXT, 'settings.json': '{}\n' });
  });

  it('a directory link inside (.cursor -> tools/cursor) is written through too', async () => {
    await fs.mkdir(path.join(project, 'tools', 'cursor'), { recursive: true });
    await fs.writeFile(path.join(project, 'tools', 'cursor', 'keep'), '');
    await fs.symlink('tools/cursor', path.join(project, '.cursor'));
    commit();
    const result = await setup('cursor');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`it is a symbolic link: written to ${path.join(project, 'tools', 'cursor', 'mcp.json')}`);
    expect(JSON.parse(await fs.readFile(path.join(project, 'tools', 'cursor', 'mcp.json'), 'utf8'))).toHaveProperty('mcpServers.cairn');
  });
});
