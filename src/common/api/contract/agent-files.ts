/**
 * Other agents' files: what Claude Code, Codex, Cursor, Copilot and Gemini CLI read, in the
 * user's home and the workspace's checkout. Not Cairn memory: never indexed, injected or written
 * by agents through Cairn. Ids are display paths (common/agent-files/schema.ts).
 */
import { oc } from '@orpc/contract';
import { z } from 'zod';
import { COMPARE_MAX, COMPARE_MIN, adoptResultSchema, adoptScopeSchema, agentFileHitSchema, agentFileIdSchema, agentFileSchema, agentFileVersionSchema, compareResultSchema, lineRangesSchema } from '../../agent-files/schema';
import { saveResultSchema, sha256, workspaceRef } from './shared';

export const agentFilesContract = {
  /** The files that exist; `checkout` says whether the checkout's could be looked at (not: why). */
  list: oc
    .input(z.object({ workspaceId: workspaceRef }))
    .output(z.object({ files: z.array(agentFileSchema), checkout: z.object({ available: z.boolean(), reason: z.string().nullable() }) })),
  read: oc.input(z.object({ workspaceId: workspaceRef, id: agentFileIdSchema })).output(z.object({ file: agentFileSchema, content: z.string(), sha256 })),
  /** The memory editor's conflict-safe save: written only if the file still has `expectedSha256` (null: create a file that is absent). */
  write: oc
    .input(z.object({ workspaceId: workspaceRef, id: agentFileIdSchema, content: z.string(), expectedSha256: sha256.nullable() }))
    .output(saveResultSchema),
  /** memory_search's ranking over these files: hits best first, a line each. */
  search: oc
    .input(z.object({ workspaceId: workspaceRef, query: z.string().max(500), limit: z.number().int().min(1).max(100).default(50) }))
    .output(z.object({ hits: z.array(agentFileHitSchema) })),
  /** Copies a file (or `lines` of it, or `text` selected in it) into `scope` as inbox candidates, split, scanned, deduplicated. */
  adopt: oc
    .input(z.object({ workspaceId: workspaceRef, id: agentFileIdSchema, scope: adoptScopeSchema, lines: lineRangesSchema.optional(), text: z.string().max(100_000).optional() }))
    .output(adoptResultSchema),
  /** Lines two or more files (agent files' ids and/or /memories/... paths) state differently. */
  compare: oc.input(z.object({ workspaceId: workspaceRef, ids: z.array(z.string().min(1).max(1024)).min(COMPARE_MIN).max(COMPARE_MAX) })).output(compareResultSchema),
  /** The recorded edits of one file (made through Cairn, or seen by it), newest first. */
  history: oc
    .input(z.object({ workspaceId: workspaceRef, id: agentFileIdSchema, limit: z.number().int().min(1).max(200).default(50) }))
    .output(z.object({ versions: z.array(agentFileVersionSchema) })),
};
