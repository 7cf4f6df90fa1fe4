// Gemini CLI (the pinned, published CLI) driving Cairn for real: `cairn setup gemini` in a checkout,
// then `gemini -p` sessions against the scripted model on loopback (GOOGLE_GEMINI_BASE_URL), each
// in a throwaway HOME. Every assertion is on what the client itself did: its own listing of the
// server, the requests it sent the model (recorded byte for byte), the files on disk, its own
// session file. The person's part is written as the person would: trusting the checkout (Gemini CLI
// reads a project's settings and starts its servers only in a trusted folder) and, in the second
// session, a policy of their own that lets Gemini CLI write memory without asking.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_SEARCH_DESCRIPTION, MEMORY_TOOL_DESCRIPTION } from '../../src/common/memory/tool-description';
import { readTranscriptFile } from '../../src/main/harvest/read-transcript';
import { speakerOf } from '../../src/main/harvest/transcript';
import { agentCli, pinnedVersion } from '../support/agent-clis';
import { runCairn, runJsonl } from '../support/cli';
import { functionDeclarations, geminiWire } from '../support/model-server/gemini';
import { startModelServer, type Conversation, type ModelServer, type ModelTurn, type RecordedRequest } from '../support/model-server/model-server';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { allowAllOfCairn, geminiEnv, geminiPrompt, sessionFiles, trustFolder, writeUserSettings, type GeminiResult } from './gemini-cli-run';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'agents', 'gemini-cli');
const FIXTURE = path.join(FIXTURES, 'session-2026-11-29T03-42-c81dc249.jsonl');
const FIXTURE_PROMPT = 'From now on, always run make lint before you commit in this repository.';

const CAIRN_TOOLS = ['mcp_cairn_memory', 'mcp_cairn_memory_search', 'mcp_cairn_memory_propose', 'mcp_cairn_memory_consolidate'];
const DEPLOY = '/memories/project/deploy.md';
const NOTES = '/memories/project/notes.md';

// Session A: Cairn's setup alone. The model reads (allowed by Cairn's policy), then tries to write.
const PROMPT_A = 'How do we deploy the widgets service to staging?';
const VIEW_DEPLOY = { command: 'view', path: DEPLOY };
const SEARCH = { query: 'deploy staging' };
const WRITE_REFUSED = { command: 'create', path: NOTES, file_text: 'Not written.\n' };
const TURNS_A: ModelTurn[] = [
  { toolCalls: [{ name: 'mcp_cairn_memory', input: VIEW_DEPLOY }, { name: 'mcp_cairn_memory_search', input: SEARCH }] },
  { toolCalls: [{ name: 'mcp_cairn_memory', input: WRITE_REFUSED }] },
  { text: 'Run make deploy-staging.' },
];

// Session B: the person lets Gemini CLI use all of Cairn's tools; strict-mode nulls for every field a command does not use.
const PROMPT_B = 'From now on, always run make lint before you commit. Note that the staging deploys need the VPN.';
const NULLS = { path: null, view_range: null, file_text: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null };
const CREATE = { ...NULLS, command: 'create', path: NOTES, file_text: 'Staging deploys need the VPN.\n' };
const EDIT = { ...NULLS, command: 'str_replace', path: NOTES, old_str: 'the VPN', new_str: 'the office VPN' };
const VIEW = { ...NULLS, command: 'view', path: NOTES };
// The agent proposes a memory quoting the person: Cairn checks the quote against Gemini CLI's own session file.
const PROPOSE = {
  candidates: [
    { category: 'preference', text: 'Run make lint before every commit.', scope: 'project', evidence: [{ quote: 'always run make lint before you commit' }], confidence: 0.9, rationale: 'The person asked for it from now on.' },
  ],
};
const TURNS_B: ModelTurn[] = [
  { text: 'Noting it.', toolCalls: [{ name: 'mcp_cairn_memory', input: CREATE }] },
  { toolCalls: [{ name: 'mcp_cairn_memory', input: EDIT }] },
  { toolCalls: [{ name: 'mcp_cairn_memory', input: VIEW }] },
  { toolCalls: [{ name: 'mcp_cairn_memory_propose', input: PROPOSE }] },
  { text: 'Noted: staging deploys need the office VPN.' },
];

