/**
 * The oRPC contract between the renderer and the main process: every route the UI uses, with zod
 * schemas for what goes in and out. The renderer imports only this (through its client); the main
 * process implements it in src/main/api/router.ts. Results that a person must act on (a conflict on
 * save) are typed unions, not exceptions.
 */
import { eventIterator, oc } from '@orpc/contract';
import { z } from 'zod';
import { badgeSchema } from '../memory/badges';
import { ACTORS, MAX_FILE_BYTES, SCOPES } from '../memory/constants';
import { memoryChangeEventSchema } from '../memory/events';
import { sweepCostSchema, sweepProposalSchema, sweepRefusalSchema, sweepSinceSchema } from '../sweep/proposal';
import { COMPARE_MAX, COMPARE_MIN, adoptResultSchema, adoptScopeSchema, agentFileHitSchema, agentFileIdSchema, agentFileSchema, agentFileVersionSchema, compareResultSchema, lineRangesSchema } from '../agent-files/schema';
import { settingsPatchSchema, settingsSchema } from './settings';

export { settingsSchema };

/** A workspace id, or null for the global scope alone (the settings panel). */
const workspaceRef = z.string().min(1).max(64).nullable();
const memoryPath = z.string().min(1).max(1024);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const scanFlagSchema = z.object({ kind: z.enum(['secret', 'injection']), rule: z.string(), line: z.number().int() });

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

export const scopeStatusSchema = z.object({ scope: z.enum(SCOPES), available: z.boolean(), reason: z.string().nullable() });

export const scanWarningSchema = scanFlagSchema.extend({ message: z.string() });

/** The outcome of a change a person asked for. */
/**
 * One of Cairn's own files that did not parse and was moved aside (`<name>.damaged-<time>`), so
 * Cairn started it afresh: where it is, which file it was (relative to Cairn's home), when, and the
 * start of what it holds.
 */
export const setAsideFileSchema = z.object({
  aside: z.string(),
  file: z.string(),
  at: z.string(),
  bytes: z.number(),
  preview: z.string(),
  /** Whether the file holds more than `preview`. */
  cut: z.boolean(),
});
export type SetAsideFileView = z.infer<typeof setAsideFileSchema>;

export const changeResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);

export const saveResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), sha256, warnings: z.array(scanWarningSchema) }),
  z.object({ status: z.literal('conflict'), kind: z.enum(['changed', 'deleted', 'exists']), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['local', 'ssh']),
  /** The checkout's path (the remote absolute path for ssh). */
  path: z.string(),
  /** `[user@]host[:port]` for ssh, null for local. */
  host: z.string().nullable(),
});
export const hostKeySchema = z.object({
  host: z.string(),
  /** `SHA256:...` as OpenSSH prints it. */
  fingerprint: z.string(),
  state: z.enum(['trusted', 'unknown', 'changed']),
});
/**
 * For an SSH workspace whose host key is not trusted: reachable false, the reason in plain words,
 * and `hostKey` with the fingerprint the person is asked to check and trust.
 */
export const workspaceStatusSchema = z.object({ id: z.string(), reachable: z.boolean(), reason: z.string().nullable(), hostKey: hostKeySchema.nullable() });

/**
 * What `memory.onChange` streams: first `ready` once the server is listening to every source (the
 * journal and the watchers of the workspace's roots), then one `change` per change. A client loads
 * (or reloads, after a reconnect) what it shows when it sees `ready`, so nothing falls between.
 */
export const changeStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  memoryChangeEventSchema.extend({ type: z.literal('change') }),
]);
export type ChangeStreamEvent = z.infer<typeof changeStreamEventSchema>;

/**
 * What `memory.onMetaChange` streams: `ready` once the server is listening, then `usage` when pins
 * or uses changed (by any process: `cairn pin`, agents' views) and `seen` when the person opened a
 * file (in any window): the list, or the badges, are then asked for again.
 */
export const metaChangeEventSchema = z.object({ type: z.enum(['ready', 'usage', 'seen']) });
export type MetaChangeEvent = z.infer<typeof metaChangeEventSchema>;

/**
 * A file with a change the person has not seen (issue 20): the newest change to it by an agent or
 * outside Cairn since they last opened it in this view, from the version history; `at` its time.
 */
