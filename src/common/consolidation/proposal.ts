/**
 * A consolidation proposal (`cairn consolidate`), as it is stored under `<home>/sweeps/` and
 * sent over the API: the changes to one scope root, each with its reason, the files it touches,
 * the sha256 each file had when proposed and its usage, what changed in the scope since the
 * last applied consolidation, and what asking a model for it cost. Pure: schemas and the summary
 * text, shared by main and renderer.
 *
 * Invariant: a change is applied only while each of its files still has the sha256 recorded here
 * (a file marked `created` only while it does not exist); a file's `content` is what it becomes
 * (null: deleted; absent: left as it is). A rename is the old file deleted and the new one created
 * with its bytes, in one change (so one undo takes both back).
 */
import { z } from 'zod';
import { SCOPES } from '../memory/constants';

const CONSOLIDATION_CHANGE_KINDS = ['delete', 'merge', 'rewrite', 'rename'] as const;
type ConsolidationChangeKind = (typeof CONSOLIDATION_CHANGE_KINDS)[number];
const CONSOLIDATION_STATES = ['open', 'applied', 'discarded', 'replaced', 'expired'] as const;

/** Default days without use (and without a write) after which a file is proposed for deletion. */
export const CONSOLIDATION_DEFAULT_DAYS = 60;
/** The most changes one proposal holds. */
export const CONSOLIDATION_MAX_CHANGES = 50;
/** A proposal not applied within this is expired. */
export const CONSOLIDATION_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;
/** A proposal's id: also the history cause's tail (CONSOLIDATION_CAUSE), so [A-Za-z0-9_-] only. */
export const CONSOLIDATION_ID_RE = /^[0-9a-z]{8,12}-[0-9a-f]{8}$/;

/**
 * The history cause of an applied proposal is this and the proposal's id. It keeps the command's
 * older name: existing homes' history holds it, and the last consolidation of a scope (the baseline
 * of what changed since) is found by it.
 */
export const CONSOLIDATION_CAUSE = 'sweep:';

const isoTime = z.string().max(40);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const consolidationUsageSchema = z.object({
  pinned: z.boolean(),
  accessCount: z.number().int().nonnegative(),
  lastAccessedAt: isoTime.nullable(),
  lastWriteAt: isoTime.nullable(),
});
export type ConsolidationUsage = z.infer<typeof consolidationUsageSchema>;

const consolidationFileSchema = z.object({
  path: z.string(),
  /** The file's sha256 at proposal time; for a file the change creates, the sha256 of the content it gets. */
  sha256,
  /** The change creates this file (a rename's new name, a merge into a new file): it must not exist when applied. */
  created: z.boolean().optional(),
  usage: consolidationUsageSchema,
  /** What it becomes: new text, null (deleted), or absent (left as it is: a merge's kept file with nothing to add). */
  content: z.string().nullable().optional(),
});
export type ConsolidationFile = z.infer<typeof consolidationFileSchema>;

const consolidationChangeSchema = z.object({
  kind: z.enum(CONSOLIDATION_CHANGE_KINDS),
  /** The file the change is about: the deleted one, a merge's kept one, the rewritten one, a rename's old name (its new one is the file marked `created`). */
  path: z.string(),
  reason: z.string(),
  files: z.array(consolidationFileSchema),
});
export type ConsolidationChange = z.infer<typeof consolidationChangeSchema>;

/** One file changed in the scope since the last applied consolidation (its latest version). */
export const consolidationSinceSchema = z.object({
  /** The last applied consolidation: its id and when; null when there has been none. */
  last: z.object({ id: z.string(), at: isoTime }).nullable(),
  changed: z.array(z.object({ path: z.string(), op: z.string(), actor: z.string(), at: isoTime })),
  /** How many files changed in all (`changed` holds at most the newest 50). */
  total: z.number().int().nonnegative(),
});
export type ConsolidationSince = z.infer<typeof consolidationSinceSchema>;

const consolidationResultSchema = z.object({
  at: isoTime,
  /** The history batch of the applied changes (`cairn undo <batch>`), null when nothing was written. */
  batch: z.string().nullable(),
  applied: z.array(z.string()),
  skipped: z.array(z.object({ path: z.string(), file: z.string(), kind: z.enum(['changed', 'deleted', 'exists']), message: z.string() })),
});
export type ConsolidationResult = z.infer<typeof consolidationResultSchema>;

/**
 * What proposing sent to a model: its calls, the characters of its prompts, and the tokens when the
 * API reported them for every call (the harvest's ModelCost, main/harvest/harvest-run.ts). Absent
 * when no model was asked (the rules, an agent's answer over MCP).
 */
export const consolidationCostSchema = z.object({
  calls: z.number().int().nonnegative(),
  chars: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative().nullable(),
  outputTokens: z.number().int().nonnegative().nullable(),
});
export type ConsolidationCost = z.infer<typeof consolidationCostSchema>;

/** A change an extractor answered that the checks refused: what it was, in a line, and why. */
export const consolidationRefusalSchema = z.object({ change: z.string(), reason: z.string() });
export type ConsolidationRefusal = z.infer<typeof consolidationRefusalSchema>;

export const consolidationProposalSchema = z.object({
  v: z.literal(1),
  id: z.string().regex(CONSOLIDATION_ID_RE),
  scope: z.enum(SCOPES),
  /** The scope root's identity (`global`, `project:<id>`, `workspace:<id>`). */
  owner: z.string(),
  workspaceId: z.string().nullable(),
  extractor: z.string(),
  days: z.number().int().positive(),
  createdAt: isoTime,
  expiresAt: isoTime,
  state: z.enum(CONSOLIDATION_STATES),
  /** The proposal that replaced this one. */
  replacedBy: z.string().nullable(),
  changes: z.array(consolidationChangeSchema).max(CONSOLIDATION_MAX_CHANGES),
  /** Changes that qualified past the CONSOLIDATION_MAX_CHANGES cap (a next consolidation proposes them). */
  more: z.number().int().nonnegative().default(0),
  since: consolidationSinceSchema,
  result: consolidationResultSchema.nullable(),
  /** The extractor's changes the host's checks refused, each with why (a model's answer, mostly). */
  refused: z.array(consolidationRefusalSchema).optional(),
  /** What asking the model for it cost; absent when no model was asked. */
  cost: consolidationCostSchema.optional(),
});
export type ConsolidationProposal = z.infer<typeof consolidationProposalSchema>;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "4 deletions, 1 merge, 2 rewrites, 1 rename" (kinds with none left out); "nothing to consolidate". */
export function consolidationSummary(changes: ReadonlyArray<Pick<ConsolidationChange, 'kind'>>): string {
  const count = (kind: ConsolidationChangeKind) => changes.filter((c) => c.kind === kind).length;
  const parts = [
    [count('delete'), 'deletion', 'deletions'],
    [count('merge'), 'merge', 'merges'],
    [count('rewrite'), 'rewrite', 'rewrites'],
    [count('rename'), 'rename', 'renames'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, one, many]) => plural(n, one, many));
  return said.length === 0 ? 'nothing to consolidate' : said.join(', ');
}
