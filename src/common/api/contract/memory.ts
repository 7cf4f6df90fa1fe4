/**
 * The memory files of a view: list, read, save and the other changes a person makes, what the
 * scanners say, the badges, content search, and the two live streams (changes, and pins, uses and
 * seen marks).
 */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { badgeSchema } from '../../memory/badges';
import { ACTORS, MAX_FILE_BYTES, SCOPES } from '../../memory/constants';
import { memoryChangeEventSchema } from '../../memory/events';
import { changeResultSchema, memoryPath, saveResultSchema, scanFlagSchema, scanWarningSchema, sha256, workspaceRef } from './shared';

export const memoryFileSchema = z.object({
  scope: z.enum(SCOPES),
  path: z.string(),
  description: z.string().nullable(),
  size: z.number().int().nonnegative(),
  pinned: z.boolean(),
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: z.string().nullable(),
  lastWriteAt: z.string().nullable(),
  lastWriteBy: z.enum(ACTORS).nullable(),
  /** What the content scanners flag in the file's first 4 KiB. */
  flags: z.array(scanFlagSchema),
});

export const scopeStatusSchema = z.object({
  scope: z.enum(SCOPES),
  available: z.boolean(),
  reason: z.string().nullable(),
  /** Folders of the scope Cairn cannot read (virtual paths): shown as such, never as empty ones. */
  unreadableFolders: z.array(z.string()).optional(),
});

/**
 * What `memory.onChange` streams: first `ready` once the server is listening to every source (the
 * journal and the watchers of the workspace's roots), then one `change` per change. A client loads
 * (or reloads, after a reconnect) what it shows when it sees `ready`, so nothing falls between.
 */
const changeStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  memoryChangeEventSchema.extend({ type: z.literal('change') }),
]);
export type ChangeStreamEvent = z.infer<typeof changeStreamEventSchema>;

/**
 * What `memory.onMetaChange` streams: `ready` once the server is listening, then `usage` when pins
 * or uses changed (by any process: `cairn pin`, agents' views) and `seen` when the person opened a
 * file (in any window): the list, or the badges, are then asked for again.
 */
const metaChangeEventSchema = z.object({ type: z.enum(['ready', 'usage', 'seen']) });

/**
 * A file with a change the person has not seen: the newest change to it by an agent or outside
 * Cairn since they last opened it in this view, from the version history; `at` its time.
 */
const fileBadgeSchema = z.object({ scope: z.enum(SCOPES), path: z.string(), badge: badgeSchema, at: z.string() });

/** One content-search hit: the file, a line of it, and where the matching words are in that line. */
const searchHitSchema = z.object({
  scope: z.enum(SCOPES),
  path: z.string(),
  line: z.string(),
  matches: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const memoryContract = {
  list: oc
    .input(z.object({ workspaceId: workspaceRef }))
    .output(z.object({ files: z.array(memoryFileSchema), scopes: z.array(scopeStatusSchema) })),
  /** A file's content, for the editor: the person opens it, so its badge is cleared (not a use). */
  read: oc.input(z.object({ workspaceId: workspaceRef, path: memoryPath })).output(z.object({ content: z.string(), sha256 })),
  /**
   * The view's files with changes by agents or outside Cairn since the person last opened them, and
   * when the person last marked the whole view seen (absent: never): a badge newer is new to them.
   */
  badges: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ badges: z.array(fileBadgeSchema), lookedAt: z.string().optional() })),
  /** "Mark all seen": every badge of the view shown now stops being new (it stays a badge until the file is opened). */
  markAllSeen: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ lookedAt: z.string() })),
  save: oc
    .input(z.object({ workspaceId: workspaceRef, path: memoryPath, content: z.string(), expectedSha256: sha256.nullable() }))
    .output(saveResultSchema),
  create: oc
    .input(z.object({ workspaceId: workspaceRef, path: memoryPath, kind: z.enum(['file', 'directory']), content: z.string().default('') }))
    .output(changeResultSchema),
  delete: oc.input(z.object({ workspaceId: workspaceRef, path: memoryPath })).output(changeResultSchema),
  rename: oc.input(z.object({ workspaceId: workspaceRef, fromPath: memoryPath, toPath: memoryPath })).output(changeResultSchema),
  setPinned: oc.input(z.object({ workspaceId: workspaceRef, path: memoryPath, pinned: z.boolean() })).output(changeResultSchema),
  /**
   * What the content scanners say about text a person is about to save (nothing is stored): at
   * most what a file may hold (a longer text cannot be saved; its length counts UTF-16 units, never
   * more than its UTF-8 bytes).
   */
  scan: oc.input(z.object({ content: z.string().max(MAX_FILE_BYTES) })).output(z.array(scanWarningSchema)),
  onChange: oc.input(z.object({ workspaceId: workspaceRef })).output(eventIterator(changeStreamEventSchema)),
  onMetaChange: oc.output(eventIterator(metaChangeEventSchema)),
  /**
   * Memory content searched as agents' memory_search ranks it: the files best first, each with
   * the line shown for it and the matching words' [start, end) in that line.
   */
  search: oc
    .input(z.object({ workspaceId: workspaceRef, query: z.string().max(500), limit: z.number().int().min(1).max(100).default(50) }))
    .output(z.object({ hits: z.array(searchHitSchema) })),
};
