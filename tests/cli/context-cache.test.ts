// The context facts cache as agents meet it: real `cairn context` processes (the prompt
// hook) and a real `cairn mcp` through the official MCP client, sharing <home>/cache/context-facts.
// Every answer is compared with what a build from nothing gives (the cache deleted first); several
// processes building the cache at once all answer that; a damaged cache is rebuilt; an outside
// edit shows in the very next call; and the hook never fails a prompt.
//
// The CLI judges a file settled by the real clock (ListedEntry.version: 3 s after its last change),
// so the memory is written first and the suite waits until the newest file's ctime is that old, as
// computed from the files themselves (not a guessed sleep): only then does a first call keep facts.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VERSION_SETTLE_MS } from '../../src/main/runtime/runtime';
import { runCairn, type CliResult } from '../support/cli';
import { runTraced } from '../support/module-trace/traced';
import { BUILT_CLI, CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

const PROMPT = 'how do we run the database migration before the release';
const TOPICS = ['database', 'release', 'migration', 'deploy', 'auth'];

let sb: Sandbox;
let cacheDir: string;

function note(topic: string, i: number): string {
  return `---\ndescription: How the ${topic} work is done (${i})\n---\n# ${topic} ${i}\n\n${`- run the ${topic} step ${i} before the release.\n`.repeat(6)}`;
}

/** Resolves once every file under `dirs` changed at least VERSION_SETTLE_MS ago (by its ctime). */
async function settled(dirs: readonly string[]): Promise<void> {
  let newest = 0;
  for (const dir of dirs) {
    for (const name of await fs.readdir(dir, { recursive: true })) newest = Math.max(newest, (await fs.stat(path.join(dir, name))).ctimeMs);
  }
  const wait = newest + VERSION_SETTLE_MS + 100 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

function hook(event: 'UserPromptSubmit' | 'SessionStart', extra: string[] = []): Promise<CliResult> {
  return runCairn(['context', '--format', 'claude-hook', '--home', sb.home, ...extra], { input: JSON.stringify({ hook_event_name: event, prompt: PROMPT, cwd: sb.checkout }) });
}

/** What a build from nothing answers (the cache deleted first; the call writes it again). */
async function fresh(event: 'UserPromptSubmit' | 'SessionStart'): Promise<string> {
  await fs.rm(cacheDir, { recursive: true, force: true });
  const result = await hook(event);
  expect(result).toMatchObject({ status: 0, stderr: '' });
  return result.stdout;
}

beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  cacheDir = path.join(sb.home, 'cache', 'context-facts');
  for (const [scope, root] of Object.entries(sb.roots)) {
    for (let i = 0; i < 40; i++) {
      const topic = TOPICS[i % TOPICS.length]!;
      await fs.mkdir(path.join(root, topic), { recursive: true });
      await fs.writeFile(path.join(root, topic, `${scope}-${i}.md`), note(topic, i));
    }
  }
  await settled(Object.values(sb.roots));
}, 30_000);

afterAll(async () => {
  await sb?.cleanup();
});

