/**
 * The change outbox: every change MemoryService makes becomes one MemoryChangeEvent (the sha256 of
 * the bytes written, the actor, the session's workspace and project, the time), delivered first to
 * this process's listeners (onChange), then to the sink (the journal, which other processes tail).
 * Before the change is even made, what it does to each file, with its bytes, goes to the history
 * sink when there is one (ChangeRecord below; history-capture.ts).
 *
 * Invariants: an event is delivered, to the listeners and in one sink append, before the command
 * that made it resolves, so events keep the order of the commands and none waits in memory for a
 * crash to drop. A listener that throws is reported and skipped: the write it reports has been
 * made, the other listeners and the sink still hear of it.
 */
import { createHash } from 'node:crypto';
import type { AgentRef } from '../../common/activity/agents';
import type { Actor } from '../../common/memory/constants';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath } from '../../common/memory/paths';
import { RuntimeError, type BeforeChange, type CapturedFile } from '../runtime/runtime';
import type { FileChange, HistorySink } from './history-capture';
import type { MemorySession } from './session';

/** Where change events go for other processes to see (the Journal is one). Must not throw. */
export interface ChangeSink {
  append(...events: MemoryChangeEvent[]): void;
}

/** What a command changed: its scope, path(s) and operation. */
export type Change = Pick<MemoryChangeEvent, 'scope' | 'path' | 'op'> & { readonly oldPath?: string };

