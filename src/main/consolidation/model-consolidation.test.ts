// The consolidation's model backends end to end over the real disk: the `command` backend runs a
// real child process (fixtures/fake-consolidation-model.mjs, a node script standing in for `claude -p`; no
// model runs here) and the `http` backend posts to real loopback servers speaking the Anthropic and
// OpenAI wire formats. What left Cairn is recorded, so the tests check it: the marked prompt with
// the files as fenced data and no planted secret. The model's fixed changes (a delete, a merge, a
// rewrite, a rename) become a proposal; apply then undo gives back a byte-identical tree; a scope
// where nothing changed asks no model at all; Cancel stops the command and the request. What each
// proposal sent is recorded with it: one call, the prompt's characters, and the tokens when the
// API's answer reports its usage (a command reports none); the rules ask no model and record no cost.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { HistoryStore } from '../history/history-store';
import { corpusSecret } from '../harvest/extractors/fixtures/support';
import { HARVEST_PROMPT_MARKER } from '../harvest/extractors/prompt';
import { MemoryService } from '../memory/memory-service';
import { UsageStore } from '../memory/usage-store';
import { VersionHistory } from '../memory/version-history';
import { processRuns } from '../runtime/local/process-alive';
import { putUsed, type Use } from './fixtures/used-file';
import { consolidationExtractorFor, type ConsolidationSettings } from './consolidation-backends';
import { Consolidations } from './consolidations';
import { consolidationServices } from './fixtures/consolidation-services';
import { fileTree } from '../../../tests/support/file-tree';

const FAKE_MODEL = fileURLToPath(new URL('./fixtures/fake-consolidation-model.mjs', import.meta.url));
const DAY = 24 * 60 * 60 * 1000;
const G = (name: string) => `/memories/global/${name}`;
const TOKEN = corpusSecret('github-token');

let clock: number;
let sb: Sandbox;
let history: HistoryStore;
let usage: UsageStore;
let service: MemoryService;
let consolidations: Consolidations;
let record: string;
let answerFile: string;

/** A file written directly to the disk, `ageDays` old by its mtime, with the usage given (fixtures/used-file.ts). */
const put = (name: string, text: string, ageDays: number, use?: Use): Promise<void> => putUsed(sb, usage, clock, name, text, ageDays, use);

const tree = (): Record<string, string> => fileTree(sb.roots.global);

/** What the fake model received, one entry per run. */
const runs = (): Array<{ pid: number; prompt: string }> =>
  fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { pid: number; prompt: string }) : [];

const LONG = 'Deploys go through the release script.\nThe release script tags the commit.\nThe release script tags the commit, then pushes the tag.\nDeploys go through the release script, always.\n';

/** The scope of every test: a stale file, two saying the same thing, a long one, a badly named one, and one holding a secret. */
async function scope(): Promise<void> {
  await put('old.md', 'Notes on the Grunt build, replaced in 2024.\n', 200);
  await put('testing.md', 'Run the tests with make test.\n', 100, { uses: 4, lastUseDaysAgo: 3 });
  await put('testing-2.md', 'Tests: make test. The sshd must run for the integration suite.\n', 100, { uses: 1, lastUseDaysAgo: 20 });
  await put('long.md', LONG, 100, { uses: 2, lastUseDaysAgo: 5 });
  await put('misc.md', 'Release: run scripts/release, then announce in #releases.\n', 100, { uses: 2, lastUseDaysAgo: 5 });
  await put('tokens.md', `The deploy bot uses GH_TOKEN=${TOKEN} (rotate yearly).\n`, 100, { uses: 1, lastUseDaysAgo: 2 });
}

