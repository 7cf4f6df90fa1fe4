// The merges behind `cairn setup`: TOML edited as text (never re-serialized), JSON hooks recognized
// however they were spelled, and config files replaced atomically through symlinks.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfigFile, replaceConfigFile } from './config-file';
import { contextHook, isCairnContextHook, mergeClaudeHooks, mergeMcpServer, shellWords } from './json-config';
import { shellLine } from './launcher';
import { projectRoot } from './setup';
import { headerKey, mergeCodexServer } from './toml-config';

const entry = { command: '/opt/cairn/bin/cairn', args: ['mcp'] };

describe('mergeCodexServer', () => {
  it('appends the table to a file without one, keeping it byte for byte', () => {
    const old = '# top\nmodel = "o3" # inline\n';
    const { text, changes, notes } = mergeCodexServer(old, 'cairn', entry, 'config.toml');
    expect(text!.startsWith(old)).toBe(true);
    expect(changes).toEqual(['added [mcp_servers.cairn]']);
    expect(notes).toEqual([]);
    expect(parse(text!)).toEqual({ model: 'o3', mcp_servers: { cairn: entry } });
  });

  it('replaces its old tables (quoted keys, env subtable) in the middle of a file and keeps CRLF', () => {
    const old = ['# c', '[mcp_servers."cairn"]', 'command = "old"', '', '[ mcp_servers . cairn . env ]', 'CAIRN_HOME = "/x"', '', '# the next table', '[tui]', 'x = 1', ''].join('\r\n');
    const { text, notes } = mergeCodexServer(old, 'cairn', entry, 'config.toml');
    expect(notes).toEqual([]);
    expect(text).toContain('# the next table\r\n[tui]\r\nx = 1');
    expect(text).not.toMatch(/[^\r]\n/);
    expect(parse(text!)).toEqual({ tui: { x: 1 }, mcp_servers: { cairn: entry } });
  });

  it('replaces an entry written as dotted keys or an inline table line by line, never re-serializing', () => {
    for (const old of ['# mine\nmcp_servers.cairn.command = "old"\n', '# mine\n[mcp_servers]\ncairn = { command = "old" }\n']) {
      const { text, notes } = mergeCodexServer(old, 'cairn', entry, 'config.toml');
      expect(parse(text!)).toEqual({ mcp_servers: { cairn: entry } });
      expect(text!.startsWith('# mine\n')).toBe(true);
      expect(notes).toEqual([]);
    }
    expect(() => mergeCodexServer('mcp_servers = { docs = { command = "d" } }\n', 'cairn', entry, 'config.toml')).toThrow(/written as an inline table.*left untouched/);
  });

  it('updates its table where it stands, the tables around it untouched', () => {
    const old = '[a]\nx = 1\n\n[mcp_servers.cairn]\ncommand = "old"\nargs = ["mcp"]\n\n# b\n[b]\ny = 2\n';
    const { text } = mergeCodexServer(old, 'cairn', entry, 'config.toml');
    expect(text).toBe('[a]\nx = 1\n\n[mcp_servers.cairn]\ncommand = "/opt/cairn/bin/cairn"\nargs = [ "mcp" ]\n\n# b\n[b]\ny = 2\n');
  });

  it('changes nothing when the entry is already there, and keeps dates intact', () => {
    const old = 'when = 1979-05-27T07:32:00Z\n[mcp_servers.cairn]\ncommand = "/opt/cairn/bin/cairn"\nargs = ["mcp"]\n';
    expect(mergeCodexServer(old, 'cairn', entry, 'config.toml')).toEqual({ text: null, changes: [], notes: [] });
    const moved = mergeCodexServer(old, 'cairn', { ...entry, command: '/new' }, 'config.toml');
    expect(moved.notes).toEqual([]);
    expect((parse(moved.text!) as unknown as { when: Date }).when.toISOString()).toBe('1979-05-27T07:32:00.000Z');
  });

  it('refuses invalid TOML and a non-table mcp_servers', () => {
    expect(() => mergeCodexServer('a = ', 'cairn', entry, '/c/config.toml')).toThrow(/\/c\/config\.toml is not valid TOML: line 1, column \d+/);
    expect(() => mergeCodexServer('mcp_servers = 3\n', 'cairn', entry, 'f')).toThrow(/"mcp_servers" is not a table/);
  });

  it('reads header keys', () => {
    expect(headerKey('[mcp_servers.cairn]')).toEqual(['mcp_servers', 'cairn']);
    expect(headerKey(`[[ a."b.c".'d' ]] # x`)).toEqual(['a', 'b.c', 'd']);
    expect(headerKey('args = ["mcp"]')).toBeNull();
  });
});

