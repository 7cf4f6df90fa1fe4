/**
 * Undo of recorded changes: puts the files of one change, or of a batch made together,
 * back as they were before it, only if each is still exactly what that change left; otherwise
 * nothing is changed and the answer names the first conflict (changed, exists, deleted).
 *
 * Invariants: the check and the writes happen under the scope's lock, so no Cairn writer can slip
 * in between (all or nothing against every other Cairn process); the undo is itself one change of
 * the person's, recorded in the history as one batch (cause `undo:<id>`) before its first file is
 * put back (an undo the history cannot take is refused, nothing written), so it can be undone. The
 * caller (the CLI, later the API) looks the versions and their bytes up in the history store; this
 * module only compares and writes. A file an undo brings back from a delete gets back the usage
 * the delete took (UsageStore.revive), so undoing a delete does not make it an unused file.
 */
import type { Scope } from '../../common/memory/constants';
import { memoryIdentity } from '../../common/memory/identity';
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';
import type { Change, ChangeOutbox } from './change-outbox';
import { mapRuntimeErrors } from './error-mapper';
import type { FileChange } from './history-capture';
import type { AvailableScope, MemorySession } from './session';
import { bytesAt } from './person-batch';
import { availableScope } from './targets';
import type { UsageStore } from './usage-store';

/** One recorded change to undo, with the bytes it replaced and left (null: nothing was / is there). */
export interface UndoStep {
  readonly path: string;
  readonly oldPath?: string;
  readonly op: 'create' | 'update' | 'delete' | 'rename';
  /** What the change replaced, to put back. */
  readonly before: Uint8Array | null;
  /** What the change left, which the file must still hold. */
  readonly after: Uint8Array | null;
}

export type UndoOutcome =
  | { readonly status: 'ok'; readonly paths: readonly string[] }
  | { readonly status: 'conflict'; readonly kind: 'changed' | 'exists' | 'deleted'; readonly path: string; readonly message: string };

function segmentsOf(path: string): { scope: Scope; segments: readonly string[] } {
  const parsed = parseMemoryPath(path);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(`${path} is not a memory file.`);
  return { scope: parsed.scope, segments: parsed.segments };
}

const same = (a: Uint8Array | null, b: Uint8Array | null) => (a === null || b === null ? a === b : Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));

/** One step of an undo as made: its event's change and content, and what it does to its file. */
interface Made {
  readonly step: UndoStep;
  readonly change: Change;
  readonly content: Uint8Array | null;
  readonly files: FileChange[];
}

/** Takes back one applied step of an undo: the file as the change had left it. */
async function putBack(b: AvailableScope, step: UndoStep): Promise<void> {
  const at = segmentsOf(step.path).segments;
  if (step.op === 'rename' && step.oldPath !== undefined) await b.runtime.rename(b.root, segmentsOf(step.oldPath).segments, at);
  else if (step.after === null) {
    await b.runtime.remove(b.root, at);
    if (at.length > 1) await b.runtime.removeEmptyDirs(b.root, at.slice(0, -1)).catch(() => undefined);
  } else await b.runtime.writeFile(b.root, at, step.after, { exclusive: false });
}

/**
 * Undoes `steps` (one change, or a batch; all in one scope) as the person's change with `cause`.
 */
export async function undoSteps(outbox: ChangeOutbox, steps: readonly UndoStep[], cause: string, session: MemorySession, usage?: UsageStore): Promise<UndoOutcome> {
  if (steps.length === 0) throw new MemoryToolError('Nothing to undo.');
  const scopes = new Set(steps.map((s) => segmentsOf(s.path).scope));
  if (scopes.size !== 1) throw new MemoryToolError('A batch to undo must lie in one scope.');
  const scope = [...scopes][0]!;
  const b = availableScope(session, scope);
  const done: Made[] = [];
  const record = outbox.begin(session, 'person', cause);
  let outcome: UndoOutcome;
  try {
    outcome = await mapRuntimeErrors(
      () =>
        b.runtime.withLock(b.root, async (): Promise<UndoOutcome> => {
          // Every file first: is it still what the change left? Nothing is written unless all are.
          for (const step of steps) {
            const here = await bytesAt(b, segmentsOf(step.path).segments);
            if (!same(here, step.after)) {
              const kind = here === null ? 'deleted' : step.after === null ? 'exists' : 'changed';
              const what = kind === 'deleted' ? 'was deleted' : kind === 'exists' ? 'exists again' : 'was changed';
              return { status: 'conflict', kind, path: step.path, message: `${step.path} ${what} since that change; nothing was undone.` };
            }
            if (step.op === 'rename' && step.oldPath !== undefined && (await bytesAt(b, segmentsOf(step.oldPath).segments)) !== null) {
              return { status: 'conflict', kind: 'exists', path: step.oldPath, message: `${step.oldPath} exists again since that change; nothing was undone.` };
            }
          }
          // Every step planned first: the history records the undo, as one batch, before the
          // first file is put back (an undo it cannot take is refused, nothing written).
          const planned = steps.map((step): Made => {
            const at = segmentsOf(step.path).segments;
            if (step.op === 'rename' && step.oldPath !== undefined) {
              const back = segmentsOf(step.oldPath).segments;
              return { step, change: { scope, path: step.oldPath, oldPath: step.path, op: 'rename' }, content: null, files: [{ rel: back, oldRel: at, before: step.after, after: step.after }] };
            }
            if (step.before === null) return { step, change: { scope, path: step.path, op: 'delete' }, content: null, files: [{ rel: at, before: step.after, after: null }] };
            return { step, change: { scope, path: step.path, op: step.after === null ? 'create' : 'update' }, content: step.before, files: [{ rel: at, before: step.after, after: step.before }] };
          });
          // All or nothing: a step that fails midway takes back those already made.
          await record.makeAll(
            planned,
            done,
            async ({ step }) => {
              const at = segmentsOf(step.path).segments;
              if (step.op === 'rename' && step.oldPath !== undefined) await b.runtime.rename(b.root, at, segmentsOf(step.oldPath).segments);
              else if (step.before === null) await b.runtime.remove(b.root, at);
              else await b.runtime.writeFile(b.root, at, step.before, { exclusive: false });
            },
            ({ step }) => putBack(b, step),
          );
          // A create or a rename may have made directories that are now empty: take those away too,
          // so the tree is as it was (rmdir only: a directory holding anything stays).
          for (const step of steps) {
            const vacated = step.op === 'rename' && step.oldPath !== undefined ? step.path : step.before === null ? step.path : null;
            const parent = vacated === null ? [] : segmentsOf(vacated).segments.slice(0, -1);
            if (parent.length > 0) await b.runtime.removeEmptyDirs(b.root, parent).catch(() => undefined);
          }
          return { status: 'ok', paths: steps.map((s) => (s.op === 'rename' && s.oldPath !== undefined ? s.oldPath : s.path)) };
        }),
      'undo',
      steps[0]!.path,
    );
  } finally {
    // What was put back and stays is a change, announced: after a failure midway, only what
    // could not be taken back again (the history then shows exactly that part).
    for (const made of done) record.emit(made.change, made.content);
  }
  if (usage && outcome.status === 'ok') {
    for (const made of done) {
      if (made.step.op !== 'delete' || made.change.op !== 'create') continue;
      const id = memoryIdentity(scope, session, segmentsOf(made.step.path).segments);
      if (id !== null) await usage.revive(id);
    }
  }
  return outcome;
}
