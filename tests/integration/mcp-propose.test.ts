// The `agent` harvest backend through the official MCP client against `cairn mcp`: the
// prompt `harvest`, and the tool `memory_propose` checking the agent's quotes against the session's
// own transcript, a Claude Code fixture placed where Claude Code keeps the checkout's sessions
// (~/.claude/projects/<encoded checkout>/, with HOME pointed at a temp dir). Accepted candidates
// land in the inbox on disk; invented quotes, secrets, an agent's words for a preference and low
// confidence are refused and counted; nothing is written to memory; it works in explore mode; a
// session with no transcript gets an error the model can act on. The same over HTTP (/mcp of the
// host's web server, bound by cwd or by workspace). No model runs here: the test
// plays the agent and sends the candidates a model would.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_INBOX_PENDING } from '../../src/common/memory/constants';
import type { Candidate } from '../../src/main/inbox/candidate';
import { InboxStore, type ItemSource } from '../../src/main/inbox/inbox-store';
import { openAppHost, startWebHost } from '../../src/main/host/app-host';
import { localRuntime } from '../../src/main/host/memory-home';
import { WorkspaceRegistry } from '../../src/main/workspaces/registry';
import { CAIRN_BIN, makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';

const FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'claude', 'plain-session.jsonl');
const FIXTURE_CWD = '/home/dev/projects/widgets';
const SESSION_ID = '3f2a9c41-8e7d-4b6a-b1c2-0d9e8f7a6b5c';
/** The prompt in the fixture where the person says "we use pnpm" (its uuid is the message id). */
const PNPM_MESSAGE = '66ac711c';
/** A token the secret scanner knows, from its corpus (no new secret-looking literal in the repo). */
const TOKEN = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'fixtures', 'scanner-corpus', 'secrets.json'), 'utf8')) as Array<{ rule: string; secret: string }>).find(
  (s) => s.rule === 'github-token',
)!.secret;

let sb: Sandbox;
/** The agent's user's home: where Claude Code keeps its sessions. */
let userHome: string;
const clients: Client[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  userHome = path.join(sb.dir, 'user');
  // The session ran in the checkout: the fixture's cwd moved there, under the folder Claude Code names by it.
  const folder = path.join(userHome, '.claude', 'projects', sb.checkout.replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, `${SESSION_ID}.jsonl`), fs.readFileSync(FIXTURE, 'utf8').replaceAll(FIXTURE_CWD, sb.checkout) + proposeCallLine(sb.checkout));
});

/**
 * The agent's own call of memory_propose, as Claude Code writes it to the transcript before the
 * tool runs: it holds every quote, invented ones too, and must not count as their evidence.
 */
function proposeCallLine(cwd: string): string {
  const input = { candidates: [PNPM, WIDGET_TESTS, INVENTED, AGENTS_WORDS, UNSURE] };
  return `${JSON.stringify({
    parentUuid: '38b4d7a1-eb07-5538-aa94-0f6c8a91c713',
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: SESSION_ID,
    version: '2.0.37',
    type: 'assistant',
    message: { id: 'msg_01ProposeCall', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01Propose', name: 'mcp__cairn__memory_propose', input }] },
    uuid: 'a7c0e1d2-0000-4000-8000-000000000001',
    timestamp: '2025-11-12T09:40:00.000Z',
  })}\n`;
}
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await sb.cleanup();
});

async function connect(args: string[] = [], cwd = sb.checkout): Promise<Client> {
  const env: Record<string, string> = { ...getDefaultEnvironment(), HOME: userHome };
  const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', cwd, ...args], env, stderr: 'pipe' });
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
}

type Proposal = { category: string; text: string; scope: string; evidence: Array<{ quote: string }>; confidence: number; rationale: string };
const propose = async (client: Client, candidates: Proposal[]) => {
  const result = await client.callTool({ name: 'memory_propose', arguments: { candidates } });
  return { isError: result.isError ?? false, text: text(result) };
};

const PNPM: Proposal = {
  category: 'convention',
  text: 'This repository uses pnpm, not npm.',
  scope: 'project',
  evidence: [{ quote: 'we use pnpm in this repo, not npm' }],
  confidence: 0.9,
  rationale: 'The person said so while asking for a fix.',
};
const WIDGET_TESTS: Proposal = {
  category: 'preference',
  text: 'Run only the affected tests: the full suite takes about ten minutes.',
  scope: 'global',
  // Line breaks and spaces differ from the message: the match is after whitespace normalisation.
  evidence: [{ quote: 'just the widget tests please,\n  the full suite takes ten minutes' }],
  confidence: 0.8,
  rationale: 'The person stopped a full run and asked for the widget tests only.',
};
const INVENTED: Proposal = {
  category: 'fact',
  text: 'The CI machines run in UTC.',
  scope: 'project',
  evidence: [{ quote: 'our CI machines all run in UTC' }],
  confidence: 0.9,
  rationale: 'Explains the sort failure.',
};
const SECRET: Proposal = {
  category: 'command',
  text: `Release with GH_TOKEN=${TOKEN} npm publish.`,
  scope: 'project',
  evidence: [{ quote: 'npm test -- src/widgets/list.test.ts' }],
  confidence: 0.9,
  rationale: 'How to release.',
};
const AGENTS_WORDS: Proposal = {
  category: 'preference',
  text: 'The user wants only the widget tests run.',
  scope: 'global',
  evidence: [{ quote: 'Understood, running only the widget tests.' }],
  confidence: 0.9,
  rationale: 'The agent agreed to it.',
};
const UNSURE: Proposal = {
  category: 'lesson',
  text: 'String comparison with < orders by UTF-16 code units, not by locale.',
  scope: 'global',
  evidence: [{ quote: 'orders by UTF-16 code units' }],
  confidence: 0.3,
  rationale: 'Found while fixing the sort.',
};

