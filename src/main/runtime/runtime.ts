/**
 * The Runtime interface: every filesystem operation MemoryService needs, on one host (the local
 * disk, or a machine reached over SSH). Each operation takes the scope root and a relative path of
 * already-validated segments, and enforces containment itself, so that a remote runtime can batch
 * the check with the operation in one round trip. Implementations never put host paths in the
 * messages of the errors they throw to callers that face a model: they throw RuntimeError codes,
 * and MemoryService turns those into virtual-path texts.
 */

/** Where a scope lives on a runtime's host. */
export interface ScopeRoot {
  /** Absolute path of the scope's root directory. */
  readonly path: string;
  /** A directory the root itself must resolve inside: Cairn's home, or the project's checkout. */
  readonly anchor: string;
}

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface EntryStat {
  readonly type: EntryType;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ListedEntry {
  /** Path relative to the listed directory, as segments. */
  readonly rel: readonly string[];
  readonly type: 'file' | 'directory';
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * What tells this version of a file from any other (device, inode, size, mtime and ctime), for
   * caches of what a file holds; null for a directory, and for a file changed so recently that a
   * later change could still leave all of these as they are (a disk that stamps changes once per
   * clock tick or per second): such a file is read again every time until it has settled. Opaque:
   * only compared, and kept as JSON (each runtime writes it its own way; the local one as binary
   * text, runtime/local/listing.ts versionOf).
   */
  readonly version: string | null;
  /**
   * For a directory whose entries could not be read (its mode, or another user's folder): the OS
   * code (EACCES). What it holds is unknown, never none: its files are not listed.
   */
  readonly unreadable?: string;
}

/**
 * A file whose last change (its ctime) is older than this when it is listed has a version that any
 * later change moves: disks stamp changes at most this coarsely (ext4 before Linux 6.13: a clock
 * tick of 1 to 10 ms; HFS+ and FAT: 1 to 2 s). Younger files get no version (ListedEntry.version).
 */
export const VERSION_SETTLE_MS = 3_000;

export interface FileContent {
  readonly data: Uint8Array;
  readonly size: number;
  readonly mtimeMs: number;
}

export type RuntimeErrorCode =
  /** The path does not exist. */
  | 'ENOENT'
  /** The destination already exists. */
  | 'EEXIST'
  /** A parent of the path is not a directory. */
  | 'ENOTDIR'
  /** The path is a directory where a file was expected. */
  | 'EISDIR'
  /**
   * A directory whose entries cannot be read (a listing of it, a view): never taken for an empty
   * one. `errno` carries the OS code (EACCES), `detail` the reason for a scope whose root it is.
   */
  | 'UNREADABLE'
  /** The path is neither a regular file nor a directory. */
  | 'NOT_FILE'
  /** Resolution would leave the scope root (or the root would leave its anchor). */
  | 'ESCAPE'
  /** The file is larger than the caller's limit; `size` says how large. */
  | 'TOO_LARGE'
  /** A directory cannot move inside itself. */
  | 'EINVAL'
  /** The scope's lock could not be taken in time. */
  | 'BUSY'
  /** The host cannot be reached. */
  | 'UNREACHABLE'
  /**
   * The scope's root, or the lock beside it, is not what Cairn made: a component of the root is a
   * symbolic link or not a directory, or the lock is a link or a full directory. `errno` carries
   * the kind (UnsafeRootKind), `detail` the reason for a person or a model.
   */
  | 'UNSAFE_ROOT'
  /**
   * The version history could not record the change before it was made (a BeforeChange hook
   * refused it), so nothing was changed; `errno` carries the OS code of the history's failure.
   */
  | 'HISTORY'
  /** Any other failure; `errno` carries the OS code. */
  | 'IO';

export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: RuntimeErrorCode,
    readonly errno?: string,
    readonly size?: number,
    /** For UNREACHABLE: why, for a person or a model (names the host, never a path). */
    readonly detail?: string,
  ) {
    super(errno ? `${code} (${errno})` : code);
  }
}

/** The UNREADABLE error of a directory whose entries the OS refused to give (`errno`: EACCES...). */
export function unreadableFolder(errno: string): RuntimeError {
  const why = errno === 'EACCES' || errno === 'EPERM' ? 'permission denied' : errno;
  return new RuntimeError(
    'UNREADABLE',
    errno,
    undefined,
    `Cairn cannot read its folder (${why}), so what it holds is unknown. Make the folder readable by you (its owner can run \`chmod u+rx\` on it) to use this scope.`,
  );
}

