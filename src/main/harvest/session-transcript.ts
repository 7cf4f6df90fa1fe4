/**
 * The transcript of the agent session an MCP session serves, for the `agent` harvest backend
 * (issue 19: the running agent proposes memories with `memory_propose`, and the host checks its
 * quotes against what was really said). Owns two things:
 * - finding the transcript by the session's working directory: Claude Code's
 *   `<config>/projects/<encoded cwd>/*.jsonl` and Codex's `<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl`
 *   (only the last few days' folders), the most recently written file whose own cwd (its
 *   messages', its meta line's) is the session's. The encoding is lossy (`/a/b-c` and `/a/b/c`
 *   share a folder), so the cwd inside the file decides, never the folder's name alone;
 * - where a quote is in it: the message it was copied from, so the checks see the real message,
 *   who said it and when.
 *
 * Invariant: nothing here writes, and nothing read is followed; file contents are data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLAUDE_PROJECT_DIR_MAX, claudeConfigDir, claudeProjectDirName, readClaudeTranscript } from './claude-transcript';
import { codexHome, readCodexRollout } from './codex-rollout';
import { readTranscriptFile } from './read-transcript';
import type { Transcript, TranscriptAgent, TranscriptMessage } from './transcript';

/** Where the agents keep their sessions. */
export interface TranscriptRoots {
  /** Claude Code's configuration directory ($CLAUDE_CONFIG_DIR, else ~/.claude). */
  readonly claudeConfigDir: string;
  /** Codex's home ($CODEX_HOME, else ~/.codex). */
  readonly codexHome: string;
}

/** The agents' roots as this environment sets them (tests pass their own env and home). */
export function transcriptRoots(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): TranscriptRoots {
  return {
    claudeConfigDir: claudeConfigDir(env, home),
    codexHome: env.CODEX_HOME?.trim() ? codexHome(env) : path.join(home, '.codex'),
  };
}

/** How many days of Codex's day folders are looked at, today's included. */
export const CODEX_RECENT_DAYS = 3;
/** The most files whose cwd is read before giving up (newest first): bounds the cost in a busy folder. */
export const MAX_FILES_TRIED = 40;
/** How much of a file is read to learn its cwd; the whole file only when its head does not say. */
const HEAD_BYTES = 64 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface FindSessionOptions {
  readonly roots?: TranscriptRoots;
  /** The agents to look for (the MCP client may say which it is); default both. */
  readonly agents?: readonly TranscriptAgent[];
  /** The clock that says which Codex day folders are recent. */
  readonly now?: () => number;
}

interface SessionFile {
  readonly agent: TranscriptAgent;
  readonly file: string;
  readonly mtimeMs: number;
}

/**
 * The transcript of the newest session that ran in `cwd`, or null when there is none. Files are
 * tried newest first (by modification time: the running session is the one being written).
 */
export async function findSessionTranscript(cwd: string, options: FindSessionOptions = {}): Promise<Transcript | null> {
  const roots = options.roots ?? transcriptRoots();
  const agents = options.agents ?? ['claude', 'codex'];
  const wanted = await comparablePath(cwd);
  const files = [
    ...(agents.includes('claude') ? claudeSessionFiles(roots.claudeConfigDir, [cwd, wanted]) : []),
    ...(agents.includes('codex') ? codexRecentFiles(roots.codexHome, options.now?.() ?? Date.now()) : []),
  ].sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? 1 : a.file > b.file ? -1 : 0));
  for (const candidate of files.slice(0, MAX_FILES_TRIED)) {
    const own = await fileCwd(candidate);
    if (own === null || (await comparablePath(own)) !== wanted) continue;
    try {
      return await readTranscriptFile(candidate.file);
    } catch {
      // Removed or unreadable since it was listed: the next one.
    }
  }
  return null;
}

/** A directory as two spellings of it compare equal: resolved, real where it exists, in NFC. */
async function comparablePath(dir: string): Promise<string> {
  const resolved = path.resolve(dir);
  return (await fs.promises.realpath(resolved).catch(() => resolved)).normalize('NFC');
}

function statFile(agent: TranscriptAgent, file: string): SessionFile | null {
  try {
    const info = fs.statSync(file);
    return info.isFile() && info.size > 0 ? { agent, file, mtimeMs: info.mtimeMs } : null;
  } catch {
    return null;
  }
}

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The session files of Claude Code's project folders for `cwds` (the cwd as given and as its real
 * path): the folder named by the encoding, and for a name past 200 characters every folder with the
 * same cut prefix (the hash suffix depends on the runtime Claude Code ran under).
 */
