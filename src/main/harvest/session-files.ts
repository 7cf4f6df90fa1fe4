/**
 * The agents' session files on this machine: Claude Code's transcripts of a directory
 * (`<config>/projects/<encoded cwd>/*.jsonl`) and Codex's rollouts (`<codex home>/sessions/YYYY/MM/DD/
 * rollout-*.jsonl`, by day folder), Copilot CLI's (`<copilot home>/session-state/<id>/events.jsonl`),
 * each with the directory its session ran in, read from the file
 * itself. The encoding of Claude Code's folder is lossy (`/a/b-c` and `/a/b/c` share one), so the
 * cwd inside a file decides, never a folder's name alone.
 *
 * Invariant: reads names, stats and file heads only; nothing read is written. A folder of an agent
 * that is missing holds no session; one the OS refuses throws UnreadableSessionsError, never "none". Every transcript is
 * opened by the rule of files from outside (outside/outside-file.ts, here `openTranscript`): a link
 * is followed only to a `.jsonl` file inside the user's home or the agents' own folders (never
 * into `.git`), and only a regular file is read, opened without blocking (a FIFO or a device in
 * its place is refused at once, never waited on).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLAUDE_PROJECT_DIR_MAX, claudeConfigDir, claudeProjectDirName, readClaudeTranscript } from './claude-transcript';
import { follow, openRegular, readRest, type LinkRule, type RegularOpen } from '../outside/outside-file';
import { isInside } from '../runtime/local/containment';
import { codexHome, readCodexRollout } from './codex-rollout';
import { geminiDir, readGeminiSession } from './gemini-session';
import { COPILOT_EVENTS_FILE, copilotHome, readCopilotSession } from './copilot-session';
import type { TranscriptAgent } from './transcript';
import { missingOrThrow, sessionFolderNames } from './unreadable-sessions';

/** Where the agents keep their sessions. */
export interface TranscriptRoots {
  /** Claude Code's configuration directory ($CLAUDE_CONFIG_DIR, else ~/.claude). */
  readonly claudeConfigDir: string;
  /** Codex's home ($CODEX_HOME, else ~/.codex). */
  readonly codexHome: string;
  /** Gemini CLI's folder ($GEMINI_CLI_HOME/.gemini, else ~/.gemini). */
  readonly geminiDir?: string;
  /** Copilot CLI's home ($COPILOT_HOME, else ~/.copilot). */
  readonly copilotHome?: string;
}

/** The agents' roots as this environment sets them (tests pass their own env and home). */
export function transcriptRoots(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): TranscriptRoots {
  return {
    claudeConfigDir: claudeConfigDir(env, home),
    codexHome: env.CODEX_HOME?.trim() ? codexHome(env) : path.join(home, '.codex'),
    geminiDir: geminiDir(env, home),
    copilotHome: copilotHome(env, home),
  };
}

/**
 * The largest transcript read: as much as can be held as one string (V8's limit is about 512 Mi
 * characters), far above any session's.
 */
export const MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024;