describe('JSON configs', () => {
  it('keeps the indentation of the file, and treats an empty file as empty', () => {
    expect(mergeMcpServer('{\n    "a": 1\n}\n', 'cairn', entry, 'f').text).toMatch(/^\{\n {4}"a": 1,\n {4}"mcpServers": \{\n {8}"cairn"/);
    expect(mergeMcpServer('  \n', 'cairn', entry, 'f').text).toBe(`${JSON.stringify({ mcpServers: { cairn: entry } }, null, 2)}\n`);
    expect(() => mergeMcpServer('{"mcpServers": 1}', 'cairn', entry, 'f')).toThrow(/"mcpServers" is not an object/);
  });

  it('recognizes Cairn hooks however they are spelled', () => {
    expect(isCairnContextHook(`'/my dir/bin/cairn' context --format claude-hook`)).toBe(true);
    expect(isCairnContextHook('CAIRN_HOME=/h cairn context --format=claude-hook --workspace w')).toBe(true);
    expect(isCairnContextHook('cairn context --format text')).toBe(false);
    expect(isCairnContextHook('notcairn context --format claude-hook')).toBe(false);
    expect(shellWords(shellLine(['/a b/c\'d', 'x']))).toEqual(['/a b/c\'d', 'x']);
  });

  it('refuses hooks of the wrong shape', () => {
    expect(() => mergeClaudeHooks('{"hooks": {"SessionStart": {}}}', [contextHook('cairn context --format claude-hook')], 'f')).toThrow(/"hooks.SessionStart" is not an array/);
  });
});

describe('replaceConfigFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-unit-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes through a symlink and keeps the mode', async () => {
    const real = path.join(dir, 'dotfiles', 'config.toml');
    await fs.mkdir(path.dirname(real));
    await fs.writeFile(real, 'old\n', { mode: 0o600 });
    const link = path.join(dir, 'config.toml');
    await fs.symlink(real, link);
    const file = await readConfigFile(link);
    await replaceConfigFile(file, 'new\n');
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(real, 'utf8')).toBe('new\n');
    expect((await fs.stat(real)).mode & 0o777).toBe(0o600);
    // Nothing else beside it: no backup, no temp file.
    expect(await fs.readdir(path.dirname(real))).toEqual(['config.toml']);
  });

  it('in a checkout, checks again before writing where the file leads: a link swapped in since the read is refused', async () => {
    const checkout = path.join(dir, 'checkout');
    const outside = path.join(dir, 'outside.json');
    await fs.mkdir(checkout);
    await fs.writeFile(outside, '{}\n');
    const target = path.join(checkout, '.mcp.json');
    await fs.writeFile(target, '{}\n');
    const within = { within: checkout, instead: 'cairn setup claude --print' };
    const file = await readConfigFile(target, within);
    expect(file.realPath).toBe(target);
    await fs.rm(target);
    await fs.symlink(outside, target);
    await expect(replaceConfigFile(file, '{"x":1}\n')).rejects.toThrow(`${target} is a symbolic link to ${outside}, which leads out of the checkout`);
    expect(await fs.readFile(outside, 'utf8')).toBe('{}\n');
    expect((await fs.readdir(dir)).sort()).toEqual(['checkout', 'outside.json']);
    expect(await fs.readdir(checkout)).toEqual(['.mcp.json']);
  });

  it('refuses when the file changed after it was read', async () => {
    const target = path.join(dir, 'a.json');
    await fs.writeFile(target, '{}');
    const file = await readConfigFile(target);
    await fs.writeFile(target, '{"x":1}');
    await expect(replaceConfigFile(file, '{"y":1}')).rejects.toThrow(/changed while Cairn was updating it/);
    expect(await fs.readFile(target, 'utf8')).toBe('{"x":1}');
  });
});

describe('projectRoot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-setup-root-'));
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  it('says a folder does not exist only when it does not; one that cannot be reached is said as it is', async () => {
    await expect(projectRoot(path.join(dir, 'nope'))).rejects.toThrow(`${path.join(dir, 'nope')} does not exist`);
    const loop = path.join(dir, 'loop');
    await fs.symlink(loop, loop);
    await expect(projectRoot(loop)).rejects.toThrow(`${loop} cannot be opened (ELOOP)`);
  });
});