function claudeSessionFiles(configDir: string, cwds: readonly string[]): SessionFile[] {
  const projects = path.join(configDir, 'projects');
  const folders = new Set<string>();
  let listed: string[] | null = null;
  for (const cwd of cwds) {
    const name = claudeProjectDirName(cwd);
    folders.add(name);
    if (name.length > CLAUDE_PROJECT_DIR_MAX) {
      const prefix = `${name.slice(0, CLAUDE_PROJECT_DIR_MAX)}-`;
      listed ??= names(projects);
      for (const entry of listed) if (entry.startsWith(prefix)) folders.add(entry);
    }
  }
  const files: SessionFile[] = [];
  for (const folder of folders) {
    const dir = path.join(projects, folder);
    for (const entry of names(dir)) {
      if (!entry.endsWith('.jsonl')) continue;
      const found = statFile('claude', path.join(dir, entry));
      if (found) files.push(found);
    }
  }
  return files;
}

/**
 * Codex's rollouts in the day folders of the last CODEX_RECENT_DAYS days. Codex names the folder by
 * the local date when a session starts; UTC dates are looked at too, so a clock or zone skew does
 * not hide today's folder.
 */
function codexRecentFiles(home: string, now: number): SessionFile[] {
  const sessions = path.join(home, 'sessions');
  const days = new Set<string>();
  const pad = (n: number) => String(n).padStart(2, '0');
  for (let back = 0; back < CODEX_RECENT_DAYS; back++) {
    const day = new Date(now - back * DAY_MS);
    days.add(path.join(String(day.getFullYear()), pad(day.getMonth() + 1), pad(day.getDate())));
    days.add(path.join(String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1), pad(day.getUTCDate())));
  }
  const files: SessionFile[] = [];
  for (const day of days) {
    const dir = path.join(sessions, day);
    for (const entry of names(dir)) {
      if (!entry.startsWith('rollout-') || !entry.endsWith('.jsonl')) continue;
      const found = statFile('codex', path.join(dir, entry));
      if (found) files.push(found);
    }
  }
  return files;
}

/**
 * The directory a session file says its session ran in: read by the agent's own reader from the
 * file's head (whole lines only), and from the whole file when the head does not say.
 */
async function fileCwd({ agent, file }: SessionFile): Promise<string | null> {
  const read = (data: Buffer): string | null => (agent === 'claude' ? readClaudeTranscript(data) : readCodexRollout(data)).cwd;
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    const whole = bytesRead < HEAD_BYTES;
    const cut = whole ? bytesRead : head.lastIndexOf(0x0a, bytesRead - 1) + 1;
    const fromHead = read(head.subarray(0, cut));
    if (fromHead !== null || whole) return fromHead;
    return read(await handle.readFile());
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

// ---- where a quote is ----

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A call of the proposing tool, or its answer: the quotes are in it, so it is evidence of nothing. */
const PROPOSE_CALL = /^\S*memory_propose\b/;

export interface QuoteSources {
  /** Text that marks a message as the harvest prompt itself (its words are Cairn's, not the session's). */
  readonly promptMarker?: string;
}

/**
 * The message `quote` was copied from (whitespace normalised, as the checks compare), or null.
 * Of several, the person's own words first (the grounds a preference or a convention needs), then
 * words over tool traffic, then the latest. Never the proposing tool's own call, nor the harvest
 * prompt: both contain the quotes or the instructions, not the session.
 */
export function messageOfQuote(transcript: Transcript, quote: string, sources: QuoteSources = {}): TranscriptMessage | null {
  const wanted = squash(quote);
  if (wanted === '') return null;
  let best: TranscriptMessage | null = null;
  const rank = (m: TranscriptMessage): number => (m.fromPerson ? 2 : m.kind === 'text' || m.kind === 'summary' ? 1 : 0);
  for (const message of transcript.messages) {
    if ((message.kind === 'tool_call' || message.kind === 'tool_result') && PROPOSE_CALL.test(message.text)) continue;
    if (sources.promptMarker && message.text.includes(sources.promptMarker)) continue;
    if (!squash(message.text).includes(wanted)) continue;
    if (best === null || rank(message) >= rank(best)) best = message;
  }
  return best;
}