/** The turn for this conversation: one per model message so far. */
const scriptOf = (turns: ModelTurn[]) => (c: Conversation): ModelTurn => turns[Math.min(c.messages.filter((m) => m.role === 'assistant').length, turns.length - 1)]!;

type Json = Record<string, unknown>;
const contentsOf = (r: RecordedRequest) => (r.json as { contents: Array<{ role: string; parts: Json[] }> }).contents;
const count = (text: string, part: string) => text.split(part).length - 1;
/** The request's text parts, joined (what the model reads of the conversation). */
const textOf = (r: RecordedRequest) => contentsOf(r).flatMap((c) => c.parts.map((p) => (typeof p.text === 'string' ? p.text : ''))).join('\n');

/** The functionResponse answering the call whose args were `input`, in the requests after it. */
function responseFor(requests: RecordedRequest[], input: unknown): Json {
  for (const r of requests) {
    const parts = contentsOf(r).flatMap((c) => c.parts);
    const call = parts.map((p) => p.functionCall as Json | undefined).find((c) => c !== undefined && isDeepStrictEqual(c.args, input));
    if (!call) continue;
    const answer = parts.map((p) => p.functionResponse as Json | undefined).find((f) => f !== undefined && f.id === call.id);
    if (answer) return answer.response as Json;
  }
  throw new Error(`no functionResponse for ${JSON.stringify(input)}`);
}

interface Session {
  sb: Sandbox;
  userHome: string;
  server: ModelServer;
  run: GeminiResult;
  ms: number;
}

