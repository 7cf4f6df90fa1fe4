/**
 * Runs the real Claude Code CLI (the pinned @anthropic-ai/claude-code) for the agents suite: in a
 * throwaway HOME, against the scripted model on loopback, non-interactively (`claude -p`).
 *
 * What the client needs, learned from its bundle and from running it: ANTHROPIC_BASE_URL sends
 * every model call to the scripted model (POST /v1/messages?beta=true, plus a HEAD /api/hello);
 * ANTHROPIC_API_KEY (any value) is the login, so no onboarding or OAuth is asked for in -p mode;
 * with -p the project's trust dialog is skipped and the project's .mcp.json servers are started,
 * though `claude mcp list` calls one "Pending approval" until the person approves it
 * (`enabledMcpjsonServers` in settings, which approvePerson writes in the user's settings).
 * The MCP tools are deferred by default (tool search): the first request names them in a system
 * reminder and carries only ToolSearch; after a ToolSearch `select:` call their schemas are in the
 * request's tools (with defer_loading). Tools run without a prompt only when allowed
 * (`permissions.allow` in settings, or --allowedTools). `--output-format stream-json --verbose`
 * prints the session's init line first: the MCP servers with their status, and the tools.
 * The client keeps its own transcript in ~/.claude/projects/<the cwd, '/' as '-'>/<session>.jsonl.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentCli } from '../support/agent-clis';

export interface ClaudeRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The stream-json lines of stdout, parsed. */
  readonly events: ReadonlyArray<Record<string, unknown>>;
}

export interface ClaudeRunOptions {
  /** The throwaway HOME the client keeps its files in. */
  readonly userHome: string;
  /** Where the client starts (the project). */
  readonly cwd: string;
  /** The scripted model's URL. */
  readonly modelUrl: string;
  readonly prompt: string;
  /** Tools the client may run without asking (`--allowedTools`). */
  readonly allowedTools?: readonly string[];
  /** Generous: the client's start is a few seconds; the wait ends when it exits. */
  readonly timeoutMs?: number;
}