/** The inbox's proposed memories (an inbox may also hold agents' changes under review: not these). */
type ProposedItem = { readonly id: string; readonly candidate: Candidate; readonly source: ItemSource; readonly target: string };
function proposedItems(): ProposedItem[] {
  return new InboxStore(sb.home)
    .list('pending')
    .flatMap((i) => ('candidate' in i ? [i as ProposedItem] : []))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

function workspaceOfCheckout(): string {
  const registry = new WorkspaceRegistry(sb.home, { local: localRuntime() });
  return registry.list().find((w) => w.path === sb.checkout)!.id;
}

describe('the agent harvest backend over MCP', () => {
  it('offers the prompt harvest, whose message asks for memory_propose with quotes as evidence', async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['harvest', 'consolidate']);
    const prompt = await client.getPrompt({ name: 'harvest' });
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]!.role).toBe('user');
    const body = (prompt.messages[0]!.content as { type: string; text: string }).text;
    expect(body).toMatch(/look back over this session/);
    expect(body).toMatch(/calling the `memory_propose` tool once/);
    expect(body).toMatch(/preference, convention, fact, command or lesson/);
    expect(body).toMatch(/copied verbatim/);
    expect(body).toMatch(/A preference or a convention needs the user's own words quoted/);
    expect(body).toMatch(/At most 10/);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'memory_propose')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(Object.keys(tool.inputSchema.properties ?? {})).toEqual(['candidates']);
    expect(tool.description).toMatch(/It writes no memory/);
  });

  it('puts the candidates whose quotes are in the session in the inbox, and counts every refusal by its reason', async () => {
    const client = await connect();
    const answer = await propose(client, [PNPM, WIDGET_TESTS, INVENTED, SECRET, AGENTS_WORDS, UNSURE]);
    expect(answer.isError).toBe(false);

    const items = proposedItems();
    expect(items.map((i) => i.candidate.text)).toEqual([PNPM.text, WIDGET_TESTS.text]);
    expect(answer.text).toBe(
      [
        `Proposed 2 of 6 for a person's review in Cairn's inbox: #1 as ${items[0]!.id}, #2 as ${items[1]!.id}.`,
        "Skipped 4 (#3, #4, #5, #6): 1 no-evidence (a quote was not found word for word in this session's messages); 1 not-persons-words (a preference or convention without the user's own words among its quotes); 1 low-confidence (confidence under 0.6); 1 flagged (a secret or an instruction aimed at a model in its text, a quote or a quoted message).",
        'Nothing was written to memory: a person approves, edits or rejects each proposal in Cairn.',
      ].join('\n'),
    );
    // Neither the secret nor a host path reaches the model.
    expect(answer.text).not.toContain(TOKEN);
    expect(answer.text).not.toContain(sb.dir);

    const [pnpm] = items;
    expect(pnpm!.source).toEqual({ agent: 'claude', sessionId: SESSION_ID, cwd: sb.checkout, workspaceId: workspaceOfCheckout(), projectId: sb.session.projectId, extractor: 'agent' });
    expect(pnpm!.target).toBe('/memories/project/conventions.md');
    // The quote is tied to the person's message, with its time, from the transcript itself.
    expect(pnpm!.candidate.evidence).toEqual([{ messageId: expect.stringMatching(new RegExp(`^${PNPM_MESSAGE}`)), quote: PNPM.evidence[0]!.quote, speaker: 'person', at: expect.stringMatching(/^2025-11-12T/) }]);

    // Nothing became memory.
    for (const root of Object.values(sb.roots)) expect(fs.existsSync(root) ? fs.readdirSync(root) : []).toEqual([]);

    // Proposed again, nothing new: each is already waiting.
    const again = await propose(client, [PNPM, WIDGET_TESTS]);
    expect(again.text).toMatch(/^Proposed none of the 2 candidates\.\nSkipped 2 \(#1, #2\): 2 already-in-inbox \(already waiting in the inbox\)\./);
    expect(proposedItems()).toHaveLength(2);
  });

  it('a full inbox (MAX_INBOX_PENDING pending): what fits is proposed, the rest skipped as inbox-full with a text the model can act on', async () => {
    // The inbox one short of full, as a person who has not reviewed for a while leaves it.
    const store = new InboxStore(sb.home);
    const filler = Array.from({ length: MAX_INBOX_PENDING - 1 }, (_, i): Candidate => ({ category: 'fact', text: `Filler ${i}.`, scope: 'global', evidence: [{ messageId: 'm', quote: 'q' }], confidence: 0.9, rationale: 'r' }));
    expect(store.add(filler, { agent: 'claude', sessionId: 'other', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' })).toHaveLength(MAX_INBOX_PENDING - 1);
    const client = await connect();
    const answer = await propose(client, [PNPM, WIDGET_TESTS]);
    expect(answer.isError).toBe(false);
    const [pnpm] = proposedItems().filter((i) => i.source.sessionId === SESSION_ID);
    expect(answer.text).toBe(
      [
        `Proposed 1 of 2 for a person's review in Cairn's inbox: #1 as ${pnpm!.id}.`,
        "Skipped 1 (#2): 1 inbox-full (Cairn's inbox is full).",
        `Cairn's inbox is full: ${MAX_INBOX_PENDING} items already wait for a person's review, the most it holds, so nothing more is proposed until some are approved or rejected. Ask the user to review the inbox (cairn inbox list, or the Inbox in the Cairn app). Do not propose again in this session.`,
        'Nothing was written to memory: a person approves, edits or rejects each proposal in Cairn.',
      ].join('\n'),
    );
    expect(answer.text).not.toContain(sb.dir);
    expect(store.list('pending')).toHaveLength(MAX_INBOX_PENDING);
    const full = await propose(client, [WIDGET_TESTS]);
    expect(full.text).toMatch(/^Proposed none of the 1 candidates\.\nSkipped 1 \(#1\): 1 inbox-full/);
    expect(store.list('pending')).toHaveLength(MAX_INBOX_PENDING);
  });

  it('reads the confidence threshold from the settings at each call', async () => {
    const client = await connect();
    await new WorkspaceRegistry(sb.home, { local: localRuntime() }).setSettings({ harvestMinConfidence: 0.95 });
    const answer = await propose(client, [PNPM]);
    expect(answer.text).toMatch(/Skipped 1 \(#1\): 1 low-confidence \(confidence under 0\.95\)/);
    expect(new InboxStore(sb.home).list()).toEqual([]);
  });

  it('works in explore mode, where the memory tool cannot write', async () => {
    const client = await connect(['--mode', 'explore']);
    const write = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/x.md', file_text: 'x\n' } });
    expect(write.isError).toBe(true);
    const answer = await propose(client, [PNPM]);
    expect(answer).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed 1 of 1 for a person's review/) });
    expect(proposedItems().map((i) => i.candidate.text)).toEqual([PNPM.text]);
  });

  it('answers with an error the model can act on when the session has no transcript, and proposes nothing', async () => {
    const elsewhere = path.join(sb.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const client = await connect([], elsewhere);
    const answer = await propose(client, [PNPM]);
    expect(answer).toEqual({
      isError: true,
      text: "Cairn could not find this session's transcript to check the quotes against, so nothing was proposed. Proposals work in Claude Code and Codex sessions.",
    });
    expect(new InboxStore(sb.home).list()).toEqual([]);
  });

  it('refuses malformed candidates with the field named, before anything is looked up', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'memory_propose', arguments: { candidates: [{ ...PNPM, category: 'opinion' }] } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Invalid option: expected one of .* at candidates\[0\]\.category/);
    expect(new InboxStore(sb.home).list()).toEqual([]);
  });
});

describe('the agent harvest backend over HTTP (/mcp)', () => {
  it("finds the session's transcript by the cwd the client gave, or by its workspace's checkout", async () => {
    // The host runs in this process: Claude Code's folder is found through CLAUDE_CONFIG_DIR, as a user may set it.
    const saved = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = path.join(userHome, '.claude');
    const host = openAppHost(sb.home);
    const web = await startWebHost(host, { port: 0, host: '127.0.0.1', staticDir: null });
    try {
      const open = async (query: string) => {
        const transport = new StreamableHTTPClientTransport(new URL(`${web.mcp!.url}?${query}`), { requestInit: { headers: { Authorization: `Bearer ${web.mcp!.token}` } } });
        const client = new Client({ name: 'cairn-http-test', version: '1.0.0' });
        await client.connect(transport);
        clients.push(client);
        return client;
      };
      const byCwd = await open(`cwd=${encodeURIComponent(sb.checkout)}&mode=plan`);
      expect((await byCwd.listPrompts()).prompts.map((p) => p.name)).toEqual(['harvest', 'consolidate']);
      expect(await propose(byCwd, [PNPM])).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed 1 of 1/) });
      const byWorkspace = await open(`workspace=${workspaceOfCheckout()}`);
      expect(await propose(byWorkspace, [WIDGET_TESTS])).toMatchObject({ isError: false, text: expect.stringMatching(/^Proposed 1 of 1/) });
      const items = proposedItems();
      expect(items.map((i) => i.candidate.text).sort()).toEqual([PNPM.text, WIDGET_TESTS.text].sort());
      expect(items.every((i) => i.source.sessionId === SESSION_ID && i.source.workspaceId === workspaceOfCheckout())).toBe(true);
    } finally {
      for (const c of clients.splice(0)) await c.close().catch(() => {});
      await web.close();
      await host.close();
      if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = saved;
    }
  });
});
