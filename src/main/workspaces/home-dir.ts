/**
 * Where Cairn's home is, and the form of a workspace id (which names folders under it). Light on
 * purpose: the prompt hook needs these before it knows whether a running host answers it.
 */
import * as os from 'node:os';
import * as path from 'node:path';

/** Cairn's home: the flag, else $CAIRN_HOME, else ~/.cairn. */
export function resolveHome(flag?: string): string {
  const chosen = flag ?? process.env.CAIRN_HOME;
  return path.resolve(chosen && chosen.length > 0 ? chosen : path.join(os.homedir(), '.cairn'));
}

/** Workspace ids appear in paths under the home: letters, digits, `.`, `_`, `-`, at most 64. */
const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidWorkspaceId(id: string): boolean {
  return WORKSPACE_ID_PATTERN.test(id);
}
