// `cairn setup` and `--remove` change only Cairn's part of an agent's file. Setup keeps the person's
// layout (one line stays one line, comments, CRLF, tabs); setup then --remove gives the file back
// byte for byte; edits the person makes in between stay byte for byte; a file (and a folder) setup
// created goes again; the backups are in <home>/backups, never in the checkout; a file that does not
// parse is left as it is with its line and column; a config.toml Cairn cannot edit line by line is
// refused rather than rewritten. Through the built CLI on real files; HOME and CODEX_HOME point into
// a temp dir (the Cairn home is HOME's ~/.cairn): the real home is never touched.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, type CliResult } from '../support/cli';
import { makeCheckout, requireBuiltCli } from '../support/sandbox';

type Agent = 'claude' | 'codex' | 'cursor';

let dir: string;
let project: string;
let codexHome: string;
let cairnHome: string;
let env: NodeJS.ProcessEnv;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-bytes-')));
  project = await makeCheckout(dir);
  codexHome = path.join(dir, 'codex');
  cairnHome = path.join(dir, 'userhome', '.cairn');
  env = { HOME: path.join(dir, 'userhome'), CODEX_HOME: codexHome, CAIRN_HOME: '' };
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const cairn = (args: string[]) => runCairn(args, { env, cwd: project });

function ok(result: CliResult): CliResult {
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result;
}

/** Where each agent's file is, relative to the checkout (codex: to CODEX_HOME). */
const FILES: Record<string, (agent: Agent) => string> = {
  mcp: () => path.join(project, '.mcp.json'),
  settings: () => path.join(project, '.claude', 'settings.json'),
  cursor: () => path.join(project, '.cursor', 'mcp.json'),
  codex: () => path.join(codexHome, 'config.toml'),
};

/** Every file in the checkout but .git, relative. */
async function checkoutFiles(root = project): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (!path.relative(project, full).startsWith('.git')) out.push(path.relative(project, full));
  }
  return out.sort();
}

const backupsDir = () => path.join(cairnHome, 'backups');
const backups = async () => (await fs.readdir(backupsDir()).catch(() => [] as string[])).sort();

function readsAsJson(text: string): unknown {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: false });
  expect(errors).toEqual([]);
  return value;
}

interface Case {
  name: string;
  agent: Agent;
  file: keyof typeof FILES;
  /** What the person's file holds before setup. */
  text: string;
  /** What must hold of the file setup leaves, besides holding Cairn. */
  check(after: string): void;
}

const ONE_LINE = '{ "permissions": { "allow": ["Bash(npm test)"] }, "hooks": {} }\n';

