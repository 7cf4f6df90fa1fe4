/**
 * The agent's `memory` tool: its six commands (view, create, str_replace, insert, delete, rename)
 * for one session's three scopes, with the texts of protocol.md.
 *
 * Order of every command (the envelope): schema -> path rules -> access policy -> scope
 * availability, all before any filesystem access; then, for writes, the scope's lock, the content
 * checks, the version history's record (before the change is made: a change it cannot take is
 * refused), the atomic write, the usage record and the change event (change-outbox.ts), in that
 * order. Reads take no lock: writes are atomic renames, so a reader sees a whole old or a whole new
 * file. Errors a model sees name virtual paths only (error-mapper.ts).
 *
 * Review mode: an agent's write to a scope under review (the ReviewGate says which) runs
 * the same command over a RecordingRuntime (review-gate.ts), so it is validated exactly as a real
 * one, and the write it would have made becomes a proposal; the answer says it awaits a person.
 * A person's commands are never diverted.
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, MEMORY_ROOT, SCOPES, VIEW_DEPTH, type Actor } from '../../common/memory/constants';
import { MemoryToolError, errorText } from '../../common/memory/errors';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath, parseMemoryPath } from '../../common/memory/paths';
import { isAllowed } from '../../common/memory/policy';
import { parseMemoryCommand, type MemoryCommand } from '../../common/memory/schema';
import {
  createdText,
  deletedText,
  directoryViewText,
  editedSnippetText,
  errors,
  fileViewText,
  formatFileSize,
  insertedText,
  renamedText,
  reviewText,
  unreadableRowPath,
  withheldNames,
  type ViewRow,
} from '../../common/memory/texts';
import { RuntimeError, type BeforeChange, type Capture } from '../runtime/runtime';
import { ChangeOutbox, sha256, type Change } from './change-outbox';
import { fileCases, mapRenameErrors, mapRuntimeErrors, toolError } from './error-mapper';
import { NotAFileUnderReview, RecordingRuntime, ReviewUnknown, type ProposedCommand, type ReviewGate } from './review-gate';
import { scanPath } from './scanners/content-scanner';
import type { AvailableScope, ExecuteOptions, MemorySession, ToolResult } from './session';
import { availableScope, decodeText, encodeContent, place, readText, recordUse, type InScope } from './targets';
import type { UsageStore } from './usage-store';

/**
 * A delete or rename by a person who saw the file at a sha256 that it no longer has (or whose
 * destination is taken): nothing was changed. `kind` as a save's conflict (SaveOutcome).
 */
export class StaleFileError extends MemoryToolError {
  constructor(
    readonly kind: 'changed' | 'deleted' | 'exists',
    message: string,
  ) {
    super(message);
  }
}

/** What a write command changes: its name, and the place of its path (a rename's source). */
interface WrittenPlace extends InScope {
  readonly command: ProposedCommand;
}

/** The place a write command changes, or null for a view or a path that does not parse (the command then fails as usual). */
function writtenPlace(command: MemoryCommand): WrittenPlace | null {
  if (command.command === 'view') return null;
  const raw = command.command === 'rename' ? command.old_path : command.path;
  try {
    const parsed = parseMemoryPath(raw);
    return parsed.kind === 'scope' ? { ...place(parsed, raw), command: command.command } : null;
  } catch {
    return null;
  }
}

/**
 * Under the scope's lock, for a person's delete or rename of a file they saw at `expected`: the
 * file still holds those bytes (and a rename's destination is free), else StaleFileError.
 */
async function expectFile(b: AvailableScope, target: InScope, expected: string, dest?: InScope): Promise<void> {
  let current: Uint8Array;
  try {
    current = (await b.runtime.readFile(b.root, target.segments, MAX_FILE_BYTES)).data;
  } catch (err) {
    if (err instanceof RuntimeError && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) throw new StaleFileError('deleted', `${target.path} no longer exists; nothing was changed.`);
    throw err;
  }
  if (sha256(current) !== expected) throw new StaleFileError('changed', `${target.path} was changed meanwhile; nothing was changed.`);
  if (dest && (await b.runtime.stat(b.root, dest.segments, false))) throw new StaleFileError('exists', `${dest.path} exists now; nothing was changed.`);
}

/** 1-based line of a character offset. */
function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}

/** The note of a view that left out entries with flagged names. */
function withheldNote(count: number): string[] {
  return count === 0 ? [] : [withheldNames(count, 'entry')];
}