/** The environment of the client: nothing of the real HOME, the model on loopback. */
export function claudeEnv(userHome: string, modelUrl: string): NodeJS.ProcessEnv {
  return {
    // bin/cairn, which the client runs for the MCP server and hooks, needs node on the PATH.
    PATH: process.env.PATH,
    HOME: userHome,
    XDG_CONFIG_HOME: path.join(userHome, '.config'),
    XDG_CACHE_HOME: path.join(userHome, '.cache'),
    XDG_DATA_HOME: path.join(userHome, '.local', 'share'),
    TMPDIR: process.env.TMPDIR,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-model-key',
    // No update checks, error reports or telemetry: nothing reaches past loopback.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/**
 * What a person has done once in the client's own dialogs: finished onboarding, accepted the API
 * key, trusted the project folder (until then the client ignores the project's permissions.allow,
 * saying so on stderr, even with -p), approved the project's "cairn" server, and allowed `tools` to
 * run without asking. Written where the client keeps them in the throwaway HOME (~/.claude.json,
 * ~/.claude/settings.json), so the project's files stay as `cairn setup` left them.
 */
export async function approveAsPerson(userHome: string, project: string, tools: readonly string[]): Promise<void> {
  await fs.mkdir(path.join(userHome, '.claude'), { recursive: true });
  const key = claudeEnv(userHome, '').ANTHROPIC_API_KEY!;
  const state = { hasCompletedOnboarding: true, theme: 'dark', customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] }, projects: { [project]: { hasTrustDialogAccepted: true } } };
  await fs.writeFile(path.join(userHome, '.claude.json'), JSON.stringify(state));
  const settings = { enabledMcpjsonServers: ['cairn'], permissions: { allow: tools } };
  await fs.writeFile(path.join(userHome, '.claude', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

/** Runs `claude ARGS` (not a session: `mcp list`, say) to its end. */
export async function claudeCommand(options: Pick<ClaudeRunOptions, 'userHome' | 'cwd' | 'modelUrl' | 'timeoutMs'>, args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(agentCli('claude'), args, { cwd: options.cwd, env: claudeEnv(options.userHome, options.modelUrl), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  return { status, stdout, stderr };
}

/** Runs `claude -p PROMPT --output-format stream-json --verbose` to its end. */
export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  await fs.mkdir(options.userHome, { recursive: true });
  const args = ['-p', options.prompt, '--output-format', 'stream-json', '--verbose'];
  if (options.allowedTools && options.allowedTools.length > 0) args.push('--allowedTools', ...options.allowedTools);
  const { status, stdout, stderr } = await claudeCommand(options, args);
  const events = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { status, stdout, stderr, events };
}

/** The folder of the client's transcripts for sessions started in `cwd` (as it names it: every non-alphanumeric character a '-'). */
export function claudeProjectDir(userHome: string, cwd: string): string {
  return path.join(userHome, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
}

/** The transcripts (`<session id>.jsonl`) the client wrote for sessions started in `cwd`. */
export async function claudeTranscripts(userHome: string, cwd: string): Promise<string[]> {
  const dir = claudeProjectDir(userHome, cwd);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.jsonl')).map((n) => path.join(dir, n));
}

/**
 * Recording the fixtures of tests/fixtures/agents/claude-code/ (run by hand when the pinned
 * version changes: `npx tsx tests/agents/claude-code-run.ts --record`): the client's own transcript
 * of an interactive session, where prompts are typed (`promptSource: 'typed'`), which -p never
 * records; and the project's files as `cairn setup claude` left them and the client ran with.
 * The session runs in a pseudo-terminal (node-pty, which the pinned Gemini CLI installs
 * beside the clients): the person types a prompt that makes the model write memory, and a second
 * one while the first is still being answered, so the client queues it. Ids, paths and machine
 * identifiers are anonymised; everything else is the client's bytes.
 */
export const RECORDED_PROMPTS = ['We deploy the widgets service with make deploy-staging; save that in memory.', 'Remember that kestrel is the staging cluster.'] as const;

/** What the recording replaces, in this order: the sandbox dir, this checkout, ids. */
function anonymise(text: string, sandboxDir: string, repoRoot: string): string {
  const ids = new Map<string, string>();
  const idFor = (id: string, make: (n: number) => string) => {
    if (!ids.has(id)) ids.set(id, make(ids.size + 1));
    return ids.get(id)!;
  };
  return text
    .replaceAll(sandboxDir, '/home/person/work')
    .replaceAll(sandboxDir.replace(/[^a-zA-Z0-9]/g, '-'), '-home-person-work')
    .replaceAll(repoRoot, '/opt/cairn')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, (id) => idFor(id, (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`))
    .replace(/\b[0-9a-f]{64}\b/g, (id) => idFor(id, (n) => n.toString(16).padStart(64, '0')))
    .replace(/"osVersion":"[^"]*"/g, '"osVersion":"Linux"')
    .replace(/OS Version: [^\\"]*/g, 'OS Version: Linux');
}

async function recordFixtures(outDir: string): Promise<void> {
  const { createRequire } = await import('node:module');
  const { agentClisDir } = await import('../support/agent-clis');
  const { runCairn } = await import('../support/cli');
  const { anthropicWire } = await import('../support/model-server/anthropic');
  const { startModelServer } = await import('../support/model-server/model-server');
  const { makeSandbox, REPO_ROOT } = await import('../support/sandbox');
  type Pty = { onData(f: (d: string) => void): void; onExit(f: () => void): void; write(d: string): void };
  const pty = createRequire(import.meta.url)(path.join(agentClisDir(), 'node_modules', 'node-pty')) as { spawn(file: string, args: string[], o: object): Pty };

  const sb = await makeSandbox();
  const userHome = path.join(sb.dir, 'user');
  const setup = await runCairn(['setup', 'claude', '--home', sb.home, '--cwd', sb.checkout]);
  if (setup.status !== 0) throw new Error(setup.stderr);
  const setupFiles = { mcp: await fs.readFile(path.join(sb.checkout, '.mcp.json'), 'utf8'), settings: await fs.readFile(path.join(sb.checkout, '.claude', 'settings.json'), 'utf8') };
  await approveAsPerson(userHome, sb.checkout, ['mcp__cairn__memory']);

  const turns = [
    { toolCalls: [{ name: 'ToolSearch', input: { query: 'select:mcp__cairn__memory', max_results: 5 } }] },
    { toolCalls: [{ name: 'mcp__cairn__memory', input: { command: 'create', path: '/memories/project/deploy.md', file_text: 'Deploy the widgets service with `make deploy-staging`.\n' } }] },
    { text: 'Saved to /memories/project/deploy.md; noted that kestrel is the staging cluster.' },
  ];
  // The first answer waits until the second prompt is queued.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const server = await startModelServer({ ...anthropicWire, write: (turn, res, json) => void gate.then(() => anthropicWire.write(turn, res, json)) }, (c) => turns[Math.min(c.messages.filter((m) => m.role === 'assistant').length, turns.length - 1)]!);
  const term = pty.spawn(agentCli('claude'), [], { name: 'xterm-256color', cols: 120, rows: 40, cwd: sb.checkout, env: claudeEnv(userHome, server.url) });
  let screen = '';
  term.onData((d) => (screen += d));
  const exited = new Promise<void>((resolve) => term.onExit(resolve));
  const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
    const start = Date.now();
    while (!(await ok())) {
      if (Date.now() - start > 60_000) throw new Error(`the client never got to: ${what}\n${screen.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const shown = (text: string) => screen.replace(/\x1b\[[0-9;?<>]*[ -/]*[@-~]/g, '').replace(/\s/g, '').includes(text.replace(/\s/g, ''));
  const type = async (text: string) => {
    term.write(text);
    await until(`echo ${text}`, () => shown(text));
    term.write('\r');
  };
  await until('the prompt', () => shown('❯'));
  await type(RECORDED_PROMPTS[0]);
  await until('the first model call', () => server.modelCalls().length > 0);
  await type(RECORDED_PROMPTS[1]);
  const transcript = async () => (await claudeTranscripts(userHome, sb.checkout))[0];
  await until('the second prompt queued', async () => {
    const file = await transcript();
    return file !== undefined && (await fs.readFile(file, 'utf8')).includes(RECORDED_PROMPTS[1]);
  });
  open();
  // The client hands a prompt queued mid-turn to the model within that turn (its next request).
  await until('the answer', () => shown(turns[2]!.text!));
  term.write('/exit');
  await until('the command', () => shown('/exit'));
  term.write('\r');
  await exited;
  await server.close();

  await fs.mkdir(outDir, { recursive: true });
  const clean = (text: string) => anonymise(text, sb.dir, REPO_ROOT);
  await fs.writeFile(path.join(outDir, 'typed-and-queued.jsonl'), clean(await fs.readFile((await transcript())!, 'utf8')));
  await fs.writeFile(path.join(outDir, 'setup.mcp.json'), clean(setupFiles.mcp));
  await fs.writeFile(path.join(outDir, 'setup.settings.json'), clean(setupFiles.settings));
  await sb.cleanup();
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--record')) {
  const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'agents', 'claude-code');
  await recordFixtures(out);
  process.stdout.write(`recorded into ${out}\n`);
}
