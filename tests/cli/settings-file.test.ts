// Cairn's settings file, `<home>/config.json`, is the person's too: they edit it by hand. Through the
// built CLI and the official MCP client: a file that does not parse is never written over (not by
// an agent's session starting, not by `cairn workspace add`), every command says the file, line and
// column, and agents' writes are refused meanwhile (review mode may be on in it) instead of landing
// unreviewed; one invalid value falls back alone and stays in the file; a write changes only what
// it changes, the rest of the text byte for byte.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  fs.mkdirSync(sb.home, { recursive: true, mode: 0o700 });
});
afterEach(async () => {
  await sb.cleanup();
});

const configFile = () => path.join(sb.home, 'config.json');

/** What a person has after a while: two workspaces, the global scope under review, a theme, harvest on. */
function personsConfig(): string {
  const other = path.join(sb.dir, 'other');
  fs.mkdirSync(other, { recursive: true });
  return `{
  "version": 1,
  "workspaces": [
    { "id": "checkout-1", "name": "checkout", "kind": "local", "path": "${sb.checkout}" },
    { "id": "other-2", "name": "other", "kind": "ssh", "path": "/srv/other", "host": "dev@box", "identity": null, "knownHosts": null, "projectId": null }
  ],
  "settings": {
    "theme": "dark",
    "reviewScopes": ["global"],
    "harvestWorkspaces": ["checkout-1"]
  }
}
`;
}

async function mcpClient(): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'cairn-settings-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as Array<{ text: string }>).map((c) => c.text).join('');

describe("a settings file that does not parse", () => {
  it('is never written over, says where it breaks, and refuses agents\' writes instead of letting them past review', async () => {
    // A trailing comma added by hand.
    const broken = personsConfig().replace('"harvestWorkspaces": ["checkout-1"]', '"harvestWorkspaces": ["checkout-1"],');
    fs.writeFileSync(configFile(), broken);

    // An agent's session starts (it would register its workspace) and writes to the global scope.
    const { client, stderr } = await mcpClient();
    try {
      const result = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/prefs.md', file_text: 'Use pnpm.\n' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("Cairn's settings file (config.json in Cairn's home) does not parse: line 11, column 3");
      expect(textOf(result)).not.toContain(sb.home);
      // Reading still works.
      const view = await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories' } });
      expect(view.isError).toBeFalsy();
      expect(stderr()).toContain(`${configFile()} does not parse: line 11, column 3`);
    } finally {
      await client.close();
    }
    expect(fs.existsSync(path.join(sb.roots.global, 'prefs.md'))).toBe(false);

    // A command that would change it fails, naming the file, line and column and what to do.
    const add = await runCairn(['workspace', 'add', '--name', 'dir', '--path', sb.dir, '--home', sb.home]);
    expect(add.status).toBe(1);
    expect(add.stderr).toContain(`${configFile()} does not parse: line 11, column 3: a comma before a closing bracket, which JSON does not allow`);
    expect(add.stderr).toContain('fix it by hand');
    const list = await runCairn(['workspace', 'list', '--home', sb.home]);
    expect(list.status).toBe(1);
    expect(list.stderr).toContain('does not parse: line 11, column 3');

    expect(fs.readFileSync(configFile(), 'utf8')).toBe(broken);
    expect(fs.readdirSync(sb.home).filter((n) => n.startsWith('config.json') && n !== 'config.json' && n !== 'config.json.lock')).toEqual([]);
  });

  it('once fixed, the person\'s settings are all there: review mode holds again', async () => {
    fs.writeFileSync(configFile(), personsConfig().replace('"dark",', '"dark",,'));
    expect((await runCairn(['workspace', 'list', '--home', sb.home])).status).toBe(1);
    fs.writeFileSync(configFile(), personsConfig());
    const list = await runCairn(['workspace', 'list', '--home', sb.home, '--json']);
    expect(list.status).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((w) => w.id)).toEqual(['checkout-1', 'other-2']);
    const create = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/global/prefs.md', file_text: 'Use pnpm.\n' })]);
    expect(create.stdout).toContain('review');
    expect(fs.existsSync(path.join(sb.roots.global, 'prefs.md'))).toBe(false);
  });
});

describe('an invalid value', () => {
  it('falls back alone and is reported; the rest, and the value itself, stay in the file', async () => {
    fs.writeFileSync(configFile(), personsConfig().replace('"dark"', '"purple"'));
    const extra = path.join(sb.dir, 'extra');
    fs.mkdirSync(extra);
    const add = await runCairn(['workspace', 'add', '--name', 'extra', '--path', extra, '--home', sb.home]);
    expect(add.status).toBe(0);
    expect(add.stderr).toContain('settings.theme = "purple" is not valid');
    const stored = JSON.parse(fs.readFileSync(configFile(), 'utf8')) as { workspaces: Array<{ id: string }>; settings: Record<string, unknown> };
    expect(stored.settings).toEqual({ theme: 'purple', reviewScopes: ['global'], harvestWorkspaces: ['checkout-1'] });
    expect(stored.workspaces.map((w) => w.id).slice(0, 2)).toEqual(['checkout-1', 'other-2']);
    expect(stored.workspaces).toHaveLength(3);
    // Review mode, read from the same file, still holds.
    const create = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/global/prefs.md', file_text: 'Use pnpm.\n' })]);
    expect(create.stdout).toContain('review');
    expect(fs.existsSync(path.join(sb.roots.global, 'prefs.md'))).toBe(false);
  });

  it('an invalid workspace entry is kept in the file, where it was', async () => {
    const text = personsConfig().replace('"kind": "ssh"', '"kind": "ftp"');
    fs.writeFileSync(configFile(), text);
    const extra = path.join(sb.dir, 'extra');
    fs.mkdirSync(extra);
    const add = await runCairn(['workspace', 'add', '--name', 'extra', '--path', extra, '--home', sb.home]);
    expect(add.status).toBe(0);
    expect(add.stderr).toContain('workspaces[1] is not a valid workspace');
    const stored = JSON.parse(fs.readFileSync(configFile(), 'utf8')) as { workspaces: Array<{ id: string; kind: string }> };
    expect(stored.workspaces.map((w) => `${w.id}:${w.kind}`)).toEqual(['checkout-1:local', 'other-2:ftp', expect.stringMatching(/^extra-.*:local$/)]);
  });
});

describe('a write', () => {
  it('changes only what it changes: the layout, the key order and keys Cairn does not know stay byte for byte', async () => {
    const text = '{\n\t"settings": {\n\t\t"theme": "dark",\n\t\t"myNote": "keep me"\n\t},\n\t"workspaces": [],\n\t"version": 1\n}\n';
    fs.writeFileSync(configFile(), text);
    const extra = path.join(sb.dir, 'extra');
    fs.mkdirSync(extra);
    expect((await runCairn(['workspace', 'add', '--name', 'extra', '--path', extra, '--home', sb.home])).status).toBe(0);
    const after = fs.readFileSync(configFile(), 'utf8');
    expect(after.startsWith('{\n\t"settings": {\n\t\t"theme": "dark",\n\t\t"myNote": "keep me"\n\t},\n\t"workspaces": [\n\t\t{\n\t\t\t"id": "extra-')).toBe(true);
    expect(after.endsWith('\n\t],\n\t"version": 1\n}\n')).toBe(true);
  });
});
