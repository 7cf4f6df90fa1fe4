/** The version history of memory files: versions, what each changed, undo and restore. */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { ACTORS, SCOPES } from '../../memory/constants';
import { memoryPath, workspaceRef } from './shared';

/** One version of a memory file in the history. */
const versionSchema = z.object({
  id: z.string(),
  at: z.string(),
  /** The id of the first version of the change it was part of (undo takes back the whole batch). */
  batch: z.string(),
  scope: z.enum(SCOPES),
  path: z.string(),
  oldPath: z.string().nullable(),
  op: z.enum(['create', 'update', 'delete', 'rename']),
  actor: z.enum(ACTORS),
  /** 'tool', 'ui', 'external', 'undo:<batch>', 'restore:<id>'. */
  cause: z.string(),
  /** Lines the change added and removed; null when one side's bytes are not known. */
  added: z.number().int().nullable(),
  removed: z.number().int().nullable(),
});
export type Version = z.infer<typeof versionSchema>;

/** A version's two sides: null when nothing was (or is) there; `known` false when not recorded. */
const versionTextSchema = z.object({
  version: versionSchema,
  before: z.string().nullable(),
  after: z.string().nullable(),
  beforeKnown: z.boolean(),
  afterKnown: z.boolean(),
});

/** The outcome of an undo: done, or what conflicts (nothing was changed then). */
const undoResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), message: z.string(), paths: z.array(z.string()) }),
  z.object({ status: z.literal('conflict'), kind: z.enum(['changed', 'deleted', 'exists']), path: z.string(), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);

export const historyContract = {
  /** Versions newest first: of a file (following its renames), of everything below a directory or scope, or of all. */
  list: oc
    .input(z.object({ workspaceId: workspaceRef, path: memoryPath.nullable().default(null), scope: z.enum(SCOPES).nullable().default(null), limit: z.number().int().min(1).max(500).default(50) }))
    .output(z.object({ versions: z.array(versionSchema), incompleteSince: z.string().nullable() })),
  /** Recently deleted files (each one's delete, whose `before` brings it back), newest first. */
  deleted: oc
    .input(z.object({ workspaceId: workspaceRef, path: memoryPath.nullable().default(null), scope: z.enum(SCOPES).nullable().default(null), limit: z.number().int().min(1).max(500).default(50) }))
    .output(z.object({ versions: z.array(versionSchema) })),
  read: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(versionTextSchema),
  /** Takes back the change a version belongs to, if its files are still what it left. */
  undo: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(undoResultSchema),
  /** Restores a file to a version: a new change of the person's, whose id `versionId` is (null: the history could not record it). */
  restore: oc
    .input(z.object({ workspaceId: workspaceRef, path: memoryPath, id: z.string().min(1).max(64) }))
    .output(z.discriminatedUnion('status', [z.object({ status: z.literal('ok'), message: z.string(), versionId: z.string().nullable() }), z.object({ status: z.literal('error'), message: z.string() })])),
};
