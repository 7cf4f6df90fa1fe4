/**
 * A person's edits, through the UI or the CLI: read a file for the editor, save it against the
 * version the editor loaded, create a directory, pin or unpin a file.
 *
 * Invariants: no agent mode applies (a person may edit every available scope) but the path rules
 * and the caps do; a save is checked under the scope lock against the sha256 the editor loaded, so
 * a change made meanwhile is reported as a conflict, never clobbered; a person's content is not
 * refused by the scanners (the UI warns instead); reading in the UI is not a use, nor is a pin or
 * an unpin; a save is. Writes report their change through the outbox, as the tool's do.
 */
import { MAX_FILES_PER_SCOPE } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { memoryIdentity } from '../../common/memory/identity';
import { displayPath, parseMemoryPath } from '../../common/memory/paths';
import { errors } from '../../common/memory/texts';
import { RuntimeError } from '../runtime/runtime';
import { sha256, type Change, type ChangeOutbox } from './change-outbox';
import { fileCases, mapRuntimeErrors } from './error-mapper';
import type { MemorySession, SaveOutcome } from './session';
import { availableScope, encodeContent, encodeUtf8, place, readText, recordUse, type InScope } from './targets';
import type { UsageStore } from './usage-store';

/** A path that must name a file (not /memories, not a scope root). */
function fileTarget(rawPath: string): InScope {
  const parsed = parseMemoryPath(rawPath);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.notAFile(displayPath(rawPath)));
  return place(parsed, rawPath);
}

export class PersonEdits {
  constructor(
    private readonly outbox: ChangeOutbox,
    private readonly usage?: UsageStore,
  ) {}

  /** A file's content and its sha256, for the editor. Reading in the UI is not a use. */
  async read(rawPath: string, session: MemorySession): Promise<{ content: string; sha256: string }> {
    const target = fileTarget(rawPath);
    const b = availableScope(session, target.scope);
    const content = await mapRuntimeErrors(() => readText(b, target), 'read', target.path, fileCases(target.path));
    return { content, sha256: sha256(encodeUtf8(content)) };
  }

  /**
   * Saves a person's edit, checked under the scope lock against the sha256 the editor loaded
   * (`null`: the file must not exist yet), so a change made meanwhile is reported, never clobbered.
   * `cause`: what the history records it as ('ui'; 'harvest:<item>' for an approved candidate).
   */
  async save(rawPath: string, content: string, expectedSha256: string | null, session: MemorySession, cause = 'ui'): Promise<SaveOutcome> {
    return this.write(rawPath, content, cause, session, (path, current) => {
      if (expectedSha256 === null && current !== null) return { status: 'conflict', kind: 'exists', message: `${path} already exists; open it to edit it, or choose another name.` };
      if (expectedSha256 !== null && current === null) return { status: 'conflict', kind: 'deleted', message: `${path} was deleted since you opened it.` };
      if (expectedSha256 !== null && current !== null && sha256(current) !== expectedSha256) return { status: 'conflict', kind: 'changed', message: `${path} was changed since you opened it.` };
      return null;
    });
  }

