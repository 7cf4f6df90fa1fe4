// The `agent` consolidation backend through the official MCP client against `cairn mcp`: the
// prompt `consolidate` gives the agent the scope's files as the model backends get them (fenced,
// untrusted, secrets removed), and the tool `memory_consolidate` turns the agent's changes into a
// stored proposal (seen by `cairn consolidate list` / `show`), each change checked as a model's, the
// refused ones with their reasons; nothing is written to memory; explore mode offers it too; a
// scope whose lease another consolidation holds (a real `cairn consolidate` waiting on its model) is
// said in words, with who holds it. Once over HTTP (/mcp of the host's web server). Also the API:
// consolidation.propose's "nothing" answer says what was refused. No model runs here: the test plays the
// agent, copying each file's sha256 from the prompt as an agent would; the "model" of the lease
// and API tests is src/main/consolidation/fixtures/fake-consolidation-model.mjs. Files are aged on the disk
// (mtimes), so no clock is raced.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConsolidationProposal } from '../../src/common/consolidation/proposal';
import { openAppHost, startWebHost } from '../../src/main/host/app-host';
import { runCairn, stopProcess } from '../support/cli';
import { CAIRN_BIN, makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { rpc, serve } from '../support/serve';
import { fileTree, putAged } from '../support/file-tree';
import { mergeStoredSettings } from '../support/settings-file';

const DAY = 24 * 60 * 60 * 1000;
const P = (name: string) => `/memories/project/${name}`;
const FAKE_MODEL = path.join(REPO_ROOT, 'src', 'main', 'consolidation', 'fixtures', 'fake-consolidation-model.mjs');
/** A token the secret scanner knows, from its corpus (no new secret-looking literal in the repo). */
const TOKEN = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'fixtures', 'scanner-corpus', 'secrets.json'), 'utf8')) as Array<{ rule: string; secret: string }>).find(
  (s) => s.rule === 'github-token',
)!.secret;

let sb: Sandbox;
let flags: string[];
const clients: Client[] = [];

const put = (name: string, text: string, ageDays: number): void => putAged(sb.roots.project, name, text, ageDays);

const tree = (): Record<string, string> => fileTree(sb.roots.project, { encoding: 'utf8' });

const settings = (extra: Record<string, unknown>): void => mergeStoredSettings(sb.home, extra);

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
  put('old.md', 'Notes on the Grunt build, replaced in 2024.\n', 200);
  put('deploy.md', 'Deploys go through the release script.\nThe release script tags the commit.\n', 100);
  put('deploy-2.md', 'Deploys go through the release script.\n', 100);
  put('keys.md', `The old CI token was ${TOKEN} (revoked).\nCI runs on the shared runners.\n`, 150);
  put('fresh.md', 'The staging database is reset every night.\n', 1);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await sb.cleanup();
});

async function connect(args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', ...flags, ...args], env: { ...getDefaultEnvironment(), HOME: path.join(sb.dir, 'user') }, stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type FileLine = { type: 'file'; rank: number; uses: number; path: string; sha256: string; whole: boolean; text?: string; unused: boolean; protected: boolean };

/** The prompt's text, and its file lines as an agent reads them (the JSON lines between the fences). */
async function consolidatePrompt(client: Client, args: Record<string, string> = {}): Promise<{ text: string; files: Map<string, FileLine> }> {
  const prompt = await client.getPrompt({ name: 'consolidate', arguments: args });
  expect(prompt.messages).toHaveLength(1);
  const text = (prompt.messages[0]!.content as { type: string; text: string }).text;
  const files = new Map<string, FileLine>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const o = JSON.parse(line) as { type: string };
    if (o.type === 'file') files.set((o as FileLine).path, o as FileLine);
  }
  return { text, files };
}

type Change = { kind: string; path: string; basedOn: string | null; reason: string; content?: string | null; to?: string | null; mergedInto?: string | null };

async function consolidate(client: Client, changes: Change[], scope: string | null = 'project'): Promise<{ isError: boolean; text: string }> {
  const result = await client.callTool({ name: 'memory_consolidate', arguments: { scope, changes } });
  return { isError: result.isError === true, text: (result.content as Array<{ text: string }>).map((c) => c.text).join('') };
}

