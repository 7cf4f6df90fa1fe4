// `cairn setup claude|codex|cursor`: the printed configuration parses as the agent's format, and
// writing merges into existing files (other entries kept, a backup kept in the Cairn home,
// idempotent, invalid files refused and left untouched). HOME and CODEX_HOME point into a temp dir: the real home is never
// touched.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, type CliResult } from '../support/cli';
import { CAIRN_BIN, makeCheckout, requireBuiltCli } from '../support/sandbox';

interface McpEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
/** Codex's keys setup adds to Cairn's server: wait for it, and run its read-only tool without a prompt. */
const CODEX_KEYS = { required: true, default_tools_approval_mode: 'writes' };
interface HookGroup {
  matcher?: string;
  hooks: Array<{ type: string; command: string }>;
}
interface ClaudeSettings {
  hooks: Record<string, HookGroup[]>;
  [key: string]: unknown;
}

let dir: string;
let project: string;
let env: NodeJS.ProcessEnv;
let launcher: string;
/** The context hook names its agent, so the app shows it as seen in the workspace. */
const hookCommand = (agent = 'claude') => `${launcher} context --format claude-hook --agent ${agent}`;
const harvestCommand = () => `${launcher} harvest --hook`;
/** Claude Code's server leaves the index and hot set to its SessionStart hook. */
const CLAUDE_ARGS = ['mcp', '--session-context', 'off'];
/** Cairn's read-only tool runs without asking; the memory tool is the person's to allow. */
const CLAUDE_PERMISSIONS = { allow: ['mcp__cairn__memory_search'] };

beforeAll(async () => {
  await requireBuiltCli();
  launcher = await fs.realpath(CAIRN_BIN);
});
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-')));
  project = await makeCheckout(dir);
  await fs.mkdir(path.join(project, 'src', 'deep'), { recursive: true });
  env = { HOME: path.join(dir, 'userhome'), CODEX_HOME: path.join(dir, 'codex'), CAIRN_HOME: '' };
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const setup = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCairn(['setup', ...args], { env: { ...env, ...extraEnv }, cwd: dir });
const readJson = async <T>(file: string) => JSON.parse(await fs.readFile(file, 'utf8')) as T;
/** The backups setup kept of `file`: in the Cairn home (HOME's ~/.cairn), named by its path. */
const backupsOf = async (file: string) => {
  const kept = path.join(env.HOME!, '.cairn', 'backups');
  const names = await fs.readdir(kept).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(`${file.split(path.sep).join('%')}.`) && n.endsWith('.before-setup')).map((n) => path.join(kept, n));
};

/** The sections of --print output: `# title` line, then the body. */
function sections(stdout: string): Array<{ title: string; body: string }> {
  const out: Array<{ title: string; body: string }> = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith('# ')) out.push({ title: line.slice(2), body: '' });
    else if (out.length > 0) out[out.length - 1]!.body += `${line}\n`;
  }
  return out;
}

function expectOk(result: CliResult): CliResult {
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result;
}

