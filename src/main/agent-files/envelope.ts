/**
 * The envelope of other agents' files: what Cairn may read of a known file at a known
 * place, and how it writes one. The rule of every file from outside (outside/outside-file.ts),
 * applied to a base that is the workspace's checkout or the user's home, with the same writes as
 * memory roots (docs/architecture.md, "Security envelope").
 *
 * Invariants:
 * - a link (the file's name, or a folder on its way below the base) is listed with where it
 *   leads (`linkTo`), and followed only when it leads to a file the catalogue knows at its place
 *   in the same base (`~/.claude/CLAUDE.md -> ~/.ssh/id_rsa` is never opened, `CLAUDE.md ->
 *   AGENTS.md` is), never out of the base nor into a `.git` there; a link that leads nowhere is
 *   listed as such;
 * - only regular files with one hard link, of at most MAX_AGENT_FILE_BYTES, in UTF-8 without NUL
 *   characters, are opened (O_NOFOLLOW | O_NONBLOCK, checked on the descriptor); anything else (a
 *   folder named CLAUDE.md, a FIFO, a huge file, bad UTF-8) is listed as unreadable with the
 *   reason, in words for a person;
 * - nothing is written through a link: a save of a name that is a link, or whose folders on the
 *   way are, is refused (the person saves the file it leads to, under its own name). A write goes
 *   through the directory pinned by containment (runtime/local/containment.ts) and the atomic
 *   write (runtime/local/atomic-write.ts): a temp file in the same directory, renamed over the
 *   name; the file's mode is kept. Nothing here names a host path in a message: only display paths.
 * The same rules for a checkout on an SSH host run there, in the remote helper (remote-checkout.ts);
 * WHY words both, so a reason reads the same wherever the file is.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_FILE_BYTES } from '../../common/memory/constants';
import { isGitDir } from '../../common/memory/paths';
import { follow, OUTSIDE_WHY, readRegularSync, shownPath, type LinkRule } from '../outside/outside-file';
import { writeAtomically } from '../runtime/local/atomic-write';
import { isInside, PINNING, realpathOrNull, withPinnedDir } from '../runtime/local/containment';
import { RuntimeError } from '../runtime/runtime';
import { isCataloguedPath } from './catalogue';

/** The cap of an agent file Cairn opens or writes: the memory cap (100 KiB). */
export const MAX_AGENT_FILE_BYTES = MAX_FILE_BYTES;

/** What the reasons call a file a link may lead to. */
const AGENT_FILE_KIND = 'a file an agent reads at a place Cairn knows';

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
  /** Where the name leads when it is a link, or a folder on its way is (a display path, or the host path outside the base); null when no link is. */
  readonly linkTo: string | null;
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
  outside: (base: Pick<Base, 'place'>) => OUTSIDE_WHY.outside(where(base)),
  git: OUTSIDE_WHY.git,
  kind: OUTSIDE_WHY.kind(AGENT_FILE_KIND),
  dangling: OUTSIDE_WHY.dangling,
  folder: OUTSIDE_WHY.folder,
  special: OUTSIDE_WHY.special,
  links: OUTSIDE_WHY.links,
  large: (size: number) => OUTSIDE_WHY.large(size, MAX_AGENT_FILE_BYTES),
  over: OUTSIDE_WHY.over(MAX_AGENT_FILE_BYTES),
  loop: OUTSIDE_WHY.loop,
  moved: OUTSIDE_WHY.moved,
  open: OUTSIDE_WHY.open,
  utf8: 'it is not UTF-8 text.',
  nul: 'it holds a NUL character, so it is not text.',
} as const;

/** Whether `real` lies inside the base and out of any `.git` there. */
function insideBase(base: Base, real: string): 'inside' | 'outside' | 'git' {
  if (!isInside(real, base.real)) return 'outside';
  if (real.length > base.real.length && real.slice(base.real.length + 1).split(path.sep).some(isGitDir)) return 'git';
  return 'inside';
}

/** The rule of links for a base: into the base only, to a file the catalogue knows there. */
function linkRule(base: Base): LinkRule {
  return { within: [{ real: base.real, where: where(base) }], sameKind: (_real, below) => isCataloguedPath(base.place, below), kindName: AGENT_FILE_KIND };
}

/** Where a link leads, as a person is shown it: its display path inside the base, else the path itself. */
function shownTarget(base: Base, target: string): string {
  return shownPath(target, [{ real: base.real, prefix: base.place === 'global' ? '~/' : '' }]);
}

