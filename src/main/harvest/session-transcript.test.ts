// Finding the transcript of the session an MCP session serves, on a real temp dir laid out as
// Claude Code and Codex lay out theirs (the fixtures' formats, with the cwd rewritten to a real
// directory): the encoded folder, the newest file winning, a file of another cwd in the same
// folder skipped, Codex's meta cwd and recent day folders (a fake clock says which are recent);
// and where a quote is in a transcript.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../tests/support/sandbox';
import { readClaudeTranscript } from './claude-transcript';
import { transcriptRoots, type TranscriptRoots } from './session-files';
import { findSessionTranscript, messageOfQuote } from './session-transcript';
import { speakerOf } from './transcript';

const FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts');
const FIXTURE_CWD = '/home/dev/projects/widgets';
/** The Claude Code fixture with its cwd moved to `cwd`. */
const claudeFixture = (cwd: string): string => fs.readFileSync(path.join(FIXTURES, 'claude', 'plain-session.jsonl'), 'utf8').replaceAll(FIXTURE_CWD, cwd);
const CODEX_FIXTURE = 'rollout-2026-01-08T11-30-00-019b2f70-4c13-7e21-8d9a-0b1c2d3e4f53.jsonl';
const codexFixture = (cwd: string): string => fs.readFileSync(path.join(FIXTURES, 'codex', CODEX_FIXTURE), 'utf8').replaceAll(FIXTURE_CWD, cwd);
/** One Claude Code prompt line of a session in `cwd`. */
const claudeLine = (sessionId: string, cwd: string, text: string): string =>
  `${JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId, version: '2.0.37', type: 'user', message: { role: 'user', content: text }, uuid: `${sessionId}-u1`, timestamp: '2026-01-08T10:00:00.000Z' })}\n`;

const NOW = Date.parse('2026-01-08T12:00:00Z');

let dir: string;
let roots: TranscriptRoots;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-session-')));
  roots = { claudeConfigDir: path.join(dir, 'claude-config'), codexHome: path.join(dir, 'codex') };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A real directory for a session to have run in. */
function workDir(relative: string): string {
  const work = path.join(dir, relative);
  fs.mkdirSync(work, { recursive: true });
  return work;
}

function put(file: string, text: string, mtimeMs: number): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  fs.utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
  return file;
}

const claudeFile = (folder: string, sessionId: string) => path.join(roots.claudeConfigDir, 'projects', folder, `${sessionId}.jsonl`);