describe('cairn setup --print', () => {
  it('claude: .mcp.json and .claude/settings.json as JSON, and the claude mcp add line', async () => {
    const result = expectOk(await setup(['claude', '--print', '--cwd', path.join(project, 'src', 'deep')]));
    const [mcp, settings, alternative] = sections(result.stdout);
    expect(mcp!.title).toContain(path.join(project, '.mcp.json'));
    expect(JSON.parse(mcp!.body)).toEqual({ mcpServers: { cairn: { command: launcher, args: CLAUDE_ARGS } } });
    expect(settings!.title).toContain(path.join(project, '.claude', 'settings.json'));
    const hook = [{ hooks: [{ type: 'command', command: hookCommand() }] }];
    const harvest = [{ hooks: [{ type: 'command', command: harvestCommand() }] }];
    expect(JSON.parse(settings!.body)).toEqual({ hooks: { SessionStart: hook, UserPromptSubmit: hook, PreCompact: harvest, SessionEnd: harvest }, permissions: CLAUDE_PERMISSIONS });
    expect(alternative!.body.trim()).toBe(`claude mcp add --scope project cairn -- ${launcher} mcp --session-context off`);
    // Nothing was written.
    await expect(fs.access(path.join(project, '.mcp.json'))).rejects.toThrow();
    await expect(fs.access(path.join(project, '.claude'))).rejects.toThrow();
  });

  it('claude: passes --home (or $CAIRN_HOME) to the server and the hooks', async () => {
    const home = path.join(dir, 'cairn home');
    const result = expectOk(await setup(['claude', '--print', '--cwd', project, '--home', home]));
    const [mcp, settings, alternative] = sections(result.stdout);
    expect(JSON.parse(mcp!.body)).toEqual({ mcpServers: { cairn: { command: launcher, args: CLAUDE_ARGS, env: { CAIRN_HOME: home } } } });
    expect((JSON.parse(settings!.body) as ClaudeSettings).hooks.SessionStart![0]!.hooks[0]!.command).toBe(`${hookCommand()} --home '${home}'`);
    expect(alternative!.body).toContain(`--env 'CAIRN_HOME=${home}' cairn --`);

    const fromEnv = expectOk(await setup(['claude', '--print', '--cwd', project], { CAIRN_HOME: home }));
    expect((JSON.parse(sections(fromEnv.stdout)[0]!.body) as { mcpServers: { cairn: McpEntry } }).mcpServers.cairn.env).toEqual({ CAIRN_HOME: home });
  });

  it('codex: config.toml\'s part parses as TOML with [mcp_servers.cairn], hooks.json\'s as JSON with the prompt and harvest hooks', async () => {
    const result = expectOk(await setup(['codex', '--print', '--home', path.join(dir, 'h')]));
    const [toml, hooks] = sections(result.stdout);
    expect(toml!.title).toContain(path.join(dir, 'codex', 'config.toml'));
    expect(parseToml(toml!.body)).toEqual({ mcp_servers: { cairn: { ...CODEX_KEYS, command: launcher, args: ['mcp'], env: { CAIRN_HOME: path.join(dir, 'h') } } } });
    expect(hooks!.title).toContain(path.join(dir, 'codex', 'hooks.json'));
    const home = ['--home', path.join(dir, 'h')];
    const group = (words: string[]) => [{ hooks: [{ type: 'command', command: [launcher, ...words, ...home].join(' ') }] }];
    expect(JSON.parse(hooks!.body)).toEqual({ hooks: { UserPromptSubmit: group(['context', '--format', 'claude-hook', '--agent', 'codex']), PreCompact: group(['harvest', '--hook']), SessionEnd: group(['harvest', '--hook']) } });
    // Without $CODEX_HOME: ~/.codex.
    const noCodexHome = expectOk(await setup(['codex', '--print'], { CODEX_HOME: '' }));
    expect(noCodexHome.stdout).toContain(path.join(env.HOME!, '.codex', 'config.toml'));
    expect(parseToml(sections(noCodexHome.stdout)[0]!.body)).toEqual({ mcp_servers: { cairn: { ...CODEX_KEYS, command: launcher, args: ['mcp'] } } });
  });

  it('cursor: .cursor/mcp.json as JSON, bound to the open project', async () => {
    const result = expectOk(await setup(['cursor', '--print', '--cwd', project]));
    const [mcp] = sections(result.stdout);
    expect(mcp!.title).toContain(path.join(project, '.cursor', 'mcp.json'));
    expect(JSON.parse(mcp!.body)).toEqual({ mcpServers: { cairn: { command: launcher, args: ['mcp', '--cwd', '${workspaceFolder}'] } } });
  });
});

