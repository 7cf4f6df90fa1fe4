/** What waits in the inbox for a person: proposed memories and agents' changes under review. */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { SCOPES } from '../../memory/constants';
import { changeResultSchema, memoryPath, workspaceRef } from './shared';

/**
 * What waits in the inbox for a person. `kind` `memory`: a memory proposed from an agent's
 * session. `kind` `change`: an agent's write to a scope under review (review mode), with the
 * file's text before and after (null: no file then); its candidate fields are empty (`text` is a
 * line saying what it does, `target` the file it writes, no category, confidence or evidence).
 */
const inboxItemSchema = z.object({
  id: z.string(),
  kind: z.enum(['memory', 'change']),
  createdAt: z.string(),
  /** `held`: past the most a run proposes, kept for a person to look at, never asked about. */
  status: z.enum(['pending', 'held', 'approved', 'rejected']),
  category: z.enum(['preference', 'convention', 'fact', 'command', 'lesson']).nullable(),
  text: z.string(),
  scope: z.enum(SCOPES),
  confidence: z.number().nullable(),
  rationale: z.string(),
  /** Each quote, with who said it (null: not recorded) and when. */
  evidence: z.array(z.object({ messageId: z.string(), quote: z.string(), speaker: z.enum(['person', 'agent', 'tool']).nullable(), at: z.string().nullable() })),
  /** The memory file it would be added to (a change: the file it writes, a rename's destination). */
  target: z.string(),
  /** The agent and its session (a change: not known, null and ''), and what proposed it (a change: 'review'). */
  agent: z.enum(['claude', 'codex', 'copilot', 'gemini']).nullable(),
  sessionId: z.string(),
  extractor: z.string(),
  workspaceId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  approvedTo: z.string().nullable(),
  change: z
    .object({
      command: z.enum(['create', 'str_replace', 'insert', 'delete', 'rename']),
      path: z.string(),
      /** A rename's destination. */
      newPath: z.string().nullable(),
      before: z.string().nullable(),
      after: z.string().nullable(),
    })
    .nullable(),
  /**
   * A change from elsewhere: `sync`, from another machine, with the remote as shown (no
   * credentials); `pull`, project memory a git pull brought into the checkout (already there, kept
   * from agents until approved; rejecting writes back the text from before), with the commit's
   * author. Either: the commit, what a scanner flagged (null: held because the scope is in review
   * mode, or a conflict), and whether this machine changed the file too. Null for an agent's change.
   */
  from: z
    .object({
      kind: z.enum(['sync', 'pull']).default('sync'),
      remote: z.string().nullable(),
      author: z.string().nullable().default(null),
      commit: z.string(),
      flag: z.string().nullable(),
      conflict: z.boolean(),
    })
    .nullable()
    .default(null),
});
export type InboxItemView = z.infer<typeof inboxItemSchema>;

/**
 * A file of the inbox Cairn cannot read as an item (not JSON, not an item's shape, not a regular
 * file, too large, misnamed): listed so that the person sees it, never hidden, never changed by
 * Cairn. `file` is its place on this machine; `problem` says what is wrong (never its content).
 */
const damagedInboxItemSchema = z.object({ id: z.string(), file: z.string(), problem: z.string(), createdAt: z.string().nullable() });
export type DamagedInboxItemView = z.infer<typeof damagedInboxItemSchema>;

export const inboxContract = {
  /**
   * Proposals newest first: pending ones, the held ones with `held`, or every one with `all`, at
   * most MAX_INBOX_PENDING; the damaged files met (whatever `all` says), and how many older files
   * were not read.
   */
  list: oc
    .input(z.object({ all: z.boolean().default(false), held: z.boolean().default(false) }))
    .output(z.object({ items: z.array(inboxItemSchema), damaged: z.array(damagedInboxItemSchema), unread: z.number().int() })),
  /** Adds a proposal to memory as the person (to the suggested file, or `to`; its text, or `text`), undoable. */
  approve: oc
    .input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64), to: memoryPath.nullable().default(null), text: z.string().max(4000).nullable().default(null) }))
    .output(z.discriminatedUnion('status', [
      z.object({ status: z.literal('ok'), message: z.string(), path: z.string() }),
      z.object({ status: z.literal('conflict'), message: z.string() }),
      z.object({ status: z.literal('error'), message: z.string() }),
    ])),
  /**
   * Drops a proposal; its text is not proposed again for 90 days. A pull's file (from.kind `pull`)
   * gets back the text it had before the pull, written as the person in the view's project.
   */
  reject: oc.input(z.object({ workspaceId: workspaceRef.default(null), id: z.string().min(1).max(64) })).output(changeResultSchema),
  /**
   * Review mode of the view's three scopes: each one's key in the setting `reviewScopes` (null
   * when the view has no such scope, e.g. no project) and whether it is on.
   */
  reviewScopes: oc
    .input(z.object({ workspaceId: workspaceRef }))
    .output(z.array(z.object({ scope: z.enum(SCOPES), key: z.string().nullable(), on: z.boolean() }))),
  /** Drops every pending proposal from one agent session. */
  rejectSession: oc.input(z.object({ sessionId: z.string().min(1).max(200) })).output(changeResultSchema),
  /** Something in the inbox changed (by any process): the pending count, then one event per change. */
  onChange: oc.output(eventIterator(z.object({ pending: z.number().int() }))),
};