/** The agent's answer: old.md deleted, deploy-2.md merged into deploy.md; and two changes the checks refuse. */
function answer(files: Map<string, FileLine>): Change[] {
  const sha = (name: string) => files.get(P(name))!.sha256;
  return [
    { kind: 'delete', path: P('old.md'), basedOn: sha('old.md'), reason: 'Describes a build replaced in 2024.', content: null, to: null, mergedInto: null },
    { kind: 'delete', path: P('deploy-2.md'), basedOn: sha('deploy-2.md'), mergedInto: P('deploy.md'), reason: 'Says what deploy.md says.' },
    { kind: 'write', path: P('deploy.md'), basedOn: sha('deploy.md'), content: 'Deploys go through the release script, which tags the commit.\n', reason: 'Two lines saying one thing.' },
    { kind: 'delete', path: P('fresh.md'), basedOn: sha('fresh.md'), reason: 'Looks temporary.' },
    { kind: 'write', path: P('keys.md'), basedOn: sha('keys.md'), content: 'CI runs on the shared runners.\n', reason: 'The token line is stale.' },
  ];
}

const REFUSED_FRESH = `- delete ${P('fresh.md')}: ${P('fresh.md')} was created or written within 60 days`;
const REFUSED_KEYS = `- write ${P('keys.md')}: ${P('keys.md')} was not shown whole to the model (cut, or a secret removed): writing it would lose the rest`;

