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
 * What a person does once in the client's own dialogs: approves the project's "cairn" server and
 * allows `tools` to run without asking. Written in the throwaway HOME's user settings
 * (~/.claude/settings.json), so the project's files stay as `cairn setup` left them.
 */
export async function approveAsPerson(userHome: string, tools: readonly string[]): Promise<void> {
  await fs.mkdir(path.join(userHome, '.claude'), { recursive: true });
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