function realOr(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Where a link to a transcript may lead: a `.jsonl` file in the user's home or the agents' folders. */
function transcriptLinkRule(roots: TranscriptRoots = transcriptRoots(), home: string = os.homedir()): LinkRule {
  const within = [home, roots.claudeConfigDir, roots.codexHome, ...(roots.geminiDir ? [roots.geminiDir] : []), ...(roots.copilotHome ? [roots.copilotHome] : [])].map((dir) => ({ real: realOr(dir), where: 'your home folder or the agents\u2019 folders' }));
  return { within, sameKind: (real) => real.endsWith('.jsonl'), kindName: 'a transcript (.jsonl)' };
}

/**
 * A transcript opened by the rule (the file named is judged from its folder): the open file, or why
 * it is not read and where its link leads; null when nothing is there. The caller closes it.
 */
export async function openTranscript(file: string, rule: LinkRule = transcriptLinkRule()): Promise<(RegularOpen & { readonly linkTo: string | null }) | null> {
  const resolved = path.resolve(file);
  const followed = follow(path.dirname(resolved), [path.basename(resolved)], rule);
  if (followed.status === 'absent') return null;
  if (followed.status === 'refused') return { refused: followed.why, linkTo: followed.linkTo };
  return { ...(await openRegular(followed.real, { maxBytes: MAX_TRANSCRIPT_BYTES })), linkTo: followed.linkTo };
}

/** How much of a file is read to learn its cwd; the whole file only when its head does not say. */
const HEAD_BYTES = 64 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One session's file. */
export interface SessionFile {
  readonly agent: TranscriptAgent;
  readonly file: string;
  readonly mtimeMs: number;
}

/** A directory as two spellings of it compare equal: resolved, real where it exists, in NFC. */
export async function comparablePath(dir: string): Promise<string> {
  const resolved = path.resolve(dir);
  return (await fs.promises.realpath(resolved).catch(() => resolved)).normalize('NFC');
}

/** A session file, or null when it is gone or empty; a folder on its way refused throws (unreadable-sessions.ts). */
function statFile(agent: TranscriptAgent, file: string): SessionFile | null {
  try {
    const info = fs.statSync(file);
    return info.isFile() && info.size > 0 ? { agent, file, mtimeMs: info.mtimeMs } : null;
  } catch (err) {
    missingOrThrow(err, agent);
    return null;
  }
}

/**
 * The session files of Claude Code's project folders for `cwds` (the cwd as given and as its real
 * path): the folder named by the encoding, and for a name past 200 characters every folder with the
 * same cut prefix (the hash suffix depends on the runtime Claude Code ran under). With `below`, also
 * the folders of sessions started in a directory under a cwd (`-...-proj-sub`: the encoding plus
 * `-`); a sibling whose name shares that start (`proj-old`) is among them, so the caller keeps only
 * files whose own cwd is inside.
 */
export function claudeSessionFiles(configDir: string, cwds: readonly string[], below = false): SessionFile[] {
  const projects = path.join(configDir, 'projects');
  const folders = new Set<string>();
  let listed: string[] | null = null;
  for (const cwd of cwds) {
    const name = claudeProjectDirName(cwd);
    folders.add(name);
    if (below) {
      listed ??= sessionFolderNames(projects, 'claude');
      for (const entry of listed) if (entry.startsWith(`${name}-`)) folders.add(entry);
    }
    if (name.length > CLAUDE_PROJECT_DIR_MAX) {
      const prefix = `${name.slice(0, CLAUDE_PROJECT_DIR_MAX)}-`;
      listed ??= sessionFolderNames(projects, 'claude');
      for (const entry of listed) if (entry.startsWith(prefix)) folders.add(entry);
    }
  }
  const files: SessionFile[] = [];
  for (const folder of folders) {
    const dir = path.join(projects, folder);
    for (const entry of sessionFolderNames(dir, 'claude')) {
      if (!entry.endsWith('.jsonl')) continue;
      const found = statFile('claude', path.join(dir, entry));
      if (found) files.push(found);
    }
  }
  return files;
}

/**
 * Codex's rollouts in the day folders of the last `recentDays` days. Codex names the folder by
 * the local date when a session starts; UTC dates are looked at too, so a clock or zone skew does
 * not hide today's folder.
 */
export function codexSessionFiles(home: string, now: number, recentDays: number): SessionFile[] {
  const sessions = path.join(home, 'sessions');
  const days = new Set<string>();
  const pad = (n: number) => String(n).padStart(2, '0');
  for (let back = 0; back < recentDays; back++) {
    const day = new Date(now - back * DAY_MS);
    days.add(path.join(String(day.getFullYear()), pad(day.getMonth() + 1), pad(day.getDate())));
    days.add(path.join(String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1), pad(day.getUTCDate())));
  }
  const files: SessionFile[] = [];
  for (const day of days) {
    const dir = path.join(sessions, day);
    for (const entry of sessionFolderNames(dir, 'codex')) {
      if (!entry.startsWith('rollout-') || !entry.endsWith('.jsonl')) continue;
      const found = statFile('codex', path.join(dir, entry));
      if (found) files.push(found);
    }
  }
  return files;
}

/**
 * Gemini CLI's session files (`<gemini dir>/tmp/<project>/chats/session-*.jsonl`) of the projects
 * whose root (`<project>/.project_root`, written by Gemini CLI) is one of `cwds` or below one;
 * which directory a session ran in is still read from the file itself.
 */
