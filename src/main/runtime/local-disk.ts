/**
 * What the local runtime's modules (LocalRuntime, LocalTrash) share about reaching this machine's
 * disk: whether a directory can be pinned by a descriptor, and the modes of what Cairn creates
 * (memory can hold private notes: files 0600, directories 0700).
 */
import * as fs from 'node:fs';

/** Linux lets a process reach a directory it holds open as /proc/self/fd/N, immune to path swaps. */
export const PINNING = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

/** The path through which the directory open as `fd` is reached (with PINNING). */
export function pinnedPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** How a write's temp file is named (then a unique-name.ts name): hidden, so never listed or counted. */
export const TEMP_PREFIX = '.cairn-tmp-';

/**
 * Added to opens that only read memory files: reading then leaves the file's atime alone. Under
 * relatime a read after a change updates the atime, dirtying the inode, and the next write's fsync
 * commits that too. Allowed on files this user owns (Cairn creates them); see openForReading.
 */
const NOATIME = fs.constants.O_NOATIME ?? 0;

/** Opens a file for reading without updating its atime where that is allowed (else as usual). */
export function openForReading(p: string, flags: number): number {
  if (NOATIME !== 0) {
    try {
      return fs.openSync(p, flags | NOATIME);
    } catch (err) {
      // EPERM: not the file's owner (O_NOATIME is refused then); anything else is the open's answer.
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    }
  }
  return fs.openSync(p, flags);
}

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
