/**
 * MemoryService executes the `memory` tool's six commands for one session's three scopes.
 *
 * Order of every command (the envelope): schema -> path rules -> access policy -> scope
 * availability, all before any filesystem access; then, for writes, the scope's lock, the content
 * checks, the atomic write and the change event. Reads take no lock: writes are atomic renames, so
 * a reader sees a whole old or a whole new file. Errors a model sees name virtual paths only.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  MAX_FILE_BYTES,
  MAX_FILES_PER_SCOPE,
  MEMORY_ROOT,
  SCOPES,
  VIEW_DEPTH,
  type Actor,
  type Mode,
  type Scope,
} from '../../common/memory/constants';
import { MemoryToolError, errorText } from '../../common/memory/errors';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { displayPath as displayRaw, formatMemoryPath, parseMemoryPath, type VirtualPath } from '../../common/memory/paths';
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
  type ViewRow,
} from '../../common/memory/texts';
import { memoryIdentity } from '../../common/memory/identity';
import { RuntimeError, type Runtime, type ScopeRoot } from '../runtime/runtime';
import { scanContent } from './scanners/content-scanner';
import type { UsageOp, UsageStore } from './usage-store';
import type { Journal } from '../journal/journal';

/** One scope as a session sees it: where it lives, or why it is unavailable. */
export type ScopeBinding =
  | { readonly scope: Scope; readonly available: true; readonly runtime: Runtime; readonly root: ScopeRoot }
  | { readonly scope: Scope; readonly available: false; readonly reason: string };

/** The scopes visible to one agent session or one UI view, and the identities of their owners. */
export interface MemorySession {
  readonly workspaceId: string | null;
  readonly projectId: string | null;
  readonly scopes: Readonly<Record<Scope, ScopeBinding>>;
}

export interface ExecuteOptions {
  readonly mode: Mode;
  readonly actor: Actor;
  /**
   * Deliver this command's change event (listeners and the journal append) once commands have
   * stopped coming for EVENTS_QUIET_MS, and at most EVENTS_MAX_DELAY_MS after it (an MCP host: the
   * answers go out first; an agent's burst of writes costs one journal append, made while it
   * waits, not one after each answer while its next request is waiting). Events keep their order:
   * an event emitted without deferral first delivers any deferred ones, and flushEvents() delivers
   * them now. Default: delivered before resolving.
   */
  readonly deferEvents?: boolean;
}

export type SaveOutcome =
  | { readonly status: 'ok'; readonly sha256: string; readonly created: boolean }
  | { readonly status: 'conflict'; readonly kind: 'changed' | 'deleted' | 'exists'; readonly message: string };

export interface ToolResult {
  readonly ok: boolean;
  /** The tool's text: the result, or the error starting with `Error: `. */
  readonly output: string;
}

type InScope = { scope: Scope; segments: readonly string[]; path: string };

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** 1-based line of a character offset. */
function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}

export interface MemoryServiceOptions {
  /** Where pins and usage are recorded; without it, nothing is. */
  readonly usage?: UsageStore;
  /** Where every change is appended for other processes to see; without it, nothing is. */
  readonly journal?: Journal;
}

/** Deferred change events are delivered once no command has come for this long, ms... */
const EVENTS_QUIET_MS = 5;
/** ...and at the latest this long after the first of them, ms. */
const EVENTS_MAX_DELAY_MS = 50;

export class MemoryService {
  private readonly emitter = new EventEmitter();
  private readonly usage: UsageStore | undefined;
  private readonly journal: Journal | undefined;
  /**
   * Change events deferred by ExecuteOptions.deferEvents, in order, made when delivered: the
   * sha256 of what a write stored is then hashed after the answer went out, not before.
   */
  private deferred: Array<() => MemoryChangeEvent> = [];
  /** Delivers the deferred events; restarted by each command until EVENTS_MAX_DELAY_MS have passed. */
  private deferTimer: NodeJS.Timeout | null = null;
  /** When the oldest deferred event was emitted (performance.now()). */
  private deferredSince = 0;

  constructor(options: MemoryServiceOptions = {}) {
    this.usage = options.usage;
    this.journal = options.journal;
  }