/** A directory view's rows. */
interface Listing {
  readonly size: string;
  readonly entries: ViewRow[];
  readonly truncated: boolean;
  /** Entries left out because the scanners flag their names. */
  readonly withheld: number;
}

/**
 * An agent's create or rename may not put a secret or an instruction in a name (every session's
 * index shows names): refused as flagged content is, naming the rule and which name, never
 * echoing the name; the path is shown with each flagged name as `[name N]`. Nothing is touched.
 * A person is not refused (their writes are warned about, not refused).
 */
function checkNames(target: InScope, actor: Actor): void {
  if (actor !== 'agent') return;
  const findings = scanPath(target.segments);
  if (findings.length === 0) return;
  const flagged = new Set(findings.map((f) => f.name));
  const shown = formatMemoryPath(
    target.scope,
    target.segments.map((name, i) => (flagged.has(i + 1) ? `[name ${i + 1}]` : name)),
  );
  const others = [...new Set(findings.slice(1).map((f) => `${f.rule} (name ${f.name})`))];
  throw new MemoryToolError(errors.contentRejected(shown, findings[0]!.message, others));
}

export class MemoryTool {
  constructor(
    private readonly outbox: ChangeOutbox,
    private readonly usage?: UsageStore,
    /** Review mode: which scopes divert an agent's writes, and where proposals go. */
    private readonly review?: ReviewGate,
  ) {}

  /** Runs one command given as the model sent it. Never throws for a failed command. */
  async execute(input: unknown, session: MemorySession, options: ExecuteOptions): Promise<ToolResult> {
    try {
      const command = parseMemoryCommand(input);
      return { ok: true, output: await this.run(command, session, options) };
    } catch (err) {
      if (err instanceof MemoryToolError) return { ok: false, output: errorText(err.message) };
      // An unexpected failure: report it without its message, which may carry a host path.
      process.stderr.write(`cairn: unexpected error in memory command: ${(err as Error)?.stack ?? String(err)}\n`);
      return { ok: false, output: errorText('The memory command failed unexpectedly; nothing was changed. Try again.') };
    }
  }

  /** Runs one validated command; throws MemoryToolError with the model-facing text. */
  async run(command: MemoryCommand, session: MemorySession, options: ExecuteOptions): Promise<string> {
    if (this.review && options.actor === 'agent') {
      const written = writtenPlace(command);
      if (written && this.underReview(this.review, written, session)) return this.propose(command, written, session, options, this.review);
    }
    return this.dispatch(command, session, options);
  }

  /** Whether the write goes to review; a scope whose review mode cannot be told refuses the write. */
  private underReview(review: ReviewGate, written: WrittenPlace, session: MemorySession): boolean {
    try {
      return review.underReview(written.scope, session);
    } catch (err) {
      if (err instanceof ReviewUnknown) throw new MemoryToolError(errors.reviewUnknown(written.path, err.message));
      throw err;
    }
  }

  /**
   * An agent's write to a scope under review: the same command, run by a tool that records instead
   * of writing (no usage, no change event, no history), becomes a proposal for a person.
   */
  private async propose(command: MemoryCommand, written: WrittenPlace, session: MemorySession, options: ExecuteOptions, review: ReviewGate): Promise<string> {
    const { scope, command: name } = written;
    const b = session.scopes[scope];
    // An unavailable scope stays as it is: the command then fails as it always does.
    const recorder = b.available ? new RecordingRuntime(b.runtime, MAX_FILE_BYTES) : null;
    const dry: MemorySession = {
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      scopes: recorder && b.available ? { ...session.scopes, [scope]: { ...b, runtime: recorder } } : session.scopes,
    };
    try {
      await new MemoryTool(new ChangeOutbox()).dispatch(command, dry, options);
    } catch (err) {
      if (err instanceof NotAFileUnderReview) throw new MemoryToolError(errors.reviewNotAFile(written.path, name));
      throw err;
    }
    const write = recorder?.write;
    if (!write) throw new Error(`a ${name} under review recorded no write`);
    const newPath = write.newRel ? formatMemoryPath(scope, write.newRel) : null;
    const filePath = formatMemoryPath(scope, write.rel);
    const id = review.propose(
      {
        command: name,
        scope,
        path: filePath,
        newPath,
        before: write.before === null ? null : decodeText(write.before, filePath),
        beforeSha256: write.before === null ? null : sha256(write.before),
        after: write.after === null ? null : decodeText(write.after, newPath ?? filePath),
      },
      session,
    );
    return reviewText(name, filePath, newPath, id);
  }

