// GitHub Copilot CLI (the published @github/copilot, pinned in tests/agents/clis) drives Cairn for
// real: `cairn setup copilot` writes its mcp-config.json and settings.json in a throwaway HOME,
// `copilot -p` runs against the scripted model as a custom provider (COPILOT_PROVIDER_BASE_URL,
// OpenAI Chat Completions: tests/support/model-server/openai-chat.ts) in offline mode (no GitHub
// login), and the tests assert on what Copilot CLI sent the model, byte for byte, on what it wrote,
// and on the session file it kept (read by Cairn's harvest).
//
// Two runs: one as setup leaves it (Copilot CLI asks before a tool call, and `copilot -p` cannot
// ask), one as a person who let it use Cairn's tools without asking (`--allow-tool=cairn`).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCopilotSession } from '../../src/main/harvest/copilot-session';
import { HarvestJobs } from '../../src/main/harvest/harvest-jobs';
import { pinnedVersion } from '../support/agent-clis';
import { runCairn } from '../support/cli';
import { inOrder, startModelServer, type ModelServer, type RecordedRequest, type Script } from '../support/model-server/model-server';
import { openaiChatWire } from '../support/model-server/openai-chat';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { copilot, copilotPlace, copilotPrompt, sessionEventFiles, type CopilotPlace, type CopilotResult } from './copilot-cli-run';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/agents/copilot-cli');
/** Copilot CLI names an MCP server's tools `<server>-<tool>`. */
const PREFIX = 'cairn-';
/** The seeded memory a prompt about deploying brings, and its words only it has. */
const DEPLOY_MEMORY = '---\ndescription: How the widgets service is deployed\n---\nDeploy widgets with `make ship-widgets` from a clean main; never on Fridays.\n';
const DEPLOY_PROMPT = 'How do we deploy the widgets service?';

type Item = Record<string, unknown>;

let sb: Sandbox;
let place: CopilotPlace;
let mcpAfterSetup: string;
let settingsAfterSetup: string;
const timings: Record<string, number> = {};
/** Set to record the fixtures again from this run (anonymised): what setup wrote, and the session file. */
const RECORD = process.env.CAIRN_RECORD_FIXTURES === '1';

/** The run's places as a person's: the sandbox is /home/person/src, Cairn's launcher /opt/cairn/bin. */
function anonymise(text: string): string {
  return text.split(sb.home).join('/home/person/.cairn').split(sb.dir).join('/home/person/src').split(path.dirname(CAIRN_BIN)).join('/opt/cairn/bin');
}