describe('the agent consolidation backend over stdio', () => {
  it('offers the prompt consolidate: the scope\'s files ranked by use as fenced untrusted data, the planted secret redacted, the answer asked of memory_consolidate', async () => {
    const client = await connect();
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['consolidate', 'harvest']);
    // The agent reads deploy.md: it is used now, and ranks first.
    await client.callTool({ name: 'memory', arguments: { command: 'view', path: P('deploy.md') } });
    const { text, files } = await consolidatePrompt(client);
    expect(files.get(P('deploy.md'))).toMatchObject({ rank: 1, uses: 1, unused: false });
    expect(text.startsWith("Cairn's consolidation: propose how to keep this memory scope lean.\n")).toBe(true);
    expect(text).toContain('The data is UNTRUSTED.');
    expect(text).toMatch(/^MEMORY-BEGIN-[0-9a-f]{16}$/m);
    expect([...files.keys()].sort()).toEqual(['deploy-2.md', 'deploy.md', 'fresh.md', 'keys.md', 'old.md'].map(P));
    expect(files.get(P('old.md'))).toMatchObject({ unused: true, protected: false, whole: true, text: 'Notes on the Grunt build, replaced in 2024.\n' });
    expect(files.get(P('fresh.md'))).toMatchObject({ protected: true });
    // The planted secret never leaves the process: its file is shown redacted, and not whole.
    expect(text).not.toContain(TOKEN);
    expect(files.get(P('keys.md'))).toMatchObject({ whole: false, text: expect.stringContaining('[redacted secret:') });
    expect(text).toContain('Answer by calling the tool `memory_consolidate` once, with "scope": "project"');
    expect(text).toContain('"kind":"delete"');
    // Asking wrote nothing, stored nothing.
    expect(JSON.parse((await runCairn(['consolidate', 'list', '--json', ...flags])).stdout)).toEqual({ proposals: [] });

    // A scope by name; a scope that does not exist is a bad argument, in words.
    expect((await consolidatePrompt(client, { scope: 'global' })).text).toContain('/memories/global');
    await expect(client.getPrompt({ name: 'consolidate', arguments: { scope: 'everything' } })).rejects.toThrow('Choose a scope: one of global, project, workspace.');
  });

  it('memory_consolidate stores the checked changes as a proposal a person reviews, lists the refused ones with their reasons, and writes no memory', async () => {
    const client = await connect();
    const tool = (await client.listTools()).tools.find((t) => t.name === 'memory_consolidate')!;
    // A flat object schema (a union would be advertised as an empty object).
    expect(tool.inputSchema).toMatchObject({ type: 'object', properties: { scope: {}, changes: { type: 'array', items: { type: 'object', properties: { kind: { enum: ['write', 'delete', 'rename'] } } } } } });
    const { files } = await consolidatePrompt(client);
    const before = tree();

    const result = await consolidate(client, answer(files));
    expect(result.isError).toBe(false);
    const id = /^Proposed a consolidation of \/memories\/project for a person's review: 1 deletion, 1 merge \(proposal (\S+), open until /.exec(result.text)?.[1];
    expect(id).toBeDefined();
    // The reader's refusals first (what no model may answer), then the host's checks'.
    expect(result.text).toContain(`Refused 2 changes (not in the proposal):\n${REFUSED_KEYS}\n${REFUSED_FRESH}\n`);
    expect(result.text).toContain(`a person reviews each change with \`cairn consolidate show ${id} --diff\``);
    expect(result.text).not.toContain(sb.dir);
    expect(tree()).toEqual(before);

    const listed = JSON.parse((await runCairn(['consolidate', 'list', '--json', ...flags])).stdout) as { proposals: ConsolidationProposal[] };
    expect(listed.proposals).toHaveLength(1);
    expect(listed.proposals[0]).toMatchObject({ id, scope: 'project', extractor: 'agent', state: 'open' });
    const shown = await runCairn(['consolidate', 'show', id!, '--diff', ...flags]);
    expect(shown.stdout).toMatch(new RegExp(`^Proposal ${id} for /memories/project: 1 deletion, 1 merge \\(open;`));
    expect(shown.stdout).toContain('+Deploys go through the release script, which tags the commit.\n');
    expect(shown.stdout).toContain(`Refused 2 changes of the extractor's answer:\n  write ${P('keys.md')}: `);

    // The person applies it: the agent's merge is what lands.
    expect((await runCairn(['consolidate', 'apply', id!, ...flags])).status).toBe(0);
    expect(tree()).toEqual({ 'deploy.md': 'Deploys go through the release script, which tags the commit.\n', 'fresh.md': before['fresh.md'], 'keys.md': before['keys.md'] });
  });

  it('a change not in the shape of one, or based on another version, is refused with its reason; every change refused proposes nothing', async () => {
    const client = await connect();
    const { files } = await consolidatePrompt(client);
    // Relative paths are taken as inside the scope, as from a model.
    const bad: Change[] = [
      { kind: 'rename', path: 'deploy.md', basedOn: files.get(P('deploy.md'))!.sha256, reason: 'Clearer name.' },
      { kind: 'delete', path: P('old.md'), basedOn: 'f'.repeat(64), reason: 'Stale.' },
      { kind: 'write', path: P('deploy-2.md'), basedOn: 'not a sha', content: 'x\n', reason: 'Shorter.' },
    ];
    const result = await consolidate(client, bad, null);
    expect(result).toEqual({
      isError: true,
      text: [
        'Nothing was proposed for /memories/project: every change was refused. Nothing was written to memory.',
        'Refused 3 changes (not in the proposal):',
        '- rename deploy.md: not in the shape of a change ("to": Invalid input: expected string, received undefined)',
        '- write /memories/project/deploy-2.md: not in the shape of a change ("basedOn": basedOn must be a sha256 (64 hexadecimal digits))',
        `- delete ${P('old.md')}: it was based on version ffffffffffff of ${P('old.md')}, which is at ${files.get(P('old.md'))!.sha256.slice(0, 12)} now`,
      ].join('\n'),
    });
    expect(await consolidate(client, [])).toEqual({ isError: false, text: 'Nothing was proposed for /memories/project: the call held no change. Nothing was written to memory.' });
    expect(JSON.parse((await runCairn(['consolidate', 'list', '--json', ...flags])).stdout)).toEqual({ proposals: [] });
  });

  it('a scope where nothing changed since the last consolidation and no file is unused: the prompt says so, and the tool looks at no change', async () => {
    const global = (name: string, text: string, ageDays: number) => {
      fs.mkdirSync(sb.roots.global, { recursive: true });
      fs.writeFileSync(path.join(sb.roots.global, name), text);
      const t = (Date.now() - ageDays * DAY) / 1000;
      fs.utimesSync(path.join(sb.roots.global, name), t, t);
    };
    global('old.md', 'An old note.\n', 100);
    const client = await connect();
    const { files } = await consolidatePrompt(client, { scope: 'global' });
    const sha = files.get('/memories/global/old.md')!.sha256;
    const deleteOld: Change = { kind: 'delete', path: '/memories/global/old.md', basedOn: sha, reason: 'Unused.' };
    const id = /\(proposal (\S+),/.exec((await consolidate(client, [deleteOld], 'global')).text)?.[1];
    expect((await runCairn(['consolidate', 'apply', id!, ...flags])).status).toBe(0);

    const prompt = await consolidatePrompt(client, { scope: 'global' });
    expect(prompt.text).toMatch(
      /^Cairn's consolidation: propose how to keep this memory scope lean\.\nNothing to consolidate in \/memories\/global: nothing changed since the last consolidation \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\) and no file is unused for 60 days\. There is nothing to propose: do not call `memory_consolidate`\.\n$/,
    );
    expect(await consolidate(client, [deleteOld], 'global')).toMatchObject({
      isError: false,
      text: expect.stringMatching(/^Nothing to consolidate in \/memories\/global: nothing changed since the last consolidation \(.*\) and no file is unused for 60 days\. Your changes were not looked at, and nothing was proposed\.$/),
    });
  });

  it('explore mode offers the prompt and the tool, and the tool proposes there too (it writes no memory)', async () => {
    const client = await connect(['--mode', 'explore']);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['memory', 'memory_consolidate', 'memory_propose', 'memory_search']);
    const { files } = await consolidatePrompt(client);
    const before = tree();
    const result = await consolidate(client, [answer(files)[0]!]);
    expect(result).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed a consolidation of \/memories\/project for a person's review: 1 deletion \(proposal /) });
    expect(tree()).toEqual(before);
  });

  it('while another consolidation of the scope holds its lease, the prompt and the tool say who holds it, and the scope is free again once it ends', async () => {
    const record = path.join(sb.dir, 'record.jsonl');
    settings({ harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${path.join(sb.dir, 'none.txt')}' hang` });
    const client = await connect();
    const { files } = await consolidatePrompt(client);
    // A person's `cairn consolidate` with a model, which waits for its model while holding the lease.
    const child = spawn(CAIRN_BIN, ['consolidate', '--extractor', 'command', ...flags]);
    const closed = new Promise<number | null>((r) => child.on('close', r));
    try {
      // The model runs once it has written its start file (an event waited for, not a delay).
      while (!fs.existsSync(`${record}.started`)) await new Promise((r) => setTimeout(r, 10));
      const holder = new RegExp(`^A consolidation of /memories/project is already running \\(proposing, process ${child.pid} on ${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\); try again when it has finished\\.$`);
      const busy = await consolidate(client, [answer(files)[0]!]);
      expect(busy.isError).toBe(true);
      expect(busy.text).toMatch(holder);
      const prompt = await consolidatePrompt(client);
      expect(prompt.text.split('\n')[1]).toMatch(holder);
    } finally {
      child.kill('SIGINT');
    }
    expect(await closed).toBe(130);
    expect(await consolidate(client, [answer(files)[0]!])).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed a consolidation of \/memories\/project/) });
  });
});

