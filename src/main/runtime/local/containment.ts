/**
 * Containment on the local disk: the half of the security envelope that decides where a relative
 * path of a scope really leads (docs/architecture.md, "Security envelope").
 *
 * Invariants:
 * - a scope root resolves (realpath) inside its anchor (Cairn's home, or the project's checkout);
 * - every target resolves through its deepest existing ancestor, with realpath, inside the root's
 *   real path, or the operation is refused with ESCAPE;
 * - a change acts through its parent directory pinned by a file descriptor (`/proc/self/fd/N` on
 *   Linux) whose current location is checked after it is opened, so a directory swapped for a
 *   symlink between the check and the change cannot redirect it out of the root. Where /proc is
 *   missing (macOS) the checked real path is checked again just before it is used.
 * Nothing here is cached: every operation resolves afresh, so no stale answer can outlive a swap.
 * Directories Cairn creates are 0700 (memory can hold private notes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isGitDir } from '../../../common/memory/paths';
import { RuntimeError, unsafeRoot, type ScopeRoot } from '../runtime';
import { ownershipProblem, userNameOf } from './ownership';

const fsc = fs.constants;

/** Linux lets a process reach a directory it holds open as /proc/self/fd/N, immune to path swaps. */
export const PINNING = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException)?.code ?? 'EIO';
}

/**
 * The names in the folder `dir`; none when it is not there (`missing`: the codes that say so). A
 * folder that is there but cannot be read is no empty one: `unreadable(code)` is thrown, else the
 * error itself.
 */
export function namesIn(dir: string, unreadable?: (code: string) => Error, missing: readonly string[] = ['ENOENT']): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (err) {
    if (missing.includes(errnoOf(err))) return [];
    throw unreadable ? unreadable(errnoOf(err)) : err;
  }
}

/** Maps an OS error to a RuntimeError; RuntimeErrors pass through. */
export function toRuntimeError(err: unknown): RuntimeError {
  if (err instanceof RuntimeError) return err;
  const code = errnoOf(err);
  switch (code) {
    case 'ENOENT':
      return new RuntimeError('ENOENT');
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new RuntimeError('EEXIST');
    case 'ENOTDIR':
      return new RuntimeError('ENOTDIR');
    case 'EISDIR':
      return new RuntimeError('EISDIR');
    case 'EINVAL':
      return new RuntimeError('EINVAL');
    default:
      return new RuntimeError('IO', code);
  }
}

export function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

export const realpath = (p: string): string => fs.realpathSync.native(p);

export function lstatOrNull(p: string): fs.Stats | null {
  return fs.lstatSync(p, { throwIfNoEntry: false }) ?? null;
}

/**
 * Whether anything is at `p` (following symlinks), found without a thrown error: a missing path
 * (an empty scope's root, a new file's parent) is met on most calls, and a thrown ENOENT costs tens
 * of microseconds, several times the syscall.
 */
function exists(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch (err) {
    throw toRuntimeError(err); // ENOTDIR: a file where a directory should be
  }
}