  /**
   * A person's write of a whole file under the scope lock: `conflict` sees the bytes there now
   * (null: no file) and may refuse; otherwise the file is written (created with its directories
   * when missing, within the scope's cap) and the change recorded with `cause`.
   */
  private async write(
    rawPath: string,
    content: string,
    cause: string,
    session: MemorySession,
    conflict: (path: string, current: Uint8Array | null) => Extract<SaveOutcome, { status: 'conflict' }> | null,
  ): Promise<SaveOutcome> {
    const target = fileTarget(rawPath);
    const b = availableScope(session, target.scope);
    const data = encodeContent(target.path, content, 'person');
    // The history records the save before it is made (change-outbox.ts ChangeRecord).
    const record = this.outbox.begin(session, 'person', cause);
    let made: Change | null = null;
    const outcome = await mapRuntimeErrors(
      () =>
        record.run(async (): Promise<SaveOutcome> => b.runtime.withLock(b.root, async (): Promise<SaveOutcome> => {
          let current: Uint8Array | null = null;
          try {
            current = encodeUtf8(await readText(b, target));
          } catch (err) {
            // Missing, or a file where a parent directory should be: there is no file yet.
            if (!(err instanceof RuntimeError) || (err.code !== 'ENOENT' && err.code !== 'ENOTDIR')) throw err;
          }
          const refused = conflict(target.path, current);
          if (refused) return refused;
          if (current === null && (await b.runtime.countFiles(b.root, MAX_FILES_PER_SCOPE)) >= MAX_FILES_PER_SCOPE) {
            throw new MemoryToolError(errors.scopeFull(target.scope));
          }
          const change: Change = { scope: target.scope, path: target.path, op: current === null ? 'create' : 'update' };
          const beforeChange = record.before(change, () => [{ rel: target.segments, before: current, after: data }]);
          await b.runtime.writeFile(b.root, target.segments, data, { exclusive: current === null, ...(beforeChange ? { beforeChange } : {}) });
          made = change;
          return { status: 'ok', sha256: sha256(data), created: current === null };
        })),
      'save',
      target.path,
    );
    if (outcome.status === 'ok' && made) {
      recordUse(this.usage, session, target, 'person');
      record.emit(made, outcome.sha256);
    }
    return outcome;
  }

  /** Creates an empty directory (a person organizing memory in the UI). */
  async createDirectory(rawPath: string, session: MemorySession): Promise<string> {
    const parsed = parseMemoryPath(rawPath);
    if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.writeRoot());
    const target = place(parsed, rawPath);
    const b = availableScope(session, target.scope);
    await mapRuntimeErrors(
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

  /**
   * Writes an earlier version's content back to its file (history): a new change by the
   * person, with the cause it is given (`restore:<versionId>`), made whatever the file holds now
   * (missing: it is created again, its directories too). The content must be UTF-8 text within the
   * cap, as any save. Returns whether it created the file; a file created again (its delete taken
   * back from Recently deleted) gets back the usage its delete took (UsageStore.revive).
   */
  async restore(rawPath: string, content: string, cause: string, session: MemorySession): Promise<{ created: boolean }> {
    const outcome = await this.write(rawPath, content, cause, session, () => null);
    const created = outcome.status === 'ok' && outcome.created;
    if (created && this.usage) {
      const target = fileTarget(rawPath);
      const id = memoryIdentity(target.scope, session, target.segments);
      if (id !== null) await this.usage.revive(id);
    }
    return { created };
  }

  /**
   * Pins or unpins a file (files only; not a use). A person's action on the sidecar,
   * not a write to memory, so no mode applies; the path rules do, and the file must exist.
   */
  async setPinned(rawPath: string, pinned: boolean, session: MemorySession): Promise<string> {
    const target = fileTarget(rawPath);
    const b = availableScope(session, target.scope);
    const stat = await mapRuntimeErrors(() => b.runtime.stat(b.root, target.segments, true), 'pin', target.path);
    if (!stat) throw new MemoryToolError(errors.notFound(target.path));
    if (stat.type !== 'file') throw new MemoryToolError(errors.notAFile(target.path));
    const id = memoryIdentity(target.scope, session, target.segments);
    if (!this.usage || id === null) throw new MemoryToolError(errors.cannotPin(target.path));
    try {
      await this.usage.recordNow({ type: 'pin', id, pinned, at: new Date().toISOString() });
    } catch (err) {
      throw new MemoryToolError(errors.io(pinned ? 'pin' : 'unpin', target.path, (err as NodeJS.ErrnoException).code ?? 'EIO'));
    }
    return pinned ? `Pinned ${target.path}` : `Unpinned ${target.path}`;
  }
}
