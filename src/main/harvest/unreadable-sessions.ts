/**
 * An agent's sessions folder Cairn cannot read: never taken for one holding no session. Reading
 * the agents' folders (session-files.ts, codex-rollout.ts, claude-transcript.ts) tells a folder
 * that is missing (the agent never ran here: nothing to harvest) from one the OS refuses (its mode,
 * another user's): the second throws UnreadableSessionsError, whose message names the agent and
 * the OS code and never a host path (a model may read it, through memory_propose).
 */
import * as fs from 'node:fs';
import { AGENT_NAMES } from '../../common/api/harvest-status-text';
import { CairnError } from '../../common/errors';
import type { TranscriptAgent } from './transcript';

class UnreadableSessionsError extends CairnError {
  override readonly name = 'UnreadableSessionsError';
  constructor(
    readonly agent: TranscriptAgent,
    readonly code: string,
  ) {
    super(`Cairn cannot read ${AGENT_NAMES[agent]}'s sessions folder (${code}), so it cannot say which sessions ran here. Make that folder readable by you (it must be yours), then try again.`);
  }
}

/** Whether a failed read of a folder or a file in it means it is not there (rather than refused). */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Rethrows a failed read of `agent`'s folder as UnreadableSessionsError unless it is not there. */
export function missingOrThrow(err: unknown, agent: TranscriptAgent): void {
  if (!isMissing(err)) throw new UnreadableSessionsError(agent, (err as NodeJS.ErrnoException).code ?? 'EIO');
}

/** The names in `dir`, an agent's folder: none when it is missing; UnreadableSessionsError when refused. */
export function sessionFolderNames(dir: string, agent: TranscriptAgent): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    missingOrThrow(err, agent);
    return [];
  }
}