describe('cairn setup claude', () => {
  it('merges into existing files, keeps the other entries and a backup, and is idempotent', async () => {
    const mcpFile = path.join(project, '.mcp.json');
    const settingsFile = path.join(project, '.claude', 'settings.json');
    const oldMcp = `${JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: ['--stdio'] } } }, null, 2)}\n`;
    const lint = { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] };
    const oldSettings = `${JSON.stringify({ permissions: { allow: ['Bash(make test)'] }, hooks: { SessionStart: [lint], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }] } }, null, 2)}\n`;
    await fs.writeFile(mcpFile, oldMcp);
    await fs.mkdir(path.dirname(settingsFile));
    await fs.writeFile(settingsFile, oldSettings);

    const first = expectOk(await setup(['claude', '--cwd', path.join(project, 'src')]));
    expect(first.stdout).toContain(`${mcpFile}: added MCP server "cairn"`);
    expect(first.stdout).toContain(`${settingsFile}: added the SessionStart hook; added the UserPromptSubmit hook; added the PreCompact hook; added the SessionEnd hook`);

    expect(await readJson(mcpFile)).toEqual({ mcpServers: { github: { command: 'gh-mcp', args: ['--stdio'] }, cairn: { command: launcher, args: CLAUDE_ARGS } } });
    const ours = { hooks: [{ type: 'command', command: hookCommand() }] };
    expect(await readJson(settingsFile)).toEqual({
      permissions: { allow: ['Bash(make test)', ...CLAUDE_PERMISSIONS.allow] },
      hooks: {
        SessionStart: [lint, ours],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }],
        UserPromptSubmit: [ours],
        PreCompact: [{ hooks: [{ type: 'command', command: harvestCommand() }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: harvestCommand() }] }],
      },
    });

    const [mcpBackup] = await backupsOf(mcpFile);
    const [settingsBackup] = await backupsOf(settingsFile);
    expect(await fs.readFile(mcpBackup!, 'utf8')).toBe(oldMcp);
    expect(await fs.readFile(settingsBackup!, 'utf8')).toBe(oldSettings);
    expect(first.stdout).toContain(`the previous file is kept in ${mcpBackup}`);
    // Nothing left beside the files in the checkout: no backup, no temp file.
    expect((await fs.readdir(project)).sort()).toEqual(['.claude', '.git', '.mcp.json', 'src']);
    expect(await fs.readdir(path.join(project, '.claude'))).toEqual(['settings.json']);

    const mcpAfter = await fs.readFile(mcpFile, 'utf8');
    const settingsAfter = await fs.readFile(settingsFile, 'utf8');
    const second = expectOk(await setup(['claude', '--cwd', project]));
    expect(second.stdout).toContain('Nothing changed');
    expect(second.stdout).toContain(`${mcpFile}: unchanged`);
    expect(await fs.readFile(mcpFile, 'utf8')).toBe(mcpAfter);
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(settingsAfter);
    expect(await backupsOf(mcpFile)).toHaveLength(1);
    expect(await backupsOf(settingsFile)).toHaveLength(1);
  });

  it('creates both files in a fresh project, without backups', async () => {
    const result = expectOk(await setup(['claude', '--cwd', project]));
    expect(result.stdout).toContain('created');
    expect(await readJson(path.join(project, '.mcp.json'))).toEqual({ mcpServers: { cairn: { command: launcher, args: CLAUDE_ARGS } } });
    const settings = await readJson<ClaudeSettings>(path.join(project, '.claude', 'settings.json'));
    expect(settings.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: hookCommand() }] }]);
    expect(settings.hooks.SessionStart![0]!.matcher).toBeUndefined();
    expect(await backupsOf(path.join(project, '.mcp.json'))).toEqual([]);
  });

  it('updates a hook and server it wrote for another home instead of adding a second one', async () => {
    expectOk(await setup(['claude', '--cwd', project, '--home', path.join(dir, 'a')]));
    const again = expectOk(await setup(['claude', '--cwd', project, '--home', path.join(dir, 'b')]));
    expect(again.stdout).toContain('updated MCP server "cairn"');
    expect(again.stdout).toContain('updated the SessionStart hook');
    const settings = await readJson<ClaudeSettings>(path.join(project, '.claude', 'settings.json'));
    expect(settings.hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: `${hookCommand()} --home ${path.join(dir, 'b')}` }] }]);
    expect(settings.hooks.UserPromptSubmit).toHaveLength(1);
  });

  it('adds --agent to the hooks an older setup wrote without it, changing nothing else, once', async () => {
    const settingsFile = path.join(project, '.claude', 'settings.json');
    const home = path.join(dir, 'h');
    const older = (command: string) => [{ hooks: [{ type: 'command', command }] }];
    const before = {
      permissions: { allow: ['Bash(make test)', ...CLAUDE_PERMISSIONS.allow] },
      hooks: {
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] }, ...older(`${launcher} context --format claude-hook --home ${home}`)],
        UserPromptSubmit: older(`${launcher} context --format claude-hook --home ${home}`),
        PreCompact: older(`${launcher} harvest --hook --home ${home}`),
        SessionEnd: older(`${launcher} harvest --hook --home ${home}`),
      },
    };
    const text = `${JSON.stringify(before, null, 2)}\n`;
    await fs.mkdir(path.dirname(settingsFile));
    await fs.writeFile(settingsFile, text);

    const result = expectOk(await setup(['claude', '--cwd', project, '--home', home]));
    expect(result.stdout).toContain('updated the SessionStart hook');
    expect(result.stdout).toContain('updated the UserPromptSubmit hook');
    expect(result.stdout).not.toContain('PreCompact');
    // The same bytes, but for the flag in the two context hooks.
    expect(await fs.readFile(settingsFile, 'utf8')).toBe(text.replaceAll('claude-hook --home', 'claude-hook --agent claude --home'));
    const again = expectOk(await setup(['claude', '--cwd', project, '--home', home]));
    expect(again.stdout).toContain(`${settingsFile}: unchanged`);
  });

  it('names each agent in its context hooks: codex, gemini and copilot too', async () => {
    const copilotHome = path.join(dir, 'copilot');
    expectOk(await setup(['codex']));
    expectOk(await setup(['gemini', '--cwd', project], { GEMINI_CLI_HOME: path.join(dir, 'gemini') }));
    expectOk(await setup(['copilot'], { COPILOT_HOME: copilotHome }));
    const codex = await readJson<ClaudeSettings>(path.join(dir, 'codex', 'hooks.json'));
    expect(codex.hooks.UserPromptSubmit![0]!.hooks[0]!.command).toBe(hookCommand('codex'));
    const gemini = await readJson<ClaudeSettings>(path.join(project, '.gemini', 'settings.json'));
    expect(gemini.hooks.SessionStart![0]!.hooks[0]!.command).toBe(hookCommand('gemini'));
    expect(gemini.hooks.BeforeAgent![0]!.hooks[0]!.command).toBe(hookCommand('gemini'));
    const copilot = await readJson<{ hooks: Record<string, Array<{ bash: string }>> }>(path.join(copilotHome, 'settings.json'));
    expect(copilot.hooks.sessionStart![0]!.bash).toBe(`${launcher} context --format copilot-hook --agent copilot`);
    expect(copilot.hooks.userPromptSubmitted![0]!.bash).toBe(`${launcher} context --format copilot-hook --agent copilot`);
  });

  it('keeps a Cairn hook the user wrote by hand and does not add a second one', async () => {
    const handWritten = { hooks: [{ type: 'command', command: 'cairn context --format claude-hook --workspace mine' }] };
    await fs.mkdir(path.join(project, '.claude'));
    await fs.writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [handWritten], UserPromptSubmit: [handWritten] } }));
    const result = expectOk(await setup(['claude', '--cwd', project]));
    expect(result.stdout).toContain('kept your own SessionStart hook');
    const harvest = [{ hooks: [{ type: 'command', command: harvestCommand() }] }];
    expect(await readJson(path.join(project, '.claude', 'settings.json'))).toEqual({ hooks: { SessionStart: [handWritten], UserPromptSubmit: [handWritten], PreCompact: harvest, SessionEnd: harvest }, permissions: CLAUDE_PERMISSIONS });
  });

  it('refuses invalid JSON, names the file, writes nothing and leaves it untouched', async () => {
    const settingsFile = path.join(project, '.claude', 'settings.json');
    await fs.mkdir(path.dirname(settingsFile));
    await fs.writeFile(settingsFile, '{ "hooks": { ,, }');
    const result = await setup(['claude', '--cwd', project]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(settingsFile);
    expect(result.stderr).toContain('not valid JSON');
    expect(await fs.readFile(settingsFile, 'utf8')).toBe('{ "hooks": { ,, }');
    // The other file was not written either: a failed setup changes nothing.
    await expect(fs.access(path.join(project, '.mcp.json'))).rejects.toThrow();
    expect(await backupsOf(settingsFile)).toEqual([]);

    await fs.writeFile(path.join(project, '.mcp.json'), '[1, 2]');
    await fs.rm(settingsFile);
    const notObject = await setup(['claude', '--cwd', project]);
    expect(notObject.status).toBe(1);
    expect(notObject.stderr).toContain(path.join(project, '.mcp.json'));
  });

  it('uses the directory itself outside a git repository', async () => {
    const plain = path.join(dir, 'plain');
    await fs.mkdir(plain);
    expectOk(await setup(['claude', '--cwd', plain]));
    expect(await readJson(path.join(plain, '.mcp.json'))).toEqual({ mcpServers: { cairn: { command: launcher, args: CLAUDE_ARGS } } });
  });
});