const CASES: Case[] = [
  {
    name: 'a one-line .claude/settings.json stays one line, "hooks": {} kept and filled in place',
    agent: 'claude',
    file: 'settings',
    text: ONE_LINE,
    check(after) {
      expect(after.split('\n')).toHaveLength(2);
      expect(after.startsWith('{ "permissions": { "allow": ["Bash(npm test)", "mcp__cairn__memory_search"] }, "hooks": { "SessionStart": [{ "hooks": [{ "type": "command", "command": ')).toBe(true);
    },
  },
  {
    name: '.mcp.json with comments (JSONC): every comment stays where it was',
    agent: 'claude',
    file: 'mcp',
    text: '{\n  // the servers this repo uses\n  "mcpServers": {\n    /* read-only */ "db": { "command": "pg-mcp", "args": ["--ro"] } // ask first\n  }\n}\n',
    check(after) {
      expect(after).toContain('{\n  // the servers this repo uses\n  "mcpServers": {\n    /* read-only */ "db": { "command": "pg-mcp", "args": ["--ro"] }, // ask first\n    "cairn": {');
    },
  },
  {
    name: '.claude/settings.json with CRLF line endings keeps them, nothing else moves',
    agent: 'claude',
    file: 'settings',
    text: '{\r\n  "model": "opus",\r\n  "hooks": {\r\n    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]\r\n  }\r\n}\r\n',
    check(after) {
      expect(after).not.toMatch(/[^\r]\n/);
      expect(after).toContain('\r\n    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }],\r\n    "SessionStart": [\r\n');
    },
  },
  {
    name: '.cursor/mcp.json indented with tabs: Cairn writes tabs too, the rest untouched',
    agent: 'cursor',
    file: 'cursor',
    text: '{\n\t"mcpServers": {\n\t\t"fs": {"command": "fs-mcp", "args": []}\n\t}\n}',
    check(after) {
      expect(after).toMatch(/^\{\n\t"mcpServers": \{\n\t\t"fs": \{"command": "fs-mcp", "args": \[\]\},\n\t\t"cairn": \{\n\t\t\t"command": /);
      expect(after).not.toMatch(/^ /m);
    },
  },
  {
    name: 'a compact one-line .mcp.json stays compact',
    agent: 'claude',
    file: 'mcp',
    text: '{"mcpServers":{"db":{"command":"pg-mcp","args":["--ro"]}},  "note": "mine"}',
    check(after) {
      expect(after).toMatch(/^\{"mcpServers":\{"db":\{"command":"pg-mcp","args":\["--ro"\]\},"cairn":\{"command":"[^"]+","args":\["mcp","--session-context","off"\]\}\}, {2}"note": "mine"\}$/);
    },
  },
  {
    name: 'config.toml with comments, blank lines and no final newline',
    agent: 'codex',
    file: 'codex',
    text: '# my settings\nmodel = "o3"   # the best\n\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n# trailing remark',
    check(after) {
      expect(after.startsWith('# my settings\nmodel = "o3"   # the best\n\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n# trailing remark\n\n[mcp_servers.cairn]\n')).toBe(true);
    },
  },
  {
    name: 'config.toml with CRLF line endings',
    agent: 'codex',
    file: 'codex',
    text: 'model = "o3"\r\n\r\n[profiles.fast]\r\nmodel = "o4-mini"\r\n',
    check(after) {
      expect(after.startsWith('model = "o3"\r\n\r\n[profiles.fast]\r\nmodel = "o4-mini"\r\n\r\n[mcp_servers.cairn]\r\n')).toBe(true);
      expect(after).not.toMatch(/[^\r]\n/);
    },
  },
];

describe('setup then --remove gives the file back byte for byte', () => {
  it.each(CASES)('$name', async (c) => {
    const file = FILES[c.file]!(c.agent);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, c.text);
    const before = await checkoutFiles();

    const setup = ok(await cairn(['setup', c.agent]));
    const after = await fs.readFile(file, 'utf8');
    if (c.agent === 'codex') expect((parseToml(after) as { mcp_servers: Record<string, unknown> }).mcp_servers.cairn).toBeDefined();
    else expect(JSON.stringify(readsAsJson(after))).toMatch(/"cairn"|bin\/cairn context/);
    c.check(after);
    // The file as it was is kept in the Cairn home, and the report says where.
    const flat = file.split(path.sep).join('%');
    const kept = (await backups()).filter((n) => n.startsWith(`${flat}.`) && n.endsWith('.before-setup'));
    expect(kept).toHaveLength(1);
    expect(await fs.readFile(path.join(backupsDir(), kept[0]!), 'utf8')).toBe(c.text);
    expect(setup.stdout).toContain(`the previous file is kept in ${path.join(backupsDir(), kept[0]!)}`);

    const removed = ok(await cairn(['setup', c.agent, '--remove']));
    expect(removed.stdout).toContain('it is again exactly as before setup');
    expect(await fs.readFile(file, 'utf8')).toBe(c.text);
    // No backup, temp file or anything else was left in the checkout.
    expect(await checkoutFiles()).toEqual(before);
    expect((await backups()).filter((n) => n.startsWith(`${flat}.`) && n.endsWith('.before-remove'))).toHaveLength(1);
  });

  it("the person's file keeps its own mode through setup and --remove; a file setup makes is 0644 less the umask", async () => {
    const settings = FILES.settings!('claude');
    await fs.mkdir(path.dirname(settings), { recursive: true });
    await fs.writeFile(settings, '{ "model": "opus" }\n');
    await fs.chmod(settings, 0o664);
    ok(await cairn(['setup', 'claude']));
    expect((await fs.stat(settings)).mode & 0o777).toBe(0o664);
    expect((await fs.stat(FILES.mcp!('claude'))).mode & 0o777).toBe(0o644 & ~process.umask());
    ok(await cairn(['setup', 'claude', '--remove']));
    expect((await fs.stat(settings)).mode & 0o777).toBe(0o664);
  });

  it('backups are private: <home>/backups is 0700, each file in it 0600', async () => {
    await fs.writeFile(FILES.mcp!('claude'), '{"mcpServers": {}}\n');
    ok(await cairn(['setup', 'claude']));
    expect((await fs.stat(backupsDir())).mode & 0o777).toBe(0o700);
    for (const name of await backups()) expect((await fs.stat(path.join(backupsDir(), name))).mode & 0o777).toBe(0o600);
  });

  it.each([
    { agent: 'claude' as const, made: () => path.join(project, '.claude') },
    { agent: 'cursor' as const, made: () => path.join(project, '.cursor') },
    { agent: 'codex' as const, made: () => codexHome },
  ])('$agent: the files and the folder setup created go again', async ({ agent, made }) => {
    ok(await cairn(['setup', agent]));
    const removed = ok(await cairn(['setup', agent, '--remove']));
    expect(removed.stdout).toMatch(/so it was deleted \(setup had created it\)/);
    expect(removed.stdout).toContain(`and so was ${made()}, which setup had made for it`);
    await expect(fs.access(made())).rejects.toThrow();
    expect(await checkoutFiles()).toEqual([]);
  });

  it('a folder that was there before setup stays', async () => {
    await fs.mkdir(path.join(project, '.cursor')); // the person's, empty
    ok(await cairn(['setup', 'cursor']));
    expect(ok(await cairn(['setup', 'cursor', '--remove'])).stdout).not.toContain('and so was');
    expect(await checkoutFiles()).toEqual(['.cursor']);
  });

  it('setup for another home updates Cairn in place; remove still gives back the file from before the first setup', async () => {
    const file = FILES.settings!('claude');
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, ONE_LINE);
    ok(await cairn(['setup', 'claude']));
    const other = path.join(dir, 'other home');
    expect(ok(await cairn(['setup', 'claude', '--home', other])).stdout).toContain('updated the SessionStart hook');
    expect(await fs.readFile(file, 'utf8')).toContain('--home');
    ok(await cairn(['setup', 'claude', '--remove']));
    expect(await fs.readFile(file, 'utf8')).toBe(ONE_LINE);
  });
});

interface Edit {
  name: string;
  agent: Agent;
  file: keyof typeof FILES;
  text: string;
  /** What the person changes after setup, as a text edit (applied to the original too: what must remain). */
  from: string;
  to: string;
}

const EDITS: Edit[] = [
  {
    name: 'one-line settings: a permission added after setup stays, "hooks": {} comes back',
    agent: 'claude',
    file: 'settings',
    text: ONE_LINE,
    from: '"Bash(npm test)"',
    to: '"Bash(npm test)", "Bash(ls)"',
  },
  {
    name: '.mcp.json with comments: a comment and a setting added after setup stay',
    agent: 'claude',
    file: 'mcp',
    text: '{\n  // the servers\n  "mcpServers": {\n    "db": { "command": "pg-mcp" }\n  }\n}\n',
    from: '// the servers\n',
    to: '// the servers (db is read-only)\n  "enableAllProjectMcpServers": false, // asked\n',
  },
  {
    name: 'config.toml: a key changed after setup stays',
    agent: 'codex',
    file: 'codex',
    text: '# mine\nmodel = "o3"\n',
    from: 'model = "o3"',
    to: 'model = "gpt-5"  # faster',
  },
];

describe('the person edits the file between setup and --remove', () => {
  it.each(EDITS)('$name', async (c) => {
    const file = FILES[c.file]!(c.agent);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, c.text);
    ok(await cairn(['setup', c.agent]));
    const setUp = await fs.readFile(file, 'utf8');
    expect(setUp).toContain(c.from);
    await fs.writeFile(file, setUp.replace(c.from, c.to));

    const removed = ok(await cairn(['setup', c.agent, '--remove']));
    expect(removed.stdout).not.toContain('exactly as before setup');
    expect(await fs.readFile(file, 'utf8')).toBe(c.text.replace(c.from, c.to));
    // Nothing was left beside it (the backups are in the Cairn home).
    expect((await fs.readdir(path.dirname(file))).filter((n) => n !== '.git')).toEqual([path.basename(file)]);
  });

  it('another server added after Cairn\u2019s stays, byte for byte', async () => {
    const file = FILES.cursor!('cursor');
    const text = '{\n  "mcpServers": {\n    "fs": { "command": "fs-mcp" }\n  }\n}\n';
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, text);
    ok(await cairn(['setup', 'cursor']));
    const setUp = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, setUp.replace(/\n {2}\}\n\}\n$/, ',\n    "search": {"command": "s"}\n  }\n}\n'));
    ok(await cairn(['setup', 'cursor', '--remove']));
    expect(await fs.readFile(file, 'utf8')).toBe('{\n  "mcpServers": {\n    "fs": { "command": "fs-mcp" },\n    "search": {"command": "s"}\n  }\n}\n');
  });
});

