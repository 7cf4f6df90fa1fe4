// Other agents' files: agentFiles.search (memory_search's ranking, a line per hit with
// the matching words' spans), adopt (into the Inbox, split, scanned, deduplicated against memory,
// pending and rejected proposals and each other) and compare (rows two or more sides state
// differently), over the real router and services, each agent's files laid out as it lays them out.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IMPORT_PROPOSALS, MAX_INBOX_PENDING } from '../../src/common/memory/constants';
import { InboxStore } from '../../src/main/inbox/inbox-store';
import { openWorld, type AgentFilesWorld } from '../fixtures/agent-files/layout';

let w: AgentFilesWorld;
// A token shaped like GitHub's (as tests/integration/api.test.ts plants): the scanners must find it.
const TOKEN = 'ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4';

beforeEach(async () => {
  w = await openWorld();
});
afterEach(async () => {
  await w.close();
});

const spansOf = (line: string, ...words: string[]) => words.map((word): [number, number] => [line.indexOf(word), line.indexOf(word) + word.length]);

describe('agentFiles.search', () => {
  it('ranks the files as memory_search does and gives each matching line with its words highlighted', async () => {
    const { hits } = await w.client.agentFiles.search({ workspaceId: w.ws, query: 'timestamp UTC' });
    // AGENTS.md states both words, GEMINI.md only one: AGENTS.md first.
    expect(hits).toEqual([
      { id: 'AGENTS.md', agent: 'codex', line: 6, text: '- Store every timestamp in UTC.', matches: spansOf('- Store every timestamp in UTC.', 'timestamp', 'UTC') },
      { id: 'GEMINI.md', agent: 'gemini', line: 1, text: '- Store every timestamp in local time.', matches: spansOf('- Store every timestamp in local time.', 'timestamp') },
    ]);
  });

  it('finds the home files and the auto memory too, and a line per hit up to the limit', async () => {
    const { hits } = await w.client.agentFiles.search({ workspaceId: w.ws, query: 'pnpm' });
    expect(hits.map((h) => [h.id, h.line, h.text]).sort()).toEqual([
      ['~/.claude/CLAUDE.md', 3, '- Use pnpm, not npm.'],
      ['~/.codex/AGENTS.md', 3, '- Use npm, not pnpm.'],
    ]);
    const build = await w.client.agentFiles.search({ workspaceId: w.ws, query: 'build', limit: 1 });
    expect(build.hits).toHaveLength(1);
    expect((await w.client.agentFiles.search({ workspaceId: w.ws, query: 'flaky test' })).hits.map((h) => h.id)).toContain(
      `~/.claude/projects/${path.basename(path.dirname(w.autoMemory))}/memory/MEMORY.md`,
    );
    expect((await w.client.agentFiles.search({ workspaceId: w.ws, query: 'the of and' })).hits).toEqual([]);
  });

  it('never searches a file it will not open', async () => {
    await fs.writeFile(path.join(w.sb.checkout, 'AGENTS.md'), `- Store every timestamp in UTC.\n${'x'.repeat(100 * 1024)}`);
    const { hits } = await w.client.agentFiles.search({ workspaceId: w.ws, query: 'timestamp' });
    expect(hits.map((h) => h.id)).toEqual(['GEMINI.md']);
  });
});