  /** Runs one validated command as it is asked (no review). */
  private async dispatch(command: MemoryCommand, session: MemorySession, options: ExecuteOptions): Promise<string> {
    switch (command.command) {
      case 'view': {
        const target = parseMemoryPath(command.path);
        if (target.kind === 'root') return this.viewRoot(session);
        return this.view(place(target, command.path), session, options.actor, command.view_range);
      }
      case 'create':
        return this.create(this.writable(command.path, 'create', session, options), command.file_text, session, options);
      case 'str_replace':
        return this.strReplace(this.writable(command.path, 'str_replace', session, options), command.old_str, command.new_str, session, options);
      case 'insert':
        return this.insert(this.writable(command.path, 'insert', session, options), command.insert_line, command.insert_text, session, options);
      case 'delete': {
        if (parseMemoryPath(command.path).kind === 'root') throw new MemoryToolError(errors.deleteRoot());
        const target = this.writable(command.path, 'delete', session, options);
        if (target.segments.length === 0) throw new MemoryToolError(errors.deleteScopeRoot(target.path));
        return this.delete(target, session, options);
      }
      case 'rename': {
        if (parseMemoryPath(command.old_path).kind === 'root') throw new MemoryToolError(errors.renameRoot());
        if (parseMemoryPath(command.new_path).kind === 'root') throw new MemoryToolError(errors.writeRoot());
        const source = this.writable(command.old_path, 'rename', session, options);
        const dest = this.writable(command.new_path, 'rename', session, options);
        if (source.segments.length === 0) throw new MemoryToolError(errors.renameScopeRoot(source.path));
        if (dest.segments.length === 0) throw new MemoryToolError(errors.renameScopeRoot(dest.path));
        if (source.scope !== dest.scope) throw new MemoryToolError(errors.crossScopeRename(source.path, dest.path));
        return this.rename(source, dest, session, options);
      }
    }
  }

  /** A path a write may target: in a scope, allowed by the mode, the scope available. */
  private writable(raw: string, command: MemoryCommand['command'], session: MemorySession, options: ExecuteOptions): InScope {
    const parsed = parseMemoryPath(raw);
    if (parsed.kind === 'root') throw new MemoryToolError(errors.writeRoot());
    if (!isAllowed(options.mode, parsed.scope, command)) throw new MemoryToolError(errors.readOnlyScope(parsed.scope, options.mode, command));
    availableScope(session, parsed.scope);
    return place(parsed, raw);
  }

  // ---- view ----