export function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export class ChangeOutbox {
  private readonly listeners = new Set<(event: MemoryChangeEvent) => void>();

  constructor(
    private readonly sink?: ChangeSink,
    private readonly history?: HistorySink,
  ) {}

  /** Whether changes are recorded in a history (then commands capture the bytes they replace and record them first). */
  get recordsHistory(): boolean {
    return this.history !== undefined;
  }

  /** Subscribes to every change; returns the unsubscribe function. */
  onChange(listener: (event: MemoryChangeEvent) => void): () => void {
    // A wrapper, so the same function subscribed twice hears each change twice and `off` removes one.
    const entry = (event: MemoryChangeEvent) => listener(event);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  /**
   * The record of one command's changes (by `actor` in `session`, recorded with `cause`: 'tool',
   * 'ui', 'undo:<id>'...): their files go to the history BEFORE they are made (ChangeRecord), their
   * events out once they are.
   */
  begin(session: MemorySession, actor: Actor, cause: string, agent?: AgentRef): ChangeRecord {
    return new ChangeRecord(this.history, session, actor, cause, (change, content, historyId) => this.deliver(session, actor, change, content, historyId), agent);
  }

  /** Delivers the event of a change made by `actor` in `session` that the history does not record. */
  emit(session: MemorySession, actor: Actor, change: Change, content: Uint8Array | string | null): void {
    this.deliver(session, actor, change, content, undefined);
  }

  private deliver(session: MemorySession, actor: Actor, change: Change, content: Uint8Array | string | null, historyId: string | undefined): void {
    const event: MemoryChangeEvent = {
      ...change,
      ...(historyId ? { historyId } : {}),
      sha256: content === null || typeof content === 'string' ? content : sha256(content),
      actor,
      workspaceId: session.workspaceId,
      projectId: session.projectId,
      at: new Date().toISOString(),
    };
    // A copy: a listener that subscribes or unsubscribes another changes the next delivery, not this one.
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        process.stderr.write(`cairn: a change listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
      }
    }
    this.sink?.append(event);
  }
}

/** One change of a command with what it does to each file, as the history records it. */
export interface RecordedChange {
  readonly change: Change;
  readonly files: readonly FileChange[];
}

/** The OS code of a history's failure (EIO when it has none). */
function codeOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : 'EIO';
}

/**
 * One command's changes in the history, recorded BEFORE they are made, under the scope's lock:
 * record() (or the runtime's BeforeChange from before()) writes them as one history batch, and
 * refuses the change when it cannot (RuntimeError HISTORY: nothing is made, the one error mapper
 * words it); if the runtime then fails, run() takes the batch back (abandon: a void line), unless
 * the failure leaves unknown whether the change was made (a remote host lost mid-request: the
 * version is kept, so what the file held can always be restored). A batch only partly made (a
 * person's batch or an undo that failed midway and could not take everything back) is replaced by
 * what was made, in one append; if even that cannot be written, the whole batch stays. So the
 * history never lacks a change that was made, and lists one that was not only when a process dies
 * between the record and the change, or the disk refuses even the void line.
 */
export class ChangeRecord {
  /** The batch recorded and not yet known to be made (its id), what it recorded, and each change's first version. */
  private batch: string | null = null;
  private recorded: RecordedChange[] = [];
  /** The runtime said what of a failed change was made (BeforeChange `partial`): the record stands. */
  private final = false;
  private readonly ids = new Map<Change, string>();

  constructor(
    private readonly history: HistorySink | undefined,
    private readonly session: MemorySession,
    private readonly actor: Actor,
    private readonly cause: string,
    private readonly deliver: (change: Change, content: Uint8Array | string | null, historyId: string | undefined) => void,
    /** An agent's change: which agent and session, recorded with each version. */
    private readonly agent?: AgentRef,
  ) {}

  /**
   * Records `changes` as one history batch now, before they are made; an earlier batch of this
   * record (a change tried and not made, e.g. a remote write retried) is taken back in the same
   * append. Throws RuntimeError HISTORY when the history cannot take it: the change must not be made.
   */
  record(changes: readonly RecordedChange[]): void {
    if (!this.history) return;
    const entries = changes.flatMap(({ change, files }) => {
      const owner = scopeOwner(change.scope, this.session);
      if (owner === null) return [];
      return files.map((f) => ({
        change,
        entry: {
          owner,
          scope: change.scope,
          path: formatMemoryPath(change.scope, f.rel),
          ...(f.oldRel ? { oldPath: formatMemoryPath(change.scope, f.oldRel) } : {}),
          op: change.op,
          before: f.before,
          after: f.after,
          actor: this.actor,
          cause: this.cause,
          workspaceId: this.session.workspaceId,
          projectId: this.session.projectId,
          ...(this.agent === undefined ? {} : { agent: this.agent }),
        },
      }));
    });
    if (entries.length === 0) {
      this.abandon();
      return;
    }
    let ids: string[];
    try {
      ids = this.history.prepare(
        entries.map((e) => e.entry),
        this.batch,
      );
    } catch (err) {
      throw new RuntimeError('HISTORY', codeOf(err));
    }
    this.batch = ids[0] ?? null;
    this.recorded = [...changes];
    this.ids.clear();
    entries.forEach(({ change }, i) => {
      if (!this.ids.has(change)) this.ids.set(change, ids[i]!);
    });
  }

  /** The runtime's BeforeChange for one change whose files are known only then (a remove's or a rename's capture), or already. */
  before(change: Change, files: (captured: readonly CapturedFile[]) => readonly FileChange[]): BeforeChange | undefined {
    if (!this.history) return undefined;
    return (captured, partial) => {
      if (!partial) return this.record([{ change, files: files(captured) }]);
      // Part of a failed change was made: what was made stays recorded, in place of the whole.
      this.final = true;
      this.settle([{ change, files: files(captured) }].filter((c) => c.files.length > 0));
    };
  }

  /** Runs the runtime's part of the command; if it fails, what was recorded for it is taken back (see the class). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (this.final || (err instanceof RuntimeError && err.code === 'UNREACHABLE')) this.batch = null;
      else this.abandon();
      throw err;
    }
  }

  /**
   * After a batch failed midway: `made` is what stays made of what was recorded. The record is
   * replaced by it (taken back when nothing stays); when that cannot be written, the whole batch
   * stays recorded.
   */
  settle(made: readonly RecordedChange[]): void {
    if (this.batch === null) return;
    if (made.length === 0) {
      this.abandon();
      return;
    }
    if (made.length === this.recorded.length && made.every((m, i) => m.files.length === this.recorded[i]!.files.length)) return;
    try {
      this.record(made);
    } catch {
      // The whole batch stays: it lists a change not made, never lacks one that was.
    }
  }

  /**
   * A batch all or nothing: records `planned`, then makes each in order, into `done`. When one
   * fails (a full disk, a permission), those made are taken back, newest first; what cannot be
   * taken back stays, `done` holds it, and the record is settled to exactly that.
   */
  async makeAll<T extends RecordedChange, P extends T>(planned: readonly P[], done: T[], make: (item: P) => Promise<unknown>, takeBack: (item: T) => Promise<unknown>): Promise<void> {
    this.record(planned);
    try {
      for (const item of planned) {
        await make(item);
        done.push(item);
      }
    } catch (err) {
      while (done.length > 0) {
        try {
          await takeBack(done[done.length - 1]!);
        } catch {
          break;
        }
        done.pop();
      }
      this.settle(done);
      throw err;
    }
  }

  /** The change was made: its event goes out, with its version's id. */
  emit(change: Change, content: Uint8Array | string | null): void {
    this.deliver(change, content, this.ids.get(change));
  }

  private abandon(): void {
    if (this.batch !== null) this.history?.abandon(this.batch);
    this.batch = null;
    this.recorded = [];
    this.ids.clear();
  }
}