export const fileBadgeSchema = z.object({ scope: z.enum(SCOPES), path: z.string(), badge: badgeSchema, at: z.string() });

/** One version of a memory file in the history (issue 18). */
export const versionSchema = z.object({
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
export const versionTextSchema = z.object({
  version: versionSchema,
  before: z.string().nullable(),
  after: z.string().nullable(),
  beforeKnown: z.boolean(),
  afterKnown: z.boolean(),
});

/** The outcome of an undo: done, or what conflicts (nothing was changed then). */
export const undoResultSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), message: z.string(), paths: z.array(z.string()) }),
  z.object({ status: z.literal('conflict'), kind: z.enum(['changed', 'deleted', 'exists']), path: z.string(), message: z.string() }),
  z.object({ status: z.literal('error'), message: z.string() }),
]);

/**
 * What waits in the inbox for a person (issue 19). `kind` `memory`: a memory proposed from an
 * agent's session. `kind` `change`: an agent's write to a scope under review (review mode), with
 * the file's text before and after (null: no file then); its candidate fields are empty (`text` is
 * a line saying what it does, `target` the file it writes, no category, confidence or evidence).
 */
export const inboxItemSchema = z.object({
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
});
export type InboxItemView = z.infer<typeof inboxItemSchema>;

/**
 * A file of the inbox Cairn cannot read as an item (not JSON, not an item's shape, not a regular
 * file, too large, misnamed): listed so that the person sees it, never hidden, never changed by
 * Cairn. `file` is its place on this machine; `problem` says what is wrong (never its content).
 */
export const damagedInboxItemSchema = z.object({ id: z.string(), file: z.string(), problem: z.string(), createdAt: z.string().nullable() });
export type DamagedInboxItemView = z.infer<typeof damagedInboxItemSchema>;

/** One harvest run of a session, as a workspace's status records it. */
export const harvestRunSchema = z.object({
  at: z.string(),
  agent: z.enum(['claude', 'codex', 'copilot', 'gemini']),
  sessionId: z.string(),
  outcome: z.enum(['succeeded', 'nothing-found', 'failed']),
  proposed: z.number().int(),
  /** Candidates the checks refused, by reason (only reasons that refused some). */
  skipped: z.record(z.string(), z.number().int()),
  /** What the run sent to a model (calls, characters, and tokens when the API reported them); absent before it was recorded. */
  cost: z.object({ calls: z.number().int(), chars: z.number().int(), inputTokens: z.number().int().nullable(), outputTokens: z.number().int().nullable() }).optional(),
  /** Candidates that passed past the most a run proposes, kept in the inbox as held. */
  heldBack: z.number().int().optional(),
  /** The run stopped at its budget: the chunks of the session left for the next run, and the budget. */
  stopped: z.object({ chunksLeft: z.number().int(), budget: z.object({ calls: z.number().int(), chars: z.number().int() }) }).optional(),
});

/**
 * Where one workspace's harvest stands (issue 19), as its status line shows it: off; idle; waiting
 * (sessions queued); harvesting (a session, chunk i of n); the last run's outcome; a failure with
 * its reason and when it is retried.
 */
export const harvestStatusSchema = z.object({
  workspaceId: z.string(),
  enabled: z.boolean(),
  state: z.enum(['off', 'idle', 'waiting', 'harvesting', 'failed']),
  /** Sessions queued for this workspace, the one running included. */
  queued: z.number().int(),
  current: z.object({ agent: z.enum(['claude', 'codex', 'copilot', 'gemini']), sessionId: z.string(), chunk: z.number().int(), chunks: z.number().int() }).nullable(),
  lastRun: harvestRunSchema.nullable(),
  /** The last run that proposed something, kept when a later run proposed nothing. */
  lastProposing: harvestRunSchema.nullable().default(null),
  failure: z.object({ message: z.string(), attempts: z.number().int(), retryAt: z.string().nullable() }).nullable(),
});
export type HarvestStatus = z.infer<typeof harvestStatusSchema>;