describe('files Cairn cannot edit are left untouched', () => {
  it.each([
    { agent: 'claude' as const, file: 'settings' as const, text: '{\n  "hooks": {},\n}\n', where: 'line 3, column 1', what: 'a comma before a closing bracket' },
    { agent: 'cursor' as const, file: 'cursor' as const, text: '{\n  "mcpServers": { "a" 1 }\n}\n', where: 'line 2, column 23', what: 'a colon was expected' },
    { agent: 'codex' as const, file: 'codex' as const, text: 'model = "o3"\n[broken\n', where: 'line 2, column', what: 'not valid TOML' },
  ])('$agent: a file that does not parse names its line and column, exit 1', async (c) => {
    const file = FILES[c.file]!(c.agent);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, c.text);
    for (const args of [['setup', c.agent], ['setup', c.agent, '--remove']]) {
      const result = await cairn(args);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toContain(c.where);
      expect(result.stderr).toContain(c.what);
      expect(await fs.readFile(file, 'utf8')).toBe(c.text);
    }
    expect(await backups()).toEqual([]);
  });

  it('codex: mcp_servers written as an inline table is refused with what to do, not rewritten', async () => {
    const file = FILES.codex!('codex');
    const text = '# servers, inline\nmcp_servers = { docs = { command = "docs-mcp" } }\n';
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, text);
    const result = await cairn(['setup', 'codex']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('mcp_servers is written as an inline table');
    expect(result.stderr).toContain('cairn setup codex --print');
    expect(await fs.readFile(file, 'utf8')).toBe(text);
  });

  it('codex: Cairn\u2019s entry written by hand as dotted keys is replaced by a table, the other lines kept', async () => {
    const file = FILES.codex!('codex');
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, '# mine\nmcp_servers.cairn.command = "/old/bin/cairn"\nmcp_servers.cairn.args = ["mcp"] # by hand\nmodel = "o3"\n');
    const result = ok(await cairn(['setup', 'codex']));
    expect(result.stdout).toContain('updated [mcp_servers.cairn]');
    const text = await fs.readFile(file, 'utf8');
    expect(text.startsWith('# mine\nmodel = "o3"\n\n[mcp_servers.cairn]\n')).toBe(true);
    // --remove takes Cairn out, the entry written by hand included: the rest stays as it was.
    ok(await cairn(['setup', 'codex', '--remove']));
    expect(await fs.readFile(file, 'utf8')).toBe('# mine\nmodel = "o3"\n');
  });
});