export function unreadableBecause(size: number, mtimeMs: number, why: string, mode = 0, linkTo: string | null = null): Inspected {
  return { size, mtimeMs, unreadable: why, real: null, bytes: null, content: null, sha256: null, mode, linkTo };
}

/**
 * What is at `rel` below the base: null when nothing is, else its size, time, where it leads if it
 * is a link, and either its content or why it cannot be opened.
 */
export function inspect(base: Base, rel: readonly string[]): Inspected | null {
  const followed = follow(base.real, rel, linkRule(base));
  if (followed.status === 'absent') return null;
  const linkTo = followed.linkTo === null ? null : shownTarget(base, followed.linkTo);
  if (followed.status === 'refused') return unreadableBecause(0, followed.mtimeMs, followed.why, 0, linkTo);
  const read = readRegularSync(followed.real, { maxBytes: MAX_AGENT_FILE_BYTES });
  if ('refused' in read) {
    const st = fs.statSync(followed.real, { throwIfNoEntry: false });
    return unreadableBecause(st?.isFile() ? st.size : 0, st?.mtimeMs ?? followed.mtimeMs, read.refused, 0, linkTo);
  }
  const { bytes, stat } = read;
  return textOf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), stat.size, stat.mtimeMs, stat.mode & 0o7777, followed.real, linkTo);
}

/** A file's bytes as text, checked (UTF-8, no NUL), with its digest; or why it is not text. */
export function textOf(bytes: Uint8Array, size: number, mtimeMs: number, mode: number, real: string | null, linkTo: string | null = null): Inspected {
  let content: string;
  try {
    content = strictUtf8.decode(bytes);
  } catch {
    return unreadableBecause(size, mtimeMs, WHY.utf8, 0, linkTo);
  }
  if (content.includes('\u0000')) return unreadableBecause(size, mtimeMs, WHY.nul, 0, linkTo);
  return { size, mtimeMs, unreadable: null, real, bytes, content, sha256: sha256Hex(bytes), mode, linkTo };
}

/** A directory below the base, resolved: its real path if it is inside the base (and out of `.git`), else null. */
export function realDir(base: Base, rel: readonly string[]): string | null {
  let real: string | null;
  try {
    real = realpathOrNull(path.join(base.real, ...rel));
  } catch {
    return null; // cannot be resolved (a link loop, a folder that cannot be searched): no folder to read
  }
  if (real === null || insideBase(base, real) !== 'inside') return null;
  return fs.statSync(real, { throwIfNoEntry: false })?.isDirectory() ? real : null;
}

/** Thrown by a write's last look when the file changed under it (the caller answers a conflict). */
export class ChangedMeanwhile extends Error {}

/** Thrown when a folder on the way to a file being written is a link (nothing is written through one). */
export class LinkOnTheWay extends Error {}

/**
 * Writes `data` as the file at `rel`, atomically, keeping `mode`; `expected`: the bytes' digest
 * the file must still have at the rename (null: no file may be there). Missing folders on the way
 * are made (0700) inside the base; a folder on the way that is a link is refused (LinkOnTheWay),
 * and the name itself is replaced, never followed. The caller has refused a name that is a link.
 */
export async function writeFileAt(base: Base, rel: readonly string[], data: Uint8Array, expected: string | null, mode: number): Promise<void> {
  const dirRel = rel.slice(0, -1);
  const name = rel[rel.length - 1]!;
  const lexicalDir = path.join(base.real, ...dirRel);
  // Before any folder is made: none of those on the way may be a link (made through it, it would be elsewhere).
  for (let i = 1; i <= dirRel.length; i++) {
    const st = fs.lstatSync(path.join(base.real, ...dirRel.slice(0, i)), { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink()) throw new LinkOnTheWay();
  }
  try {
    await withPinnedDir(
      base.real,
      dirRel,
      true,
      async (resolved) => {
        if (resolved !== lexicalDir) throw new LinkOnTheWay();
      },
      async (dir) => {
        // The directory held is still the one named (a folder swapped for a link since shows here).
        if (PINNING && fs.readlinkSync(dir) !== lexicalDir) throw new LinkOnTheWay();
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
      },
    );
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
  const read = readRegularSync(at, { maxBytes: MAX_AGENT_FILE_BYTES, checkPlace: false });
  return 'refused' in read ? 'unreadable' : sha256Hex(read.bytes);
}
