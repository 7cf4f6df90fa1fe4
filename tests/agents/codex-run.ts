/**
 * Runs the real Codex CLI (the suite's pinned @openai/codex) non-interactively against the scripted
 * model: `codex exec` in a throwaway HOME, with CODEX_HOME in the same temp dir, and a model
 * provider in config.toml whose base_url is the scripted server (wire_api "responses"; its key a
 * dummy in an env var of the provider's own, so nothing of a real login is read).
 *
 * The config.toml is whatever the test put there (`cairn setup codex` writes Cairn's part); this
 * module only adds the provider lines, at the top, before any table.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { agentCli } from '../support/agent-clis';

/** The env var holding the scripted provider's dummy key. */
export const CODEX_KEY_ENV = 'CAIRN_SCRIPTED_MODEL_KEY';

export interface CodexPlace {
  /** The throwaway HOME. */
  readonly home: string;
  /** CODEX_HOME, inside it. */
  readonly codexHome: string;
}

/** The provider lines, pointing Codex at `baseUrl` (the scripted server's /v1). */
export function providerToml(baseUrl: string): string {
  return [
    'model = "scripted-model"',
    'model_provider = "scripted"',
    '',
    '[model_providers.scripted]',
    'name = "Scripted model"',
    `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
    `env_key = ${JSON.stringify(CODEX_KEY_ENV)}`,
    'wire_api = "responses"',
    // One try: a scripted answer that Codex refuses should fail the test, not be asked again.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

/** Puts the provider into `config.toml` (top-level keys first, then its own table). */
export async function addProvider(codexHome: string, baseUrl: string): Promise<void> {
  const file = path.join(codexHome, 'config.toml');
  let text = '';
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    // No config yet: the provider's table is the whole file.
  }
  const [top, table] = providerToml(baseUrl).split('\n\n[model_providers');
  await fs.mkdir(codexHome, { recursive: true });
  await fs.writeFile(file, `${top}\n\n${text}${text === '' || text.endsWith('\n') ? '' : '\n'}\n[model_providers${table}`);
}

export interface CodexResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface CodexExecOptions {
  readonly place: CodexPlace;
  readonly cwd: string;
  readonly prompt: string;
  /** More arguments before the prompt. */
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** The environment Codex runs in: only what it needs, with HOME and CODEX_HOME in the sandbox. */
export function codexEnv(place: CodexPlace, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HOME: place.home,
    XDG_CONFIG_HOME: path.join(place.home, '.config'),
    XDG_CACHE_HOME: path.join(place.home, '.cache'),
    XDG_DATA_HOME: path.join(place.home, '.local', 'share'),
    XDG_STATE_HOME: path.join(place.home, '.local', 'state'),
    CODEX_HOME: place.codexHome,
    [CODEX_KEY_ENV]: 'scripted-dummy-key',
    RUST_LOG: 'warn',
    ...extra,
  };
}

/** `codex exec <args> <prompt>`, to its end (killed after timeoutMs, which then fails). */
export function codexExec(options: CodexExecOptions): Promise<CodexResult> {
  const started = Date.now();
  const args = ['exec', '--skip-git-repo-check', '--color', 'never', ...(options.args ?? []), options.prompt];
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli('codex'), args, { cwd: options.cwd, env: codexEnv(options.place, options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`codex exec did not finish in ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
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

/** The rollout files Codex wrote under CODEX_HOME/sessions. */
export async function rolloutFiles(codexHome: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(p);
    }
  };
  await walk(path.join(codexHome, 'sessions'));
  return out.sort();
}
