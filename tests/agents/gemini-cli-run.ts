/**
 * Runs the real Gemini CLI (the suite's pinned @google/gemini-cli) non-interactively against the
 * scripted model: `gemini -p` in a throwaway HOME, with an API key login that needs no browser
 * (`security.auth.selectedType` "gemini-api-key" and a dummy GEMINI_API_KEY), the Gemini API's base
 * URL pointed at the scripted server (GOOGLE_GEMINI_BASE_URL, which the client reads when it builds
 * its @google/genai client), usage statistics off, and a model named on the command line (`-m`), so
 * no router asks a classifier model first.
 *
 * What the person decides is theirs to write in the test: trusting the checkout (Gemini CLI reads a
 * project's .gemini/settings.json, and starts its MCP servers, only in a trusted folder) is the
 * `trustedFolders.json` entry its trust dialog writes; allowing more of Cairn's tools is a policy
 * file of their own in ~/.gemini/policies.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { agentCli } from '../support/agent-clis';

/** The model the runs name (any name: the scripted server answers every one). */
export const GEMINI_MODEL = 'gemini-2.5-flash';

/** The person's user settings: the API key login, no usage statistics, no update check. */
export const USER_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

/** Writes the person's user settings into HOME/.gemini/settings.json. */
export async function writeUserSettings(home: string): Promise<void> {
  await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
  await fs.writeFile(path.join(home, '.gemini', 'settings.json'), `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
}

/** What the trust dialog's "Trust folder" writes for `dir`. */
export async function trustFolder(home: string, dir: string): Promise<void> {
  await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
  await fs.writeFile(path.join(home, '.gemini', 'trustedFolders.json'), `${JSON.stringify({ [dir]: 'TRUST_FOLDER' }, null, 2)}\n`);
}

/** A person's own policy letting Gemini CLI call every tool of Cairn's server without asking. */
export async function allowAllOfCairn(home: string): Promise<void> {
  const dir = path.join(home, '.gemini', 'policies');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'mine.toml'), '[[rule]]\nmcpName = "cairn"\ntoolName = "*"\ndecision = "allow"\npriority = 200\n');
}

export interface GeminiResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface GeminiRunOptions {
  readonly home: string;
  readonly cwd: string;
  readonly baseUrl: string;
  readonly prompt: string;
  /** Cairn's home for the hooks and the server (CAIRN_HOME). */
  readonly cairnHome: string;
  readonly timeoutMs?: number;
}

/** The environment Gemini CLI runs in: only what it needs, everything of the person's in the sandbox. */
export function geminiEnv(options: Pick<GeminiRunOptions, 'home' | 'baseUrl' | 'cairnHome'>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HOME: options.home,
    XDG_CONFIG_HOME: path.join(options.home, '.config'),
    XDG_CACHE_HOME: path.join(options.home, '.cache'),
    XDG_DATA_HOME: path.join(options.home, '.local', 'share'),
    XDG_STATE_HOME: path.join(options.home, '.local', 'state'),
    GEMINI_API_KEY: 'scripted-dummy-key',
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    CAIRN_HOME: options.cairnHome,
  };
}

/** `gemini -m MODEL -p PROMPT`, to its end (killed after timeoutMs, which then fails). */
export function geminiPrompt(options: GeminiRunOptions): Promise<GeminiResult> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const child = spawn(agentCli('gemini'), ['-m', GEMINI_MODEL, '-p', options.prompt], { cwd: options.cwd, env: geminiEnv(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gemini -p did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
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

/** The session files Gemini CLI wrote (`~/.gemini/tmp/<project>/chats/session-*.jsonl`). */
export async function sessionFiles(home: string): Promise<string[]> {
  const tmp = path.join(home, '.gemini', 'tmp');
  const out: string[] = [];
  for (const project of await fs.readdir(tmp).catch(() => [] as string[])) {
    const chats = path.join(tmp, project, 'chats');
    for (const name of await fs.readdir(chats).catch(() => [] as string[])) if (/^session-.*\.jsonl$/.test(name)) out.push(path.join(chats, name));
  }
  return out.sort();
}
