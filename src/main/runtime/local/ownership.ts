/**
 * Whose a directory is: the ownership rule of the security envelope (docs/architecture.md,
 * "Security envelope"), in the spirit of git's "dubious ownership" check.
 *
 * A directory memory comes from (a checkout, `.cairn`, a scope root and the folders between, Cairn's
 * home) is used only when it belongs to the person running Cairn or to root (who can change
 * anything anyway). The folders Cairn keeps memory in must moreover be writable by nobody else:
 * not by others, and not by a group, unless that group is the person's own private group (the
 * user-private-group scheme of Debian and Ubuntu, whose umask 002 makes every folder
 * group-writable by a group only the person is in). A folder another user owns or may write to
 * could put notes, and the instructions in them, into the person's agents' context.
 *
 * The remote helper (../ssh/remote-helper.ts) applies the same rule on the remote host, for the
 * remote user.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

/** Why a directory is not the person's own: another owner, or others may write to it. */
export type OwnershipProblem = { readonly kind: 'owner'; readonly uid: number } | { readonly kind: 'writable' };

const euid = (): number | null => (typeof process.geteuid === 'function' ? process.geteuid() : null);

/** Whether `uid` may own a directory the person's memory comes from: the person, or root. */
function isTrustedOwner(uid: number): boolean {
  const me = euid();
  return me === null || uid === me || uid === 0;
}

/**
 * The problem with a directory's owner, and with who may write to it when `private` (folders
 * memory is kept in), or null when it is the person's own. `st` comes from lstat or stat.
 */
export function ownershipProblem(st: fs.Stats, options: { private: boolean }): OwnershipProblem | null {
  if (euid() === null) return null; // Windows: no POSIX owners to compare.
  if (!isTrustedOwner(st.uid)) return { kind: 'owner', uid: st.uid };
  if (!options.private) return null;
  if ((st.mode & 0o002) !== 0) return { kind: 'writable' };
  if ((st.mode & 0o020) !== 0 && !isPrivateGroup(st.gid)) return { kind: 'writable' };
  return null;
}

/**
 * Whether `gid` is the person's private group: their primary group, named as they are, with no
 * other member listed. A group only a directory service knows (absent from /etc/group) is taken
 * as private when it is the person's primary group, as such sites give each person one.
 */
function isPrivateGroup(gid: number): boolean {
  if (typeof process.getegid !== 'function' || gid !== process.getegid()) return false;
  let groups: string;
  try {
    groups = fs.readFileSync('/etc/group', 'utf8');
  } catch {
    return true; // no /etc/group to look in: as for a group absent from it (above)
  }
  const me = os.userInfo().username;
  for (const line of groups.split('\n')) {
    const [name, , id, members = ''] = line.split(':');
    if (id === undefined || Number(id) !== gid) continue;
    return name === me && members.split(',').every((m) => m.trim() === '' || m.trim() === me);
  }
  return true;
}

/** The name of the user with `uid`, for messages to a person (the uid when it has none here). */
export function userNameOf(uid: number): string {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (id !== undefined && Number(id) === uid && name) return name;
    }
  } catch {
    // No passwd file: the uid says it.
  }
  return `uid ${uid}`;
}

/** The person's own user name, as a command to fix ownership would give it. */
function ownUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '$(id -un)'; // a uid with no name here (a container's): the shell works it out
  }
}

/**
 * Why Cairn's home at `home` must not be opened, for a person (it names the home, which is theirs
 * to see), or null when it is missing (Cairn makes it, 0700) or the person's own.
 */
export function homeOwnershipProblem(home: string): string | null {
  const st = fs.statSync(home, { throwIfNoEntry: false });
  if (!st) return null;
  const problem = ownershipProblem(st, { private: true });
  if (!problem) return null;
  if (problem.kind === 'owner') {
    return `Cairn's home ${home} belongs to ${userNameOf(problem.uid)}, not to you (${ownUserName()}): another user's folder could put memory and instructions into your agents' context, so Cairn does not open it. If it is yours, run: chown -R ${ownUserName()} '${home}'. Otherwise choose a home of your own with --home or CAIRN_HOME.`;
  }
  return `Cairn's home ${home} can be written by other users (its mode is ${(st.mode & 0o777).toString(8)}): they could put memory and instructions into your agents' context, so Cairn does not open it. Run: chmod go-w '${home}'.`;
}

/** Cairn's home is another user's, or writable by others: the message says what to run. */
export class ForeignHomeError extends Error {
  override readonly name = 'ForeignHomeError';
}

/** Throws ForeignHomeError when the home at `home` must not be opened (homeOwnershipProblem). */
export function assertOwnHome(home: string): void {
  const problem = homeOwnershipProblem(home);
  if (problem) throw new ForeignHomeError(problem);
}
