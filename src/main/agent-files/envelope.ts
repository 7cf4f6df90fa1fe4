/**
 * The envelope of other agents' files (issue 23): what Cairn may read of a known file at a known
 * place, and how it writes one. The same rules as memory roots (docs/architecture.md, "Security
 * envelope"), applied to a base that is the workspace's checkout or the user's home.
 *
 * Invariants:
 * - a file is read only where its real path (every symbolic link on the way resolved) lies inside
 *   the base's real path and not within a `.git` there; a link that leads elsewhere is LISTED as
 *   unreadable, saying why, and never opened (a person sees that the agent has such a file, and
 *   that Cairn will not follow it); a dangling link is absent, like a missing file;
 * - only regular files with one hard link, of at most MAX_AGENT_FILE_BYTES, in UTF-8 without NUL
 *   characters, are opened; anything else (a folder named CLAUDE.md, a FIFO, a huge file, bad
 *   UTF-8) is listed as unreadable with the reason, in words for a person;
 * - a file is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO swapped in never blocks the process),
 *   and where /proc is there, the descriptor's own path is checked against the real path found;
 * - a write goes through the directory pinned by containment (runtime/local/containment.ts) and
 *   the atomic write (runtime/local/atomic-write.ts): a temp file in the same directory, renamed
 *   over the name; a link inside the base is written through to its target (never replaced), the
 *   file's mode is kept. Nothing here names a host path in a message: only display paths.
 * The same rules for a checkout on an SSH host run there, in the remote helper (remote-checkout.ts);
 * WHY words both, so a reason reads the same wherever the file is.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_FILE_BYTES } from '../../common/memory/constants';
import { isGitDir } from '../../common/memory/paths';
import { writeAtomically } from '../runtime/local/atomic-write';
import { isInside, PINNING, realpathOrNull, withPinnedDir } from '../runtime/local/containment';
import { readToEnd } from '../runtime/local/listing';
import { RuntimeError } from '../runtime/runtime';

/** The cap of an agent file Cairn opens or writes: the memory cap (100 KiB). */
export const MAX_AGENT_FILE_BYTES = MAX_FILE_BYTES;

const fsc = fs.constants;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Where files are looked for: the checkout, or the user's home, by its real path. */
export interface Base {
  readonly place: 'global' | 'checkout';
  readonly real: string;
}

