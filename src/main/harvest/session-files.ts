/**
 * The agents' session files on this machine (issue 19), for "Harvest now" and the idle pickup:
 * Claude Code's transcripts of a directory (`<config>/projects/<encoded cwd>/*.jsonl`) and Codex's
 * rollouts (`$CODEX_HOME/sessions/...`) with the cwd their meta line names. Reads only names,
 * stats and a rollout's first line; a missing directory lists nothing.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeConfigDir, claudeProjectDirName } from './claude-transcript';
import { codexHome, listCodexRollouts } from './codex-rollout';

/** A session transcript on this machine, with the directory it ran in. */
export interface SessionFile {
  readonly transcript: string;
  readonly agent: 'claude' | 'codex';
  /** The session's working directory (its workspace), when known. */
  readonly cwd: string | null;
  readonly mtimeMs: number;
}

export interface SessionRoots {
  /** Claude Code's configuration directory (default: $CLAUDE_CONFIG_DIR or ~/.claude). */
  readonly claudeConfigDir?: string;
  /** Codex's home (default: $CODEX_HOME or ~/.codex). */
  readonly codexHome?: string;
}

/** The most of a rollout read for its meta line (it holds the instructions, so it can be long). */
const META_LINE_MAX = 1024 * 1024;

/** The cwd a rollout's first line (session_meta) names, or null. */
function rolloutCwd(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(META_LINE_MAX);
    const n = fs.readSync(fd, buffer, 0, META_LINE_MAX, 0);
    const end = buffer.subarray(0, n).indexOf(10);
    const line = buffer.subarray(0, end === -1 ? n : end).toString('utf8');
    const meta = JSON.parse(line) as { type?: unknown; payload?: { cwd?: unknown } };
    return meta.type === 'session_meta' && typeof meta.payload?.cwd === 'string' ? meta.payload.cwd : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Codex rollouts written since `sinceMs`, each with its session's cwd. */
export function codexSessionFiles(sinceMs: number, roots: SessionRoots = {}): SessionFile[] {
  return listCodexRollouts({ codexHome: roots.codexHome ?? codexHome(), modifiedSince: sinceMs }).map((f) => ({
    transcript: f.path,
    agent: 'codex' as const,
    cwd: rolloutCwd(f.path),
    mtimeMs: f.mtimeMs,
  }));
}

/** Claude Code's transcripts of sessions that ran in `dir` itself. */
export function claudeSessionFiles(dir: string, roots: SessionRoots = {}): SessionFile[] {
  const projects = path.join(roots.claudeConfigDir ?? claudeConfigDir(), 'projects');
  const dirs = new Set([dir]);
  try {
    dirs.add(fs.realpathSync(dir).normalize('NFC'));
  } catch {
    // A checkout that is gone: its name as given.
  }
  const files: SessionFile[] = [];
  for (const cwd of dirs) {
    const folder = path.join(projects, claudeProjectDirName(cwd));
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const file = path.join(folder, name);
      try {
        const stat = fs.statSync(file);
        if (stat.isFile() && stat.size > 0) files.push({ transcript: file, agent: 'claude', cwd, mtimeMs: stat.mtimeMs });
      } catch {
        // Removed meanwhile.
      }
    }
  }
  return files;
}

/** Every session of Claude Code and Codex (the last `codexDays`) that ran in `dir` or below it. */
export function sessionFilesIn(dir: string, roots: SessionRoots = {}, now = Date.now(), codexDays = 30): SessionFile[] {
  const inside = (cwd: string | null): boolean => cwd !== null && (cwd === dir || cwd.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep));
  return [...claudeSessionFiles(dir, roots), ...codexSessionFiles(now - codexDays * 24 * 60 * 60_000, roots).filter((f) => inside(f.cwd))];
}