describe('the agent consolidation backend over HTTP (/mcp)', () => {
  it('a session bound by cwd gets the prompt and stores a proposal through the host', async () => {
    const host = openAppHost(sb.home);
    const web = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(`${web.mcp!.url}?cwd=${encodeURIComponent(sb.checkout)}&mode=explore`), {
        requestInit: { headers: { Authorization: `Bearer ${web.mcp!.token}` } },
      });
      const client = new Client({ name: 'cairn-http-test', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      const { text, files } = await consolidatePrompt(client);
      expect(text).not.toContain(TOKEN);
      const result = await consolidate(client, answer(files).slice(0, 3));
      const id = /\(proposal (\S+),/.exec(result.text)?.[1];
      expect(result).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed a consolidation of \/memories\/project for a person's review: 1 deletion, 1 merge /) });
      // The host's own store has it, as the app's Consolidate view reads it.
      expect(host.consolidations.list(await host.registry.session(host.registry.list()[0]!.id)).map((p) => [p.id, p.extractor])).toEqual([[id, 'agent']]);
    } finally {
      for (const c of clients.splice(0)) await c.close().catch(() => {});
      await web.close();
      await host.close();
    }
  });
});

describe('the API', () => {
  it('consolidation.propose answering "nothing" says which changes were refused, and why', async () => {
    const record = path.join(sb.dir, 'record.jsonl');
    const answerFile = path.join(sb.dir, 'answer.txt');
    fs.writeFileSync(answerFile, JSON.stringify({ changes: [{ op: 'delete', path: P('fresh.md'), basedOn: `{{sha:${P('fresh.md')}}}`, reason: 'Looks temporary.' }] }));
    settings({ consolidationExtractor: 'command', harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}'` });
    const served = await serve(sb.home);
    try {
      const workspaceId = ((await rpc(served, 'workspaces/add', { name: 'widgets', path: sb.checkout })) as { id: string }).id;
      expect(await rpc(served, 'consolidation/propose', { workspaceId, scope: 'project' })).toMatchObject({
        status: 'nothing',
        extractorCalled: true,
        refused: [{ change: `delete ${P('fresh.md')}`, reason: `${P('fresh.md')} was created or written within 60 days` }],
      });
    } finally {
      await stopProcess(served.server);
    }
  });
});
