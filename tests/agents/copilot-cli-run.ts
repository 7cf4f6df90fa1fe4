/**
 * Runs the real GitHub Copilot CLI (the suite's pinned @github/copilot) against the scripted model:
 * `copilot -p` in a throwaway HOME (COPILOT_HOME is its ~/.copilot), pointed at the scripted server
 * as a custom model provider (COPILOT_PROVIDER_BASE_URL, its default OpenAI Chat Completions wire)
 * with COPILOT_OFFLINE=true, so no GitHub login, telemetry, update check or GitHub MCP server is
 * tried (learned from the CLI's bundled `copilot help environment` and `copilot help providers`).
 *
 * The npm package's binary is a single executable that unpacks its JavaScript on first run
 * (COPILOT_PKG_CACHE_HOME, else a cache under HOME): the suite points it at one folder beside the
 * pinned install, so each throwaway HOME does not unpack 200 MB again.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { agentCli, agentClisDir } from '../support/agent-clis';

export interface CopilotPlace {
  /** The throwaway HOME. */
  readonly home: string;
  /** COPILOT_HOME: HOME's ~/.copilot. */
  readonly copilotHome: string;
}

export function copilotPlace(home: string): CopilotPlace {
  return { home, copilotHome: path.join(home, '.copilot') };
}

export interface CopilotResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The environment Copilot CLI runs in: only what it needs, everything of its own inside `place`. */
export function copilotEnv(place: CopilotPlace, modelUrl: string | null, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HOME: place.home,
    COPILOT_HOME: place.copilotHome,
    XDG_CONFIG_HOME: path.join(place.home, '.config'),
    XDG_CACHE_HOME: path.join(place.home, '.cache'),
    XDG_DATA_HOME: path.join(place.home, '.local', 'share'),
    XDG_STATE_HOME: path.join(place.home, '.local', 'state'),
    COPILOT_PKG_CACHE_HOME: path.join(agentClisDir(), 'copilot-pkg-cache'),
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_OFFLINE: 'true',
    NO_COLOR: '1',
    ...(modelUrl !== null ? { COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`, COPILOT_PROVIDER_API_KEY: 'scripted-dummy-key', COPILOT_MODEL: 'gpt-4.1' } : {}),
    ...extra,
  };
}

export interface CopilotRunOptions {
  readonly place: CopilotPlace;
  readonly cwd: string;
  /** The scripted server's URL (null: commands that ask no model, such as `mcp list`). */
  readonly modelUrl: string | null;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** `copilot <args>`, to its end (killed after timeoutMs, which then fails). */
export function copilot(options: CopilotRunOptions): Promise<CopilotResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli('copilot'), ['--no-auto-update', ...options.args], {
      cwd: options.cwd,
      env: copilotEnv(options.place, options.modelUrl, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`copilot ${options.args.join(' ')} did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `copilot -p <prompt>` with `args` before it (permissions, say). */
export function copilotPrompt(options: Omit<CopilotRunOptions, 'args'> & { readonly prompt: string; readonly args?: readonly string[] }): Promise<CopilotResult> {
  return copilot({ ...options, args: [...(options.args ?? []), '-p', options.prompt] });
}

/** The session files Copilot CLI wrote: `<COPILOT_HOME>/session-state/<session id>/events.jsonl`. */
export async function sessionEventFiles(place: CopilotPlace): Promise<string[]> {
  const dir = path.join(place.copilotHome, 'session-state');
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const file = path.join(dir, entry.name, 'events.jsonl');
    if (await fs.stat(file).then((s) => s.isFile(), () => false)) out.push(file);
  }
  return out.sort();
}