describe('the transcript of this session', () => {
  it("finds Claude Code's under projects/<cwd with every non-alphanumeric character as '-'>", async () => {
    const work = workDir('my_proj.v2/app');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    expect(folder).toMatch(/-my-proj-v2-app$/);
    put(claudeFile(folder, 'sess-a'), claudeFixture(work), NOW);
    const found = await findSessionTranscript(work, { roots });
    expect(found).toMatchObject({ agent: 'claude', sessionId: 'sess-a', cwd: work });
    expect(found!.messages.some((m) => m.text === 'Fix it. And remember: we use pnpm in this repo, not npm.')).toBe(true);
  });

  it('takes the most recently written session of the folder', async () => {
    const work = workDir('widgets');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    put(claudeFile(folder, 'older'), claudeLine('older', work, 'first session'), NOW - 3_600_000);
    put(claudeFile(folder, 'newest'), claudeLine('newest', work, 'second session'), NOW - 60_000);
    put(claudeFile(folder, 'middle'), claudeLine('middle', work, 'third session'), NOW - 600_000);
    expect((await findSessionTranscript(work, { roots }))?.sessionId).toBe('newest');
  });

  it('skips a newer file of another directory that shares the encoded folder (/a/b-c and /a/b/c)', async () => {
    const work = workDir('a/b/c');
    const other = workDir('a/b-c');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    expect(other.replace(/[^a-zA-Z0-9]/g, '-')).toBe(folder);
    put(claudeFile(folder, 'mine'), claudeLine('mine', work, 'my session'), NOW - 600_000);
    put(claudeFile(folder, 'theirs'), claudeLine('theirs', other, 'their session'), NOW - 60_000);
    expect((await findSessionTranscript(work, { roots }))?.sessionId).toBe('mine');
    expect((await findSessionTranscript(other, { roots }))?.sessionId).toBe('theirs');
  });

  it('reads the whole file when its first 64 KiB do not say the cwd', async () => {
    const work = workDir('big');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    const padding = `${JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: { trackedFileBackups: { pad: 'p'.repeat(70_000) } } })}\n`;
    put(claudeFile(folder, 'late-cwd'), padding + claudeLine('late-cwd', work, 'after a long snapshot'), NOW);
    expect((await findSessionTranscript(work, { roots }))?.sessionId).toBe('late-cwd');
  });

  it('finds a folder whose name Claude Code cut at 200 characters and gave a hash suffix', async () => {
    const work = workDir(`${'long-directory-name/'.repeat(12)}end`);
    const cut = work.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200);
    put(claudeFile(`${cut}-1x2y3z`, 'long'), claudeLine('long', work, 'a long path'), NOW);
    expect((await findSessionTranscript(work, { roots }))?.sessionId).toBe('long');
  });

  it("finds Codex's rollout in a recent day folder by its meta line's cwd, newest first", async () => {
    const work = workDir('widgets');
    const elsewhere = workDir('gadgets');
    const day = path.join(roots.codexHome, 'sessions', '2026', '01', '08');
    put(path.join(day, CODEX_FIXTURE), codexFixture(work), NOW - 600_000);
    // Written later, but another project's session.
    put(path.join(day, 'rollout-2026-01-08T11-50-00-019b2f70-0000-7e21-8d9a-0b1c2d3e4f99.jsonl'), codexFixture(elsewhere), NOW - 60_000);
    const found = await findSessionTranscript(work, { roots, now: () => NOW });
    expect(found).toMatchObject({ agent: 'codex', sessionId: '019b2f70-4c13-7e21-8d9a-0b1c2d3e4f53', cwd: work });
  });

  it("looks only at the last few days' folders of Codex", async () => {
    const work = workDir('widgets');
    put(path.join(roots.codexHome, 'sessions', '2025', '12', '20', CODEX_FIXTURE), codexFixture(work), NOW);
    expect(await findSessionTranscript(work, { roots, now: () => NOW })).toBeNull();
    // The same file, a day older on the clock's terms, is in the window.
    expect(await findSessionTranscript(work, { roots, now: () => Date.parse('2025-12-21T12:00:00Z') })).not.toBeNull();
  });

  it('between the agents, the most recently written session wins; an agent can be asked for alone', async () => {
    const work = workDir('widgets');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    put(claudeFile(folder, 'claude-one'), claudeLine('claude-one', work, 'claude'), NOW - 600_000);
    put(path.join(roots.codexHome, 'sessions', '2026', '01', '08', CODEX_FIXTURE), codexFixture(work), NOW - 60_000);
    expect((await findSessionTranscript(work, { roots, now: () => NOW }))?.agent).toBe('codex');
    expect((await findSessionTranscript(work, { roots, now: () => NOW, agents: ['claude'] }))?.sessionId).toBe('claude-one');
  });

  it('is null when no session ran in the directory', async () => {
    const work = workDir('widgets');
    const folder = work.replace(/[^a-zA-Z0-9]/g, '-');
    put(claudeFile(`${folder}-x`, 'near'), claudeLine('near', `${work}-x`, 'nearby'), NOW);
    expect(await findSessionTranscript(work, { roots, now: () => NOW })).toBeNull();
  });

  it("takes the agents' roots from CLAUDE_CONFIG_DIR, CODEX_HOME and COPILOT_HOME, else from the home directory", () => {
    expect(transcriptRoots({ CLAUDE_CONFIG_DIR: '/opt/claude', CODEX_HOME: '/opt/codex', COPILOT_HOME: '/opt/copilot' }, '/home/dev')).toMatchObject({ claudeConfigDir: '/opt/claude', codexHome: '/opt/codex', copilotHome: '/opt/copilot' });
    expect(transcriptRoots({}, '/home/dev')).toMatchObject({ claudeConfigDir: '/home/dev/.claude', codexHome: '/home/dev/.codex', copilotHome: '/home/dev/.copilot' });
  });
});

describe('where a quote is', () => {
  const lines = (...entries: Array<{ uuid: string; role: 'user' | 'assistant'; content: unknown }>) =>
    entries
      .map((e) => JSON.stringify({ parentUuid: null, isSidechain: false, cwd: '/w', sessionId: 's', type: e.role, message: { role: e.role, content: e.content }, uuid: e.uuid, timestamp: '2026-01-08T10:00:00.000Z' }))
      .join('\n');
  const transcript = readClaudeTranscript(
    lines(
      { uuid: 'p1', role: 'user', content: 'We use   pnpm here,\nnot npm.' },
      { uuid: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Noted: we use pnpm here, not npm.' }] },
      { uuid: 't1', role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'mcp__cairn__memory_propose', input: { candidates: [{ text: 'The release branch is frozen on Fridays.' }] } }] },
      { uuid: 'p2', role: 'user', content: "Cairn's harvest: look back... The release branch is frozen on Fridays." },
    ),
  );

  it('is the message it was copied from, whitespace aside, the person first', () => {
    const found = messageOfQuote(transcript, 'we use pnpm here, not npm.');
    expect(found?.id).toBe('a1'); // the person wrote "We" with a capital: only the agent's words match
    const person = messageOfQuote(transcript, 'pnpm here, not npm');
    expect(person?.id).toBe('p1');
    expect(speakerOf(person!)).toBe('person');
    expect(speakerOf(found!)).toBe('agent');
  });

  it("is never the proposing tool's own call, nor the harvest prompt", () => {
    expect(messageOfQuote(transcript, 'The release branch is frozen on Fridays.', { promptMarker: "Cairn's harvest:" })).toBeNull();
    // Without the marker the prompt's words would count: the marker is what keeps them out.
    expect(messageOfQuote(transcript, 'The release branch is frozen on Fridays.')?.id).toBe('p2');
  });

  it('is null for a quote found nowhere, or empty', () => {
    expect(messageOfQuote(transcript, 'we use yarn')).toBeNull();
    expect(messageOfQuote(transcript, '   ')).toBeNull();
  });
});
