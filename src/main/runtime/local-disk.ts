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

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