/** What makes a scope's root unusable (RuntimeError UNSAFE_ROOT). */
export type UnsafeRootKind = 'symlink' | 'notdir' | 'git' | 'base' | 'lock' | 'owner' | 'writable';

/**
 * The reason a scope cannot be used, naming `where` relative to the scope's base directory (the
 * checkout, or Cairn's home), never a host path. `owner` names the user who owns the directory
 * (kind `owner`).
 */
export function unsafeRootDetail(kind: string, where: string, owner?: string): string {
  const shown = `\`${where}\``;
  const subject = where === '.' ? 'the folder it belongs to (the checkout, or Cairn\'s home)' : `its directory ${shown}`;
  const fix = where === '.' ? 'that folder' : `\`${where}\` (from the checkout's root, or Cairn's home)`;
  switch (kind) {
    case 'owner':
      return `${subject} belongs to another user${owner ? ` (${owner})` : ''}, not to you. Another user's folder could put memory and instructions into your context, so Cairn does not use it, as git refuses a repository of dubious ownership. If the folder is yours, run \`chown -R "$(id -un)"\` on ${fix}; otherwise work in a folder you own.`;
    case 'writable':
      return `${subject} can be written by other users, who could put memory and instructions into your context, so Cairn does not use it. Run \`chmod go-w\` on ${fix}.`;
    case 'symlink':
      return `its directory ${shown} is a symbolic link. Cairn keeps memory only in real directories, because a link (a repository can commit one) could lead memory out of its place, into .git or anywhere else. Replace ${shown} with a real directory to use this scope.`;
    case 'notdir':
      return `${shown}, where its directory belongs, is not a directory. Move that file away to use this scope.`;
    case 'git':
      return `its directory ${shown} is inside a .git directory, which memory may never reach.`;
    case 'lock':
      return `its lock ${shown} is not a lock Cairn made (a symbolic link, or a directory with files in it), so no write can take it. Remove ${shown} (it may have been committed to the repository) and try again.`;
    default:
      return 'its directory is the base directory itself, not a directory inside it.';
  }
}

/** The UNSAFE_ROOT error of a root (or its lock) breaking a rule at `where`. */
export function unsafeRoot(kind: UnsafeRootKind, where: string, owner?: string): RuntimeError {
  return new RuntimeError('UNSAFE_ROOT', kind, undefined, unsafeRootDetail(kind, where, owner));
}

/**
 * A file a remove took away or a rename moved, read in the same operation (for the version
 * history): `rel` where it was, from the root; `data` null when it could not be read whole (larger
 * than asked, a hard link, gone).
 */
export interface CapturedFile {
  readonly rel: readonly string[];
  readonly data: Uint8Array | null;
}

/**
 * Called by a write right before the step that makes its change (the rename of the new content's
 * temp file over the name, the unlink, the rename), once everything that could refuse or fail it
 * for want of space is done, with the files a remove takes away or a rename moves ([] for a write
 * of one file, whose bytes the caller has). The version history records the change here, before
 * it is made; whatever the hook throws abandons the write, which then changes nothing, and is
 * thrown as it is. A remote runtime calls it before the request that makes the change, and again
 * before a retry of it (each call supersedes the one before, whose change was not made). A remove
 * of a directory that fails midway calls it once more with `partial` and just the files it did
 * take away (what the record must keep), then throws its error.
 */
export type BeforeChange = (files: readonly CapturedFile[], partial?: boolean) => void;

/** Asks a remove or a rename for the files it takes or moves, each read up to `maxBytes`. */
export interface Capture {
  readonly maxBytes: number;
  /** Called with those files before the remove or rename is made (BeforeChange). */
  readonly beforeChange?: BeforeChange;
}

export interface ListOptions {
  /** Levels below the listed directory to include (1: its children only). */
  readonly depth: number;
  /** Stop after this many entries (a deterministic, lexicographically first subset). */
  readonly limit: number;
  /** List files only (directories are walked, not returned, and do not count towards `limit`). */
  readonly filesOnly?: boolean;
  /**
   * With `filesOnly`: return the directories that could not be read all the same (ListedEntry
   * `unreadable`, counting towards `limit`), so the caller can say so instead of showing nothing.
   */
  readonly withUnreadable?: boolean;
}

