// `cairn setup claude|codex|cursor --remove`: only Cairn's entries go; a file nothing else touched
// since setup is byte-identical to before setup; a file setup created is deleted; a backup is kept
// in the Cairn home; setup's symlink rules hold. HOME and CODEX_HOME point into a temp dir: the real home is never touched.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeCheckout, requireBuiltCli } from '../support/sandbox';

let dir: string;
let project: string;
let codexHome: string;
let env: NodeJS.ProcessEnv;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-remove-')));
  project = await makeCheckout(dir);
  codexHome = path.join(dir, 'codex');
  env = { HOME: path.join(dir, 'userhome'), CODEX_HOME: codexHome, CAIRN_HOME: '' };
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const cairn = (args: string[]) => runCairn(args, { env, cwd: project });
/** What is kept of `file` in the Cairn home (HOME's ~/.cairn/backups), and whether anything was left beside it. */
const backups = async (file: string) => {
  expect((await fs.readdir(path.dirname(file)).catch(() => [] as string[])).filter((n) => n.includes('.bak-'))).toEqual([]);
  const names = await fs.readdir(path.join(env.HOME!, '.cairn', 'backups')).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(`${file.split(path.sep).join('%')}.`) && !n.endsWith('.setup.json')).map((n) => path.join(env.HOME!, '.cairn', 'backups', n));
};
const exists = (file: string) => fs.access(file).then(() => true, () => false);

async function setupThenRemove(agent: string, extra: string[] = []): Promise<string> {
  const setup = await cairn(['setup', agent, ...extra]);
  expect(setup.status, setup.stderr).toBe(0);
  const removed = await cairn(['setup', agent, '--remove']);
  expect(removed.status, removed.stderr).toBe(0);
  return removed.stdout;
}

