// Claude Code (the pinned, published CLI) driving Cairn for real: `cairn setup claude` in a
// checkout, then one `claude -p` session against the scripted model on loopback, in a throwaway
// HOME. Every assertion is on what the client itself did: its own listing of the server, the
// requests it sent the model (recorded byte for byte), the files on disk, its own transcript.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_SEARCH_DESCRIPTION, MEMORY_TOOL_DESCRIPTION } from '../../src/common/memory/tool-description';
import { pinnedVersion } from '../support/agent-clis';
import { runCairn, runJsonl } from '../support/cli';
import { anthropicWire } from '../support/model-server/anthropic';
import { startModelServer, type Conversation, type ModelServer, type ModelTurn, type RecordedRequest } from '../support/model-server/model-server';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { readTranscriptFile } from '../../src/main/harvest/read-transcript';
import { speakerOf } from '../../src/main/harvest/transcript';
import { approveAsPerson, claudeCommand, claudeTranscripts, RECORDED_PROMPTS, runClaude, type ClaudeRun } from './claude-code-run';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'agents', 'claude-code');

const CAIRN_TOOLS = ['mcp__cairn__memory', 'mcp__cairn__memory_search', 'mcp__cairn__memory_propose', 'mcp__cairn__memory_consolidate'];
// Said outright, so the rules extractor would take it were it the person's (the client says it is not).
const PROMPT = 'Remember that staging comes first. How do I deploy the widgets service to staging?';
const NOTES = '/memories/project/notes.md';

/** The model's calls, in order; a strict-mode provider sends null for every field a command does not use. */
const CREATE = { command: 'create', path: NOTES, file_text: 'Staging deploys need the VPN.\n', view_range: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null };
const EDIT = { command: 'str_replace', path: NOTES, old_str: 'the VPN', new_str: 'the office VPN', file_text: null, view_range: null, insert_line: null, insert_text: null, old_path: null, new_path: null };
const VIEW = { command: 'view', path: NOTES, view_range: null, file_text: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null };
const SEARCH = { query: 'deploy staging kestrel', scope: null, limit: null };
const TURNS: ModelTurn[] = [
  // The client defers MCP tools: the model loads their schemas by name first, as a real model does.
  { toolCalls: [{ name: 'ToolSearch', input: { query: `select:${CAIRN_TOOLS.join(',')}`, max_results: 5 } }] },
  { toolCalls: [{ name: 'mcp__cairn__memory', input: CREATE }] },
  { toolCalls: [{ name: 'mcp__cairn__memory', input: EDIT }] },
  { toolCalls: [{ name: 'mcp__cairn__memory', input: VIEW }] },
  { toolCalls: [{ name: 'mcp__cairn__memory_search', input: SEARCH }] },
  { text: 'Noted: staging deploys need the office VPN.' },
];

/** The turn for this conversation: one per assistant message so far (a side request of the client gets the last). */
const script = (c: Conversation): ModelTurn => TURNS[Math.min(c.messages.filter((m) => m.role === 'assistant').length, TURNS.length - 1)]!;

type Block = Record<string, unknown>;
const bodyOf = (r: RecordedRequest) => r.json as { messages: Array<{ role: string; content: string | Block[] }>; tools?: Block[] };
const count = (text: string, part: string) => text.split(part).length - 1;

/** The tool_result block answering the call whose input was `input`, in the request after it. */
function toolResultFor(requests: RecordedRequest[], input: unknown): Block {
  for (const r of requests) {
    const messages = bodyOf(r).messages;
    const call = messages
      .flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content : []))
      .find((b) => b.type === 'tool_use' && JSON.stringify(b.input) === JSON.stringify(input));
    if (!call) continue;
    const result = messages.flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === call.id);
    if (result) return result;
  }
  throw new Error(`no tool_result for ${JSON.stringify(input)}`);
}

