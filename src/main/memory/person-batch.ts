/**
 * A person's change of several files at once, as ONE history batch (applying a
 * consolidation): groups of file writes and deletes, each file checked against the sha256 the
 * person saw. A group whose files do not all still hold those bytes is skipped and reported; the
 * other groups are made. The whole is recorded with one cause, so undoing its batch takes back
 * every file at once (history-undo.ts).
 *
 * Invariants: the checks and the writes happen under the scope's lock (no Cairn writer slips in
 * between); the whole is recorded in the history before the first file is written (a batch the
 * history cannot take is refused, nothing written); a group is all or nothing (a merge never lands
 * half: its kept file written but the others left); a failure midway takes back what was already
 * written, newest first, and the record is settled to what stays (change-outbox.ts ChangeRecord),
 * so the history never lacks a change the disk has. Content is a
 * person's (not refused by the scanners; callers scan what a model proposed); UTF-8 and the caps
 * apply. Reading and writing here are not uses of memory (a cleanup is not an agent's interest).
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, type Actor, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';
import { errors } from '../../common/memory/texts';
import { RuntimeError } from '../runtime/runtime';
import { sha256, type Change, type ChangeOutbox } from './change-outbox';
import { mapRuntimeErrors } from './error-mapper';
import type { FileChange } from './history-capture';
import type { AvailableScope, MemorySession } from './session';
import { availableScope, encodeContent } from './targets';

/** One file of a group: the bytes it must still hold, and what becomes of it. */
interface BatchFile {
  readonly path: string;
  /** The sha256 the person saw; null: the file must not exist yet. */
  readonly expectedSha256: string | null;
  /** New content; null deletes the file; undefined only checks it (a merge's kept file left as it is). */
  readonly content?: string | null;
}

/** Files that change together or not at all (one change of a proposal). */
export interface BatchGroup {
  readonly key: string;
  readonly files: readonly BatchFile[];
}

interface BatchConflict {
  readonly key: string;
  readonly path: string;
  readonly kind: 'changed' | 'deleted' | 'exists';
  readonly message: string;
}

export interface BatchOutcome {
  /** Keys of the groups made, in order. */
  readonly applied: readonly string[];
  /** One per group skipped: its first file that moved on. */
  readonly conflicts: readonly BatchConflict[];
}

function fileOf(path: string): { scope: Scope; segments: readonly string[] } {
  const parsed = parseMemoryPath(path);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(errors.notAFile(path));
  return { scope: parsed.scope, segments: parsed.segments };
}