describe('cairn context with the facts cache', () => {
  let expected: { prompt: string; start: string };
  beforeEach(async () => {
    expected = { prompt: await fresh('UserPromptSubmit'), start: await fresh('SessionStart') };
    expect(JSON.parse(expected.prompt)).toMatchObject({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit' } });
    expect(expected.prompt).toContain('<relevant_memories>');
    expect(expected.start).toContain('<memory_index>');
  });

  it('answers from the cache exactly what a fresh build answers, and keeps it for the person alone', async () => {
    expect((await hook('UserPromptSubmit')).stdout).toBe(expected.prompt);
    expect((await hook('SessionStart')).stdout).toBe(expected.start);
    expect((await fs.stat(cacheDir)).mode & 0o777).toBe(0o700);
    const files = await fs.readdir(cacheDir);
    expect(files).toHaveLength(3);
    for (const f of files) expect((await fs.stat(path.join(cacheDir, f))).mode & 0o777).toBe(0o600);
  });

  it('judges no file twice: a prompt answered from the cache loads no content scanner', async () => {
    const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: PROMPT, cwd: sb.checkout });
    const kept = await runTraced(sb.dir, ['context', '--format', 'claude-hook', '--home', sb.home], { input });
    expect(kept.stdout).toBe(expected.prompt);
    expect(kept.loaded).not.toContain('chunk:content-scanner');
    // The trace sees the scanners where a call judges files: a build from nothing.
    await fs.rm(cacheDir, { recursive: true, force: true });
    const judged = await runTraced(sb.dir, ['context', '--format', 'claude-hook', '--home', sb.home], { input });
    expect(judged.stdout).toBe(expected.prompt);
    expect(judged.loaded).toContain('chunk:content-scanner');
  });

  /** The prompt hook answered from the cache, traced: the chunks of the build it loaded. */
  const tracedPromptChunks = async (): Promise<string[]> => {
    const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: PROMPT, cwd: sb.checkout });
    const r = await runTraced(sb.dir, ['context', '--format', 'claude-hook', '--home', sb.home], { input });
    expect(r.stdout).toBe(expected.prompt);
    return r.chunks;
  };

  it("loads the build's code in a few chunks, not one per module (each costs a round trip of Node's module loader)", async () => {
    const chunks = await tracedPromptChunks();
    // The command's chunk and the answer's (worked out here: no Cairn process runs), and the
    // bundler's two small shared ones.
    expect(chunks, chunks.join(', ')).toContain('chunk:context-hook');
    expect(chunks, chunks.join(', ')).toContain('chunk:context-here');
    expect(chunks.length, chunks.join(', ')).toBeLessThanOrEqual(4);
  });

  it('loads its code as ASCII (V8 holds it as one byte a character, not two)', async () => {
    const loaded = (await tracedPromptChunks()).map((m) => m.slice('chunk:'.length));
    const chunksDir = path.join(path.dirname(BUILT_CLI), 'chunks');
    const names = await fs.readdir(chunksDir);
    for (const file of [BUILT_CLI, ...names.filter((n) => loaded.some((c) => n.startsWith(`${c}-`))).map((n) => path.join(chunksDir, n))]) {
      const text = await fs.readFile(file, 'latin1');
      const at = text.search(/[^\x00-\x7f]/);
      // A non-ASCII character in a comment of one of the hook's modules: write it as U+XXXX there.
      expect(at, `${path.basename(file)}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 20))}`).toBe(-1);
    }
  });

  it('several processes building it at once each answer what a fresh build answers', async () => {
    await fs.rm(cacheDir, { recursive: true, force: true });
    const answers = await Promise.all([hook('UserPromptSubmit'), hook('SessionStart'), hook('UserPromptSubmit'), hook('SessionStart'), hook('UserPromptSubmit')]);
    for (const a of answers) expect(a.status).toBe(0);
    expect(answers.map((a) => a.stdout)).toEqual([expected.prompt, expected.start, expected.prompt, expected.start, expected.prompt]);
    // What they left is a whole cache: the next call answers the same from it.
    expect((await hook('UserPromptSubmit')).stdout).toBe(expected.prompt);
    expect((await fs.readdir(cacheDir)).filter((f) => f.endsWith('.tmp') || f.startsWith('.cairn-tmp-'))).toEqual([]);
  });

  it('a damaged cache is rebuilt: the answer is a fresh build\'s', async () => {
    for (const f of await fs.readdir(cacheDir)) {
      const file = path.join(cacheDir, f);
      const data = await fs.readFile(file);
      await fs.writeFile(file, data.subarray(0, Math.floor(data.length / 2)));
    }
    expect((await hook('SessionStart')).stdout).toBe(expected.start);
    for (const f of await fs.readdir(cacheDir)) await fs.writeFile(path.join(cacheDir, f), 'not a cache at all\n');
    expect((await hook('UserPromptSubmit')).stdout).toBe(expected.prompt);
    expect((await hook('UserPromptSubmit')).stdout).toBe(expected.prompt);
  });

  it('an outside edit, a delete and a new file show in the very next call', async () => {
    const root = sb.roots.project;
    await fs.writeFile(path.join(root, 'database', 'project-0.md'), note('database', 0).replace('How the database work is done (0)', 'Nightly database backups and restores'));
    await fs.rm(path.join(root, 'release', 'project-1.md'));
    await fs.writeFile(path.join(root, 'release', 'fresh-note.md'), note('release', 77));
    const start = await hook('SessionStart');
    expect(start.stdout).toContain('/memories/project/database/project-0.md: Nightly database backups and restores');
    expect(start.stdout).not.toContain('/memories/project/release/project-1.md');
    expect(start.stdout).toContain('/memories/project/release/fresh-note.md: How the release work is done (77)');
    const prompt = await hook('UserPromptSubmit');
    expect(start.stdout).toBe(await fresh('SessionStart'));
    expect(prompt.stdout).toBe(await fresh('UserPromptSubmit'));
  });
});

describe('the hook never fails a prompt', () => {
  const logFile = () => path.join(sb.home, 'logs', 'context-hook.log');

  it.each([
    ['hook input that is not JSON', [] as string[], '{"hook_event_name": "UserPromptSubmit", "prompt": '],
    ['an unknown flag', ['--no-such-flag'], JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: PROMPT, cwd: '/nonexistent' })],
  ])('%s: nothing on stdout, exit 0, the error in <home>/logs/context-hook.log', async (_, extra, input) => {
    await fs.rm(logFile(), { force: true });
    const result = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home, ...extra], { input });
    expect(result).toEqual({ status: 0, stdout: '', stderr: '' });
    const log = await fs.readFile(logFile(), 'utf8');
    expect(log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z .*(stdin must be the hook input JSON|no-such-flag)/);
    expect((await fs.stat(logFile())).mode & 0o777).toBe(0o600);
  });

  it('a home it cannot use at all: still nothing on stdout and exit 0', async () => {
    const blocker = path.join(sb.dir, 'a-file');
    await fs.writeFile(blocker, 'x');
    const result = await runCairn(['context', '--format', 'claude-hook', '--home', path.join(blocker, 'home')], {
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: PROMPT, cwd: sb.checkout }),
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('the same failures outside the hook format are reported (exit 2)', async () => {
    const result = await runCairn(['context', '--no-such-flag', '--home', sb.home]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no-such-flag/);
  });
});

describe('cairn mcp with the facts cache', () => {
  async function instructions(): Promise<string> {
    const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
    const client = new Client({ name: 'cairn-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      return client.getInstructions()!;
    } finally {
      await client.close();
    }
  }

  it("gives the same instructions from the prompt hook's cache, from a damaged one and from none", async () => {
    await fs.rm(cacheDir, { recursive: true, force: true });
    const none = await instructions();
    expect(none).toContain('<memory_index>');
    expect(none).toContain('/memories/project/database/project-5.md');
    expect(await fs.readdir(cacheDir)).toHaveLength(3); // the session's start wrote it
    expect(await instructions()).toBe(none);
    for (const f of await fs.readdir(cacheDir)) await fs.writeFile(path.join(cacheDir, f), Buffer.alloc(64));
    expect(await instructions()).toBe(none);
  });
});
