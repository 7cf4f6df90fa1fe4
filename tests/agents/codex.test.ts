// Codex (the published @openai/codex, pinned in tests/agents/clis) drives Cairn for real: `cairn
// setup codex` writes its config.toml and hooks.json in a throwaway CODEX_HOME, `codex exec` runs
// against the scripted model (OpenAI Responses wire, tests/support/model-server/openai-responses.ts),
// and the tests assert on what Codex sent the model, byte for byte, and on what it wrote.
//
// Two runs of Codex: one as setup leaves it (approval mode "writes", hooks not yet trusted), one as
// a person who let Codex write memory without asking ("approve") and trusted Cairn's hooks. Codex
// keeps a hook's trust as a hash in the person's config that only its /hooks screen writes; the
// second run stands for that trust with `--dangerously-bypass-hook-trust` (Codex's own flag for it).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCodexRollout } from '../../src/main/harvest/codex-rollout';
import { agentCli, pinnedVersion } from '../support/agent-clis';
import { runCairn } from '../support/cli';
import { inOrder, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server/model-server';
import { openaiResponsesWire } from '../support/model-server/openai-responses';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { addProvider, codexEnv, codexExec, rolloutFiles, type CodexPlace, type CodexResult } from './codex-run';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/agents/codex');
const NAMESPACE = 'mcp__cairn';
/** The seeded memory a prompt about deploying brings, and its words only it has. */
const DEPLOY_MEMORY = '---\ndescription: How the widgets service is deployed\n---\nDeploy widgets with `make ship-widgets` from a clean main; never on Fridays.\n';
const DEPLOY_PROMPT = 'How do we deploy the widgets service?';

type Item = Record<string, unknown>;

let sb: Sandbox;
let place: CodexPlace;
let configAfterSetup: string;
let hooksAfterSetup: string;

/** Cairn's tools as its MCP server lists them to any client, and the schema of the memory tool's view_range. */
async function cairnTools(): Promise<{ names: string[]; viewRange: unknown[] }> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const memory = tools.find((t) => t.name === 'memory');
    return { names: tools.map((t) => t.name).sort(), viewRange: (memory?.inputSchema.properties?.view_range as { anyOf: unknown[] } | undefined)?.anyOf ?? [] };
  } finally {
    await client.close();
  }
}

/** The input items of a request. */
const inputOf = (r: RecordedRequest) => (r.json as { input: Item[] }).input;
/** Cairn's namespace tool in a request, with its tools' names. */
function cairnNamespace(r: RecordedRequest): { description: string; tools: string[] } | undefined {
  const ns = (r.json as { tools: Item[] }).tools.find((t) => t.type === 'namespace' && t.name === NAMESPACE);
  return ns && { description: String(ns.description), tools: (ns.tools as Item[]).map((t) => String(t.name)).sort() };
}
/** The text of a function_call_output item (a string, or parts). */
function outputText(item: Item): string {
  const out = item.output;
  if (typeof out === 'string') return out;
  return (out as Item[]).map((p) => String(p.text)).join('\n');
}
/** A recorded file without this machine's paths: the sandbox and the checkout of Cairn. */
const anonymise = (text: string) => text.split(sb.dir).join('/tmp/sandbox').split(path.dirname(CAIRN_BIN)).join('/opt/cairn/bin');
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

interface Run {
  readonly server: ModelServer;
  readonly result: CodexResult;
}

/** One `codex exec` with the provider pointed at a fresh scripted server; the config as it is then. */
async function run(script: Parameters<typeof startModelServer>[1], prompt: string, args: string[] = []): Promise<Run> {
  const server = await startModelServer(openaiResponsesWire, script);
  const config = path.join(place.codexHome, 'config.toml');
  const before = await fs.readFile(config, 'utf8');
  await addProvider(place.codexHome, server.url);
  try {
    const result = await codexExec({ place, cwd: sb.checkout, prompt, args, timeoutMs: 90_000 });
    expect(result.status, result.stderr).toBe(0);
    return { server, result };
  } finally {
    await fs.writeFile(config, before);
    await server.close();
  }
}

beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  place = { home: path.join(sb.dir, 'userhome'), codexHome: path.join(sb.dir, 'userhome', '.codex') };
  await fs.mkdir(place.home, { recursive: true });
  // Codex hands the model a checkout's AGENTS.md as user-role text the person did not type.
  await fs.writeFile(path.join(sb.checkout, 'AGENTS.md'), 'Run the tests with make test.\n');
  expect((await sb.run({ command: 'create', path: '/memories/project/deploy.md', file_text: DEPLOY_MEMORY })).ok).toBe(true);
  const setup = await runCairn(['setup', 'codex', '--home', sb.home], { env: { HOME: place.home, CODEX_HOME: place.codexHome, CAIRN_HOME: '' }, cwd: sb.checkout });
  expect(setup.status, setup.stderr).toBe(0);
  configAfterSetup = await fs.readFile(path.join(place.codexHome, 'config.toml'), 'utf8');
  hooksAfterSetup = await fs.readFile(path.join(place.codexHome, 'hooks.json'), 'utf8');
}, 60_000);

afterAll(async () => {
  await sb?.cleanup();
});

describe(`Codex ${pinnedVersion('codex')}, as cairn setup codex leaves it`, () => {
  let first: Run;
  beforeAll(async () => {
    first = await run(
      inOrder(
        { toolCalls: [{ name: `${NAMESPACE}__memory_search`, input: { query: 'deploy widgets' } }] },
        { toolCalls: [{ name: `${NAMESPACE}__memory`, input: { command: 'view', path: '/memories' } }] },
        { text: 'Done.' },
      ),
      DEPLOY_PROMPT,
      // Every key setup wrote is one this Codex knows.
      ['--strict-config'],
    );
  }, 120_000);

  it('lists Cairn\'s server as setup wrote it, enabled', async () => {
    const listed = await new Promise<string>((resolve, reject) => {
      execFile(agentCli('codex'), ['mcp', 'list', '--json'], { env: codexEnv(place), cwd: sb.checkout }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(JSON.parse(listed)).toEqual([expect.objectContaining({ name: 'cairn', enabled: true, transport: expect.objectContaining({ type: 'stdio', command: CAIRN_BIN, args: ['mcp'] }) })]);
  });

  it('offers the model every tool Cairn advertises, and drops none', async () => {
    const advertised = await cairnTools();
    expect(advertised.names).toContain('memory');
    for (const request of first.server.modelCalls()) expect(cairnNamespace(request)?.tools).toEqual(advertised.names);
    expect(first.result.stderr).not.toContain('Skipping MCP tool');
    // view_range as Codex passed it on: two integers, a schema every client reads (not a tuple's `items: [...]`).
    const [request] = first.server.modelCalls();
    const ns = (request!.json as { tools: Item[] }).tools.find((t) => t.name === NAMESPACE) as { tools: Array<{ name: string; parameters: { properties: Record<string, unknown> } }> };
    const viewRange = ns.tools.find((t) => t.name === 'memory')!.parameters.properties.view_range as { anyOf: Item[] };
    // (Codex keeps minItems and drops maxItems; Cairn advertises both, for the clients that read them.)
    expect(viewRange.anyOf).toContainEqual(expect.objectContaining({ type: 'array', items: { type: 'integer' }, minItems: 2 }));
    expect(advertised.viewRange).toContainEqual(expect.objectContaining({ type: 'array', minItems: 2, maxItems: 2, items: expect.objectContaining({ type: 'integer' }) }));
  });

  it('hands the memory index and the hot set to the first request exactly once, without a tool call', () => {
    const [request] = first.server.modelCalls();
    expect(inputOf(request!).some((i) => i.type === 'function_call')).toBe(false);
    const ns = cairnNamespace(request!)!;
    expect(ns.description).toContain('<memory_index>');
    expect(ns.description).toContain('/memories/project/deploy.md');
    expect(ns.description).toContain('<hot_memories>');
    expect(count(request!.body, '<memory_index>')).toBe(1);
    expect(count(request!.body, '<hot_memories>')).toBe(1);
  });

  it('runs the read-only memory_search without asking; the memory tool is refused by `codex exec`, which cannot ask', () => {
    const calls = first.server.modelCalls();
    const outputs = inputOf(calls[calls.length - 1]!).filter((i) => i.type === 'function_call_output').map(outputText);
    expect(outputs).toHaveLength(2);
    expect(outputs[0]).toContain('/memories/project/deploy.md');
    expect(outputs[1]).toContain('MCP tool call requires approval, but approval policy is never');
  });

  it('runs no hook Codex has not been told to trust', () => {
    const [request] = first.server.modelCalls();
    expect(request!.body).not.toContain('make ship-widgets');
  });

  it('setup wrote Codex\'s config as recorded (fixture), hooks in hooks.json', async () => {
    expect(anonymise(configAfterSetup)).toBe(await fs.readFile(path.join(FIXTURES, 'config.toml'), 'utf8'));
    expect(anonymise(hooksAfterSetup)).toBe(await fs.readFile(path.join(FIXTURES, 'hooks.json'), 'utf8'));
    expect(parseToml(configAfterSetup)).toMatchObject({ mcp_servers: { cairn: { required: true, default_tools_approval_mode: 'writes' } } });
  });
});

describe(`Codex ${pinnedVersion('codex')}, memory writes approved and Cairn's hooks trusted by the person`, () => {
  let second: Run;
  let rollout: string;
  let rolloutPath: string;
  const prefs = '/memories/global/preferences.md';
  beforeAll(async () => {
    const config = path.join(place.codexHome, 'config.toml');
    await fs.writeFile(config, configAfterSetup.replace('default_tools_approval_mode = "writes"', 'default_tools_approval_mode = "approve"'));
    // Harvest on for this checkout's workspace: Codex's SessionEnd hook then queues the session.
    await fs.writeFile(path.join(sb.home, 'config.json'), `${JSON.stringify({ version: 1, workspaces: [], settings: { harvestWorkspaces: [sb.session.workspaceId] } })}\n`);
    const before = new Set(await rolloutFiles(place.codexHome));
    second = await run(
      inOrder(
        { text: 'Noting that.', toolCalls: [{ name: `${NAMESPACE}__memory`, input: { command: 'create', path: prefs, file_text: 'Answers in British English.\nTabs, not spaces.\n' } }] },
        { toolCalls: [{ name: `${NAMESPACE}__memory`, input: { command: 'str_replace', path: prefs, old_str: 'Tabs, not spaces.', new_str: 'Two spaces, never tabs.' } }] },
        // A strict-mode model sends every field, null where unused.
        { toolCalls: [{ name: `${NAMESPACE}__memory`, input: { command: 'view', path: prefs, view_range: [1, 2], file_text: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null } }] },
        { text: 'Deploy with make ship-widgets.' },
      ),
      DEPLOY_PROMPT,
      ['--dangerously-bypass-hook-trust'],
    );
    const made = (await rolloutFiles(place.codexHome)).filter((f) => !before.has(f));
    expect(made).toHaveLength(1);
    rolloutPath = made[0]!;
    rollout = await fs.readFile(rolloutPath, 'utf8');
    // CAIRN_RECORD_FIXTURES=1 records this run's files, anonymised, as the fixtures.
    if (process.env.CAIRN_RECORD_FIXTURES) {
      await fs.mkdir(FIXTURES, { recursive: true });
      await fs.writeFile(path.join(FIXTURES, 'rollout.jsonl'), anonymise(rollout));
      await fs.writeFile(path.join(FIXTURES, 'config.toml'), anonymise(configAfterSetup));
      await fs.writeFile(path.join(FIXTURES, 'hooks.json'), anonymise(hooksAfterSetup));
    }
  }, 120_000);

  it('creates, edits and views memory through the model\'s calls; Cairn\'s texts come back as the call outputs', async () => {
    expect(await fs.readFile(path.join(sb.roots.global, 'preferences.md'), 'utf8')).toBe('Answers in British English.\nTwo spaces, never tabs.\n');
    const calls = second.server.modelCalls();
    expect(calls).toHaveLength(4);
    // Each request carries the previous call's output, as Cairn wrote it.
    const last = (r: RecordedRequest) => outputText(inputOf(r).filter((i) => i.type === 'function_call_output').at(-1)!);
    expect(last(calls[1]!)).toContain(`File created successfully at: ${prefs}`);
    expect(last(calls[2]!)).toContain('The memory file has been edited.');
    expect(last(calls[2]!)).toContain('Two spaces, never tabs.');
    expect(last(calls[3]!)).toContain(`Here's the content of ${prefs} with line numbers:\n     1\tAnswers in British English.\n     2\tTwo spaces, never tabs.`);
  });

  it('brings the memory of the prompt\'s topic into the first request, by the prompt hook', () => {
    const [request] = second.server.modelCalls();
    expect(count(request!.body, 'make ship-widgets')).toBe(1);
    expect(count(request!.body, '<memory_index>')).toBe(1);
  });

  it('queues the session\'s harvest at its end, by the SessionEnd hook, with the rollout Codex wrote', async () => {
    const jobs = path.join(sb.home, 'harvest', 'jobs');
    const status = path.join(sb.home, 'harvest', 'status');
    const jsonIn = async (dir: string) => (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'));
    // The hook starts a detached worker that may have run the job already: the workspace's last run
    // is then recorded (the only workspace of this home), and the job gone.
    const queued = async () => {
      const found = await Promise.all((await jsonIn(jobs)).map(async (n) => JSON.parse(await fs.readFile(path.join(jobs, n), 'utf8')) as { transcript: string }));
      return found.some((job) => job.transcript === rolloutPath) || (await jsonIn(status)).length > 0;
    };
    await expect.poll(queued, { timeout: 20_000, interval: 100 }).toBe(true);
  });

  it('harvests the rollout Codex wrote: the person said only what the person typed', async () => {
    for (const text of [rollout, await fs.readFile(path.join(FIXTURES, 'rollout.jsonl'), 'utf8')]) {
      const transcript = readCodexRollout(text);
      expect(transcript.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([DEPLOY_PROMPT]);
      const agentsMd = transcript.messages.find((m) => m.text.startsWith('# AGENTS.md instructions for '));
      expect(agentsMd).toMatchObject({ role: 'user', fromPerson: false });
      expect(agentsMd!.text).toContain('Run the tests with make test.');
    }
  });

  // Codex 0.169 also writes user-role text of its own that this run cannot make it write (plugin
  // suggestions need its plugin catalogue, from the network; goal continuations happen outside
  // `codex exec`). Those lines are put into the recorded rollout, in the shape Codex gives every
  // user-role item there, with the words the binary carries: the one place this suite makes a line up.
  it('never takes Codex\'s own user-role text for the person, a kind it may add included', async () => {
    const recorded = (await fs.readFile(path.join(FIXTURES, 'rollout.jsonl'), 'utf8')).split('\n');
    const typedAt = recorded.findIndex((l) => l.includes(`"text":${JSON.stringify(DEPLOY_PROMPT)}`) && l.includes('"type":"response_item"'));
    const template = JSON.parse(recorded[typedAt]!) as { payload: { content: Array<{ text: string }> } };
    const userLine = (text: string) => JSON.stringify({ ...template, payload: { ...template.payload, content: [{ ...template.payload.content[0], text }] } });
    const injected = [
      '<recommended_plugins>\nHere is a list of plugins that are available but not installed.\n- Linear (linear@openai-curated)\n</recommended_plugins>',
      '<codex_internal_context source="user_goal">\nContinue working toward the active goal: Ship the widgets service.\n</codex_internal_context>',
      '<workspace_digest>\nA kind of context a later Codex may add.\n</workspace_digest>',
    ];
    const text = [...recorded.slice(0, typedAt + 1), ...injected.map(userLine), ...recorded.slice(typedAt + 1)].join('\n');
    const transcript = readCodexRollout(text);
    expect(transcript.messages.filter((m) => injected.includes(m.text)).map((m) => m.fromPerson)).toEqual([false, false, false]);
    expect(transcript.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([DEPLOY_PROMPT]);
  });
});