/** How to connect one agent to Cairn: what `cairn setup <agent>` does, as lines a person can copy. */
export const agentGuideSchema = z.object({
  agent: z.enum(['claude', 'codex', 'cursor', 'gemini', 'copilot']),
  name: z.string(),
  /** The `cairn setup` line that writes the configuration. */
  command: z.string(),
  /** What it merges into each file (absent without a local checkout to set up). */
  files: z.array(z.object({ path: z.string(), snippet: z.string() })),
  alternative: z.object({ title: z.string(), line: z.string() }).nullable(),
  nextSteps: z.string(),
});

/** One content-search hit: the file, a line of it, and where the matching words are in that line. */
export const searchHitSchema = z.object({
  scope: z.enum(SCOPES),
  path: z.string(),
  line: z.string(),
  matches: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

/** One part of what agents receive: its text as rendered, its size and its budget, in UTF-8 bytes. */
export const contextPartSchema = z.object({ text: z.string(), bytes: z.number().int(), budget: z.number().int() });

export const contract = {
  memory: {
    list: oc
      .input(z.object({ workspaceId: workspaceRef }))
      .output(z.object({ files: z.array(memoryFileSchema), scopes: z.array(scopeStatusSchema) })),
    /** A file's content, for the editor: the person opens it, so its badge is cleared (not a use). */
    read: oc.input(z.object({ workspaceId: workspaceRef, path: memoryPath })).output(z.object({ content: z.string(), sha256 })),
    /** The view's files with changes by agents or outside Cairn since the person last opened them. */
    badges: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ badges: z.array(fileBadgeSchema) })),
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
     * Memory content searched as agents' memory_search ranks it (issue 20): the files best first,
     * each with the line shown for it and the matching words' [start, end) in that line.
     */
    search: oc
      .input(z.object({ workspaceId: workspaceRef, query: z.string().max(500), limit: z.number().int().min(1).max(100).default(50) }))
      .output(z.object({ hits: z.array(searchHitSchema) })),
  },
  context: {
    /**
     * What agents receive without asking (issue 20): the memory index and the hot set exactly as
     * `cairn context` renders them, each with its size and its budget in bytes.
     */
    preview: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ index: contextPartSchema, hot: contextPartSchema })),
  },
  history: {
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
    /** Writes back what a version left (a delete's: what it took away) as the person's change. */
    /** Restores a file to a version: a new change of the person's, whose id `versionId` is (null: the history could not record it). */
    restore: oc
      .input(z.object({ workspaceId: workspaceRef, path: memoryPath, id: z.string().min(1).max(64) }))
      .output(z.discriminatedUnion('status', [z.object({ status: z.literal('ok'), message: z.string(), versionId: z.string().nullable() }), z.object({ status: z.literal('error'), message: z.string() })])),
  },
  inbox: {
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
    /** Drops a proposal; its text is not proposed again for 90 days. */
    reject: oc.input(z.object({ id: z.string().min(1).max(64) })).output(changeResultSchema),
    /**
     * Review mode of the view's three scopes (issue 19): each one's key in the setting `reviewScopes`
     * (null when the view has no such scope, e.g. no project) and whether it is on.
     */
    reviewScopes: oc
      .input(z.object({ workspaceId: workspaceRef }))
      .output(z.array(z.object({ scope: z.enum(SCOPES), key: z.string().nullable(), on: z.boolean() }))),
    /** Drops every pending proposal from one agent session. */
    rejectSession: oc.input(z.object({ sessionId: z.string().min(1).max(200) })).output(changeResultSchema),
    /** Something in the inbox changed (by any process): the pending count, then one event per change. */
    onChange: oc.output(eventIterator(z.object({ pending: z.number().int() }))),
  },
  harvest: {
    status: oc.input(z.object({ workspaceId: workspaceRef })).output(harvestStatusSchema),
    /** Queues the workspace's recent sessions (Claude Code and Codex) and harvests them now. */
    now: oc.input(z.object({ workspaceId: workspaceRef })).output(changeResultSchema),
    /** Retries a failed harvest now instead of at its retry time. */
    retry: oc.input(z.object({ workspaceId: workspaceRef })).output(changeResultSchema),
    /** The workspace's status, then again each time it changes. */
    onStatus: oc.input(z.object({ workspaceId: workspaceRef })).output(eventIterator(harvestStatusSchema)),
  },
  /** Consolidation of one scope root (issue 22, `cairn sweep`): nothing is written until apply. */
  sweep: {
    /** Proposes (replacing the scope's older proposal), or says there is nothing to consolidate. */
    propose: oc
      .input(z.object({ workspaceId: workspaceRef, scope: z.enum(SCOPES), days: z.number().int().min(1).max(3650).optional() }))
      .output(
        z.discriminatedUnion('status', [
          // `cost`: what asking a model sent (absent when none was asked; a proposal keeps it too).
          z.object({ status: z.literal('proposed'), proposal: sweepProposalSchema, summary: z.string(), cost: sweepCostSchema.optional() }),
          // `refused`: the extractor's changes the checks refused, with why (a model's answer, every change refused, is 'nothing' too).
          z.object({ status: z.literal('nothing'), since: sweepSinceSchema, extractorCalled: z.boolean(), summary: z.string(), refused: z.array(sweepRefusalSchema), cost: sweepCostSchema.optional() }),
          z.object({ status: z.literal('error'), message: z.string() }),
        ]),
      ),
    /** The proposals of the workspace's scope roots, newest first (every state). */
    list: oc.input(z.object({ workspaceId: workspaceRef })).output(z.object({ proposals: z.array(sweepProposalSchema) })),
    get: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(sweepProposalSchema),
    /** Applies all its changes, or those about `only`, as one undoable change; moved-on files are skipped (result.skipped). */
    apply: oc
      .input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64), only: z.array(memoryPath).max(200).optional() }))
      .output(z.discriminatedUnion('status', [z.object({ status: z.literal('ok'), proposal: sweepProposalSchema }), z.object({ status: z.literal('error'), message: z.string() })])),
    discard: oc.input(z.object({ workspaceId: workspaceRef, id: z.string().min(1).max(64) })).output(changeResultSchema),
  },
  /**
   * Other agents' files (issue 23): what Claude Code, Codex, Cursor, Copilot and Gemini CLI read, in
   * the user's home and the workspace's checkout. Not Cairn memory: never indexed, injected or
   * written by agents through Cairn. Ids are display paths (common/agent-files/schema.ts).
   */
  agentFiles: {
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
  },
  workspaces: {
    list: oc.output(z.array(workspaceSchema)),
    add: oc
      .input(
        z.object({
          name: z.string().min(1).max(100),
          path: z.string().min(1).max(4096),
          /** `[USER@]HOST[:PORT]` when the checkout is remote (then `path` is absolute on that host). */
          ssh: z.string().max(300).nullable().optional(),
          /** A private key file for that host (default: ssh-agent, ~/.ssh/config, ~/.ssh/id_*). */
          identity: z.string().max(4096).nullable().optional(),
        }),
      )
      .output(workspaceSchema),
    /** Unregisters a workspace; its checkout and the project memory in it are untouched. */
    remove: oc.input(z.object({ id: z.string() })).output(changeResultSchema),
    /** Gives a workspace another display name; its id, folder and memory stay. */
    rename: oc.input(z.object({ id: z.string(), name: z.string().max(1000) })).output(changeResultSchema),
    /** Whether it can be used now; `reason` says why not (for a local workspace, a sentence for a person). */
    status: oc.input(z.object({ id: z.string() })).output(workspaceStatusSchema),
    /** Records the host key of an SSH workspace's host, only if it presents exactly `fingerprint`. */
    trust: oc.input(z.object({ id: z.string(), fingerprint: z.string().min(1).max(200) })).output(changeResultSchema),
  },
  setup: {
    guide: oc.input(z.object({ workspaceId: workspaceRef })).output(z.array(agentGuideSchema)),
  },
  settings: {
    get: oc.output(settingsSchema),
    set: oc.input(settingsPatchSchema).output(settingsSchema),
  },
  /** Cairn's own files that did not parse and were set aside; removed only when the person says so. */
  setAside: {
    list: oc.output(z.object({ files: z.array(setAsideFileSchema) })),
    remove: oc.input(z.object({ aside: z.string().min(1).max(4096) })).output(changeResultSchema),
  },
};

export type Contract = typeof contract;