describe('cairn setup --remove', () => {
  it('claude: files with other content are byte-identical to before setup, with a backup of what setup left', async () => {
    // Formatted as no JSON.stringify would: setup rewrites it, so only setup's backup can give it back.
    const mcp = '{"mcpServers":{"db":{"command":"pg-mcp","args":["--ro"]}},  "note": "mine"}';
    const settings = '{\n    "permissions": { "allow": ["Bash(make test)"] },\n    "hooks": {\n        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]\n    }\n}';
    await fs.writeFile(path.join(project, '.mcp.json'), mcp);
    await fs.mkdir(path.join(project, '.claude'));
    await fs.writeFile(path.join(project, '.claude', 'settings.json'), settings);

    const out = await setupThenRemove('claude');
    expect(await fs.readFile(path.join(project, '.mcp.json'), 'utf8')).toBe(mcp);
    expect(await fs.readFile(path.join(project, '.claude', 'settings.json'), 'utf8')).toBe(settings);
    expect(out).toMatch(/removed MCP server "cairn"; it is again exactly as before setup/);
    expect(out).toMatch(/removed the SessionStart hook; removed the UserPromptSubmit hook; removed the PreCompact hook; removed the SessionEnd hook/);
    expect(out).toMatch(/Claude Code no longer uses Cairn/);
    // setup's backup (the original) and --remove's (what setup left, with Cairn in it).
    const kept = await backups(path.join(project, '.mcp.json'));
    expect(kept).toHaveLength(2);
    const contents = await Promise.all(kept.map((n) => fs.readFile(n, 'utf8')));
    expect(contents.some((c) => c.includes('"cairn"'))).toBe(true);

    // Again: nothing of Cairn's is left, nothing changes.
    const again = await cairn(['setup', 'claude', '--remove']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/unchanged, Cairn is not in it/);
    expect(again.stdout).toMatch(/Nothing changed: Cairn was not set up for Claude Code/);
    expect(await backups(path.join(project, '.mcp.json'))).toHaveLength(2);
  });

  it('claude: the files setup created from nothing are deleted, with the .claude folder setup made: the project is as before', async () => {
    const out = await setupThenRemove('claude');
    expect(await exists(path.join(project, '.mcp.json'))).toBe(false);
    expect(await exists(path.join(project, '.claude'))).toBe(false);
    expect(out).toMatch(/nothing else was in it, so it was deleted/);
    expect(out).toContain(`and so was ${path.join(project, '.claude')}, which setup had made for it`);
    expect(await fs.readdir(project)).toEqual(['.git']);
    expect(await backups(path.join(project, '.claude', 'settings.json'))).toHaveLength(1);
  });

  it('removes setup entries written for another launcher or home, keeps what else changed since, and a hook the person wrote', async () => {
    await fs.writeFile(path.join(project, '.mcp.json'), '{"mcpServers": {"db": {"command": "pg-mcp"}}}\n');
    expect((await cairn(['setup', 'claude', '--home', path.join(dir, 'otherhome')])).status).toBe(0);
    // The person changes things after setup: another server, their own Cairn hook.
    const mcpFile = path.join(project, '.mcp.json');
    const mcp = JSON.parse(await fs.readFile(mcpFile, 'utf8')) as { mcpServers: Record<string, unknown> };
    mcp.mcpServers.search = { command: 'search-mcp' };
    await fs.writeFile(mcpFile, JSON.stringify(mcp, null, 2));
    const settingsFile = path.join(project, '.claude', 'settings.json');
    const settings = JSON.parse(await fs.readFile(settingsFile, 'utf8')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> };
    settings.hooks.UserPromptSubmit!.push({ hooks: [{ command: 'FOO=1 cairn context --format claude-hook --prompt-stdin' }] });
    await fs.writeFile(settingsFile, JSON.stringify(settings, null, 2));

    const removed = await cairn(['setup', 'claude', '--remove']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(JSON.parse(await fs.readFile(mcpFile, 'utf8'))).toEqual({ mcpServers: { db: { command: 'pg-mcp' }, search: { command: 'search-mcp' } } });
    expect(JSON.parse(await fs.readFile(settingsFile, 'utf8'))).toEqual({
      hooks: { UserPromptSubmit: [{ hooks: [{ command: 'FOO=1 cairn context --format claude-hook --prompt-stdin' }] }] },
    });
    expect(removed.stdout).toMatch(/note: kept your own UserPromptSubmit hook/);
  });

  it('keeps an MCP server named cairn that does not run Cairn', async () => {
    const mcp = '{\n  "mcpServers": {\n    "cairn": {\n      "command": "stone-mcp"\n    }\n  }\n}\n';
    await fs.mkdir(path.join(project, '.cursor'));
    await fs.writeFile(path.join(project, '.cursor', 'mcp.json'), mcp);
    const removed = await cairn(['setup', 'cursor', '--remove']);
    expect(removed.status).toBe(0);
    expect(removed.stdout).toMatch(/note: kept the MCP server "cairn": it does not run cairn mcp/);
    expect(await fs.readFile(path.join(project, '.cursor', 'mcp.json'), 'utf8')).toBe(mcp);
  });

  it('cursor: byte-identical after setup then --remove', async () => {
    await fs.mkdir(path.join(project, '.cursor'));
    const mcp = '{ "mcpServers": { "fs": { "command": "fs-mcp", "args": [] } } }';
    await fs.writeFile(path.join(project, '.cursor', 'mcp.json'), mcp);
    await setupThenRemove('cursor');
    expect(await fs.readFile(path.join(project, '.cursor', 'mcp.json'), 'utf8')).toBe(mcp);
  });

  it('codex: config.toml with comments and no final newline is byte-identical; one setup created is deleted', async () => {
    await fs.mkdir(codexHome, { recursive: true });
    const file = path.join(codexHome, 'config.toml');
    const toml = '# my settings\nmodel = "o3"   # the best\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n# trailing remark';
    await fs.writeFile(file, toml);
    const out = await setupThenRemove('codex');
    expect(await fs.readFile(file, 'utf8')).toBe(toml);
    expect(out).toMatch(/removed \[mcp_servers.cairn\]; it is again exactly as before setup/);

    await fs.rm(codexHome, { recursive: true });
    await setupThenRemove('codex');
    expect(await exists(file)).toBe(false);
  });

  it('codex: takes out only Cairn\'s table when the file changed since, comments kept', async () => {
    await fs.mkdir(codexHome, { recursive: true });
    const file = path.join(codexHome, 'config.toml');
    await fs.writeFile(file, 'model = "o3"\n');
    expect((await cairn(['setup', 'codex'])).status).toBe(0);
    await fs.appendFile(file, '\n# added later\n[mcp_servers.later]\ncommand = "later-mcp"\n');
    const removed = await cairn(['setup', 'codex', '--remove']);
    expect(removed.status).toBe(0);
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('# added later');
    expect(parseToml(text)).toEqual({ model: 'o3', mcp_servers: { later: { command: 'later-mcp' } } });
  });

  it("follows setup's symlink rules: a link out of the checkout is refused and nothing is changed", async () => {
    const outside = path.join(dir, 'outside.json');
    const content = '{"mcpServers":{"cairn":{"command":"/x/bin/cairn","args":["mcp"]}}}';
    await fs.writeFile(outside, content);
    await fs.symlink(outside, path.join(project, '.mcp.json'));
    const removed = await cairn(['setup', 'claude', '--remove']);
    expect(removed.status).toBe(1);
    expect(removed.stderr).toMatch(/is a symbolic link to .* which leads out of the checkout/);
    expect(await fs.readFile(outside, 'utf8')).toBe(content);
    expect(await backups(outside)).toEqual([]);

    // A link inside the checkout is written through.
    await fs.rm(path.join(project, '.mcp.json'));
    await fs.mkdir(path.join(project, 'config'));
    await fs.writeFile(path.join(project, 'config', 'mcp.json'), '{"mcpServers":{"db":{"command":"pg"}}}');
    await fs.symlink(path.join('config', 'mcp.json'), path.join(project, '.mcp.json'));
    const before = await fs.readFile(path.join(project, 'config', 'mcp.json'), 'utf8');
    const out = await setupThenRemove('claude');
    expect(out).toMatch(/it is a symbolic link: written to .*config\/mcp.json/);
    expect((await fs.lstat(path.join(project, '.mcp.json'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(project, 'config', 'mcp.json'), 'utf8')).toBe(before);
  });

  it('refuses a file that does not parse and --remove with --print (exit 2)', async () => {
    await fs.writeFile(path.join(project, '.mcp.json'), '{ not json');
    const bad = await cairn(['setup', 'claude', '--remove']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/is not valid JSON/);
    expect(await fs.readFile(path.join(project, '.mcp.json'), 'utf8')).toBe('{ not json');
    expect((await cairn(['setup', 'claude', '--remove', '--print'])).status).toBe(2);
  });
});