describe('cairn setup codex', () => {
  it('merges [mcp_servers.cairn] and keeps the other tables, comments and a backup; idempotent', async () => {
    const file = path.join(dir, 'codex', 'config.toml');
    const old = '# my codex config\nmodel = "o3"\n\n[mcp_servers.github]\ncommand = "gh-mcp" # the GitHub server\nargs = ["--stdio"]\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, old);

    const first = expectOk(await setup(['codex']));
    expect(first.stdout).toContain(`${file}: added [mcp_servers.cairn]`);
    const text = await fs.readFile(file, 'utf8');
    expect(text.startsWith(old)).toBe(true); // comments and formatting kept byte for byte
    expect(parseToml(text)).toEqual({
      model: 'o3',
      mcp_servers: { github: { command: 'gh-mcp', args: ['--stdio'] }, cairn: { ...CODEX_KEYS, command: launcher, args: ['mcp'] } },
      profiles: { fast: { model: 'o4-mini' } },
    });
    const [backup] = await backupsOf(file);
    expect(await fs.readFile(backup!, 'utf8')).toBe(old);

    const second = expectOk(await setup(['codex']));
    expect(second.stdout).toContain('Nothing changed');
    expect(await fs.readFile(file, 'utf8')).toBe(text);
    expect(await backupsOf(file)).toHaveLength(1);

    // A new home replaces Cairn's table (env included) in place of adding a second one.
    const third = expectOk(await setup(['codex', '--home', path.join(dir, 'h')]));
    expect(third.stdout).toContain('updated [mcp_servers.cairn]');
    const replaced = parseToml(await fs.readFile(file, 'utf8')) as unknown as { mcp_servers: Record<string, McpEntry> };
    expect(replaced.mcp_servers.cairn).toEqual({ ...CODEX_KEYS, command: launcher, args: ['mcp'], env: { CAIRN_HOME: path.join(dir, 'h') } });
    expect(replaced.mcp_servers.github).toEqual({ command: 'gh-mcp', args: ['--stdio'] });
    expect(await fs.readFile(file, 'utf8')).toContain('# my codex config');
    expect(expectOk(await setup(['codex', '--home', path.join(dir, 'h')])).stdout).toContain('Nothing changed');
  });

  it('creates ~/.codex/config.toml when there is none', async () => {
    expectOk(await setup(['codex'], { CODEX_HOME: '' }));
    expect(parseToml(await fs.readFile(path.join(env.HOME!, '.codex', 'config.toml'), 'utf8'))).toEqual({ mcp_servers: { cairn: { ...CODEX_KEYS, command: launcher, args: ['mcp'] } } });
  });

  it('keeps the approval mode the person chose, and says how to choose it', async () => {
    const file = path.join(dir, 'codex', 'config.toml');
    const first = expectOk(await setup(['codex']));
    expect(first.stdout).toContain('default_tools_approval_mode = "approve"');
    const chosen = (await fs.readFile(file, 'utf8')).replace('default_tools_approval_mode = "writes"', 'default_tools_approval_mode = "approve"');
    await fs.writeFile(file, chosen);
    expect(expectOk(await setup(['codex', '--home', path.join(dir, 'h')])).stdout).toContain('updated [mcp_servers.cairn]');
    expect((parseToml(await fs.readFile(file, 'utf8')) as unknown as { mcp_servers: Record<string, Record<string, unknown>> }).mcp_servers.cairn!.default_tools_approval_mode).toBe('approve');
  });

  it('refuses invalid TOML and leaves it untouched', async () => {
    const file = path.join(dir, 'codex', 'config.toml');
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, 'model = "o3\n[broken\n');
    const result = await setup(['codex']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('not valid TOML');
    expect(await fs.readFile(file, 'utf8')).toBe('model = "o3\n[broken\n');
    expect(await backupsOf(file)).toEqual([]);
  });
});