/** Cairn's tools as its MCP server lists them to any client. */
async function cairnTools(): Promise<string[]> {
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

const messagesOf = (r: RecordedRequest) => (r.json as { messages: Item[] }).messages;
/** Cairn's tools offered in a request, by their own names. */
const cairnToolsIn = (r: RecordedRequest) => r.conversation!.tools.filter((t) => t.startsWith(PREFIX)).map((t) => t.slice(PREFIX.length)).sort();
/** The text of the last tool message of a request. */
const lastToolText = (r: RecordedRequest) => String(messagesOf(r).filter((m) => m.role === 'tool').at(-1)?.content);
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

interface Run {
  readonly server: ModelServer;
  readonly result: CopilotResult;
  /** The session file this run wrote. */
  readonly events: string;
}

/** One `copilot -p` against a fresh scripted server; the session file it wrote. */
async function run(script: Script, prompt: string, args: string[] = []): Promise<Run> {
  const server = await startModelServer(openaiChatWire, script);
  const before = new Set(await sessionEventFiles(place));
  try {
    const result = await copilotPrompt({ place, cwd: sb.checkout, modelUrl: server.url, prompt, args });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const made = (await sessionEventFiles(place)).filter((f) => !before.has(f));
    expect(made).toHaveLength(1);
    return { server, result, events: made[0]! };
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  place = copilotPlace(path.join(sb.dir, 'userhome'));
  await fs.mkdir(place.home, { recursive: true });
  expect((await sb.run({ command: 'create', path: '/memories/project/deploy.md', file_text: DEPLOY_MEMORY })).ok).toBe(true);
  const setup = await runCairn(['setup', 'copilot', '--home', sb.home], { env: { HOME: place.home, COPILOT_HOME: '', CAIRN_HOME: '' }, cwd: sb.checkout });
  expect(setup.status, setup.stderr).toBe(0);
  mcpAfterSetup = await fs.readFile(path.join(place.copilotHome, 'mcp-config.json'), 'utf8');
  settingsAfterSetup = await fs.readFile(path.join(place.copilotHome, 'settings.json'), 'utf8');
}, 60_000);

afterAll(async () => {
  await sb?.cleanup();
  console.log(`copilot-cli timings (ms): ${JSON.stringify(timings)}`);
});

describe(`Copilot CLI ${pinnedVersion('copilot')}: what cairn setup copilot writes`, () => {
  it('writes the server in mcp-config.json and the hooks in settings.json, as recorded (fixtures)', async () => {
    if (RECORD) {
      await fs.writeFile(path.join(FIXTURES, 'mcp-config.json'), anonymise(mcpAfterSetup));
      await fs.writeFile(path.join(FIXTURES, 'settings.json'), anonymise(settingsAfterSetup));
    }
    expect(anonymise(mcpAfterSetup)).toBe(await fs.readFile(path.join(FIXTURES, 'mcp-config.json'), 'utf8'));
    expect(anonymise(settingsAfterSetup)).toBe(await fs.readFile(path.join(FIXTURES, 'settings.json'), 'utf8'));
  });

  it('is listed by Copilot CLI itself as a user server, enabled, running cairn mcp', async () => {
    const started = Date.now();
    const listed = await copilot({ place, cwd: sb.checkout, modelUrl: null, args: ['mcp', 'list', '--json'] });
    timings['mcp list'] = Date.now() - started;
    expect(listed.status, listed.stderr).toBe(0);
    const servers = (JSON.parse(listed.stdout) as { mcpServers: Record<string, Item> }).mcpServers;
    expect(servers.cairn).toMatchObject({ type: 'local', command: CAIRN_BIN, args: ['mcp', '--session-context', 'off'], env: { CAIRN_HOME: sb.home }, source: 'user', enabled: true });
  });
});

describe(`Copilot CLI ${pinnedVersion('copilot')}, as cairn setup copilot leaves it`, () => {
  let first: Run;
  beforeAll(async () => {
    first = await run(
      inOrder(
        { toolCalls: [{ name: `${PREFIX}memory_search`, input: { query: 'deploy widgets' } }] },
        { toolCalls: [{ name: `${PREFIX}memory`, input: { command: 'create', path: '/memories/project/unasked.md', file_text: 'Written without asking.\n' } }] },
        { text: 'Done.' },
      ),
      DEPLOY_PROMPT,
      // Its events on stdout as JSON lines: what it says of its MCP servers.
      ['--output-format', 'json'],
    );
    timings['run as setup leaves it'] = first.result.ms;
  }, 120_000);

  it('connects to Cairn\'s server, offers the model every tool Cairn advertises, and drops none', async () => {
    const advertised = await cairnTools();
    expect(advertised).toContain('memory');
    const events = first.result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Item & { data: Item });
    expect(events.filter((e) => e.type === 'session.mcp_server_tools_loaded').map((e) => e.data)).toEqual([{ serverName: 'cairn', toolCount: advertised.length }]);
    for (const request of first.server.modelCalls()) expect(cairnToolsIn(request)).toEqual(advertised);
  });

  it('hands the memory index and the hot set to the first request exactly once, without a tool call, through the sessionStart hook', () => {
    const [request] = first.server.modelCalls();
    expect(messagesOf(request!).some((m) => m.role === 'tool' || m.tool_calls !== undefined)).toBe(false);
    expect(count(request!.body, '<memory_index>')).toBe(1);
    expect(count(request!.body, '/memories/project/deploy.md: How the widgets service is deployed')).toBe(1);
    expect(count(request!.body, '<hot_memories>')).toBe(1);
    // Not in the system prompt: Copilot CLI leaves an MCP server's instructions out.
    expect(request!.conversation!.system).not.toContain('<memory_index>');
  });

  it('brings the memory of the prompt\'s topic into the first request once, through the userPromptSubmitted hook', () => {
    const [request] = first.server.modelCalls();
    expect(count(request!.body, 'make ship-widgets')).toBe(1);
    const prompt = messagesOf(request!).filter((m) => m.role === 'user').at(-1)!;
    expect(String(prompt.content)).toContain(DEPLOY_PROMPT);
    expect(String(prompt.content)).toContain('make ship-widgets');
  });

  it('runs the read-only memory_search without asking; the memory tool, which writes, is refused by `copilot -p`, which cannot ask', async () => {
    const calls = first.server.modelCalls();
    expect(calls).toHaveLength(3);
    expect(lastToolText(calls[1]!)).toContain('/memories/project/deploy.md');
    expect(lastToolText(calls[2]!)).not.toContain('File created successfully');
    await expect(fs.stat(path.join(sb.roots.project, 'unasked.md'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe(`Copilot CLI ${pinnedVersion('copilot')}, Cairn's tools allowed by the person (--allow-tool=cairn)`, () => {
  let second: Run;
  const prefs = '/memories/global/preferences.md';
  beforeAll(async () => {
    // Harvest on for the workspace: the sessionEnd hook then queues the session.
    const enabled = await runCairn(['harvest', '--enable', '--home', sb.home], { env: { HOME: place.home, CAIRN_HOME: '' }, cwd: sb.checkout });
    expect(enabled.status, enabled.stderr).toBe(0);
    second = await run(
      inOrder(
        { text: 'Noting that.', toolCalls: [{ name: `${PREFIX}memory`, input: { command: 'create', path: prefs, file_text: 'Answers in British English.\nTabs, not spaces.\n' } }] },
        { toolCalls: [{ name: `${PREFIX}memory`, input: { command: 'str_replace', path: prefs, old_str: 'Tabs, not spaces.', new_str: 'Two spaces, never tabs.' } }] },
        // A strict-mode model sends every field, null where unused.
        { toolCalls: [{ name: `${PREFIX}memory`, input: { command: 'view', path: prefs, view_range: [1, 2], file_text: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null } }] },
        { text: 'Deploy with make ship-widgets.' },
      ),
      DEPLOY_PROMPT,
      ['--allow-tool=cairn'],
    );
    timings['run with --allow-tool=cairn'] = second.result.ms;
    if (RECORD) await fs.writeFile(path.join(FIXTURES, 'events.jsonl'), anonymise(await fs.readFile(second.events, 'utf8')));
  }, 120_000);

  it('creates, edits and views memory through the model\'s calls; Cairn\'s texts come back as the tool results', async () => {
    expect(await fs.readFile(path.join(sb.roots.global, 'preferences.md'), 'utf8')).toBe('Answers in British English.\nTwo spaces, never tabs.\n');
    const calls = second.server.modelCalls();
    expect(calls).toHaveLength(4);
    expect(lastToolText(calls[1]!)).toContain(`File created successfully at: ${prefs}`);
    expect(lastToolText(calls[2]!)).toContain('The memory file has been edited.');
    expect(lastToolText(calls[2]!)).toContain('Two spaces, never tabs.');
    expect(lastToolText(calls[3]!)).toContain(`Here's the content of ${prefs} with line numbers:\n     1\tAnswers in British English.\n     2\tTwo spaces, never tabs.`);
  });

  it('harvests the session file Copilot CLI wrote: the person said only what the person typed', async () => {
    const transcript = readCopilotSession(await fs.readFile(second.events, 'utf8'));
    expect(transcript.agent).toBe('copilot');
    expect(transcript.cwd).toBe(sb.checkout);
    expect(transcript.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([DEPLOY_PROMPT]);
    expect(transcript.messages.filter((m) => m.kind === 'tool_call').map((m) => m.text.split(':')[0])).toEqual([`${PREFIX}memory`, `${PREFIX}memory`, `${PREFIX}memory`]);
    expect(transcript.messages.filter((m) => m.kind === 'tool_result')[0]!.text).toContain(`File created successfully at: ${prefs}`);
    expect(Object.keys(transcript.skipped).filter((k) => k.startsWith('unknown:'))).toEqual([]);

    const started = Date.now();
    const harvested = await runCairn(['harvest', '--transcript', second.events, '--dry-run', '--json', '--home', sb.home], { env: { HOME: place.home, CAIRN_HOME: '' }, cwd: sb.checkout });
    timings['cairn harvest --transcript'] = Date.now() - started;
    expect(harvested.status, harvested.stderr).toBe(0);
    expect(JSON.parse(harvested.stdout)).toMatchObject({ agent: 'copilot', sessionId: transcript.sessionId });
  });

  it('queues the session for a harvest at its end, through the sessionEnd hook (its session file found by its sessionId)', async () => {
    const sessionId = readCopilotSession(await fs.readFile(second.events, 'utf8')).sessionId;
    const jobs = new HarvestJobs(sb.home);
    const started = Date.now();
    // The hook's worker runs detached from Copilot CLI: wait for its run to be recorded.
    while (jobs.lastRun(sb.session.workspaceId!)?.sessionId !== sessionId) {
      if (Date.now() - started > 30_000) throw new Error(`no harvest of ${sessionId} recorded: ${JSON.stringify(jobs.lastRun(sb.session.workspaceId!))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    timings['sessionEnd hook to harvested'] = Date.now() - started;
    expect(jobs.lastRun(sb.session.workspaceId!)).toMatchObject({ agent: 'copilot', sessionId });
  });

  it('`cairn harvest` finds both sessions Copilot CLI ran in the checkout', async () => {
    const all = await runCairn(['harvest', '--json', '--home', sb.home], { env: { HOME: place.home, CAIRN_HOME: '' }, cwd: sb.checkout });
    expect(all.status, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ sessions: 2 });
  });
});

describe('the recorded Copilot CLI session file (fixture), read by the harvest', () => {
  const fixture = path.join(FIXTURES, 'events.jsonl');

  it('takes as the person\'s only the prompt the person typed: no hook\'s memories, no tool result, no system prompt', async () => {
    const transcript = readCopilotSession(await fs.readFile(fixture, 'utf8'));
    expect(transcript.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transcript.cwd).toBe('/home/person/src/checkout');
    expect(transcript.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([DEPLOY_PROMPT]);
    expect(transcript.messages.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'user/text',
      'assistant/text',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/tool_call',
      'user/tool_result',
      'assistant/text',
    ]);
    // The hooks' output (Cairn's own memories) is in the file, as hook.end events: never a message.
    const hookEnds = (await fs.readFile(fixture, 'utf8')).split('\n').filter((l) => l.includes('"type":"hook.end"')).length;
    expect(hookEnds).toBe(3); // sessionStart, userPromptSubmitted, sessionEnd
    expect(transcript.skipped['hook.end']).toBe(hookEnds);
    expect(transcript.messages.some((m) => m.text.includes('<relevant_memories>'))).toBe(false);
    expect(Object.keys(transcript.skipped).filter((k) => k.startsWith('unknown:'))).toEqual([]);
  });

  it('follows Copilot CLI\'s own rule of who spoke for what a scripted run cannot make (a skill\'s, autopilot\'s, a sub-agent\'s message, an unknown kind)', async () => {
    // The recorded person's line with only the fields Copilot CLI's event schema defines changed: a
    // run against the scripted model cannot make a skill, autopilot or a sub-agent speak.
    const lines = (await fs.readFile(fixture, 'utf8')).split('\n').filter((l) => l !== '');
    const typed = JSON.parse(lines.find((l) => l.includes('"type":"user.message"'))!) as Item & { data: Item };
    const variant = (id: string, change: (e: Item & { data: Item }) => Item) => JSON.stringify(change({ ...structuredClone(typed), id }));
    const text = [
      ...lines,
      variant('00000000-0000-4000-8000-000000000001', (e) => ({ ...e, data: { ...e.data, content: 'Use the pdf skill.', source: 'skill-pdf' } })),
      variant('00000000-0000-4000-8000-000000000002', (e) => ({ ...e, data: { ...e.data, content: 'Continue.', isAutopilotContinuation: true } })),
      variant('00000000-0000-4000-8000-000000000003', (e) => ({ ...e, agentId: 'explore-1', data: { ...e.data, content: 'Find the deploy script.' } })),
      variant('00000000-0000-4000-8000-000000000004', (e) => ({ ...e, data: { ...e.data, content: 'Typed again.', source: 'user' } })),
      variant('00000000-0000-4000-8000-000000000005', (e) => ({ ...e, type: 'user.whispered', data: { ...e.data, content: 'Not a kind Copilot CLI 1.0.102 writes.' } })),
    ].join('\n');
    const transcript = readCopilotSession(text);
    expect(transcript.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([DEPLOY_PROMPT, 'Typed again.']);
    expect(transcript.messages.find((m) => m.text === 'Find the deploy script.')).toMatchObject({ sidechain: true, fromPerson: false });
    expect(transcript.skipped['unknown:user.whispered']).toBe(1);
  });

  it('is what `cairn harvest --transcript` reads as a Copilot CLI session', async () => {
    const sessions = path.join(sb.dir, 'copied', 'session-state', 'e7382b19-26e8-4bf8-9123-42fbc48d3bf7');
    await fs.mkdir(sessions, { recursive: true });
    await fs.copyFile(fixture, path.join(sessions, 'events.jsonl'));
    const env = { HOME: place.home, CAIRN_HOME: '' };
    const json = await runCairn(['harvest', '--transcript', path.join(sessions, 'events.jsonl'), '--dry-run', '--json', '--home', sb.home, '--cwd', sb.checkout], { env, cwd: sb.checkout });
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ agent: 'copilot', segmentMessages: 9 });
    const said = await runCairn(['harvest', '--transcript', path.join(sessions, 'events.jsonl'), '--dry-run', '--home', sb.home, '--cwd', sb.checkout], { env, cwd: sb.checkout });
    expect(said.stdout).toMatch(/^Copilot CLI session [0-9a-f-]{36}: 9 new messages/);
  });
});

describe('cairn setup copilot --print and --remove, on a person\'s own files', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const files = () => ({ mcp: path.join(dir, '.copilot', 'mcp-config.json'), settings: path.join(dir, '.copilot', 'settings.json') });
  const cairn = (args: string[]) => runCairn(['setup', 'copilot', ...args, '--home', sb.home], { env, cwd: sb.checkout });
  beforeAll(async () => {
    dir = path.join(sb.dir, 'person');
    env = { HOME: dir, COPILOT_HOME: '', CAIRN_HOME: '' };
  });

  it('--print shows both files\' Cairn part, and writes nothing', async () => {
    const printed = await cairn(['--print']);
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`# Copilot CLI: merge into ${files().mcp}\n${mcpAfterSetup}`);
    expect(printed.stdout).toContain(`# Copilot CLI: merge into ${files().settings}\n${settingsAfterSetup}`);
    expect(printed.stdout).toContain('# copilot mcp add --env');
    await expect(fs.stat(path.join(dir, '.copilot'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('setup then --remove gives the person\'s files back byte for byte; files setup created go again, with the folder', async () => {
    const person = {
      mcp: '{\n\t"mcpServers": {\n\t\t"docs": { "type": "local", "command": "docs-mcp", "args": [], "tools": ["*"] }\n\t}\n}\n',
      settings: '// my settings\r\n{ "theme": "dim", "hooks": { "sessionEnd": [ { "type": "command", "bash": "echo bye" } ] } }\r\n',
    };
    await fs.mkdir(path.join(dir, '.copilot'), { recursive: true });
    await fs.writeFile(files().mcp, person.mcp);
    await fs.writeFile(files().settings, person.settings);
    expect((await cairn([])).status).toBe(0);
    const merged = { mcp: await fs.readFile(files().mcp, 'utf8'), settings: await fs.readFile(files().settings, 'utf8') };
    expect(merged.mcp).toContain('"docs"');
    expect(merged.mcp).toContain('"cairn"');
    expect(merged.settings.startsWith('// my settings\r\n')).toBe(true);
    expect(merged.settings).toContain('echo bye');
    expect(merged.settings).toContain('"userPromptSubmitted": [{ "type": "command", "bash": ');
    expect((await cairn([])).stdout).toContain('Nothing changed');
    const removed = await cairn(['--remove']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(await fs.readFile(files().mcp, 'utf8')).toBe(person.mcp);
    expect(await fs.readFile(files().settings, 'utf8')).toBe(person.settings);

    await fs.rm(path.join(dir, '.copilot'), { recursive: true });
    expect((await cairn([])).status).toBe(0);
    expect(await fs.readFile(files().mcp, 'utf8')).toBe(mcpAfterSetup);
    expect((await cairn(['--remove'])).status).toBe(0);
    await expect(fs.stat(path.join(dir, '.copilot'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