export function geminiSessionFiles(dir: string, cwds: readonly string[]): SessionFile[] {
  const tmp = path.join(dir, 'tmp');
  const files: SessionFile[] = [];
  for (const project of sessionFolderNames(tmp, 'gemini')) {
    let root: string;
    try {
      root = fs.readFileSync(path.join(tmp, project, '.project_root'), 'utf8').trim();
    } catch {
      continue;
    }
    if (!cwds.some((cwd) => isInside(root, cwd))) continue;
    const chats = path.join(tmp, project, 'chats');
    for (const entry of sessionFolderNames(chats, 'gemini')) {
      if (!/^session-.*\.jsonl$/.test(entry)) continue;
      const found = statFile('gemini', path.join(chats, entry));
      if (found) files.push(found);
    }
  }
  return files;
}

/**
 * Copilot CLI's session files (`<copilot home>/session-state/<session id>/events.jsonl`) written in
 * the last `recentDays` days; which directory a session ran in is read from the file itself.
 */
function copilotSessionFiles(home: string, now: number, recentDays: number): SessionFile[] {
  const sessions = path.join(home, 'session-state');
  const files: SessionFile[] = [];
  for (const id of sessionFolderNames(sessions, 'copilot')) {
    const found = statFile('copilot', path.join(sessions, id, COPILOT_EVENTS_FILE));
    if (found && found.mtimeMs >= now - recentDays * DAY_MS) files.push(found);
  }
  return files;
}

/**
 * The directory a session file says its session ran in: read by the agent's own reader from the
 * file's head (whole lines only), and from the whole file when the head does not say.
 */
export async function fileCwd({ agent, file }: SessionFile): Promise<string | null> {
  const read = (data: Buffer): string | null => (agent === 'claude' ? readClaudeTranscript(data) : agent === 'gemini' ? readGeminiSession(data) : agent === 'copilot' ? readCopilotSession(data) : readCodexRollout(data)).cwd;
  const opened = await openTranscript(file).catch(() => null);
  if (opened === null || 'refused' in opened) return null;
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await opened.handle.read(head, 0, HEAD_BYTES, 0);
    const whole = bytesRead < HEAD_BYTES;
    const cut = whole ? bytesRead : head.lastIndexOf(0x0a, bytesRead - 1) + 1;
    const fromHead = read(head.subarray(0, cut));
    if (fromHead !== null || whole) return fromHead;
    const all = await readRest(opened, MAX_TRANSCRIPT_BYTES);
    return 'refused' in all ? null : read(all.bytes);
  } catch {
    return null;
  } finally {
    await opened.handle.close();
  }
}

/** A session file with the directory it ran in. */
export interface PlacedSessionFile extends SessionFile {
  readonly cwd: string;
}

/** Each file with its cwd, as the file says it (files that do not say are left out). */
async function withCwd(files: readonly SessionFile[]): Promise<PlacedSessionFile[]> {
  const placed: PlacedSessionFile[] = [];
  for (const file of files) {
    const cwd = await fileCwd(file);
    if (cwd !== null) placed.push({ ...file, cwd });
  }
  return placed;
}

/**
 * Every session of the agents (Codex and Copilot CLI: those of the last `codexDays` days) that ran in
 * `dir` or below it: what "Harvest now" and `cairn harvest` queue.
 */
export async function sessionFilesIn(dir: string, roots: TranscriptRoots = transcriptRoots(), now = Date.now(), codexDays = 30): Promise<PlacedSessionFile[]> {
  const root = await comparablePath(dir);
  const files = [...claudeSessionFiles(roots.claudeConfigDir, [dir, root], true), ...codexSessionFiles(roots.codexHome, now, codexDays), ...(roots.geminiDir ? geminiSessionFiles(roots.geminiDir, [dir, root]) : []), ...(roots.copilotHome ? copilotSessionFiles(roots.copilotHome, now, codexDays) : [])];
  const placed: PlacedSessionFile[] = [];
  for (const file of await withCwd(files)) {
    if (isInside(await comparablePath(file.cwd), root)) placed.push(file);
  }
  return placed;
}