describe('cairn setup cursor', () => {
  it('writes .cursor/mcp.json at the project root, merging with other servers', async () => {
    const file = path.join(project, '.cursor', 'mcp.json');
    expectOk(await setup(['cursor', '--cwd', path.join(project, 'src', 'deep')]));
    const entry = { command: launcher, args: ['mcp', '--cwd', '${workspaceFolder}'] };
    expect(await readJson(file)).toEqual({ mcpServers: { cairn: entry } });

    await fs.writeFile(file, JSON.stringify({ mcpServers: { cairn: entry, other: { url: 'http://localhost:9/mcp' } } }));
    expect(expectOk(await setup(['cursor', '--cwd', project])).stdout).toContain('Nothing changed');
    expect(await readJson(file)).toEqual({ mcpServers: { cairn: entry, other: { url: 'http://localhost:9/mcp' } } });
  });
});

describe('usage', () => {
  it('exits 2 for an unknown agent, a missing agent or a bad flag, and 0 with --help', async () => {
    for (const args of [['vim'], [], ['claude', '--bogus'], ['claude', 'codex']]) {
      const result = await setup(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^cairn: /);
    }
    const help = await setup(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: cairn setup claude|codex|cursor');
    expect((await runCairn(['--help'])).stdout).toContain('setup');
  });

  it('exits 1 when --cwd does not exist', async () => {
    const result = await setup(['claude', '--cwd', path.join(dir, 'nope')]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('does not exist');
  });
});
