/**
 * The change event every mutation of memory produces, whichever process or actor made it. The same
 * shape travels through the in-process emitter, the journal and the API's change stream.
 */
import { z } from 'zod';
import { ACTORS, SCOPES } from './constants';

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
});

export type MemoryChangeEvent = z.infer<typeof memoryChangeEventSchema>;