/** What is at a known path. */
export interface Inspected {
  readonly size: number;
  readonly mtimeMs: number;
  /** Null when it can be opened; else why not, for a person. */
  readonly unreadable: string | null;
  /** The file's real path (links resolved); null when unreadable. */
  readonly real: string | null;
  readonly bytes: Uint8Array | null;
  readonly content: string | null;
  readonly sha256: string | null;
  /** Permission bits of the file (kept by a write). */
  readonly mode: number;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The base as a person names it: the checkout, or their home folder. */
export function where(base: Pick<Base, 'place'>): string {
  return base.place === 'checkout' ? 'the checkout' : 'your home folder';
}

/**
 * Why a file is not opened, for a person: one wording for the local disk and the remote helper's
 * states (remote-checkout.ts), so a checkout over SSH says the same as on this machine.
 */
export const WHY = {
  outside: (base: Pick<Base, 'place'>) => `it is a symbolic link that leads outside ${where(base)}; Cairn does not follow it.`,
  git: 'it is a symbolic link into a .git directory; Cairn does not follow it.',
  folder: 'it is a folder, not a file.',
  special: 'it is not a regular file (a FIFO, a socket or a device).',
  links: 'it has more than one hard link, so its content also has another name, perhaps outside; Cairn does not open it.',
  large: (size: number) => `it is ${kib(size)}; Cairn opens files of at most ${kib(MAX_AGENT_FILE_BYTES)}.`,
  over: `it is over ${kib(MAX_AGENT_FILE_BYTES)}; Cairn opens files of at most ${kib(MAX_AGENT_FILE_BYTES)}.`,
  loop: 'it changed into a symbolic link while Cairn looked at it.',
  moved: 'it moved while Cairn looked at it; look again.',
  open: (code: string) => `Cairn cannot open it (${code}).`,
  utf8: 'it is not UTF-8 text.',
  nul: 'it holds a NUL character, so it is not text.',
} as const;

/** Whether `real` lies inside the base and out of any `.git` there. */
function insideBase(base: Base, real: string): 'inside' | 'outside' | 'git' {
  if (!isInside(real, base.real)) return 'outside';
  if (real.length > base.real.length && real.slice(base.real.length + 1).split(path.sep).some(isGitDir)) return 'git';
  return 'inside';
}

export function unreadableBecause(size: number, mtimeMs: number, why: string, mode = 0): Inspected {
  return { size, mtimeMs, unreadable: why, real: null, bytes: null, content: null, sha256: null, mode };
}

function kib(bytes: number): string {
  return `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * What is at `rel` below the base: null when nothing is (or a link leads nowhere), else its size,
 * time and either its content or why it cannot be opened.
 */
export function inspect(base: Base, rel: readonly string[]): Inspected | null {
  const full = path.join(base.real, ...rel);
  const link = fs.lstatSync(full, { throwIfNoEntry: false });
  if (!link) return null;
  let real: string | null;
  try {
    real = realpathOrNull(full);
  } catch {
    real = null;
  }
  if (real === null) return null; // a dangling link, or gone meanwhile: absent
  const placed = insideBase(base, real);
  if (placed === 'outside') return unreadableBecause(0, link.mtimeMs, WHY.outside(base));
  if (placed === 'git') return unreadableBecause(0, link.mtimeMs, WHY.git);
  const st = fs.statSync(real, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isDirectory()) return unreadableBecause(0, st.mtimeMs, WHY.folder);
  if (!st.isFile()) return unreadableBecause(0, st.mtimeMs, WHY.special);
  if (st.nlink > 1) return unreadableBecause(st.size, st.mtimeMs, WHY.links);
  if (st.size > MAX_AGENT_FILE_BYTES) return unreadableBecause(st.size, st.mtimeMs, WHY.large(st.size));
  const read = readChecked(real);
  if (typeof read === 'string') return unreadableBecause(st.size, st.mtimeMs, read);
  const { bytes, stat } = read;
  return textOf(bytes, stat.size, stat.mtimeMs, stat.mode & 0o7777, real);
}

/** A file's bytes as text, checked (UTF-8, no NUL), with its digest; or why it is not text. */
export function textOf(bytes: Uint8Array, size: number, mtimeMs: number, mode: number, real: string | null): Inspected {
  let content: string;
  try {
    content = strictUtf8.decode(bytes);
  } catch {
    return unreadableBecause(size, mtimeMs, WHY.utf8);
  }
  if (content.includes('\u0000')) return unreadableBecause(size, mtimeMs, WHY.nul);
  return { size, mtimeMs, unreadable: null, real, bytes, content, sha256: sha256Hex(bytes), mode };
}

/**
 * Reads a regular file at a resolved path: opened without following a final link and without
 * blocking, checked on the descriptor (regular, one link, within the cap, and where /proc is, still
 * at `real`). A reason for a person when it is not what it was.
 */
function readChecked(real: string, checkPlace = true): { bytes: Uint8Array; stat: fs.Stats } | string {
  let fd: number;
  try {
    fd = fs.openSync(real, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return WHY.loop;
    return WHY.open(code ?? 'error');
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return WHY.special;
    if (stat.nlink > 1) return WHY.links;
    if (stat.size > MAX_AGENT_FILE_BYTES) return WHY.large(stat.size);
    if (checkPlace && PINNING && fs.readlinkSync(`/proc/self/fd/${fd}`) !== real) return WHY.moved;
    const bytes = readToEnd(fd, stat.size, MAX_AGENT_FILE_BYTES);
    if (bytes === null) return WHY.over;
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), stat };
  } finally {
    fs.closeSync(fd);
  }
}

/** A directory below the base, resolved: its real path if it is inside the base (and out of `.git`), else null. */
export function realDir(base: Base, rel: readonly string[]): string | null {
  let real: string | null;
  try {
    real = realpathOrNull(path.join(base.real, ...rel));
  } catch {
    return null;
  }
  if (real === null || insideBase(base, real) !== 'inside') return null;
  return fs.statSync(real, { throwIfNoEntry: false })?.isDirectory() ? real : null;
}

/** Thrown by a write's last look when the file changed under it (the caller answers a conflict). */
export class ChangedMeanwhile extends Error {}

/**
 * Writes `data` as the file at `rel` (or, for a file that is a link inside the base, at its
 * target), atomically, keeping `mode`; `expected`: the bytes' digest the file must still have at
 * the rename (null: no file may be there). Missing folders on the way are made (0700) inside the base.
 */
export async function writeFileAt(base: Base, rel: readonly string[], target: string | null, data: Uint8Array, expected: string | null, mode: number): Promise<void> {
  // The directory and name written: the link's target for a file reached through a link.
  const relTarget = target === null ? rel : path.relative(base.real, target).split(path.sep);
  const dirRel = relTarget.slice(0, -1);
  const name = relTarget[relTarget.length - 1]!;
  try {
    await withPinnedDir(base.real, dirRel, true, undefined, async (dir) => {
      const at = path.join(dir, name);
      await writeAtomically(dir, name, data, {
        exclusive: expected === null,
        beforeRename: () => {
          // The last look: the file must still be what the person's edit was based on.
          const now = currentDigest(at);
          if (now !== expected) throw new ChangedMeanwhile();
        },
      });
      fs.chmodSync(at, mode);
    });
  } catch (err) {
    if (err instanceof RuntimeError && err.code === 'EEXIST') throw new ChangedMeanwhile();
    throw err;
  }
}

/** The digest of the regular file at `at` now (not following a link), or null when none is there. */
function currentDigest(at: string): string | null {
  const st = fs.lstatSync(at, { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isFile()) return 'not-a-file';
  const read = readChecked(at, false);
  return typeof read === 'string' ? 'unreadable' : sha256Hex(read.bytes);
}