let sb: Sandbox;
let server: ModelServer;
let userHome: string;
let run: ClaudeRun;
let listing: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  userHome = path.join(sb.dir, 'user');
  const flags = ['--home', sb.home, '--cwd', sb.checkout];
  await runJsonl(flags, [
    { command: 'create', path: '/memories/project/deploy.md', file_text: '---\ndescription: How to deploy the widgets service to staging\n---\nRun `make deploy-staging`; the staging cluster is called kestrel.\n' },
    { command: 'create', path: '/memories/global/style.md', file_text: '---\ndescription: Code style the user wants\n---\nTabs, not spaces. Short commit messages.\n' },
  ]);
  const setup = await runCairn(['setup', 'claude', ...flags]);
  expect(setup.status, setup.stderr).toBe(0);
  // So the SessionEnd hook setup wrote harvests the session when the client ends it.
  expect((await runCairn(['harvest', '--enable', ...flags])).status).toBe(0);
  // The person allows the tool that writes; memory_search is allowed by setup (read-only).
  await approveAsPerson(userHome, sb.checkout, ['mcp__cairn__memory']);
  server = await startModelServer(anthropicWire, script);
  const options = { userHome, cwd: sb.checkout, modelUrl: server.url };
  run = await runClaude({ ...options, prompt: PROMPT });
  listing = await claudeCommand(options, ['mcp', 'list']);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await sb?.cleanup();
});

describe(`Claude Code ${pinnedVersion('claude')}, set up by cairn setup claude, against the scripted model`, () => {
  it('runs the session to its end', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Noted: staging deploys need the office VPN.' });
  });

  it("lists Cairn's server as connected and offers the model Cairn's tools", () => {
    expect(listing.stdout).toMatch(/^cairn: .*\/cairn mcp --session-context off - [✓✔] Connected$/m);
    const init = run.events.find((e) => e.type === 'system' && e.subtype === 'init') as { mcp_servers: Block[]; tools: string[] };
    expect(init.mcp_servers.find((s) => s.name === 'cairn')).toMatchObject({ source: 'project', status: 'connected' });
    expect(init.tools).toEqual(expect.arrayContaining(CAIRN_TOOLS));

    // The first request names them as deferred tools; once loaded, their schemas are in the request.
    const [first, second] = server.modelCalls();
    for (const name of CAIRN_TOOLS) expect(first!.body).toContain(`\\n${name}\\n`);
    const tools = new Map((bodyOf(second!).tools ?? []).map((t) => [t.name, t]));
    expect([...tools.keys()]).toEqual(expect.arrayContaining(CAIRN_TOOLS));
    expect(tools.get('mcp__cairn__memory')).toMatchObject({ description: MEMORY_TOOL_DESCRIPTION, input_schema: { type: 'object', required: ['command'] } });
    expect(Object.keys((tools.get('mcp__cairn__memory')!.input_schema as { properties: object }).properties)).toEqual(expect.arrayContaining(['command', 'path', 'view_range', 'file_text', 'old_str', 'new_str']));
    expect(tools.get('mcp__cairn__memory_search')).toMatchObject({ description: MEMORY_SEARCH_DESCRIPTION });
  });

  it("creates, edits and views memory through the client, which hands Cairn's own texts back to the model (strict-mode nulls included)", async () => {
    expect(await fs.readFile(path.join(sb.roots.project, 'notes.md'), 'utf8')).toBe('Staging deploys need the office VPN.\n');
    // What Cairn answers the same three commands, run directly in a sandbox of its own.
    const twin = await makeSandbox();
    try {
      const expected = [await twin.run(CREATE), await twin.run(EDIT), await twin.run(VIEW)].map((r) => r.output);
      const handedBack = [CREATE, EDIT, VIEW].map((input) => toolResultFor(server.modelCalls(), input));
      expect(handedBack.map((b) => b.content)).toEqual(expected.map((text) => [{ type: 'text', text }]));
      expect(handedBack.map((b) => b.is_error)).toEqual([undefined, undefined, undefined]);
    } finally {
      await twin.cleanup();
    }
  });

  it('runs memory_search without asking, as setup allowed it (read-only), and hands its answer back', () => {
    const result = toolResultFor(server.modelCalls(), SEARCH);
    expect(result.is_error).toBeUndefined();
    expect(JSON.stringify(result.content)).toContain('/memories/project/deploy.md');
  });

  it("gives the model the memory index and the hot set in its first request, exactly once, without a tool call", () => {
    const first = server.modelCalls()[0]!;
    expect(first.body).not.toContain('"tool_result"');
    expect(count(first.body, '<memory_index>')).toBe(1);
    expect(count(first.body, '<hot_memories>')).toBe(1);
    expect(first.body).toContain('/memories/project/deploy.md: How to deploy the widgets service to staging');
    // The server still says how to use its tools, only without the index.
    expect(first.body).toContain('## cairn\\nCairn keeps your persistent memory.');
  });

  it("brings the prompt's topic's memory into the request, and not the others", () => {
    const first = server.modelCalls()[0]!.body;
    const relevant = /<relevant_memories>[\s\S]*?<\/relevant_memories>/.exec(first.replaceAll('\\n', '\n'))?.[0];
    expect(relevant).toContain('<memory_file path=\\"/memories/project/deploy.md\\">');
    expect(relevant).toContain('the staging cluster is called kestrel.');
    expect(relevant).not.toContain('style.md');
  });

  it("keeps its own transcript, which the SessionEnd hook harvests: a -p prompt is the SDK's, so none of it is the person's", async () => {
    const [transcript, ...more] = await claudeTranscripts(userHome, sb.checkout);
    expect(more).toEqual([]);
    const lines = (await fs.readFile(transcript!, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as Block);
    expect(lines.find((l) => l.type === 'user' && (l.message as Block).content === PROMPT)).toMatchObject({ promptSource: 'sdk' });

    const read = await readTranscriptFile(transcript!);
    expect(read.messages.map((m) => m.text)).toContain(PROMPT);
    expect(read.messages.filter((m) => m.fromPerson)).toEqual([]);
    // The SessionEnd hook setup wrote harvested this session, in the background, once the client
    // ended it: nothing found, the prompt being the SDK's.
    const status = async () => (JSON.parse((await runCairn(['harvest', '--status', '--json', '--home', sb.home, '--cwd', sb.checkout])).stdout) as { lastRun: unknown }).lastRun;
    await expect.poll(status, { timeout: 30_000 }).toMatchObject({ agent: 'claude', sessionId: path.basename(transcript!, '.jsonl'), outcome: 'nothing-found', proposed: 0 });
  });
});

