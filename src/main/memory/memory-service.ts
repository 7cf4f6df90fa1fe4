/**
 * MemoryService: the memory layer as every host embeds it (the app, `cairn serve`, `cairn mcp`,
 * `cairn tool`). A thin facade over its parts, split by caller:
 * - memory-tool.ts: the agent's tool, its six commands (execute, run); with a ReviewGate
 *   (review-gate.ts), an agent's writes to a scope under review become proposals;
 * - person-edits.ts: a person's edits (read, save against a sha256, create a directory, pin);
 *   person-batch.ts: a person's change of several files as one history batch (a consolidation);
 * - change-outbox.ts: the change event of every write, to this process's listeners (onChange) and
 *   then to a ChangeSink (the host passes its journal); with a HistorySink, each change's bytes
 *   before and after go to the version history first (history-capture.ts);
 * - error-mapper.ts: the one translation of Runtime failures into texts naming virtual paths.
 * It imports nothing of the journal or the hosts: they hand it a sink and a usage store.
 */
import type { Actor } from '../../common/memory/constants';
import type { MemoryChangeEvent } from '../../common/memory/events';
import type { MemoryCommand } from '../../common/memory/schema';
import { ChangeOutbox, type ChangeSink } from './change-outbox';
import type { HistorySink } from './history-capture';
import { undoSteps, type UndoOutcome, type UndoStep } from './history-undo';
import { MemoryTool, StaleFileError } from './memory-tool';
import { writeBatch, type BatchGroup, type BatchOutcome } from './person-batch';
import { PersonEdits } from './person-edits';
import type { ReviewGate } from './review-gate';
import type { ExecuteOptions, MemorySession, SaveOutcome, ToolResult } from './session';
import type { UsageStore } from './usage-store';

export type { ChangeSink } from './change-outbox';
export type { ExecuteOptions, MemorySession, SaveOutcome, ToolResult } from './session';

export interface MemoryServiceOptions {
  /** Where pins and usage are recorded; without it, nothing is. */
  readonly usage?: UsageStore;
  /** Where every change is appended for other processes to see (the journal); without it, nothing is. */
  readonly sink?: ChangeSink;
  /** Where each change is recorded with its bytes (the version history); without it, nothing is. */
  readonly history?: HistorySink;
  /** Review mode: which scopes turn an agent's writes into proposals, and where they go; without it, none do. */
  readonly review?: ReviewGate;
}

export class MemoryService {
  private readonly outbox: ChangeOutbox;
  private readonly tool: MemoryTool;
  private readonly edits: PersonEdits;
  private readonly usage: UsageStore | undefined;

  constructor(options: MemoryServiceOptions = {}) {
    this.outbox = new ChangeOutbox(options.sink, options.history);
    this.usage = options.usage;
    this.tool = new MemoryTool(this.outbox, options.usage, options.review);
    this.edits = new PersonEdits(this.outbox, options.usage);
  }

  /** Subscribes to every change this service makes; returns the unsubscribe function. */
  onChange(listener: (event: MemoryChangeEvent) => void): () => void {
    return this.outbox.onChange(listener);
  }

  /** Runs one command given as the model sent it. Never throws for a failed command. */
  execute(input: unknown, session: MemorySession, options: ExecuteOptions): Promise<ToolResult> {
    return this.tool.execute(input, session, options);
  }

  /** Runs one validated command; throws MemoryToolError with the model-facing text. */
  run(command: MemoryCommand, session: MemorySession, options: ExecuteOptions): Promise<string> {
    return this.tool.run(command, session, options);
  }

  /** A file's content and its sha256, for the editor. */
  read(rawPath: string, session: MemorySession): Promise<{ content: string; sha256: string }> {
    return this.edits.read(rawPath, session);
  }

  /** Undoes recorded changes (one, or a batch) if their files are still what they left (history-undo.ts). */
  undo(steps: readonly UndoStep[], cause: string, session: MemorySession): Promise<UndoOutcome> {
    return undoSteps(this.outbox, steps, cause, session, this.usage);
  }

  /**
   * A person's change of several files of one scope, recorded as ONE history batch with `cause`
   * (a consolidation: `sweep:<id>`): each group is made only while its files hold the bytes the
   * person saw, else skipped and reported (person-batch.ts).
   */
  writeBatch(groups: readonly BatchGroup[], cause: string, session: MemorySession, actor: Actor = 'person'): Promise<BatchOutcome> {
    return writeBatch(this.outbox, groups, cause, session, actor);
  }

  /** Writes an earlier version's content back to its file, as the person's change with `cause`. */
  restore(rawPath: string, content: string, cause: string, session: MemorySession): Promise<{ created: boolean }> {
    return this.edits.restore(rawPath, content, cause, session);
  }

  /** Saves a person's edit against the sha256 the editor loaded (null: a new file); `cause` as the history records it. */
  save(rawPath: string, content: string, expectedSha256: string | null, session: MemorySession, cause = 'ui'): Promise<SaveOutcome> {
    return this.edits.save(rawPath, content, expectedSha256, session, cause);
  }

  /**
   * A person's delete or rename of one file, made only while the file still holds the bytes they
   * saw (`expectedSha256`) and a rename's destination is free: otherwise a conflict, and nothing
   * is changed. Recorded with `cause` (an approved proposal: `review:<id>`).
   */
  async changeFile(
    command: Extract<MemoryCommand, { command: 'delete' | 'rename' }>,
    expectedSha256: string,
    session: MemorySession,
    cause: string,
  ): Promise<{ readonly status: 'ok' } | Extract<SaveOutcome, { status: 'conflict' }>> {
    try {
      await this.tool.run(command, session, { mode: 'exec', actor: 'person', cause, expectedSha256 });
      return { status: 'ok' };
    } catch (err) {
      if (err instanceof StaleFileError) return { status: 'conflict', kind: err.kind, message: err.message };
      throw err;
    }
  }

  /** Creates an empty directory. */
  createDirectory(rawPath: string, session: MemorySession): Promise<string> {
    return this.edits.createDirectory(rawPath, session);
  }

  /** Pins or unpins a file. */
  setPinned(rawPath: string, pinned: boolean, session: MemorySession): Promise<string> {
    return this.edits.setPinned(rawPath, pinned, session);
  }
}