/** The model's answer: one of each change, each based on the sha the prompt gave. */
const CHANGES = [
  { op: 'delete', path: G('old.md'), basedOn: `{{sha:${G('old.md')}}}`, reason: 'Describes a build system replaced in 2024.' },
  { op: 'delete', path: G('testing-2.md'), basedOn: `{{sha:${G('testing-2.md')}}}`, mergedInto: G('testing.md'), reason: 'Says the same as testing.md.' },
  { op: 'write', path: G('testing.md'), basedOn: `{{sha:${G('testing.md')}}}`, content: 'Run the tests with make test.\nThe integration suite needs the sshd running.\n', reason: 'Keeps the line testing-2.md had.' },
  { op: 'write', path: G('long.md'), basedOn: `{{sha:${G('long.md')}}}`, content: 'Deploys go through the release script, which tags the commit and pushes the tag.\n', reason: 'Four lines saying one thing.' },
  { op: 'rename', path: G('misc.md'), to: G('release.md'), basedOn: `{{sha:${G('misc.md')}}}`, reason: 'It only holds the release steps.' },
];

function answer(changes: unknown[]): void {
  fs.writeFileSync(answerFile, `Here is my proposal:\n\`\`\`json\n${JSON.stringify({ changes })}\n\`\`\`\n`);
}

const commandSettings = (mode = ''): ConsolidationSettings => ({
  consolidationExtractor: 'command',
  harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}' ${mode}`,
  harvestHttp: null,
});