export interface Runtime {
  /** A short label for logs and the UI ("local", "ssh:devbox"). */
  readonly label: string;
  /**
   * What is at `rel`. With `follow`, a final symlink is followed if it stays inside the root (an
   * escaping one throws ESCAPE); without, the link itself is reported. Missing: null.
   */
  stat(root: ScopeRoot, rel: readonly string[], follow: boolean): Promise<EntryStat | null>;
  /**
   * The first `bytes` bytes of each file (for index descriptions), in one batch: null for a file
   * that cannot be read. `size` and `mtimeMs` may be 0 where the batch does not stat.
   */
  readHeads(root: ScopeRoot, rels: ReadonlyArray<readonly string[]>, bytes: number): Promise<Array<FileContent | null>>;
  /** Reads a regular file (following an inner symlink that stays inside the root). */
  readFile(root: ScopeRoot, rel: readonly string[], maxBytes: number): Promise<FileContent>;
  /**
   * Writes atomically (temp file in the same directory, fsync, rename), creating missing parents.
   * Never follows a symlink at the final component. `exclusive`: EEXIST if anything is there.
   */
  writeFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, options: { exclusive: boolean; beforeChange?: BeforeChange }): Promise<void>;
  /**
   * Creates a file (as writeFile with `exclusive`) unless the scope already holds `maxFiles` files:
   * then 'full' and nothing is written, or EEXIST when something is at the path anyway. One request
   * on a remote runtime (the count travels with the write).
   */
  createFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, maxFiles: number, beforeChange?: BeforeChange): Promise<'created' | 'full'>;
  /**
   * Read-modify-write of a regular file (the caller holds the scope lock): `change` gets the current
   * bytes and returns the new ones (or throws, and nothing is written); returns what was written.
   * A remote runtime that recently read or wrote the file sends the change with the bytes it was
   * based on, written only if they still match: one request instead of a read and a write.
   */
  editFile(root: ScopeRoot, rel: readonly string[], maxBytes: number, change: (data: Uint8Array) => Uint8Array, beforeChange?: BeforeChange): Promise<Uint8Array>;
  /**
   * Entries below a directory, sorted by name, hidden and unsafe names skipped; null if missing.
   * A directory below that cannot be read is listed with `unreadable` (and nothing of it); the
   * listed directory itself being unreadable throws UNREADABLE.
   */
  list(root: ScopeRoot, rel: readonly string[], options: ListOptions): Promise<ListedEntry[] | null>;
  /** Listed regular files in the whole scope, counting up to `limit`. */
  countFiles(root: ScopeRoot, limit: number): Promise<number>;
  /**
   * Renames without ever overwriting (EEXIST), creating missing parents of the destination. With
   * `capture`, returns the files moved (listed names, links not followed) with their bytes, read
   * in the same operation (one request on a remote runtime); else [].
   */
  rename(root: ScopeRoot, from: readonly string[], to: readonly string[], capture?: Capture): Promise<CapturedFile[]>;
  /**
   * Removes a file, a symlink (not its target) or a directory tree. With `capture`, returns the
   * files taken away with their bytes, as rename does; else [].
   */
  remove(root: ScopeRoot, rel: readonly string[], capture?: Capture): Promise<CapturedFile[]>;
  /** Creates a directory and its missing parents inside the root. */
  mkdir(root: ScopeRoot, rel: readonly string[]): Promise<void>;
  /**
   * Removes the directory at `rel` and then each of its ancestors, as long as each is empty (an
   * rmdir, which the kernel refuses for a directory holding anything, hidden names included, so
   * nothing is ever lost); stops at the first that is not, is missing, or is no directory. Never
   * removes the root. Used when an undo takes back a create whose directories are left empty.
   */
  removeEmptyDirs(root: ScopeRoot, rel: readonly string[]): Promise<void>;
  /**
   * Runs `fn` holding the scope's write lock: an in-process mutex plus a cross-process lock beside
   * the root. Creates the root if it is missing.
   */
  withLock<T>(root: ScopeRoot, fn: () => Promise<T>): Promise<T>;
}