describe('agentFiles.adopt', () => {
  it('proposes a file entry by entry, with the file and line as evidence, skipping what memory, the Inbox or the batch already has, refusing a planted secret by line and rule', async () => {
    await w.client.memory.save({ workspaceId: w.ws, path: '/memories/project/notes.md', content: '- Store every timestamp in UTC.\n', expectedSha256: null });
    const first = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'CLAUDE.md', scope: 'project' });
    expect(first).toMatchObject({ status: 'ok', duplicates: [], refused: [], message: '3 proposals from CLAUDE.md added to the Inbox for project memory.' });
    expect(first.status === 'ok' && first.added).toHaveLength(3);

    const agents = path.join(w.sb.checkout, 'AGENTS.md');
    await fs.appendFile(agents, `- Deploy with ${TOKEN} from CI.\n- Run \`make check\` before pushing.\n`);
    const second = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project' });
    expect(second).toMatchObject({
      status: 'ok',
      duplicates: [
        { text: 'The API lives in src/api.', reason: 'already-in-inbox' },
        { text: 'Store every timestamp in UTC.', reason: 'already-in-memory' },
        { text: 'Run `make check` before pushing.', reason: 'duplicate-in-batch' },
      ],
      refused: [{ line: 7, reason: 'the scanners found a secret (github-token)' }],
    });
    expect(second.status === 'ok' && second.added).toHaveLength(1);
    expect(JSON.stringify(second)).not.toContain(TOKEN);

    const { items } = await w.client.inbox.list({});
    const adopted = items.find((i) => second.status === 'ok' && i.id === second.added[0])!;
    expect(adopted).toMatchObject({
      kind: 'memory',
      status: 'pending',
      scope: 'project',
      text: 'Run `make check` before pushing.',
      evidence: [{ messageId: 'AGENTS.md:3', quote: 'Run `make check` before pushing.', speaker: 'person' }],
      workspaceId: w.ws,
    });
    expect(items).toHaveLength(4);
    expect(JSON.stringify(items)).not.toContain(TOKEN);

    // A rejected proposal is not proposed again.
    expect(await w.client.inbox.reject({ id: adopted.id })).toMatchObject({ status: 'ok' });
    const third = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project', lines: [[3, 3]] });
    expect(third).toMatchObject({ status: 'ok', added: [], duplicates: [{ text: 'Run `make check` before pushing.', reason: 'rejected-before' }] });
    // Nothing was written to memory: approval is the person's.
    expect((await w.client.memory.list({ workspaceId: w.ws })).files.map((f) => f.path)).toEqual(['/memories/project/notes.md']);
  });

  it('adopts at most MAX_IMPORT_PROPOSALS entries of a file, and no more than the inbox has room for, saying what it left out', async () => {
    const lines = Array.from({ length: MAX_IMPORT_PROPOSALS + 50 }, (_, i) => `- Service ${i} listens on port ${8000 + i}.`);
    await fs.writeFile(path.join(w.sb.checkout, 'AGENTS.md'), `# Ports\n\n${lines.join('\n')}\n`);
    const big = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project' });
    expect(big).toMatchObject({ status: 'ok', added: expect.any(Array) });
    expect(big.status === 'ok' && big.added).toHaveLength(MAX_IMPORT_PROPOSALS);
    expect(big.message).toBe(
      `${MAX_IMPORT_PROPOSALS} proposals from AGENTS.md added to the Inbox for project memory. 50 entries were not proposed: one adopt proposes at most ${MAX_IMPORT_PROPOSALS}, as many as a person can review at once. Review these in the inbox, then adopt it again (what is already proposed is not proposed twice), or adopt a few lines of it at a time.`,
    );
    // The inbox one short of full: one more is taken, the rest left out because it is full.
    const store = new InboxStore(w.sb.home);
    const room = MAX_INBOX_PENDING - MAX_IMPORT_PROPOSALS - 1;
    store.add(
      Array.from({ length: room }, (_, i) => ({ category: 'fact' as const, text: `Filler ${i}.`, scope: 'global' as const, evidence: [{ messageId: 'm', quote: 'q' }], confidence: 0.9, rationale: 'r' })),
      { agent: 'claude', sessionId: 'other', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' },
    );
    const rest = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project' });
    expect(rest.status === 'ok' && rest.added).toHaveLength(1);
    expect(rest.message).toMatch(/ 49 entries were not proposed: Cairn's inbox is full: 500 items already wait for a person's review/);
    expect(store.list('pending')).toHaveLength(MAX_INBOX_PENDING);
  });

  it('adopts selected lines or a selected text, and refuses a selection that is not in the file as it is now', async () => {
    const lines = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md', scope: 'global', lines: [[3, 3]] });
    expect(lines).toMatchObject({ status: 'ok', refused: [], duplicates: [] });
    const text = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md', scope: 'global', text: 'Indent with 2 spaces.' });
    expect(text).toMatchObject({ status: 'ok' });
    const { items } = await w.client.inbox.list({});
    expect(items.map((i) => [i.text, i.evidence[0]!.messageId, i.scope]).sort()).toEqual([
      ['Indent with 2 spaces.', '~/.claude/CLAUDE.md:4', 'global'],
      ['Use pnpm, not npm.', '~/.claude/CLAUDE.md:3', 'global'],
    ]);
    expect(await w.client.agentFiles.adopt({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md', scope: 'global', text: 'Use yarn.' })).toEqual({
      status: 'error',
      message: 'The selected text is not in ~/.claude/CLAUDE.md as it is now; open the file again and select it there.',
    });
    expect(await w.client.agentFiles.adopt({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md', scope: 'global', lines: [[4, 40]] })).toEqual({
      status: 'error',
      message: 'Lines 4-40 are not in ~/.claude/CLAUDE.md, which has 5 lines; open it again and select them there.',
    });
    // Without a workspace there is no project scope to adopt into.
    expect(await w.client.agentFiles.adopt({ workspaceId: null, id: '~/.claude/CLAUDE.md', scope: 'project' })).toEqual({
      status: 'error',
      message: 'Nothing can be adopted into project memory here: no workspace is selected.',
    });
  });

  it('takes a paragraph of one sentence per line as one statement per line, and a paragraph wrapped mid-sentence as one', async () => {
    await fs.writeFile(
      path.join(w.sb.checkout, 'AGENTS.md'),
      '# Widgets\n\nUse npm for everything.\nRun make test before pushing.\nPrefer tabs for indentation.\n\nDeploys go out on Tuesdays, after the\nrelease notes are reviewed.\n',
    );
    await w.client.memory.save({ workspaceId: w.ws, path: '/memories/project/build.md', content: 'Run make test before pushing.\n', expectedSha256: null });
    const adopted = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project', lines: [[3, 5]] });
    expect(adopted).toMatchObject({ status: 'ok', duplicates: [{ text: 'Run make test before pushing.', reason: 'already-in-memory' }], refused: [] });
    expect(adopted.status === 'ok' && adopted.added).toHaveLength(2);
    const wrapped = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: 'AGENTS.md', scope: 'project', lines: [[7, 8]] });
    expect(wrapped.status === 'ok' && wrapped.added).toHaveLength(1);
    const texts = (await w.client.inbox.list({})).items.map((i) => [i.text, i.evidence[0]!.messageId]).sort();
    expect(texts).toEqual([
      ['Deploys go out on Tuesdays, after the release notes are reviewed.', 'AGENTS.md:7'],
      ['Prefer tabs for indentation.', 'AGENTS.md:5'],
      ['Use npm for everything.', 'AGENTS.md:3'],
    ]);
  });

  it("skips a Cursor rule's frontmatter: its description is the entries' context, not an entry", async () => {
    const adopted = await w.client.agentFiles.adopt({ workspaceId: w.ws, id: '.cursor/rules/api.mdc', scope: 'project' });
    expect(adopted).toMatchObject({ status: 'ok', message: '1 proposal from .cursor/rules/api.mdc added to the Inbox for project memory.' });
    const [item] = (await w.client.inbox.list({})).items;
    expect(item).toMatchObject({ text: 'Validate request bodies with zod.', evidence: [{ messageId: '.cursor/rules/api.mdc:6' }] });
    expect(item!.rationale).toContain('API conventions');
  });
});

