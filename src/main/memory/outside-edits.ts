/**
 * OutsideEdits: records in the version history the edits made outside Cairn (an editor, a `git
 * pull`) that a watcher or the SSH poller found. An outside edit records what it found
 * on disk; its "before" is the last version Cairn knew of that path (from the history), or unknown
 * when there is none (null for a file that appeared where none was known).
 *
 * Invariants: never throws (a failure to read or record loses the version, never the change, and
 * is reported on stderr);
 * records nothing when the history's last version of the path already holds what is on disk (the
 * same edit found by a second process's watcher, or a write Cairn itself recorded), so one edit is
 * one version however many hosts watch the root.
 */
import { createHash } from 'node:crypto';
import { MAX_FILE_BYTES } from '../../common/memory/constants';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { scopeOwner } from '../../common/memory/identity';
import { parseMemoryPath } from '../../common/memory/paths';
import type { HistoryStore, HistoryVersion } from '../history/history-store';
import { errnoOf } from '../runtime/local/containment';
import type { MemorySession } from './session';

const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export class OutsideEdits {
  constructor(private readonly store: HistoryStore) {}

  /** Records the outside edit `event` found in `session`'s scope; resolves to its version id, if one was recorded. */
  async record(event: MemoryChangeEvent, session: MemorySession): Promise<string | undefined> {
    try {
      return await this.recordOrThrow(event, session);
    } catch (err) {
      // The edit is on disk and reaches every subscriber all the same; only its version is lost,
      // and that is said (as the history says a record() it could not make).
      process.stderr.write(`cairn: an edit made outside Cairn to ${event.path} could not be recorded in the history (${errnoOf(err)}).\n`);
      return undefined;
    }
  }

  private async recordOrThrow(event: MemoryChangeEvent, session: MemorySession): Promise<string | undefined> {
    const b = session.scopes[event.scope];
    const owner = scopeOwner(event.scope, session);
    const parsed = parseMemoryPath(event.path);
    if (!b.available || owner === null || parsed.kind === 'root' || parsed.segments.length === 0) return undefined;
    const known = this.lastKnown(owner, event.path);
    let now: Uint8Array | null = null;
    if (event.op !== 'delete') {
      try {
        now = (await b.runtime.readFile(b.root, parsed.segments, MAX_FILE_BYTES)).data;
      } catch {
        return undefined; // gone again, or not a file Cairn reads: a later event says what it became
      }
    }
    // Already recorded: the history's last version of the path is what is on disk.
    if (now === null ? known === null : known !== undefined && known !== null && known !== 'unknown' && known === sha256(now)) return undefined;
    const before = known === undefined ? (event.op === 'create' ? null : 'unknown') : known === null || known === 'unknown' ? known : (this.store.readBlob(known) ?? 'unknown');
    const [id] = this.store.record([
      {
        owner,
        scope: event.scope,
        path: event.path,
        op: now === null ? 'delete' : before === null ? 'create' : 'update',
        before,
        after: now,
        actor: 'external',
        cause: 'external',
        workspaceId: session.workspaceId,
        projectId: session.projectId,
      },
    ]);
    return id;
  }

  /**
   * The sha256 of what the history last knew at `path`: null (nothing: deleted, or renamed away),
   * 'unknown', or undefined when the history has no version of it.
   */
  private lastKnown(owner: string, path: string): string | null | 'unknown' | undefined {
    const latest: HistoryVersion | undefined = this.store.list({ owner, path, limit: 1 })[0];
    if (!latest) return undefined;
    return latest.path === path ? latest.after : null;
  }
}
