/**
 * Whether a checkout's HEAD moved (a pull, a merge, a checkout, a commit) since Cairn last looked,
 * told from git's own log of HEAD (`<git dir>/logs/HEAD`: its size and time) without running git.
 * The hooks ask it before every answer they work out themselves, so that project memory a pull
 * brought while no Cairn process watched is caught up (held in the Inbox where it must be) before
 * it can reach an agent; asking costs a search for `.git`, one stat and one small read.
 *
 * Invariants: what was last seen (the log's size and time, and the commit HEAD named) is kept per
 * git directory under `<home>/cache/head-moves`, and is written only by `seen()`, after the caller
 * has dealt with the move: a catch-up that fails is tried again on the next call, and one that
 * follows several moves (two pulls while nothing looked) covers them all, from the commit last
 * seen. A checkout outside git, or one whose HEAD git keeps no log of, never moves.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeOwnFile } from '../runtime/local/atomic-write';
import { commonGitDir, findGitRoot, headCommit, ownGitDir } from './identity';

const HEAD_MOVES_CACHE = path.join('cache', 'head-moves');

export interface HeadMove {
  /** The commit HEAD named when Cairn last looked (null: never looked, or not known). */
  readonly since: string | null;
  /** Records the move as dealt with. */
  seen(): Promise<void>;
}

/** The move of HEAD in the checkout holding `cwd` since the last `seen()`, or null when none. */
export async function headMoveSince(home: string, cwd: string): Promise<HeadMove | null> {
  const gitRoot = await findGitRoot(cwd);
  const gitDir = gitRoot === null ? null : await ownGitDir(gitRoot);
  if (gitDir === null) return null;
  const log = await fs.stat(path.join(gitDir, 'logs', 'HEAD')).catch(() => null);
  if (log === null) return null;
  const now = `${log.size}:${log.mtimeMs}`;
  const file = path.join(home, HEAD_MOVES_CACHE, createHash('sha256').update(path.resolve(gitDir)).digest('hex').slice(0, 40));
  const [last = '', kept = ''] = (await fs.readFile(file, 'utf8').catch(() => '')).trim().split(' ');
  if (last === now) return null;
  const since = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(kept) ? kept : null;
  const commonDir = await commonGitDir(gitRoot!);
  const head = commonDir === null ? null : await headCommit(gitDir, commonDir);
  return { since, seen: () => writeOwnFile(file, `${now}${head === null ? '' : ` ${head}`}\n`) };
}
