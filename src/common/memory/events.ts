/**
 * The change event every mutation of memory produces, whichever process or actor made it. The same
 * shape travels through the in-process emitter, the journal and the API's change stream.
 */
import { z } from 'zod';
import { ACTORS, SCOPES } from './constants';
import { formatMemoryPath } from './paths';

export const memoryChangeEventSchema = z.object({
  scope: z.enum(SCOPES),
  /** Virtual path after the change (for a rename: the new path). */
  path: z.string(),
  /** For a rename: the virtual path before it. */
  oldPath: z.string().optional(),
  op: z.enum(['create', 'update', 'delete', 'rename']),
  actor: z.enum(ACTORS),
  workspaceId: z.string().nullable(),
  projectId: z.string().nullable(),
  /** sha256 (hex) of the file's new content; null for deletes, renames and directories. */
  sha256: z.string().nullable(),
  /** ISO 8601 time of the change. */
  at: z.string(),
  /**
   * The change's version in the history (its first file's, for a directory): what `history.undo`
   * takes to undo it. Absent where nothing was recorded (an outside edit, history unavailable).
   */
  historyId: z.string().optional(),
});

export type MemoryChangeEvent = z.infer<typeof memoryChangeEventSchema>;

/** The event of an edit made outside Cairn (found by a watcher or a poller of a scope root). */
export function outsideEditEvent(
  scope: MemoryChangeEvent['scope'],
  segments: readonly string[],
  op: MemoryChangeEvent['op'],
  sha256: string | null,
  owner: { readonly workspaceId: string | null; readonly projectId: string | null },
): MemoryChangeEvent {
  return { scope, path: formatMemoryPath(scope, segments), op, actor: 'external', workspaceId: owner.workspaceId, projectId: owner.projectId, sha256, at: new Date().toISOString() };
}