describe(`Claude Code ${pinnedVersion('claude')}'s own files, recorded (tests/fixtures/agents/claude-code, by claude-code-run.ts --record)`, () => {
  const transcript = path.join(FIXTURES, 'typed-and-queued.jsonl');

  it('the person is exactly the prompts the client marks as typed and queued', async () => {
    const read = await readTranscriptFile(transcript);
    expect(read.messages.filter((m) => m.fromPerson).map((m) => m.text)).toEqual([...RECORDED_PROMPTS]);
    // The rest: the model's calls and words, and tools' results (Cairn's own text among them).
    expect(read.messages.filter((m) => !m.fromPerson).map(speakerOf)).toEqual(['agent', 'tool', 'agent', 'tool', 'agent']);
    expect(read.messages.find((m) => m.kind === 'tool_result' && m.text.includes('File created successfully'))).toMatchObject({ fromPerson: false });
  });

  it("cairn harvest proposes from the person's words only, quoting the queued prompt", async () => {
    const sandbox = await makeSandbox();
    try {
      const harvest = await runCairn(['harvest', '--transcript', transcript, '--dry-run', '--json', '--home', sandbox.home, '--cwd', sandbox.checkout]);
      expect(harvest.status, harvest.stderr).toBe(0);
      const { proposed } = JSON.parse(harvest.stdout) as { proposed: Array<{ text: string; evidence: Array<{ quote: string }> }> };
      expect(proposed.map((p) => [p.text, p.evidence.map((e) => e.quote)])).toEqual([['Kestrel is the staging cluster.', [RECORDED_PROMPTS[1]]]]);
    } finally {
      await sandbox.cleanup();
    }
  });

  it('cairn setup claude writes the files the client ran with, byte for byte, and --remove takes them away again', async () => {
    const sandbox = await makeSandbox();
    try {
      const launcher = await fs.realpath(path.join(import.meta.dirname, '..', '..', 'bin', 'cairn'));
      // The recording's anonymised paths, put back for this checkout and home.
      const expected = async (name: string) => (await fs.readFile(path.join(FIXTURES, name), 'utf8')).replaceAll('/opt/cairn/bin/cairn', launcher).replaceAll('/home/person/work/home', sandbox.home);
      expect((await runCairn(['setup', 'claude', '--home', sandbox.home, '--cwd', sandbox.checkout])).status).toBe(0);
      expect(await fs.readFile(path.join(sandbox.checkout, '.mcp.json'), 'utf8')).toBe(await expected('setup.mcp.json'));
      expect(await fs.readFile(path.join(sandbox.checkout, '.claude', 'settings.json'), 'utf8')).toBe(await expected('setup.settings.json'));
      expect((await runCairn(['setup', 'claude', '--remove', '--home', sandbox.home, '--cwd', sandbox.checkout])).status).toBe(0);
      expect((await fs.readdir(sandbox.checkout)).sort()).toEqual(['.git']);
    } finally {
      await sandbox.cleanup();
    }
  });
});