/** The bytes at `segments`, or null when nothing is there. */
export async function bytesAt(b: AvailableScope, segments: readonly string[]): Promise<Uint8Array | null> {
  try {
    return (await b.runtime.readFile(b.root, segments, MAX_FILE_BYTES)).data;
  } catch (err) {
    if (err instanceof RuntimeError && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
}

function conflictOf(key: string, file: BatchFile, here: Uint8Array | null): BatchConflict | null {
  if (file.expectedSha256 === null) return here === null ? null : { key, path: file.path, kind: 'exists', message: `${file.path} exists now; this change was skipped.` };
  if (here === null) return { key, path: file.path, kind: 'deleted', message: `${file.path} was deleted since the proposal; this change was skipped.` };
  if (sha256(here) !== file.expectedSha256) return { key, path: file.path, kind: 'changed', message: `${file.path} was changed since the proposal; this change was skipped.` };
  return null;
}

/** One change of the batch: its event's change and content, and what it does to its file. */
interface Made {
  readonly change: Change;
  readonly content: Uint8Array | null;
  readonly files: FileChange[];
  /** Puts the file back as it was (after a later change of the batch failed). */
  readonly takeBack: () => Promise<void>;
}

/**
 * Makes `groups` (all in one scope) as `actor`'s change with `cause` (the person's; a sync's
 * incoming files are `sync`'s), recorded as one batch.
 */
export async function writeBatch(outbox: ChangeOutbox, groups: readonly BatchGroup[], cause: string, session: MemorySession, actor: Actor = 'person'): Promise<BatchOutcome> {
  const files = groups.flatMap((g) => g.files);
  if (files.length === 0) return { applied: [], conflicts: [] };
  const scopes = new Set(files.map((f) => fileOf(f.path).scope));
  if (scopes.size !== 1) throw new MemoryToolError('The files of one batch must lie in one scope.');
  // Every file is checked before any is written: a file in two groups would be checked against bytes it no longer has.
  const paths = files.map((f) => f.path);
  const twice = paths.find((p, i) => paths.indexOf(p) !== i);
  if (twice !== undefined) throw new MemoryToolError(`${twice} appears twice in one batch; each file may change once.`);
  const scope = [...scopes][0]!;
  const b = availableScope(session, scope);
  // Encoded before the lock: bad content refuses the whole batch before anything is looked at.
  const encoded = new Map<BatchFile, Uint8Array>();
  for (const f of files) if (typeof f.content === 'string') encoded.set(f, encodeContent(f.path, f.content, actor));
  const done: Made[] = [];
  const record = outbox.begin(session, actor, cause);
  try {
    return await mapRuntimeErrors(
      () =>
        b.runtime.withLock(b.root, async (): Promise<BatchOutcome> => {
          const conflicts: BatchConflict[] = [];
          const chosen: Array<{ group: BatchGroup; before: Map<BatchFile, Uint8Array | null> }> = [];
          for (const group of groups) {
            const before = new Map<BatchFile, Uint8Array | null>();
            let conflict: BatchConflict | null = null;
            for (const f of group.files) {
              const here = await bytesAt(b, fileOf(f.path).segments);
              before.set(f, here);
              conflict = conflictOf(group.key, f, here);
              if (conflict) break;
            }
            if (conflict) conflicts.push(conflict);
            else chosen.push({ group, before });
          }
          const creates = chosen.flatMap(({ before }) => [...before].filter(([f, here]) => here === null && encoded.has(f))).length;
          if (creates > 0 && (await b.runtime.countFiles(b.root, MAX_FILES_PER_SCOPE)) + creates > MAX_FILES_PER_SCOPE) throw new MemoryToolError(errors.scopeFull(scope));
          // Every change planned first: the history records them all, as one batch, before the
          // first is made (a batch it cannot take is refused whole, nothing written).
          const planned: Array<Made & { make: () => Promise<void> }> = [];
          for (const { group, before } of chosen) {
            for (const f of group.files) {
              if (f.content === undefined) continue;
              const at = fileOf(f.path).segments;
              const was = before.get(f) ?? null;
              const data = encoded.get(f) ?? null;
              if (data === null) {
                if (was === null) continue;
                planned.push({
                  change: { scope, path: f.path, op: 'delete' },
                  content: null,
                  files: [{ rel: at, before: was, after: null }],
                  make: () => b.runtime.remove(b.root, at).then(() => undefined),
                  takeBack: () => b.runtime.writeFile(b.root, at, was, { exclusive: true }),
                });
              } else {
                planned.push({
                  change: { scope, path: f.path, op: was === null ? 'create' : 'update' },
                  content: data,
                  files: [{ rel: at, before: was, after: data }],
                  make: () => b.runtime.writeFile(b.root, at, data, { exclusive: was === null }),
                  takeBack: async () => {
                    if (was === null) await b.runtime.remove(b.root, at);
                    else await b.runtime.writeFile(b.root, at, was, { exclusive: false });
                  },
                });
              }
            }
          }
          // All or nothing: a write that fails takes back those already made.
          await record.makeAll(planned, done, (p) => p.make(), (p) => p.takeBack());
          return { applied: chosen.map(({ group }) => group.key), conflicts };
        }),
      'save',
      files[0]!.path,
    );
  } finally {
    for (const d of done) record.emit(d.change, d.content);
  }
}