describe('agentFiles.compare', () => {
  it('lines two agents state differently are one row; what one alone states, and what all state alike, are told apart', async () => {
    const result = await w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['~/.claude/CLAUDE.md', '~/.codex/AGENTS.md'] });
    expect(result.sides).toEqual([
      { id: '~/.claude/CLAUDE.md', label: 'Claude Code · ~/.claude/CLAUDE.md' },
      { id: '~/.codex/AGENTS.md', label: 'Codex · ~/.codex/AGENTS.md' },
    ]);
    expect(result.same).toBe(1); // "Indent with 2 spaces."
    expect(result.rows).toEqual([
      { kind: 'differs', cells: [{ line: 3, text: 'Use pnpm, not npm.' }, { line: 3, text: 'Use npm, not pnpm.' }] },
      { kind: 'only', cells: [{ line: 5, text: 'Write commit messages in the imperative mood.' }, null] },
      { kind: 'only', cells: [null, { line: 5, text: 'Ask before adding a production dependency.' }] },
    ]);
  });

  it('compares agent files with Cairn memory, and rows where the sides that state it agree but one is silent are missing', async () => {
    await w.client.memory.save({ workspaceId: w.ws, path: '/memories/project/conventions.md', content: '- The API lives in src/api.\n- Store every timestamp in local time.\n', expectedSha256: null });
    const result = await w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['CLAUDE.md', 'AGENTS.md', '/memories/project/conventions.md'] });
    expect(result.sides.map((s) => s.label)).toEqual(['Claude Code · CLAUDE.md', 'Codex · AGENTS.md', 'Cairn memory · /memories/project/conventions.md']);
    expect(result.same).toBe(1); // the API's place
    expect(result.rows).toEqual([
      { kind: 'differs', cells: [{ line: 3, text: 'Run `make test` before pushing.' }, { line: 3, text: 'Run `make check` before pushing.' }, null] },
      { kind: 'differs', cells: [null, { line: 6, text: 'Store every timestamp in UTC.' }, { line: 2, text: 'Store every timestamp in local time.' }] },
      { kind: 'only', cells: [{ line: 6, text: 'Use zod for every request body.' }, null, null] },
    ]);
    const missing = await w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['CLAUDE.md', 'AGENTS.md', '.cursor/rules/api.mdc'] });
    expect(missing.rows.filter((r) => r.kind === 'missing')).toEqual([{ kind: 'missing', cells: [{ line: 5, text: 'The API lives in src/api.' }, { line: 5, text: 'The API lives in src/api.' }, null] }]);
  });

  it('refuses a side it cannot read, naming it', async () => {
    await expect(w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['CLAUDE.md', 'CLAUDE.md'] })).rejects.toThrow('Choose two or more different files to compare.');
    await expect(w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['CLAUDE.md', 'README.md'] })).rejects.toThrow(/"README.md" is not a file another agent reads/);
    await expect(w.client.agentFiles.compare({ workspaceId: w.ws, ids: ['CLAUDE.md', '/memories/project/none.md'] })).rejects.toThrow(/none\.md/);
  });
});
