/**
 * The one translation of a Runtime's failures into the texts a model or a person reads: a
 * RuntimeError met while running a command on a virtual path becomes a MemoryToolError naming
 * that path (never a host path: RuntimeErrors carry codes, not messages to pass on).
 *
 * A command that reads a code its own way (rename's EEXIST is "the destination exists", a delete's
 * ENOENT is the reference's "does not exist" text) passes those cases; every other code reads the
 * same for every command.
 */
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';
import { errors } from '../../common/memory/texts';
import { RuntimeError, type Runtime, type RuntimeErrorCode, type ScopeRoot } from '../runtime/runtime';

/** Texts that replace the general one for some codes, for one command. */
export type ErrorCases = Partial<Record<RuntimeErrorCode, () => string>>;

/**
 * For a command that needs a regular file at `path` (view, read, str_replace, insert): a directory
 * or anything else is "not a file", and a file where a parent directory should be means the path
 * does not exist.
 */
export function fileCases(path: string): ErrorCases {
  return { EISDIR: () => errors.notAFile(path), NOT_FILE: () => errors.notAFile(path), ENOTDIR: () => errors.notFound(path) };
}

/** The model-facing error for a RuntimeError met while running `command` on `path`. */
export function toolError(err: RuntimeError, command: string, path: string, cases: ErrorCases = {}): MemoryToolError {
  // A hard link reads the same for every command: not "not a file", which it is.
  if (err.code === 'NOT_FILE' && err.errno === 'EMLINK') return new MemoryToolError(errors.hardLink(path));
  const special = cases[err.code];
  if (special) return new MemoryToolError(special());
  const parsed = parseMemoryPath(path);
  const scope = parsed.kind === 'scope' ? parsed.scope : 'global';
  switch (err.code) {
    case 'ENOENT':
      return new MemoryToolError(errors.notFound(path));
    case 'EEXIST':
      return new MemoryToolError(errors.alreadyExists(path));
    case 'ENOTDIR':
      return new MemoryToolError(errors.parentNotDirectory(path));
    case 'EISDIR':
      return new MemoryToolError(errors.notAFile(path));
    case 'NOT_FILE':
      return new MemoryToolError(errors.unsupportedType(path));
    case 'ESCAPE':
      return new MemoryToolError(errors.escapes(path));
    case 'TOO_LARGE':
      return new MemoryToolError(errors.storedFileTooLarge(path, err.size ?? 0));
    case 'BUSY':
      return new MemoryToolError(errors.busy(scope));
    case 'UNREACHABLE':
      return new MemoryToolError(errors.unavailable(scope, err.detail ?? 'its host cannot be reached right now.'));
    case 'UNSAFE_ROOT':
      return new MemoryToolError(errors.unavailable(scope, err.detail ?? 'its directory is not one Cairn can use.'));
    case 'UNREADABLE':
      return new MemoryToolError(errors.unreadableFolder(path, err.errno ?? 'EACCES'));
    case 'HISTORY':
      return new MemoryToolError(errors.historyUnavailable(command.replace('_', ' '), path, err.errno ?? 'EIO'));
    case 'EINVAL':
    case 'IO':
      return new MemoryToolError(errors.io(command.replace('_', ' '), path, err.errno ?? err.code));
  }
}

/** Runs a Runtime operation, turning a RuntimeError into its text (toolError); other errors pass. */
export async function mapRuntimeErrors<T>(fn: () => Promise<T>, command: string, path: string, cases?: ErrorCases): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RuntimeError) throw toolError(err, command, path, cases);
    throw err;
  }
}

/** One path of a rename: its virtual path and its segments in the scope. */
export interface RenamePath {
  readonly path: string;
  readonly segments: readonly string[];
}

/**
 * A rename's texts, in the reference's order: an existing destination, then a missing source, then
 * a directory moving into itself.
 */
function renameCases(source: string, dest: string): ErrorCases {
  const missing = () => errors.notFoundForDelete(source);
  return { EEXIST: () => errors.destinationExists(dest), ENOENT: missing, ENOTDIR: missing, EINVAL: () => errors.intoItself(source, dest) };
}

/** Whether `rel` (its parent resolved, its own name not followed) leads out of the root. */
async function leadsOut(at: { readonly runtime: Runtime; readonly root: ScopeRoot }, rel: readonly string[]): Promise<boolean> {
  try {
    await at.runtime.stat(at.root, rel, false);
    return false;
  } catch (err) {
    return err instanceof RuntimeError && err.code === 'ESCAPE';
  }
}

/**
 * Runs a rename (`fn`, holding the scope's lock), turning a RuntimeError into its text. The
 * runtime's ESCAPE does not say which of the two paths escapes; the error must name that one, so
 * the two are asked again, read-only (a stat that resolves a path's parent without following its
 * own name): the destination is named when it leads out and the source does not, else the source
 * (a root that escapes makes both escape: the source is named, as for any other command).
 */
export async function mapRenameErrors<T>(
  at: { readonly runtime: Runtime; readonly root: ScopeRoot },
  source: RenamePath,
  dest: RenamePath,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    if (err.code === 'ESCAPE' && (await leadsOut(at, dest.segments)) && !(await leadsOut(at, source.segments))) {
      throw new MemoryToolError(errors.escapes(dest.path));
    }
    throw toolError(err, 'rename', source.path, renameCases(source.path, dest.path));
  }
}
