/**
 * Files that come from outside Cairn: other agents' files (agent-files/), what `cairn import`
 * reads (import/sources.ts), the agents' transcripts and rollouts the harvest reads
 * (harvest/read-transcript.ts, session-files.ts). The one rule for what may be read of them
 * (docs/architecture.md, "Security envelope"), in one place so that every reader says the same:
 *
 * - A symbolic link, the name itself or a folder below where the caller started, is shown as a
 *   link with where it leads (`linkTo`), and followed only when what it leads to is itself a file
 *   of the same kind (the caller's `sameKind`) inside one of the folders links may lead into (the
 *   caller's `within`: the checkout, or the user's home), and never into a `.git` there. A link
 *   that leads nowhere is reported as one, never taken for a missing file.
 * - Only a regular file with one hard link, within the caller's cap, is read. It is opened with
 *   O_NOFOLLOW | O_NONBLOCK (a FIFO, a device or a socket put in its place never blocks nor feeds
 *   the process) and checked on the descriptor (fstat: a look before the open races), and where
 *   /proc is, the descriptor's own path must still be the real path found.
 * - Nothing is ever written through a link: a writer refuses a name that has `linkTo`
 *   (agent-files/envelope.ts). Nothing here writes.
 *
 * Reasons are words for a person, ending a sentence that starts with the file's name; none names a
 * host path (callers show `linkTo` as they name files).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isGitDir } from '../../common/memory/paths';
import { isInside, PINNING } from '../runtime/local/containment';

const fsc = fs.constants;

/** Why a file from outside is not read, for a person (the end of "<name> cannot be opened: ..."). */
export const OUTSIDE_WHY = {
  outside: (where: string) => `it is a symbolic link that leads outside ${where}; Cairn does not follow it.`,
  git: 'it is a symbolic link into a .git directory; Cairn does not follow it.',
  kind: (what: string) => `it is a symbolic link to something that is not ${what}; Cairn does not follow it.`,
  dangling: 'it is a symbolic link that leads nowhere.',
  inGit: 'it is inside a .git directory; Cairn does not read it.',
  folder: 'it is a folder, not a file.',
  special: 'it is not a regular file (a FIFO, a socket or a device).',
  links: 'it has more than one hard link, so its content also has another name, perhaps outside; Cairn does not open it.',
  large: (size: number, max: number) => `it is ${sizeText(size)}; Cairn opens files of at most ${sizeText(max)}.`,
  over: (max: number) => `it is over ${sizeText(max)}; Cairn opens files of at most ${sizeText(max)}.`,
  loop: 'it changed into a symbolic link while Cairn looked at it.',
  moved: 'it moved while Cairn looked at it; look again.',
  open: (code: string) => `Cairn cannot open it (${code}).`,
} as const;