  private async viewRoot(session: MemorySession): Promise<string> {
    const rows: ViewRow[] = [];
    let withheld = 0;
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      const scopePath = formatMemoryPath(scope);
      if (!b.available) {
        rows.push({ size: '-', path: `${scopePath}/ (unavailable: ${b.reason})` });
        continue;
      }
      let listed: Listing;
      try {
        listed = await this.listing(b, [], scopePath, VIEW_DEPTH);
      } catch (err) {
        if (!(err instanceof RuntimeError)) throw err;
        // One scope that cannot be used (its host unreachable, its root not Cairn's) leaves the
        // others in view, with the reason in its row.
        if ((err.code !== 'UNSAFE_ROOT' && err.code !== 'UNREACHABLE' && err.code !== 'UNREADABLE') || !err.detail) throw toolError(err, 'view', scopePath);
        rows.push({ size: '-', path: `${scopePath}/ (unavailable: ${err.detail})` });
        continue;
      }
      rows.push({ size: listed.size, path: `${scopePath}/` }, ...listed.entries);
      withheld += listed.withheld;
    }
    return directoryViewText(MEMORY_ROOT, '-', rows, withheldNote(withheld));
  }

  private async view(target: InScope, session: MemorySession, actor: Actor, viewRange?: [number, number]): Promise<string> {
    const b = availableScope(session, target.scope);
    if (target.segments.length > 0) {
      // Most views are of files: read first, and list only when it turns out to be a directory.
      try {
        const content = await readText(b, target);
        const text = fileViewText(target.path, content, viewRange);
        if (actor === 'agent') recordUse(this.usage, session, target, null);
        return text;
      } catch (err) {
        if (!(err instanceof RuntimeError)) throw err;
        if (err.code !== 'EISDIR') throw toolError(err, 'view', target.path, { ENOTDIR: () => errors.notFound(target.path) });
      }
    }
    const { size, entries, truncated, withheld } = await this.listDirectory(b, target.segments, target.path, VIEW_DEPTH);
    const notes = [...(truncated ? [`(listing stopped at ${MAX_FILES_PER_SCOPE} entries)`] : []), ...withheldNote(withheld)];
    return directoryViewText(target.path, size, entries, notes);
  }

  private listDirectory(b: AvailableScope, segments: readonly string[], path: string, depth: number): Promise<Listing> {
    return mapRuntimeErrors(() => this.listing(b, segments, path, depth), 'view', path);
  }

  /** A directory's rows; a Runtime's failure is thrown as it is (listDirectory maps it). */
  private async listing(b: AvailableScope, segments: readonly string[], path: string, depth: number): Promise<Listing> {
    const stat = await b.runtime.stat(b.root, segments, true);
    // One more than the cap, to tell a full listing from a cut one.
    const listed = await b.runtime.list(b.root, segments, { depth, limit: MAX_FILES_PER_SCOPE + 1 });
    if (listed === null) throw new MemoryToolError(errors.notFound(path));
    const entries: ViewRow[] = [];
    let withheld = 0;
    for (const e of listed.slice(0, MAX_FILES_PER_SCOPE)) {
      // A name the scanners flag (placed by hand: an agent could not have written it) would carry
      // its secret or instruction into the model's view; it is counted, not shown.
      if (scanPath([...segments, ...e.rel]).length > 0) {
        withheld++;
        continue;
      }
      const shown = `${path}/${e.rel.join('/')}${e.type === 'directory' ? '/' : ''}`;
      // A folder that cannot be read is said to be so, never shown as an empty one.
      entries.push({ size: formatFileSize(e.size), path: e.unreadable ? unreadableRowPath(shown, e.unreadable) : shown });
    }
    return { size: formatFileSize(stat?.size ?? 0), entries, truncated: listed.length > MAX_FILES_PER_SCOPE, withheld };
  }

  // ---- writes ----

  private async create(target: InScope, text: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = availableScope(session, target.scope);
    checkNames(target, options.actor);
    const data = encodeContent(target.path, text, options.actor);
    const made: Change = { scope: target.scope, path: target.path, op: 'create' };
    // The history records the change before it is made (change-outbox.ts ChangeRecord).
    const record = this.outbox.begin(session, options.actor, options.cause ?? 'tool', options.actor === 'agent' ? options.agent : undefined);
    await mapRuntimeErrors(
      () =>
        record.run(() =>
          b.runtime.withLock(b.root, async () => {
            // Exclusive: anything already at the path (a file, a directory, even a dangling symlink)
            // makes this fail with EEXIST, reported as "already exists"; the cap is checked with it.
            const before = record.before(made, () => [{ rel: target.segments, before: null, after: data }]);
            if ((await b.runtime.createFile(b.root, target.segments, data, MAX_FILES_PER_SCOPE, before)) === 'full') {
              throw new MemoryToolError(errors.scopeFull(target.scope));
            }
          }),
        ),
      'create',
      target.path,
    );
    recordUse(this.usage, session, target, options.actor);
    record.emit(made, data);
    return createdText(target.path);
  }

  /** Read-modify-write of one file under the scope lock; then its use and its change event. */
  private async edit(
    target: InScope,
    session: MemorySession,
    command: 'str_replace' | 'insert',
    options: ExecuteOptions,
    change: (content: string) => { content: string; result: string },
  ): Promise<string> {
    const b = availableScope(session, target.scope);
    let result = '';
    let before: Uint8Array | null = null;
    let after: Uint8Array | null = null;
    const made: Change = { scope: target.scope, path: target.path, op: 'update' };
    const record = this.outbox.begin(session, options.actor, options.cause ?? 'tool', options.actor === 'agent' ? options.agent : undefined);
    // One mapping, outside the lock: a runtime's BUSY must leave withLock as it is (an SSH
    // runtime tries again on it), and the operation's own cases read as this command's.
    const data = await mapRuntimeErrors(
      () =>
        record.run(() =>
          b.runtime.withLock(b.root, () =>
            b.runtime.editFile(
              b.root,
              target.segments,
              MAX_FILE_BYTES,
              (bytes) => {
                before = bytes;
                const next = change(decodeText(bytes, target.path));
                result = next.result;
                return (after = encodeContent(target.path, next.content, options.actor));
              },
              record.before(made, () => [{ rel: target.segments, before: before ?? 'unknown', after: after! }]),
            ),
          ),
        ),
      command,
      target.path,
      fileCases(target.path),
    );
    recordUse(this.usage, session, target, options.actor);
    record.emit(made, data);
    return result;
  }

  private async strReplace(target: InScope, oldStr: string, newStr: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    if (oldStr === '') throw new MemoryToolError(errors.emptyOldStr(target.path));
    return this.edit(target, session, 'str_replace', options, (content) => {
      const starts: number[] = [];
      for (let i = content.indexOf(oldStr); i !== -1; i = content.indexOf(oldStr, i + oldStr.length)) starts.push(i);
      if (starts.length === 0) throw new MemoryToolError(errors.noMatch(oldStr, target.path));
      if (starts.length > 1) throw new MemoryToolError(errors.multipleMatches(oldStr, [...new Set(starts.map((s) => lineOf(content, s)))]));
      const at = starts[0]!;
      // Literal replacement: no `$&`-style patterns are expanded.
      const next = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
      return { content: next, result: editedSnippetText(next, lineOf(content, at), newStr.split('\n').length) };
    });
  }

  private async insert(target: InScope, line: number, text: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    return this.edit(target, session, 'insert', options, (content) => {
      const lines = content.split('\n');
      if (line < 0 || line > lines.length) throw new MemoryToolError(errors.badInsertLine(line, lines.length));
      lines.splice(line, 0, text.endsWith('\n') ? text.slice(0, -1) : text);
      return { content: lines.join('\n'), result: insertedText(target.path) };
    });
  }

  /**
   * What a remove or rename is asked to read of the files it takes or moves, and to hand the
   * history before it is made: when there is a history.
   */
  private capture(before: BeforeChange | undefined): Capture | undefined {
    return before ? { maxBytes: MAX_FILE_BYTES, beforeChange: before } : undefined;
  }

  private async delete(target: InScope, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = availableScope(session, target.scope);
    const missing = () => errors.notFoundForDelete(target.path);
    const made: Change = { scope: target.scope, path: target.path, op: 'delete' };
    const record = this.outbox.begin(session, options.actor, options.cause ?? 'tool', options.actor === 'agent' ? options.agent : undefined);
    // What the delete takes away, for the history: read by the remove itself, under the lock, and
    // recorded before it is removed.
    const before = record.before(made, (taken) => taken.map((f) => ({ rel: f.rel, before: f.data ?? 'unknown', after: null })));
    await mapRuntimeErrors(
      () =>
        record.run(() =>
          b.runtime.withLock(b.root, async () => {
            if (options.expectedSha256 !== undefined) await expectFile(b, target, options.expectedSha256);
            return b.runtime.remove(b.root, target.segments, this.capture(before));
          }),
        ),
      'delete',
      target.path,
      { ENOENT: missing, ENOTDIR: missing },
    );
    const id = memoryIdentity(target.scope, session, target.segments);
    if (this.usage && id !== null) this.usage.record({ type: 'delete', id });
    record.emit(made, null);
    return deletedText(target.path);
  }

  private async rename(source: InScope, dest: InScope, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = availableScope(session, source.scope);
    checkNames(dest, options.actor);
    const made: Change = { scope: source.scope, path: dest.path, oldPath: source.path, op: 'rename' };
    const record = this.outbox.begin(session, options.actor, options.cause ?? 'tool', options.actor === 'agent' ? options.agent : undefined);
    // Each file where it will be, and where it was: the same bytes; recorded before the move.
    const before = record.before(made, (moved) =>
      moved.map((f) => ({ rel: [...dest.segments, ...f.rel.slice(source.segments.length)], oldRel: f.rel, before: f.data ?? 'unknown', after: f.data ?? 'unknown' })),
    );
    await mapRenameErrors(b, source, dest, () =>
      record.run(() =>
        b.runtime.withLock(b.root, async () => {
          if (options.expectedSha256 !== undefined) await expectFile(b, source, options.expectedSha256, dest);
          return b.runtime.rename(b.root, source.segments, dest.segments, this.capture(before));
        }),
      ),
    );
    const from = memoryIdentity(source.scope, session, source.segments);
    const to = memoryIdentity(dest.scope, session, dest.segments);
    if (this.usage && from !== null && to !== null) this.usage.record({ type: 'move', from, to });
    record.emit(made, null);
    return renamedText(source.path, dest.path);
  }
}