  /** Subscribes to every change this service makes; returns the unsubscribe function. */
  onChange(listener: (event: MemoryChangeEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** Runs one command given as the model sent it. Never throws for a failed command. */
  async execute(input: unknown, session: MemorySession, options: ExecuteOptions): Promise<ToolResult> {
    // A command arriving: deferred events wait for the next quiet moment (within their deadline).
    if (this.deferTimer && performance.now() - this.deferredSince < EVENTS_MAX_DELAY_MS - EVENTS_QUIET_MS) this.deferTimer.refresh();
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
    switch (command.command) {
      case 'view': {
        const target = parseMemoryPath(command.path);
        if (target.kind === 'root') return this.viewRoot(session);
        return this.view(this.place(target, command.path), session, options.actor, command.view_range);
      }
      case 'create': {
        const target = this.writable(command.path, 'create', session, options);
        return this.create(target, command.file_text, session, options);
      }
      case 'str_replace': {
        const target = this.writable(command.path, 'str_replace', session, options);
        return this.strReplace(target, command.old_str, command.new_str, session, options);
      }
      case 'insert': {
        const target = this.writable(command.path, 'insert', session, options);
        return this.insert(target, command.insert_line, command.insert_text, session, options);
      }
      case 'delete': {
        const parsed = parseMemoryPath(command.path);
        if (parsed.kind === 'root') throw new MemoryToolError(errors.deleteRoot());
        const target = this.writable(command.path, 'delete', session, options);
        if (target.segments.length === 0) throw new MemoryToolError(errors.deleteScopeRoot(target.path));
        return this.delete(target, session, options);
      }
      case 'rename': {
        const from = parseMemoryPath(command.old_path);
        if (from.kind === 'root') throw new MemoryToolError(errors.renameRoot());
        const to = parseMemoryPath(command.new_path);
        if (to.kind === 'root') throw new MemoryToolError(errors.writeRoot());
        const source = this.writable(command.old_path, 'rename', session, options);
        const dest = this.writable(command.new_path, 'rename', session, options);
        if (source.segments.length === 0) throw new MemoryToolError(errors.renameScopeRoot(source.path));
        if (dest.segments.length === 0) throw new MemoryToolError(errors.renameScopeRoot(dest.path));
        if (source.scope !== dest.scope) throw new MemoryToolError(errors.crossScopeRename(source.path, dest.path));
        return this.rename(source, dest, session, options);
      }
    }
  }

  private place(target: Extract<VirtualPath, { kind: 'scope' }>, raw: string): InScope {
    // Normalize away a trailing slash so texts show the canonical path.
    const path = raw.endsWith('/') && target.segments.length > 0 ? raw.slice(0, -1) : raw;
    return { scope: target.scope, segments: target.segments, path: target.segments.length === 0 ? formatMemoryPath(target.scope) : path };
  }

  private writable(raw: string, command: MemoryCommand['command'], session: MemorySession, options: ExecuteOptions): InScope {
    const parsed = parseMemoryPath(raw);
    if (parsed.kind === 'root') throw new MemoryToolError(errors.writeRoot());
    if (!isAllowed(options.mode, parsed.scope, command)) {
      throw new MemoryToolError(errors.readOnlyScope(parsed.scope, options.mode, command));
    }
    this.binding(session, parsed.scope);
    return this.place(parsed, raw);
  }

  private binding(session: MemorySession, scope: Scope): Extract<ScopeBinding, { available: true }> {
    const b = session.scopes[scope];
    if (!b.available) throw new MemoryToolError(errors.unavailable(scope, b.reason));
    return b;
  }

  /** Emits the change event of a write (`data`: the bytes written, or their sha256; null for none). */
  private emit(
    session: MemorySession,
    options: ExecuteOptions,
    event: Pick<MemoryChangeEvent, 'scope' | 'path' | 'op'> & { oldPath?: string },
    data: Uint8Array | string | null,
  ): void {
    const at = new Date().toISOString();
    const full = (): MemoryChangeEvent => ({
      ...event,
      sha256: data === null || typeof data === 'string' ? data : sha256(data),
      actor: options.actor,
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      at,
    });
    if (options.deferEvents) {
      this.deferred.push(full);
      if (!this.deferTimer) {
        this.deferredSince = performance.now();
        this.deferTimer = setTimeout(this.flushEvents, EVENTS_QUIET_MS);
      }
      return;
    }
    this.flushEvents();
    this.deliver([full()], false);
  }

  /** Delivers the change events deferred so far (ExecuteOptions.deferEvents), now. */
  readonly flushEvents = (): void => {
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = null;
    const makers = this.deferred;
    if (makers.length === 0) return;
    this.deferred = [];
    this.deliver(
      makers.map((make) => make()),
      true,
    );
  };

  /**
   * To the in-process listeners, then the journal (in one append). A listener's error is thrown, or
   * reported when deferred (nobody to throw to).
   */
  private deliver(events: readonly MemoryChangeEvent[], report: boolean): void {
    try {
      for (const event of events) {
        try {
          this.emitter.emit('change', event);
        } catch (err) {
          if (!report) throw err;
          process.stderr.write(`cairn: a change listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
        }
      }
    } finally {
      // After the in-process listeners, even if one throws; append never throws.
      this.journal?.append(...events);
    }
  }

  /** Records usage of `target` (a person browsing in the UI is not an agent using memory). */
  private recordUse(session: MemorySession, target: InScope, writtenBy: Actor | null): void {
    const id = memoryIdentity(target.scope, session, target.segments);
    if (this.usage && id !== null) this.usage.record({ type: 'use', id, at: new Date().toISOString(), write: writtenBy !== null, ...(writtenBy ? { by: writtenBy } : {}) });
  }

  private recordOp(op: UsageOp | null): void {
    if (this.usage && op) this.usage.record(op);
  }

  /**
   * Pins or unpins a file (files only; a pin counts as a use). A person's action on the sidecar,
   * not a write to memory, so no mode applies; the path rules do, and the file must exist.
   */
  async setPinned(rawPath: string, pinned: boolean, session: MemorySession): Promise<string> {
    const parsed = parseMemoryPath(rawPath);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.notAFile(displayRaw(rawPath)));
    const target = this.place(parsed, rawPath);
    const b = this.binding(session, target.scope);
    const stat = await this.guard(() => b.runtime.stat(b.root, target.segments, true), 'pin', target.path);
    if (!stat) throw new MemoryToolError(errors.notFound(target.path));
    if (stat.type !== 'file') throw new MemoryToolError(errors.notAFile(target.path));
    const id = memoryIdentity(target.scope, session, target.segments);
    if (!this.usage || id === null) throw new MemoryToolError(errors.cannotPin(target.path));
    this.usage.record({ type: 'pin', id, pinned, at: new Date().toISOString() });
    await this.usage.flush();
    return pinned ? `Pinned ${target.path}` : `Unpinned ${target.path}`;
  }

  // ---- view ----

  private async viewRoot(session: MemorySession): Promise<string> {
    const rows: ViewRow[] = [];
    for (const scope of SCOPES) {
      const b = session.scopes[scope];
      const scopePath = formatMemoryPath(scope);
      if (!b.available) {
        rows.push({ size: '-', path: `${scopePath}/ (unavailable: ${b.reason})` });
        continue;
      }
      const { size, entries } = await this.listDirectory(b, [], scopePath, VIEW_DEPTH);
      rows.push({ size, path: `${scopePath}/` }, ...entries);
    }
    return directoryViewText(MEMORY_ROOT, '-', rows);
  }

  private async view(target: InScope, session: MemorySession, actor: Actor, viewRange?: [number, number]): Promise<string> {
    const b = this.binding(session, target.scope);
    if (target.segments.length > 0) {
      // Most views are of files: read first, and list only when it turns out to be a directory.
      try {
        const content = await this.readText(b, target);
        const text = fileViewText(target.path, content, viewRange);
        if (actor === 'agent') this.recordUse(session, target, null);
        return text;
      } catch (err) {
        if (!(err instanceof RuntimeError)) throw err;
        if (err.code === 'NOT_FILE') throw new MemoryToolError(errors.unsupportedType(target.path));
        if (err.code !== 'EISDIR') throw this.describe(err, 'view', target.path);
      }
    }
    const { size, entries, truncated } = await this.listDirectory(b, target.segments, target.path, VIEW_DEPTH);
    const notes = truncated ? [`(listing stopped at ${MAX_FILES_PER_SCOPE} entries)`] : [];
    return directoryViewText(target.path, size, entries, notes);
  }

  private async listDirectory(
    b: Extract<ScopeBinding, { available: true }>,
    segments: readonly string[],
    path: string,
    depth: number,
  ): Promise<{ size: string; entries: ViewRow[]; truncated: boolean }> {
    const stat = await this.guard(() => b.runtime.stat(b.root, segments, true), 'view', path);
    // One more than the cap, to tell a full listing from a cut one.
    const listed = await this.guard(() => b.runtime.list(b.root, segments, { depth, limit: MAX_FILES_PER_SCOPE + 1 }), 'view', path);
    if (listed === null) throw new MemoryToolError(errors.notFound(path));
    const truncated = listed.length > MAX_FILES_PER_SCOPE;
    const entries = listed.slice(0, MAX_FILES_PER_SCOPE).map((e) => ({
      size: formatFileSize(e.size),
      path: `${path}/${e.rel.join('/')}${e.type === 'directory' ? '/' : ''}`,
    }));
    return { size: formatFileSize(stat?.size ?? 0), entries, truncated };
  }

  /** Reads a file as UTF-8; RuntimeErrors pass through for the caller to describe. */
  private async readText(b: Extract<ScopeBinding, { available: true }>, target: InScope): Promise<string> {
    const file = await b.runtime.readFile(b.root, target.segments, MAX_FILE_BYTES).catch((err: unknown) => {
      // A file where a parent directory should be: for a read, the path simply does not exist.
      throw err instanceof RuntimeError && err.code === 'ENOTDIR' ? new RuntimeError('ENOENT') : err;
    });
    try {
      return utf8Decoder.decode(file.data);
    } catch {
      throw new MemoryToolError(errors.notUtf8(target.path));
    }
  }

  // ---- writes ----

  /**
   * The bytes to store for `content`: UTF-8 text within the cap, and, for an agent's write, free of
   * secrets and injected instructions (a person is warned instead, by the UI).
   */
  private encode(path: string, content: string, actor: Actor): Uint8Array {
    if (!content.isWellFormed() || content.includes('\0')) throw new MemoryToolError(errors.notText(path));
    if (actor === 'agent') {
      const findings = scanContent(content);
      if (findings.length > 0) {
        const others = [...new Set(findings.slice(1).map((f) => `${f.rule} (line ${f.line})`))];
        throw new MemoryToolError(errors.contentRejected(path, findings[0]!.message, others));
      }
    }
    const data = utf8Encoder.encode(content);
    if (data.length > MAX_FILE_BYTES) throw new MemoryToolError(errors.fileTooLarge(path, data.length));
    return data;
  }

  private async create(target: InScope, text: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = this.binding(session, target.scope);
    const data = this.encode(target.path, text, options.actor);
    await this.guard(
      () =>
        b.runtime.withLock(b.root, async () => {
          // Exclusive: anything already at the path (a file, a directory, even a dangling symlink)
          // makes this fail with EEXIST, reported as "already exists"; the cap is checked with it.
          if ((await b.runtime.createFile(b.root, target.segments, data, MAX_FILES_PER_SCOPE)) === 'full') {
            throw new MemoryToolError(errors.scopeFull(target.scope));
          }
        }),
      'create',
      target.path,
    );
    this.recordUse(session, target, options.actor);
    this.emit(session, options, { scope: target.scope, path: target.path, op: 'create' }, data);
    return createdText(target.path);
  }

  /** Read-modify-write of one file under the scope lock. */
  private async edit(
    target: InScope,
    session: MemorySession,
    command: 'str_replace' | 'insert',
    actor: Actor,
    change: (content: string) => { content: string; result: string },
  ): Promise<{ result: string; data: Uint8Array }> {
    const b = this.binding(session, target.scope);
    return this.guard(
      () =>
        b.runtime.withLock(b.root, async () => {
          let result = '';
          try {
            const data = await b.runtime.editFile(b.root, target.segments, MAX_FILE_BYTES, (bytes) => {
              let before: string;
              try {
                before = utf8Decoder.decode(bytes);
              } catch {
                throw new MemoryToolError(errors.notUtf8(target.path));
              }
              const next = change(before);
              result = next.result;
              return this.encode(target.path, next.content, actor);
            });
            return { result, data };
          } catch (err) {
            if (err instanceof RuntimeError && (err.code === 'EISDIR' || err.code === 'NOT_FILE')) {
              throw new MemoryToolError(errors.notAFile(target.path));
            }
            // A file where a parent directory should be: the path simply does not exist.
            throw err instanceof RuntimeError && err.code === 'ENOTDIR' ? new RuntimeError('ENOENT') : err;
          }
        }),
      command,
      target.path,
    );
  }

  private async strReplace(target: InScope, oldStr: string, newStr: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    if (oldStr === '') throw new MemoryToolError(errors.emptyOldStr(target.path));
    const { result, data } = await this.edit(target, session, 'str_replace', options.actor, (content) => {
      const starts: number[] = [];
      for (let i = content.indexOf(oldStr); i !== -1; i = content.indexOf(oldStr, i + oldStr.length)) starts.push(i);
      if (starts.length === 0) throw new MemoryToolError(errors.noMatch(oldStr, target.path));
      if (starts.length > 1) {
        const lines = [...new Set(starts.map((s) => lineOf(content, s)))];
        throw new MemoryToolError(errors.multipleMatches(oldStr, lines));
      }
      const at = starts[0]!;
      // Literal replacement: no `$&`-style patterns are expanded.
      const next = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
      return { content: next, result: editedSnippetText(next, lineOf(content, at), newStr.split('\n').length) };
    });
    this.recordUse(session, target, options.actor);
    this.emit(session, options, { scope: target.scope, path: target.path, op: 'update' }, data);
    return result;
  }

  private async insert(target: InScope, line: number, text: string, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const { result, data } = await this.edit(target, session, 'insert', options.actor, (content) => {
      const lines = content.split('\n');
      if (line < 0 || line > lines.length) throw new MemoryToolError(errors.badInsertLine(line, lines.length));
      lines.splice(line, 0, text.endsWith('\n') ? text.slice(0, -1) : text);
      return { content: lines.join('\n'), result: insertedText(target.path) };
    });
    this.recordUse(session, target, options.actor);
    this.emit(session, options, { scope: target.scope, path: target.path, op: 'update' }, data);
    return result;
  }

  private async delete(target: InScope, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = this.binding(session, target.scope);
    await this.guard(
      () =>
        b.runtime.withLock(b.root, async () => {
          try {
            await b.runtime.remove(b.root, target.segments);
          } catch (err) {
            if (err instanceof RuntimeError && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) {
              throw new MemoryToolError(errors.notFoundForDelete(target.path));
            }
            throw err;
          }
        }),
      'delete',
      target.path,
    );
    const id = memoryIdentity(target.scope, session, target.segments);
    this.recordOp(id === null ? null : { type: 'delete', id });
    this.emit(session, options, { scope: target.scope, path: target.path, op: 'delete' }, null);
    return deletedText(target.path);
  }

  private async rename(source: InScope, dest: InScope, session: MemorySession, options: ExecuteOptions): Promise<string> {
    const b = this.binding(session, source.scope);
    await this.guard(
      () =>
        b.runtime.withLock(b.root, async () => {
          // The runtime checks in the reference's order: an existing destination, then a missing
          // source, then a directory moving into itself.
          try {
            await b.runtime.rename(b.root, source.segments, dest.segments);
          } catch (err) {
            if (!(err instanceof RuntimeError)) throw err;
            if (err.code === 'EEXIST') throw new MemoryToolError(errors.destinationExists(dest.path));
            if (err.code === 'ENOENT' || err.code === 'ENOTDIR') throw new MemoryToolError(errors.notFoundForDelete(source.path));
            if (err.code === 'EINVAL') throw new MemoryToolError(errors.intoItself(source.path, dest.path));
            throw err;
          }
        }),
      'rename',
      source.path,
    );
    const from = memoryIdentity(source.scope, session, source.segments);
    const to = memoryIdentity(dest.scope, session, dest.segments);
    this.recordOp(from === null || to === null ? null : { type: 'move', from, to });
    this.emit(session, options, { scope: source.scope, path: dest.path, oldPath: source.path, op: 'rename' }, null);
    return renamedText(source.path, dest.path);
  }

  // ---- a person's edits (the UI) ----

  /** A file's content and its sha256, for the editor. Reading in the UI is not a use. */
  async read(rawPath: string, session: MemorySession): Promise<{ content: string; sha256: string }> {
    const parsed = parseMemoryPath(rawPath);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.notAFile(displayRaw(rawPath)));
    const target = this.place(parsed, rawPath);
    const b = this.binding(session, target.scope);
    try {
      const content = await this.readText(b, target);
      return { content, sha256: sha256(utf8Encoder.encode(content)) };
    } catch (err) {
      if (err instanceof RuntimeError) {
        if (err.code === 'EISDIR' || err.code === 'NOT_FILE') throw new MemoryToolError(errors.notAFile(target.path));
        throw this.describe(err, 'read', target.path);
      }
      throw err;
    }
  }

  /**
   * Saves a person's edit, checked under the scope lock against the sha256 the editor loaded
   * (`null`: the file must not exist yet), so a change made meanwhile is reported, never clobbered.
   */
  async save(rawPath: string, content: string, expectedSha256: string | null, session: MemorySession): Promise<SaveOutcome> {
    const parsed = parseMemoryPath(rawPath);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.notAFile(displayRaw(rawPath)));
    const target = this.place(parsed, rawPath);
    const b = this.binding(session, target.scope);
    const options: ExecuteOptions = { mode: 'exec', actor: 'user' };
    const data = this.encode(target.path, content, 'user');
    const outcome = await this.guard(
      () =>
        b.runtime.withLock(b.root, async (): Promise<SaveOutcome> => {
          let current: string | null = null;
          try {
            current = await this.readText(b, target);
          } catch (err) {
            if (!(err instanceof RuntimeError) || err.code !== 'ENOENT') throw err;
          }
          if (expectedSha256 === null && current !== null) {
            return { status: 'conflict', kind: 'exists', message: `${target.path} already exists; open it to edit it, or choose another name.` };
          }
          if (expectedSha256 !== null && current === null) {
            return { status: 'conflict', kind: 'deleted', message: `${target.path} was deleted since you opened it.` };
          }
          if (expectedSha256 !== null && current !== null && sha256(utf8Encoder.encode(current)) !== expectedSha256) {
            return { status: 'conflict', kind: 'changed', message: `${target.path} was changed since you opened it.` };
          }
          if (current === null && (await b.runtime.countFiles(b.root, MAX_FILES_PER_SCOPE)) >= MAX_FILES_PER_SCOPE) {
            throw new MemoryToolError(errors.scopeFull(target.scope));
          }
          await b.runtime.writeFile(b.root, target.segments, data, { exclusive: current === null });
          return { status: 'ok', sha256: sha256(data), created: current === null };
        }),
      'save',
      target.path,
    );
    if (outcome.status === 'ok') {
      this.recordUse(session, target, options.actor);
      this.emit(session, options, { scope: target.scope, path: target.path, op: outcome.created ? 'create' : 'update' }, outcome.sha256);
    }
    return outcome;
  }

  /** Creates an empty directory (a person organizing memory in the UI). */
  async createDirectory(rawPath: string, session: MemorySession): Promise<string> {
    const parsed = parseMemoryPath(rawPath);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.writeRoot());
    const target = this.place(parsed, rawPath);
    const b = this.binding(session, target.scope);
    await this.guard(
      () =>
        b.runtime.withLock(b.root, async () => {
          if (await b.runtime.stat(b.root, target.segments, false)) throw new MemoryToolError(errors.alreadyExists(target.path));
          await b.runtime.mkdir(b.root, target.segments);
        }),
      'create',
      target.path,
    );
    return `Created the folder ${target.path}`;
  }

  /** Runs a runtime operation, turning RuntimeErrors into model-facing texts for `path`. */
  private async guard<T>(fn: () => Promise<T>, command: string, path: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RuntimeError) throw this.describe(err, command, path);
      throw err;
    }
  }

  /** The model-facing text of a RuntimeError met while running `command` on `path`. */
  private describe(err: RuntimeError, command: string, path: string): MemoryToolError {
    const scope = parseMemoryPath(path);
    const scopeName = scope.kind === 'scope' ? scope.scope : 'global';
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
        return new MemoryToolError(errors.busy(scopeName));
      case 'UNREACHABLE':
        return new MemoryToolError(errors.unavailable(scopeName, err.detail ?? 'its host cannot be reached right now.'));
      case 'EINVAL':
      case 'IO':
        return new MemoryToolError(errors.io(command.replace('_', ' '), path, err.errno ?? err.code));
    }
  }
}