/** `gemini mcp list` in the session's place: the client's own view of its servers. */
function mcpList(s: Session): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli('gemini'), ['mcp', 'list'], { cwd: s.sb.checkout, env: geminiEnv({ home: s.userHome, baseUrl: s.server.url, cairnHome: s.sb.home }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

/** A checkout with memory, set up by `cairn setup gemini`, trusted by the person; then one `gemini -p`. */
async function session(turns: ModelTurn[], prompt: string, personAllowsAll: boolean): Promise<Session> {
  // The second session's person also turns harvest on: its SessionEnd hook then queues the session.
  const started = Date.now();
  const sb = await makeSandbox();
  const userHome = path.join(sb.dir, 'user');
  const flags = ['--home', sb.home, '--cwd', sb.checkout];
  await runJsonl(flags, [
    { command: 'create', path: DEPLOY, file_text: '---\ndescription: How to deploy the widgets service to staging\n---\nRun `make deploy-staging`; the staging cluster is called kestrel.\n' },
    { command: 'create', path: '/memories/global/style.md', file_text: '---\ndescription: Code style the user wants\n---\nTabs, not spaces. Short commit messages.\n' },
    // Said outright in the index the hook hands over: never the person's words.
    { command: 'create', path: '/memories/project/release.md', file_text: '---\ndescription: Always squash merge release branches\n---\nRelease branches are squash merged.\n' },
  ]);
  const setup = await runCairn(['setup', 'gemini', ...flags], { env: { HOME: userHome, GEMINI_CLI_HOME: '' } });
  expect(setup.status, setup.stderr).toBe(0);
  await writeUserSettings(userHome);
  if (!personAllowsAll) {
    // The test's own hook, beside the person's settings: it records each PreCompress the client fires.
    const settings = path.join(userHome, '.gemini', 'settings.json');
    const user = JSON.parse(await fs.readFile(settings, 'utf8')) as Json;
    const command = `cat >> '${path.join(sb.dir, 'precompress.jsonl')}'; echo >> '${path.join(sb.dir, 'precompress.jsonl')}'`;
    await fs.writeFile(settings, JSON.stringify({ ...user, hooks: { PreCompress: [{ hooks: [{ type: 'command', command }] }] } }));
  }
  await trustFolder(userHome, sb.checkout);
  if (personAllowsAll) {
    await allowAllOfCairn(userHome);
    const on = await runCairn(['harvest', '--enable', ...flags]);
    expect(on.status, on.stderr).toBe(0);
  }
  const server = await startModelServer(geminiWire, scriptOf(turns));
  const run = await geminiPrompt({ home: userHome, cwd: sb.checkout, baseUrl: server.url, prompt, cairnHome: sb.home });
  return { sb, userHome, server, run, ms: Date.now() - started };
}

let a: Session;
let b: Session;
let listing: string;

beforeAll(async () => {
  await requireBuiltCli();
  // Two checkouts, two homes: the sessions run side by side.
  [a, b] = await Promise.all([session(TURNS_A, PROMPT_A, false), session(TURNS_B, PROMPT_B, true)]);
  listing = await mcpList(a);
  process.stdout.write(`gemini -p sessions: ${a.ms} ms (setup alone), ${b.ms} ms (the person allows all)\n`);
}, 180_000);

afterAll(async () => {
  for (const s of [a, b]) {
    await s?.server.close();
    await s?.sb.cleanup();
  }
});

describe(`Gemini CLI ${pinnedVersion('gemini')}, set up by cairn setup gemini alone, against the scripted model`, () => {
  it('runs the session to its end, and lists Cairn\u2019s server as connected', () => {
    expect(a.run.status, a.run.stderr).toBe(0);
    expect(a.run.stdout).toBe('Run make deploy-staging.\n');
    expect(listing).toMatch(/^\u2713 cairn: .*\/cairn mcp --session-context off \(stdio\) - Connected$/m);
  });

  it('offers the model the tools Cairn\u2019s policy allows (memory_search, the memory tool for view); the others wait for the person', () => {
    const declared = functionDeclarations(a.server.modelCalls()[0]!.json).map((d) => String(d.name));
    expect(declared).toEqual(expect.arrayContaining(['mcp_cairn_memory', 'mcp_cairn_memory_search']));
    // `gemini -p` cannot ask, so a tool no rule allows is not offered at all (the client's policy, not
    // its reading of the schema: the next session, whose person allows them, gets all four).
    expect(declared).not.toContain('mcp_cairn_memory_propose');
    expect(declared).not.toContain('mcp_cairn_memory_consolidate');
  });

  it('reads memory without asking and hands Cairn\u2019s own texts back; a write is refused until the person allows it', async () => {
    const twin = await makeSandbox();
    try {
      await runJsonl(['--home', twin.home, '--cwd', twin.checkout], [{ command: 'create', path: DEPLOY, file_text: '---\ndescription: How to deploy the widgets service to staging\n---\nRun `make deploy-staging`; the staging cluster is called kestrel.\n' }]);
      const expected = (await twin.run(VIEW_DEPLOY)).output;
      // Gemini CLI wraps what an MCP server answers as untrusted context.
      expect(responseFor(a.server.modelCalls(), VIEW_DEPLOY)).toEqual({ output: `<untrusted_context>\n${expected}\n</untrusted_context>` });
    } finally {
      await twin.cleanup();
    }
    expect(String(responseFor(a.server.modelCalls(), SEARCH).output)).toContain(`${DEPLOY}\n  How to deploy the widgets service to staging`);
    expect(responseFor(a.server.modelCalls(), WRITE_REFUSED)).toEqual({ error: 'Tool execution denied by policy.' });
    await expect(fs.access(path.join(a.sb.roots.project, 'notes.md'))).rejects.toThrow();
  });

  it('gives the model the memory index and the hot set in its first request, exactly once, without a tool call', () => {
    const first = a.server.modelCalls()[0]!;
    expect(first.body).not.toContain('functionResponse');
    const text = textOf(first);
    // The hook's output, escaped by the client inside its <hook_context>.
    expect(count(text, '&lt;memory_index&gt;')).toBe(1);
    expect(count(text, '&lt;hot_memories&gt;')).toBe(1);
    expect(count(text, `${DEPLOY}: How to deploy the widgets service to staging`)).toBe(1);
    // Gemini CLI does not put a server's instructions in its prompt: nothing of Cairn's in the system instruction.
    expect(JSON.stringify((first.json as Json).systemInstruction)).not.toContain('memory_index');
  });

  it("brings the prompt's topic's memory into the request, and not the others", () => {
    const text = textOf(a.server.modelCalls()[0]!);
    const relevant = /&lt;relevant_memories&gt;[\s\S]*?&lt;\/relevant_memories&gt;/.exec(text)?.[0];
    expect(relevant).toContain(`&lt;memory_file path="${DEPLOY}"&gt;`);
    expect(relevant).toContain('the staging cluster is called kestrel.');
    expect(relevant).not.toContain('style.md');
    expect(text).toContain(`</hook_context>\n\n${PROMPT_A}`);
  });
});

describe(`Gemini CLI ${pinnedVersion('gemini')}'s PreCompress`, () => {
  it('fires before every model call, compressing nothing: so Cairn harvests at SessionEnd and hooks nothing there', async () => {
    const fired = (await fs.readFile(path.join(a.sb.dir, 'precompress.jsonl'), 'utf8')).split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
    expect(fired.map((f) => [f.hook_event_name, f.trigger])).toEqual(a.server.modelCalls().map(() => ['PreCompress', 'auto']));
    const settings = JSON.parse(await fs.readFile(path.join(a.sb.checkout, '.gemini', 'settings.json'), 'utf8')) as { hooks: Json };
    expect(Object.keys(settings.hooks)).toEqual(['SessionStart', 'BeforeAgent', 'SessionEnd']);
  });
});

describe(`Gemini CLI ${pinnedVersion('gemini')}, when the person lets it use all of Cairn's tools`, () => {
  it('offers the model every tool Cairn advertises, none dropped, with Cairn\u2019s descriptions and parameters', () => {
    expect(b.run.status, b.run.stderr).toBe(0);
    const declared = new Map(functionDeclarations(b.server.modelCalls()[0]!.json).map((d) => [String(d.name), d]));
    expect([...declared.keys()]).toEqual(expect.arrayContaining(CAIRN_TOOLS));
    expect(declared.get('mcp_cairn_memory')).toMatchObject({ description: MEMORY_TOOL_DESCRIPTION, parametersJsonSchema: { type: 'object', required: ['command'] } });
    const memory = declared.get('mcp_cairn_memory')!.parametersJsonSchema as { properties: Json };
    expect(Object.keys(memory.properties)).toEqual(expect.arrayContaining(Object.keys({ command: 1, ...NULLS })));
    expect(declared.get('mcp_cairn_memory_search')).toMatchObject({ description: MEMORY_SEARCH_DESCRIPTION });
    for (const name of ['mcp_cairn_memory_propose', 'mcp_cairn_memory_consolidate']) expect(declared.get(name)?.parametersJsonSchema).toMatchObject({ type: 'object' });
  });

  it("creates, edits and views memory through the client, which hands Cairn's own texts back (strict-mode nulls included)", async () => {
    expect(await fs.readFile(path.join(b.sb.roots.project, 'notes.md'), 'utf8')).toBe('Staging deploys need the office VPN.\n');
    const twin = await makeSandbox();
    try {
      const expected = [await twin.run(CREATE), await twin.run(EDIT), await twin.run(VIEW)].map((r) => r.output);
      const handedBack = [CREATE, EDIT, VIEW].map((input) => responseFor(b.server.modelCalls(), input));
      expect(handedBack).toEqual(expected.map((text) => ({ output: `<untrusted_context>\n${text}\n</untrusted_context>` })));
    } finally {
      await twin.cleanup();
    }
  });

  it("memory_propose finds Gemini CLI's session file (its MCP client says it is Gemini CLI) and takes the person's quoted words", () => {
    const answer = String(responseFor(b.server.modelCalls(), PROPOSE).output);
    expect(answer).toMatch(/^<untrusted_context>\nProposed 1 of 1 for a person's review in Cairn's inbox: #1 as \S+\.\n/);
  });

  it("keeps its own session file, which harvest reads: the person's prompt is theirs, the hooks' context is not", async () => {
    const [file, ...more] = await sessionFiles(b.userHome);
    expect(more).toEqual([]);
    expect(path.relative(b.userHome, file!)).toMatch(/^\.gemini\/tmp\/[^/]+\/chats\/session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.jsonl$/);
    const read = await readTranscriptFile(file!);
    expect(read).toMatchObject({ agent: 'gemini', cwd: b.sb.checkout });
    expect(read.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([PROMPT_B]);
    // In a home of its own: the session's own home has its SessionEnd harvest in the inbox already.
    const other = await makeSandbox();
    const harvest = await runCairn(['harvest', '--transcript', file!, '--dry-run', '--json', '--home', other.home, '--cwd', b.sb.checkout]).finally(() => other.cleanup());
    expect(harvest.status, harvest.stderr).toBe(0);
    const out = JSON.parse(harvest.stdout) as { agent: string; proposed: Array<{ text: string; evidence: Array<{ quote: string }> }> };
    expect(out.agent).toBe('gemini');
    expect(out.proposed.map((p) => p.text)).toContain('Always run make lint before you commit.');
    // The index the SessionStart hook handed over says "Always squash merge release branches": not the person.
    expect(JSON.stringify(out.proposed)).not.toMatch(/squash/i);
  });
});

describe(`Gemini CLI ${pinnedVersion('gemini')}'s hooks, with harvest on`, () => {
  it("harvests the session at its end (the SessionEnd hook queues Gemini CLI's own file): the person's convention is proposed in the inbox", async () => {
    type Item = { source: { agent: string | null }; candidate?: { text: string; evidence: Array<{ quote: string }> } };
    const pending = async (): Promise<Item[]> => {
      const list = await runCairn(['inbox', 'list', '--json', '--home', b.sb.home, '--cwd', b.sb.checkout]);
      return list.status === 0 ? (JSON.parse(list.stdout) as { items: Item[] }).items : [];
    };
    // The hook starts a detached worker: waited for by what it leaves in the inbox.
    await expect.poll(async () => (await pending()).length, { timeout: 30_000, interval: 250 }).toBeGreaterThan(0);
    const items = await pending();
    expect(items.map((i) => i.source.agent)).toEqual(items.map(() => 'gemini'));
    expect(items.map((i) => i.candidate?.text)).toContain('Always run make lint before you commit.');
    expect(JSON.stringify(items)).not.toMatch(/squash/i);
  });

  it("cairn harvest for the checkout (the app's Harvest now) finds Gemini CLI's session by the project root Gemini CLI recorded", async () => {
    const now = await runCairn(['harvest', '--json', '--home', b.sb.home, '--cwd', b.sb.checkout], { env: { HOME: b.userHome, GEMINI_CLI_HOME: '' } });
    expect(now.status, now.stderr).toBe(0);
    expect(JSON.parse(now.stdout)).toMatchObject({ sessions: 1 });
  });
});

describe(`Gemini CLI ${pinnedVersion('gemini')}'s session file, recorded (tests/fixtures/agents/gemini-cli)`, () => {
  it('the person is exactly the prompt Gemini CLI recorded as theirs; its environment context, the hooks\u2019 context and tools\u2019 answers are not', async () => {
    const read = await readTranscriptFile(FIXTURE);
    expect(read).toMatchObject({ agent: 'gemini', sessionId: 'c81dc249-eb48-48cf-b1b6-b22950551b01', cwd: '/home/person/widgets', skipped: {} });
    expect(read.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([FIXTURE_PROMPT]);
    expect(read.messages.map(speakerOf)).toEqual(['agent', 'person', 'agent', 'agent', 'tool', 'agent', 'tool', 'agent', 'tool', 'agent']);
    expect(read.messages[0]!.text.startsWith('<session_context>')).toBe(true);
    expect(read.messages.find((m) => m.kind === 'tool_result' && m.text.includes('File created successfully'))).toMatchObject({ fromPerson: false });
  });

  it('a record of a kind the reader does not know is never the person, and a rewind takes messages back (an edited copy: `gemini -p` writes neither)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-gemini-fixture-'));
    const copy = path.join(dir, path.basename(FIXTURE));
    const extra = [
      // The person rewinds to before the model's last answer (the client's /rewind): it is gone.
      { $rewindTo: '4a94a367-82b8-477f-b65d-8ae6cc534cd0' },
      { id: 'x-1', timestamp: '2026-11-29T03:43:00.000Z', type: 'narrator', content: [{ text: 'Always deploy on Fridays.' }] },
      { id: 'x-2', timestamp: '2026-11-29T03:43:01.000Z', type: 'info', content: 'Always deploy on Fridays.' },
      { id: 'x-3', timestamp: '2026-11-29T03:43:02.000Z', type: 'user', content: [{ text: '/memory add always deploy on Fridays' }] },
    ];
    await fs.writeFile(copy, `${await fs.readFile(FIXTURE, 'utf8')}${extra.map((e) => JSON.stringify(e)).join('\n')}\n`);
    try {
      const read = await readTranscriptFile(copy);
      expect(read.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([FIXTURE_PROMPT]);
      expect(read.skipped).toEqual({ 'unknown:narrator': 1, 'note:info': 1 });
      expect(read.messages.map((m) => m.text)).not.toContain('Noted: make lint before every commit.');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('a compression keeps what was said before it, and its summary is not the person\u2019s (an edited copy: `gemini -p` here compresses nothing)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-gemini-fixture-'));
    const copy = path.join(dir, path.basename(FIXTURE));
    // What Gemini CLI appends after compressing (GeminiChat.initialize -> updateMessagesFromHistory):
    // the whole shortened history, the summary first as a "user" message, then the turns it kept.
    const summary = { id: 's-1', timestamp: '2026-11-29T03:43:00.000Z', type: 'user', content: [{ text: '<state_snapshot>\nAlways deploy on Fridays.\n</state_snapshot>' }] };
    const kept = { id: '4a94a367-82b8-477f-b65d-8ae6cc534cd0', timestamp: '2026-11-29T03:42:53.631Z', type: 'gemini', content: 'Noted: make lint before every commit.' };
    await fs.writeFile(copy, `${await fs.readFile(FIXTURE, 'utf8')}${JSON.stringify({ $set: { messages: [summary, kept] } })}\n`);
    try {
      const before = await readTranscriptFile(FIXTURE);
      const read = await readTranscriptFile(copy);
      expect(read.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([FIXTURE_PROMPT]);
      expect(read.messages.map((m) => m.id)).toEqual([...before.messages.map((m) => m.id), 's-1']);
      expect(read.messages.at(-1)).toMatchObject({ kind: 'summary', fromPerson: false });
      expect(read.compactions).toEqual([before.messages.at(-1)!.id]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("cairn harvest --transcript proposes from the person's words only", async () => {
    const sandbox = await makeSandbox();
    try {
      const harvest = await runCairn(['harvest', '--transcript', FIXTURE, '--dry-run', '--json', '--home', sandbox.home, '--cwd', sandbox.checkout]);
      expect(harvest.status, harvest.stderr).toBe(0);
      const { agent, proposed } = JSON.parse(harvest.stdout) as { agent: string; proposed: Array<{ text: string; evidence: Array<{ quote: string }> }> };
      expect(agent).toBe('gemini');
      // The recorded index held "Always squash merge release branches" (the hook's): not proposed.
      expect(proposed.map((p) => [p.text, p.evidence.map((e) => e.quote)])).toEqual([['Always run make lint before you commit in this repository.', [FIXTURE_PROMPT]]]);
      const text = await runCairn(['harvest', '--transcript', FIXTURE, '--dry-run', '--home', sandbox.home, '--cwd', sandbox.checkout]);
      expect(text.stdout).toMatch(/^Gemini CLI session c81dc249-eb48-48cf-b1b6-b22950551b01: /);
    } finally {
      await sandbox.cleanup();
    }
  });
});

describe('cairn setup gemini, --print and --remove', () => {
  it('--print shows exactly what setup writes; --remove takes it all away again, byte for byte', async () => {
    const sandbox = await makeSandbox();
    try {
      const userHome = path.join(sandbox.dir, 'user');
      const env = { HOME: userHome, GEMINI_CLI_HOME: '', CAIRN_HOME: '' };
      const cairn = (args: string[]) => runCairn([...args, '--home', sandbox.home, '--cwd', sandbox.checkout], { env });
      const settingsFile = path.join(sandbox.checkout, '.gemini', 'settings.json');
      const policyFile = path.join(userHome, '.gemini', 'policies', 'cairn.toml');
      // The person's own settings, with a comment (Gemini CLI reads JSON with comments) and a server of theirs.
      const mine = '{\n  // mine\n  "mcpServers": { "db": { "command": "pg-mcp" } },\n  "hooks": {}\n}\n';
      await fs.mkdir(path.dirname(settingsFile));
      await fs.writeFile(settingsFile, mine);

      const printed = await cairn(['setup', 'gemini', '--print']);
      expect(printed.status, printed.stderr).toBe(0);
      const setup = await cairn(['setup', 'gemini']);
      expect(setup.status, setup.stderr).toBe(0);
      const policy = await fs.readFile(policyFile, 'utf8');
      expect(printed.stdout).toContain(`# Gemini CLI: merge into ${policyFile}\n${policy}`);
      const written = (await import('jsonc-parser')).parse(await fs.readFile(settingsFile, 'utf8')) as Json;
      const snippet = JSON.parse(/# Gemini CLI: merge into .*settings\.json\n([\s\S]*?\n\})\n/.exec(printed.stdout)![1]!) as Json;
      expect(written).toEqual({ mcpServers: { db: { command: 'pg-mcp' }, ...(snippet.mcpServers as Json) }, hooks: snippet.hooks });
      expect(Object.keys(snippet.hooks as Json)).toEqual(['SessionStart', 'BeforeAgent', 'SessionEnd']);
      expect((await fs.readFile(settingsFile, 'utf8')).startsWith('{\n  // mine\n')).toBe(true);
      expect((await cairn(['setup', 'gemini'])).stdout).toContain('Nothing changed: Gemini CLI was already set up to use Cairn.');

      const removed = await cairn(['setup', 'gemini', '--remove']);
      expect(removed.status, removed.stderr).toBe(0);
      expect(await fs.readFile(settingsFile, 'utf8')).toBe(mine);
      await expect(fs.access(path.join(userHome, '.gemini'))).rejects.toThrow();
    } finally {
      await sandbox.cleanup();
    }
  });

  it('the files and folders setup created go again with --remove, in the checkout and in the home', async () => {
    const sandbox = await makeSandbox();
    try {
      const userHome = path.join(sandbox.dir, 'user');
      const cairn = (args: string[]) => runCairn([...args, '--home', sandbox.home, '--cwd', sandbox.checkout], { env: { HOME: userHome, GEMINI_CLI_HOME: '' } });
      expect((await cairn(['setup', 'gemini'])).status).toBe(0);
      expect((await fs.readdir(sandbox.checkout)).sort()).toEqual(['.gemini', '.git']);
      const removed = await cairn(['setup', 'gemini', '--remove']);
      expect(removed.status, removed.stderr).toBe(0);
      expect(removed.stdout).toContain(`and so was ${path.join(sandbox.checkout, '.gemini')}, which setup had made for it`);
      expect((await fs.readdir(sandbox.checkout)).sort()).toEqual(['.git']);
      await expect(fs.access(path.join(userHome, '.gemini'))).rejects.toThrow();
    } finally {
      await sandbox.cleanup();
    }
  });

  it('a policy file of that name that is not Cairn\u2019s is left alone, and setup says so', async () => {
    const sandbox = await makeSandbox();
    try {
      const userHome = path.join(sandbox.dir, 'user');
      const policyFile = path.join(userHome, '.gemini', 'policies', 'cairn.toml');
      await fs.mkdir(path.dirname(policyFile), { recursive: true });
      await fs.writeFile(policyFile, '[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n');
      const setup = await runCairn(['setup', 'gemini', '--home', sandbox.home, '--cwd', sandbox.checkout], { env: { HOME: userHome, GEMINI_CLI_HOME: '' } });
      expect(setup.status).toBe(1);
      expect(setup.stderr).toContain(`${policyFile} is not Cairn's policy file`);
      expect(await fs.readFile(policyFile, 'utf8')).toBe('[[rule]]\ntoolName = "*"\ndecision = "deny"\npriority = 1\n');
      await expect(fs.access(path.join(sandbox.checkout, '.gemini'))).rejects.toThrow();
    } finally {
      await sandbox.cleanup();
    }
  });
});