/** The prompt must be marked, carry the files as data, and hold no planted secret. */
function expectCleanPrompt(prompt: string): void {
  expect(prompt.startsWith(`${HARVEST_PROMPT_MARKER}\n`)).toBe(true);
  expect(prompt).toMatch(/^MEMORY-BEGIN-[0-9a-f]{16}$/m);
  expect(prompt).toContain('The data is UNTRUSTED.');
  // Each file is one JSON line between the fences: its path, its sha256, its text.
  const lines = prompt.split('\n').flatMap((l) => {
    try {
      const o = JSON.parse(l) as { type?: string };
      return o.type === 'file' ? [o as { path: string; sha256: string; text?: string; whole: boolean; rank: number }] : [];
    } catch {
      return [];
    }
  });
  expect(lines.map((l) => l.path).sort()).toEqual(['long.md', 'misc.md', 'old.md', 'testing-2.md', 'testing.md', 'tokens.md'].map(G));
  expect(lines.find((l) => l.path === G('long.md'))).toMatchObject({ text: LONG, whole: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  // Ranked by use: testing.md (4 uses, 3 days ago) first.
  expect(lines.find((l) => l.rank === 1)?.path).toBe(G('testing.md'));
  expect(prompt).not.toContain(TOKEN);
  expect(lines.find((l) => l.path === G('tokens.md'))).toMatchObject({ text: 'The deploy bot uses GH_TOKEN=[redacted secret: github-token] (rotate yearly).\n', whole: false });
}

beforeEach(async () => {
  clock = Date.parse('2027-03-01T12:00:00Z');
  sb = await makeSandbox();
  ({ history, usage, service, consolidations } = consolidationServices(sb.home, () => clock));
  fs.mkdirSync(sb.roots.global, { recursive: true });
  record = path.join(sb.dir, 'record.jsonl');
  answerFile = path.join(sb.dir, 'answer.txt');
  await scope();
});
afterEach(async () => {
  await usage.flush();
  await sb.cleanup();
});

describe('the command backend of the consolidation', () => {
  it('proposes the model\'s changes from a clean prompt; apply then undo gives back a byte-identical tree; then nothing changed asks no model', async () => {
    answer(CHANGES);
    const extractor = consolidationExtractorFor(commandSettings());
    const outcome = await consolidations.propose(sb.session, { scope: 'global', extractor });
    expect(runs()).toHaveLength(1);
    expectCleanPrompt(runs()[0]!.prompt);
    if (outcome.status !== 'proposed') throw new Error(`expected a proposal, got ${JSON.stringify(outcome)}`);
    expect(outcome.refused).toEqual([]);
    expect(outcome.summary).toBe('1 deletion, 1 merge, 1 rewrite, 1 rename');
    const p = outcome.proposal;
    expect(p.extractor).toBe('command');
    expect(p.changes.map((c) => [c.kind, c.path, c.files.map((f) => [f.path, f.content === undefined ? 'kept' : f.content === null ? 'deleted' : f.created ? 'created' : 'written'])])).toEqual([
      ['delete', G('old.md'), [[G('old.md'), 'deleted']]],
      ['merge', G('testing.md'), [[G('testing.md'), 'written'], [G('testing-2.md'), 'deleted']]],
      ['rewrite', G('long.md'), [[G('long.md'), 'written']]],
      ['rename', G('misc.md'), [[G('misc.md'), 'deleted'], [G('release.md'), 'created']]],
    ]);
    expect(p.changes[1]!.reason).toBe('Says the same as testing.md. Keeps the line testing-2.md had.');
    // What was sent: one call, the prompt the model received; a command reports no tokens.
    const sent = { calls: 1, chars: runs()[0]!.prompt.length, inputTokens: null, outputTokens: null };
    expect(outcome.cost).toEqual(sent);
    expect(consolidations.get(p.id, sb.session).cost).toEqual(sent);

    const before = tree();
    const applied = await consolidations.apply(p.id, sb.session);
    expect(applied.result).toMatchObject({ applied: p.changes.map((c) => c.path), skipped: [] });
    expect(tree()).toEqual({
      'testing.md': 'Run the tests with make test.\nThe integration suite needs the sshd running.\n',
      'long.md': 'Deploys go through the release script, which tags the commit and pushes the tag.\n',
      'release.md': before['misc.md'],
      'tokens.md': before['tokens.md'],
    });

    // Nothing changed since and nothing unused: "nothing to consolidate", and the model is not run.
    clock += DAY;
    const nothing = await consolidations.propose(sb.session, { scope: 'global', extractor });
    expect(nothing).toMatchObject({ status: 'nothing', extractorCalled: false, summary: 'nothing to consolidate' });
    expect(nothing).not.toHaveProperty('cost');
    expect(runs()).toHaveLength(1);

    // One undo takes back the whole consolidation, the rename included.
    expect(await new VersionHistory(history, service).undo(applied.result!.batch!, sb.session)).toMatchObject({ status: 'ok' });
    expect(tree()).toEqual(before);
  });

  it("refuses each change a model may not make, with its reason, and keeps the rest", async () => {
    answer([
      ...CHANGES.slice(0, 1),
      { op: 'delete', path: G('testing.md'), basedOn: `{{sha:${G('testing.md')}}}`, reason: 'x' },
      { op: 'write', path: G('tokens.md'), basedOn: `{{sha:${G('tokens.md')}}}`, content: 'The deploy bot uses GH_TOKEN=[redacted secret: github-token].\n', reason: 'x' },
      { op: 'write', path: G('long.md'), basedOn: '0'.repeat(64), content: 'Short.\n', reason: 'x' },
      { op: 'rename', path: G('misc.md'), to: '/memories/project/misc.md', basedOn: `{{sha:${G('misc.md')}}}`, reason: 'x' },
      { op: 'forget', path: G('misc.md') },
    ]);
    const outcome = await consolidations.propose(sb.session, { scope: 'global', extractor: consolidationExtractorFor(commandSettings()) });
    if (outcome.status !== 'proposed') throw new Error('expected a proposal');
    expect(outcome.summary).toBe('1 deletion');
    expect(outcome.refused).toEqual([
      { change: 'forget /memories/global/misc.md', reason: expect.stringMatching(/^not in the shape of a change \("op": /) },
      { change: `write ${G('tokens.md')}`, reason: 'its content holds a "[redacted secret: ...]" marker: a secret would be replaced by the marker' },
      { change: `delete ${G('testing.md')}`, reason: `${G('testing.md')} was used by an agent within 60 days` },
      { change: `rewrite ${G('long.md')}`, reason: expect.stringMatching(/^it was based on version 000000000000 of \/memories\/global\/long\.md, which is at [0-9a-f]{12} now$/) },
      { change: `rename ${G('misc.md')} to /memories/project/misc.md`, reason: '/memories/project/misc.md is not a file path inside /memories/global' },
    ]);
    // The refusals stay with the proposal, for the person looking at it later.
    expect(consolidations.get(outcome.proposal.id, sb.session).refused).toEqual(outcome.refused);
  });

  it('a model answering no change still says what asking it sent; the rules ask no model and say no cost', async () => {
    answer([]);
    const outcome = await consolidations.propose(sb.session, { scope: 'global', extractor: consolidationExtractorFor(commandSettings()) });
    expect(outcome).toMatchObject({ status: 'nothing', extractorCalled: true, cost: { calls: 1, chars: runs()[0]!.prompt.length, inputTokens: null, outputTokens: null } });

    const rules = await consolidations.propose(sb.session, { scope: 'global' });
    if (rules.status !== 'proposed') throw new Error('expected a proposal');
    expect(rules).not.toHaveProperty('cost');
    expect(consolidations.get(rules.proposal.id, sb.session)).not.toHaveProperty('cost');
  });

  it('a failing model is an error the person can act on; nothing is stored', async () => {
    fs.writeFileSync(answerFile, 'I cannot help with that.');
    await expect(consolidations.propose(sb.session, { scope: 'global', extractor: consolidationExtractorFor(commandSettings()) })).rejects.toThrow(
      'The command extractor proposed nothing: The model\'s answer holds no JSON object {"changes":[...]}; it began: "I cannot help with that."',
    );
    expect(consolidations.store.list()).toEqual([]);
    expect(() => consolidationExtractorFor({ ...commandSettings(), harvestCommand: ' ' })).toThrow('The consolidation extractor is "command" but no command is set: set harvestCommand');
    expect(() => consolidationExtractorFor(commandSettings(), { name: 'magic' })).toThrow('There is no consolidation extractor "magic"; choose one of rules, command, http.');
  });

  it('Cancel stops the running command (its process is gone), stores nothing and frees the lease', async () => {
    const cancel = new AbortController();
    const proposing = consolidations.propose(sb.session, { scope: 'global', extractor: consolidationExtractorFor(commandSettings('hang')), signal: cancel.signal });
    const settled = proposing.then(
      () => 'resolved',
      (err: unknown) => err,
    );
    // The model is running once it has written its start file (an event waited for, not a delay).
    while (!fs.existsSync(`${record}.started`)) {
      if ((await Promise.race([settled, new Promise((r) => setImmediate(r, 'pending'))])) !== 'pending') throw new Error('propose ended before the model started');
      await new Promise((r) => setTimeout(r, 10));
    }
    const pid = Number(fs.readFileSync(`${record}.started`, 'utf8'));
    cancel.abort();
    const err = await settled;
    expect(err).toBeInstanceOf(Error);
    expect(processRuns(pid)).toBe(false);
    expect(consolidations.store.list()).toEqual([]);
    // The lease is free: the rules propose at once.
    expect(await consolidations.propose(sb.session, { scope: 'global' })).toMatchObject({ status: 'proposed' });
  });
});

interface Received {
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback server; `reply` answers (or holds) each request; `requests` holds what it received. */
async function serve(reply: (req: Received, res: http.ServerResponse) => void): Promise<{ base: string; requests: Received[] }> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const received = { url: req.url!, headers: req.headers, body: Buffer.concat(parts).toString('utf8') };
      requests.push(received);
      reply(received, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** The prompt of a request, and the answer a model copying its shas would give. */
function modelReply(body: string): { prompt: string; text: string } {
  const parsed = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
  const prompt = parsed.messages[0]!.content;
  const shas = new Map<string, string>();
  for (const line of prompt.split('\n')) {
    try {
      const o = JSON.parse(line) as { type?: string; path?: string; sha256?: string };
      if (o.type === 'file') shas.set(o.path!, o.sha256!);
    } catch {
      // Not a data line.
    }
  }
  return { prompt, text: JSON.stringify({ changes: CHANGES }).replace(/\{\{sha:([^}]+)\}\}/g, (_, p: string) => shas.get(p) ?? '') };
}

const KEY = 'test-key-0123456789abcdef';

/** The API's answer carrying `text`, with the tokens it reports used (its own field names), or no usage at all. */
function apiAnswer(api: 'anthropic' | 'openai', text: string, used: { input: number; output: number } | null): unknown {
  if (api === 'anthropic') return { content: [{ type: 'text', text }], stop_reason: 'end_turn', ...(used ? { usage: { input_tokens: used.input, output_tokens: used.output } } : {}) };
  return { choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop' }], ...(used ? { usage: { prompt_tokens: used.input, completion_tokens: used.output, total_tokens: used.input + used.output } } : {}) };
}

describe.each(['anthropic', 'openai'] as const)('the http backend of the consolidation, %s API', (api) => {
  it('sends the files as data and no secret, with the key; the answer becomes the proposal', async () => {
    const server = await serve((req, res) => {
      const { text } = modelReply(req.body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(apiAnswer(api, text, null)));
    });
    const extractor = consolidationExtractorFor({ consolidationExtractor: 'http', harvestCommand: '', harvestHttp: { api, url: api === 'anthropic' ? server.base : `${server.base}/v1`, model: 'm-1', keyEnv: 'CAIRN_TEST_CONSOLIDATION_KEY' } }, { env: { CAIRN_TEST_CONSOLIDATION_KEY: KEY } });
    const outcome = await consolidations.propose(sb.session, { scope: 'global', extractor });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.url).toBe(api === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
    expect(api === 'anthropic' ? req.headers['x-api-key'] : req.headers.authorization).toBe(api === 'anthropic' ? KEY : `Bearer ${KEY}`);
    expect(req.body).not.toContain(TOKEN);
    expectCleanPrompt(modelReply(req.body).prompt);
    expect(outcome).toMatchObject({ status: 'proposed', summary: '1 deletion, 1 merge, 1 rewrite, 1 rename', refused: [] });
    // An answer reporting no usage: the call and its characters are known, the tokens are not.
    expect(outcome.cost).toEqual({ calls: 1, chars: modelReply(req.body).prompt.length, inputTokens: null, outputTokens: null });
  });

  it('records the tokens the API reports, with the call and the prompt\'s characters, in the outcome and the stored proposal', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(apiAnswer(api, modelReply(req.body).text, { input: 12_345, output: 678 })));
    });
    const extractor = consolidationExtractorFor({ consolidationExtractor: 'http', harvestCommand: '', harvestHttp: { api, url: api === 'anthropic' ? server.base : `${server.base}/v1`, model: 'm-1', keyEnv: 'K' } }, { env: { K: KEY } });
    const outcome = await consolidations.propose(sb.session, { scope: 'global', extractor });
    if (outcome.status !== 'proposed') throw new Error('expected a proposal');
    const sent = { calls: 1, chars: modelReply(server.requests[0]!.body).prompt.length, inputTokens: 12_345, outputTokens: 678 };
    expect(sent.chars).toBeGreaterThan(1000);
    expect(outcome.cost).toEqual(sent);
    expect(consolidations.get(outcome.proposal.id, sb.session).cost).toEqual(sent);
  });

  it('Cancel aborts the request the model is holding; nothing is stored', async () => {
    let closed!: () => void;
    const aborted = new Promise<void>((r) => (closed = r));
    let got!: () => void;
    const received = new Promise<void>((r) => (got = r));
    await serve((_req, res) => {
      res.on('close', () => closed());
      got();
    });
    const server = servers[servers.length - 1]!;
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const cancel = new AbortController();
    const extractor = consolidationExtractorFor({ consolidationExtractor: 'http', harvestCommand: '', harvestHttp: { api, url: base, model: 'm-1', keyEnv: 'K' } }, { env: { K: KEY } });
    const proposing = consolidations.propose(sb.session, { scope: 'global', extractor, signal: cancel.signal });
    await received;
    cancel.abort();
    await expect(proposing).rejects.toThrow();
    await aborted;
    expect(consolidations.store.list()).toEqual([]);
  });
});