/** A size as a person reads it: KiB below a MiB, MiB above. */
function sizeText(bytes: number): string {
  return bytes > 1024 * 1024 ? `${Math.ceil(bytes / (1024 * 1024))} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/** Where links may lead, and to what. */
export interface LinkRule {
  /** Real paths of the folders a link may lead into (the checkout, the user's home), with how a person calls each. */
  readonly within: readonly { readonly real: string; readonly where: string }[];
  /** Whether the file a link leads to is of the same kind: its real path, and its segments below the `within` folder it is in. */
  readonly sameKind: (real: string, below: readonly string[]) => boolean;
  /** The kind in words, for the reason ("a file an agent reads", "a Claude Code or Codex transcript"). */
  readonly kindName: string;
}

/** What is at a name, by the rule. `linkTo`: where a link on the way leads (a host path; null when no link is). */
export type Followed =
  | { readonly status: 'absent' }
  | { readonly status: 'ok'; readonly real: string; readonly linkTo: string | null; readonly mtimeMs: number }
  | { readonly status: 'refused'; readonly why: string; readonly linkTo: string | null; readonly mtimeMs: number };

function realOrNull(p: string): string | null {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return null;
  }
}

/**
 * What `rel` below `start` is by the rule. `start` is where the caller began (a base, or the
 * folder a person named) and is taken as it is, its own links resolved; `rel` (plain names, no
 * `.` or `..`) is what was found below it, and any link there is judged.
 */
export function follow(start: string, rel: readonly string[], rule: LinkRule): Followed {
  const startReal = realOrNull(start);
  if (startReal === null) return { status: 'absent' };
  const lexical = path.join(startReal, ...rel);
  const named = fs.lstatSync(lexical, { throwIfNoEntry: false });
  if (!named) return { status: 'absent' };
  if (rel.some((s) => isGitDir(s))) return { status: 'refused', why: OUTSIDE_WHY.inGit, linkTo: null, mtimeMs: named.mtimeMs };
  const real = realOrNull(lexical);
  if (real === lexical) return { status: 'ok', real, linkTo: null, mtimeMs: named.mtimeMs };
  if (real === null) {
    // A link that leads nowhere: where it says it leads, when it is the name itself.
    let linkTo: string | null = null;
    try {
      if (named.isSymbolicLink()) linkTo = path.resolve(realOrNull(path.dirname(lexical)) ?? path.dirname(lexical), fs.readlinkSync(lexical));
    } catch {
      // Replaced since the lstat above: refused all the same, only without where it led.
    }
    return { status: 'refused', why: OUTSIDE_WHY.dangling, linkTo, mtimeMs: named.mtimeMs };
  }
  const refused = (why: string) => ({ status: 'refused' as const, why, linkTo: real, mtimeMs: named.mtimeMs });
  const place = rule.within.find((w) => isInside(real, w.real));
  if (!place) return refused(OUTSIDE_WHY.outside(rule.within[0]?.where ?? 'where Cairn looks'));
  const below = real.length > place.real.length ? real.slice(place.real.length + (place.real.endsWith(path.sep) ? 0 : 1)).split(path.sep) : [];
  if (below.some((s) => isGitDir(s))) return refused(OUTSIDE_WHY.git);
  if (!rule.sameKind(real, below)) return refused(OUTSIDE_WHY.kind(rule.kindName));
  return { status: 'ok', real, linkTo: real, mtimeMs: named.mtimeMs };
}

/** A regular file's bytes and its descriptor's stat, or why it was not read. */
export type RegularRead = { readonly bytes: Buffer; readonly stat: fs.Stats } | { readonly refused: string };

export interface ReadLimits {
  /** The most bytes read; a larger file is refused. */
  readonly maxBytes: number;
  /** Whether the descriptor must still be at `real` (/proc): off only for a name a writer holds pinned. */
  readonly checkPlace?: boolean;
}

/** Why the file behind `fd`, opened at `real`, is not read; null when it may be. */
function refusalOf(fd: number, stat: fs.Stats, real: string, limits: ReadLimits): string | null {
  if (stat.isDirectory()) return OUTSIDE_WHY.folder;
  if (!stat.isFile()) return OUTSIDE_WHY.special;
  if (stat.nlink > 1) return OUTSIDE_WHY.links;
  if (stat.size > limits.maxBytes) return OUTSIDE_WHY.large(stat.size, limits.maxBytes);
  if (limits.checkPlace !== false && PINNING && fs.readlinkSync(`/proc/self/fd/${fd}`) !== real) return OUTSIDE_WHY.moved;
  return null;
}

function openRefusal(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return OUTSIDE_WHY.loop;
  // A socket cannot be opened at all (ENXIO): it is not a file either.
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return OUTSIDE_WHY.special;
  return OUTSIDE_WHY.open(code ?? 'error');
}

/** A look before opening, so a device or a FIFO is normally never opened at all; the descriptor decides. */
function lookFirst(real: string): string | null {
  const st = fs.lstatSync(real, { throwIfNoEntry: false });
  if (!st || st.isFile() || st.isSymbolicLink()) return null;
  return st.isDirectory() ? OUTSIDE_WHY.folder : OUTSIDE_WHY.special;
}

/**
 * The next read's size: what the stat says is left (and one byte more, to see growth), at least
 * 64 KiB (a file whose stat says 0, as in /proc, still has bytes), at most 8 MiB, never past the cap's next byte.
 */
function chunkSize(size: number, read: number, max: number): number {
  return Math.min(Math.max(size - read + 1, 64 * 1024), 8 * 1024 * 1024, max + 1 - read);
}

const OPEN_FLAGS = fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK;

/** Reads the regular file at `real` (a real path: no link on it), checked on its descriptor. */
export function readRegularSync(real: string, limits: ReadLimits): RegularRead {
  const early = lookFirst(real);
  if (early !== null) return { refused: early };
  let fd: number;
  try {
    fd = fs.openSync(real, OPEN_FLAGS);
  } catch (err) {
    return { refused: openRefusal(err) };
  }
  try {
    const stat = fs.fstatSync(fd);
    const refused = refusalOf(fd, stat, real, limits);
    if (refused !== null) return { refused };
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkSize(stat.size, length, limits.maxBytes));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      length += n;
      if (length > limits.maxBytes) return { refused: OUTSIDE_WHY.over(limits.maxBytes) };
      chunks.push(chunk.subarray(0, n));
    }
    return { bytes: Buffer.concat(chunks, length), stat };
  } finally {
    fs.closeSync(fd);
  }
}

/** An open regular file, checked on its descriptor; the caller closes it. */
export type RegularOpen = { readonly handle: fs.promises.FileHandle; readonly stat: fs.Stats } | { readonly refused: string };

/** Opens the regular file at `real` (a real path) without blocking, checked on its descriptor, for reads in parts. */
export async function openRegular(real: string, limits: ReadLimits): Promise<RegularOpen> {
  const early = lookFirst(real);
  if (early !== null) return { refused: early };
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, OPEN_FLAGS);
  } catch (err) {
    return { refused: openRefusal(err) };
  }
  try {
    const stat = await handle.stat();
    const refused = refusalOf(handle.fd, stat, real, limits);
    if (refused === null) return { handle, stat };
    await handle.close();
    return { refused };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The rest of an open file from `from`, up to the cap (a file that grew past it is refused). */
export async function readRest(open: { readonly handle: fs.promises.FileHandle; readonly stat: fs.Stats }, maxBytes: number, from = 0): Promise<RegularRead> {
  const chunks: Buffer[] = [];
  let length = from;
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkSize(open.stat.size, length, maxBytes));
    const { bytesRead } = await open.handle.read(chunk, 0, chunk.length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > maxBytes) return { refused: OUTSIDE_WHY.over(maxBytes) };
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return { bytes: Buffer.concat(chunks, length - from), stat: open.stat };
}

/** A host path as a person is shown it: below one of `places` with its prefix (`~/`, or none for the checkout), else as it is. */
export function shownPath(p: string, places: readonly { readonly real: string; readonly prefix: string }[]): string {
  for (const place of places) {
    if (p === place.real) return place.prefix === '' ? '.' : place.prefix.replace(/\/$/, '');
    if (isInside(p, place.real)) return `${place.prefix}${path.relative(place.real, p).split(path.sep).join('/')}`;
  }
  return p;
}
