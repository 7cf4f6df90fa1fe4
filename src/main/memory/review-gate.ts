/**
 * Review mode's seam in the memory layer: what the agent's tool needs to divert a write
 * to a scope under review into a proposal, without knowing where proposals are kept (the host
 * hands it a ReviewGate; inbox/review-mode.ts keeps them in the inbox).
 *
 * A diverted command runs exactly as a real one (memory-tool.ts runs the same code) over a
 * RecordingRuntime: every read goes to the real runtime, and the one write the command makes is
 * recorded instead of made. So schema, path rules, policy, availability, the scanners, the caps
 * and old_str's uniqueness answer as they always do, and nothing on disk changes: the recording
 * runtime takes no lock (a lock would create a missing root) and writes nothing.
 *
 * Invariant: only regular files are proposed; a delete or rename of a directory or a link under
 * review is refused (NotAFileUnderReview), since one diff cannot show it.
 */
import { CairnError } from '../../common/errors';
import type { Scope } from '../../common/memory/constants';
import { RuntimeError, type Capture, type CapturedFile, type EntryStat, type FileContent, type ListOptions, type ListedEntry, type Runtime, type ScopeRoot } from '../runtime/runtime';
import type { MemorySession } from './session';

/** The write commands a scope under review turns into proposals. */
export type ProposedCommand = 'create' | 'str_replace' | 'insert' | 'delete' | 'rename';

/** An agent's change to one file, computed but not made, for a person to approve or reject. */
export interface ProposedChange {
  readonly command: ProposedCommand;
  readonly scope: Scope;
  /** The file's virtual path (a rename's source). */
  readonly path: string;
  /** A rename's destination; null otherwise. */
  readonly newPath: string | null;
  /** The file's text before the change; null when there was none (a create). */
  readonly before: string | null;
  /** sha256 of `before`'s bytes: an approval applies only while the file still holds them. */
  readonly beforeSha256: string | null;
  /** The file's text after the change; null for a delete. */
  readonly after: string | null;
}

/** Decides which scopes are under review and keeps the proposals (the host's inbox). */
export interface ReviewGate {
  /** Whether an agent's writes to `scope`, as `session` sees it, become proposals. Read per write. */
  underReview(scope: Scope, session: MemorySession): boolean;
  /** Keeps a proposal; returns the id a person finds it by. */
  propose(change: ProposedChange, session: MemorySession): string;
}

/** What a command would have written: one file's bytes before and after (a rename: where to). */
export interface RecordedWrite {
  readonly rel: readonly string[];
  readonly newRel: readonly string[] | null;
  readonly before: Uint8Array | null;
  readonly after: Uint8Array | null;
}

/**
 * Whether a scope is under review cannot be told (the settings do not parse): the write is refused,
 * never let through unreviewed. The message is for the model (no host path).
 */
export class ReviewUnknown extends CairnError {
  override readonly name = 'ReviewUnknown';
}

/** A delete or rename under review met a directory, a link or another non-file. */
export class NotAFileUnderReview extends Error {
  override readonly name = 'NotAFileUnderReview';
}

/**
 * A Runtime that reads through `inner` and records the one write a command makes instead of making
 * it. Existence, parents and the scope's cap are checked with `inner`'s own stat and count, in the
 * order the real operations check them; the content comes from `inner`'s readFile, which applies
 * the same containment, file-type, hard-link and size rules as a real edit.
 */
export class RecordingRuntime implements Runtime {
  readonly label: string;
  private recorded: RecordedWrite | null = null;

  constructor(
    private readonly inner: Runtime,
    /** The most a file read for a delete or rename may hold (the memory cap). */
    private readonly maxBytes: number,
  ) {
    this.label = inner.label;
  }

  /** The write the command made, or null when it made none. */
  get write(): RecordedWrite | null {
    return this.recorded;
  }

  stat(root: ScopeRoot, rel: readonly string[], follow: boolean): Promise<EntryStat | null> {
    return this.inner.stat(root, rel, follow);
  }

  readHeads(root: ScopeRoot, rels: ReadonlyArray<readonly string[]>, bytes: number): Promise<Array<FileContent | null>> {
    return this.inner.readHeads(root, rels, bytes);
  }

  readFile(root: ScopeRoot, rel: readonly string[], maxBytes: number): Promise<FileContent> {
    return this.inner.readFile(root, rel, maxBytes);
  }

  list(root: ScopeRoot, rel: readonly string[], options: ListOptions): Promise<ListedEntry[] | null> {
    return this.inner.list(root, rel, options);
  }

  countFiles(root: ScopeRoot, limit: number): Promise<number> {
    return this.inner.countFiles(root, limit);
  }

  /** No lock: nothing is written, and taking one would create a missing root. */
  withLock<T>(_root: ScopeRoot, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  async createFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, maxFiles: number): Promise<'created' | 'full'> {
    // As LocalRuntime.createFile: anything at the name first, then the cap.
    if (await this.inner.stat(root, rel, false)) throw new RuntimeError('EEXIST');
    await this.parentsAreDirectories(root, rel);
    if ((await this.inner.countFiles(root, maxFiles)) >= maxFiles) return 'full';
    this.record({ rel, newRel: null, before: null, after: data });
    return 'created';
  }

  async editFile(root: ScopeRoot, rel: readonly string[], maxBytes: number, change: (data: Uint8Array) => Uint8Array): Promise<Uint8Array> {
    const before = (await this.inner.readFile(root, rel, maxBytes)).data;
    const after = change(before);
    this.record({ rel, newRel: null, before, after });
    return after;
  }

  async remove(root: ScopeRoot, rel: readonly string[], _capture?: Capture): Promise<CapturedFile[]> {
    const before = await this.fileBytes(root, rel);
    this.record({ rel, newRel: null, before, after: null });
    return [];
  }

  async rename(root: ScopeRoot, from: readonly string[], to: readonly string[], _capture?: Capture): Promise<CapturedFile[]> {
    // The reference's order: an existing destination, then a missing source.
    if (await this.inner.stat(root, to, false)) throw new RuntimeError('EEXIST');
    const data = await this.fileBytes(root, from);
    await this.parentsAreDirectories(root, to);
    this.record({ rel: from, newRel: to, before: data, after: data });
    return [];
  }

  writeFile(): Promise<void> {
    return Promise.reject(new Error('RecordingRuntime: the memory tool never calls writeFile'));
  }

  mkdir(): Promise<void> {
    return Promise.reject(new Error('RecordingRuntime: the memory tool never calls mkdir'));
  }

  removeEmptyDirs(): Promise<void> {
    return Promise.reject(new Error('RecordingRuntime: the memory tool never calls removeEmptyDirs'));
  }

  /** A regular file's bytes (ENOENT when missing; NotAFileUnderReview for a directory or a link). */
  private async fileBytes(root: ScopeRoot, rel: readonly string[]): Promise<Uint8Array> {
    const st = await this.inner.stat(root, rel, false);
    if (!st) throw new RuntimeError('ENOENT');
    if (st.type !== 'file') throw new NotAFileUnderReview();
    return (await this.inner.readFile(root, rel, this.maxBytes)).data;
  }

  /** A write creates missing parents, but fails when one of them is a file. */
  private async parentsAreDirectories(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    for (let i = 1; i < rel.length; i++) {
      const st = await this.inner.stat(root, rel.slice(0, i), true);
      if (st === null) return;
      if (st.type !== 'directory') throw new RuntimeError('ENOTDIR');
    }
  }

  private record(write: RecordedWrite): void {
    if (this.recorded) throw new Error('RecordingRuntime: a command made more than one write');
    this.recorded = write;
  }
}