export function realpathOrNull(p: string): string | null {
  if (!exists(p)) return null;
  try {
    return realpath(p);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Opens a path that was just resolved (no symlinks in it). O_NOFOLLOW refuses a symlink swapped
 * in at its last component since; that is reported as an escape.
 */
export function openResolved(resolved: string, flags: number): number {
  try {
    return fs.openSync(resolved, flags | fsc.O_NOFOLLOW);
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'ELOOP') throw new RuntimeError('ESCAPE');
    // With O_DIRECTORY, Linux reports a symlink as ENOTDIR rather than ELOOP.
    if (code === 'ENOTDIR' && lstatOrNull(resolved)?.isSymbolicLink()) throw new RuntimeError('ESCAPE');
    throw toRuntimeError(err);
  }
}

/**
 * Realpath of the deepest existing ancestor of `target` (itself included), with the missing
 * remainder appended. Stops climbing at `stop` (ENOENT if even that is missing).
 */
function resolveDeepest(target: string, stop: string): { real: string; missing: string[] } {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    // A path seen missing is climbed past without a throwing realpath (one that appears or goes
    // in between is settled by realpath's own answer below).
    if (current !== stop && !exists(current)) {
      const parent = path.dirname(current);
      if (parent === current) throw new RuntimeError('ENOENT');
      missing.unshift(path.basename(current));
      current = parent;
      continue;
    }
    try {
      return { real: realpath(current), missing };
    } catch (err) {
      const code = errnoOf(err);
      if (code === 'ENOTDIR') throw new RuntimeError('ENOTDIR');
      if (code !== 'ENOENT') throw toRuntimeError(err);
      const parent = path.dirname(current);
      if (current === stop || parent === current) throw new RuntimeError('ENOENT');
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The root's real path: its anchor's real path with the root's own components below it, each of
 * which must be a real directory (never a symbolic link, never `.git`), and at least one of them:
 * a root is never its anchor itself. A repository can commit a link such as `.cairn/memory ->
 * ../.git`, and memory written through it would rewrite the repository's config; following links
 * below the anchor is what made that possible, so none is followed there. Missing root: null,
 * unless `create` (then its missing components are made, 0700). The anchor and every component
 * are the person's own (./ownership.ts): the anchor owned by them or root, each component also
 * writable by nobody else. Breaking a rule: UNSAFE_ROOT with a reason naming the component
 * relative to the anchor (never a host path).
 */
export function resolveRoot(root: ScopeRoot, create: boolean): string | null {
  const parts = rootComponents(root);
  let anchor = realpathOrNull(root.anchor);
  if (!anchor) {
    if (!create) return null;
    fs.mkdirSync(root.anchor, { recursive: true, mode: DIR_MODE });
    anchor = realpath(root.anchor);
  }
  checkOwnership(fs.statSync(anchor), '.', false);
  let current = anchor;
  for (let i = 0; i < parts.length; i++) {
    current = path.join(current, parts[i]!);
    const where = parts.slice(0, i + 1).join('/');
    let st = lstatOrNull(current);
    if (!st) {
      if (!create) return null;
      try {
        fs.mkdirSync(current, { mode: DIR_MODE });
      } catch (err) {
        if (errnoOf(err) !== 'EEXIST') throw toRuntimeError(err);
      }
      st = lstatOrNull(current);
      if (!st) throw new RuntimeError('ENOENT');
    }
    if (st.isSymbolicLink()) throw unsafeRoot('symlink', where);
    if (!st.isDirectory()) throw unsafeRoot('notdir', where);
    checkOwnership(st, where, true);
  }
  // A component swapped for a link since it was looked at shows up here.
  if (realpathOrNull(current) !== current) throw unsafeRoot('symlink', parts.join('/'));
  return current;
}

/** UNSAFE_ROOT when the directory `st` at `where` is not the person's own (ownershipProblem). */
function checkOwnership(st: fs.Stats, where: string, isPrivate: boolean): void {
  const problem = ownershipProblem(st, { private: isPrivate });
  if (problem?.kind === 'owner') throw unsafeRoot('owner', where, userNameOf(problem.uid));
  if (problem) throw unsafeRoot('writable', where);
}

/** The root's path below its anchor, as components; UNSAFE_ROOT when there are none, or `.git`. */
function rootComponents(root: ScopeRoot): string[] {
  const rel = path.relative(root.anchor, root.path);
  if (rel === '' || path.isAbsolute(rel) || rel.split(path.sep)[0] === '..') throw unsafeRoot('base', '.');
  const parts = rel.split(path.sep);
  const git = parts.findIndex(isGitDir);
  if (git >= 0) throw unsafeRoot('git', parts.slice(0, git + 1).join('/'));
  return parts;
}

/** ESCAPE unless `real` (a resolved path) lies inside `rootReal` and not within a `.git` there. */
export function checkInside(real: string, rootReal: string, missing: readonly string[] = []): void {
  if (!isInside(real, rootReal)) throw new RuntimeError('ESCAPE');
  if (real.length > rootReal.length && real.slice(rootReal.length + 1).split(path.sep).some(isGitDir)) throw new RuntimeError('ESCAPE');
  if (missing.some(isGitDir)) throw new RuntimeError('ESCAPE');
}

/**
 * The host path of `rel` under the resolved root. With `followFinal` the final component is
 * resolved too (a symlink followed, checked); otherwise only its parent is, and the name appended.
 */
export function resolveTarget(rootReal: string, rel: readonly string[], followFinal: boolean): string {
  if (rel.length === 0) return rootReal;
  const full = path.join(rootReal, ...rel);
  const start = followFinal ? full : path.dirname(full);
  const { real, missing } = resolveDeepest(start, rootReal);
  checkInside(real, rootReal, followFinal ? missing : [...missing, rel[rel.length - 1]!]);
  const resolved = path.join(real, ...missing);
  return followFinal ? resolved : path.join(resolved, rel[rel.length - 1]!);
}

/** Creates the directory `rel` (and missing parents) inside the root; returns its checked realpath. */
export function ensureDir(rootReal: string, rel: readonly string[]): string {
  const full = path.join(rootReal, ...rel);
  const { real, missing } = resolveDeepest(full, rootReal);
  checkInside(real, rootReal, missing);
  if (missing.length > 0) {
    try {
      fs.mkdirSync(path.join(real, ...missing), { recursive: true, mode: DIR_MODE });
    } catch (err) {
      if (errnoOf(err) === 'EEXIST') throw new RuntimeError('ENOTDIR');
      throw toRuntimeError(err);
    }
  }
  let after: string;
  try {
    after = realpath(full);
  } catch (err) {
    throw toRuntimeError(err);
  }
  checkInside(after, rootReal);
  if (!fs.statSync(after).isDirectory()) throw new RuntimeError('ENOTDIR');
  return after;
}

/**
 * Runs `fn` with a path through which the directory `dirRel` of the root (created if `create`) is
 * reached race-free: a descriptor-pinned path on Linux, else the checked real path, checked again.
 * `afterCheck` is a test's fault injection between the check and the use.
 */
export async function withPinnedDir<T>(
  rootReal: string,
  dirRel: readonly string[],
  create: boolean,
  afterCheck: ((resolvedDir: string) => Promise<void>) | undefined,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const real = create ? ensureDir(rootReal, dirRel) : resolveTarget(rootReal, dirRel, true);
  await afterCheck?.(real);
  if (!PINNING) {
    if (realpathOrNull(real) !== real) throw new RuntimeError('ESCAPE');
    return fn(real);
  }
  const fd = openResolved(real, fsc.O_RDONLY | fsc.O_DIRECTORY);
  try {
    const pinned = `/proc/self/fd/${fd}`;
    // Where the directory we hold really is now; a swap before the open shows up here.
    checkInside(fs.readlinkSync(pinned), rootReal);
    return await fn(pinned);
  } finally {
    fs.closeSync(fd);
  }
}
