/**
 * The app's settings, as stored in the workspace registry and carried by the API. Apart from the
 * contract so the registry (loaded by every `cairn` command) does not load oRPC with it.
 */
import { z } from 'zod';
import { DEFAULT_INJECTION, INJECTION_LIMITS, RELEVANT_MODES } from '../context/injection';

/** Injection settings (common/context/injection.ts, whose injectionFor reads them without zod). */
const injectionFields = {
  relevant: z.enum(RELEVANT_MODES),
  relevantMaxBytes: z.number().int().min(INJECTION_LIMITS.relevantMaxBytes.min).max(INJECTION_LIMITS.relevantMaxBytes.max),
  relevantMaxFiles: z.number().int().min(INJECTION_LIMITS.relevantMaxFiles.min).max(INJECTION_LIMITS.relevantMaxFiles.max),
  hotSetMaxBytes: z.number().int().min(INJECTION_LIMITS.hotSetMaxBytes.min).max(INJECTION_LIMITS.hotSetMaxBytes.max),
  recentWhenNoMatch: z.boolean(),
};
const injectionSettingsSchema = z.object({
  relevant: injectionFields.relevant.default(DEFAULT_INJECTION.relevant),
  relevantMaxBytes: injectionFields.relevantMaxBytes.default(DEFAULT_INJECTION.relevantMaxBytes),
  relevantMaxFiles: injectionFields.relevantMaxFiles.default(DEFAULT_INJECTION.relevantMaxFiles),
  hotSetMaxBytes: injectionFields.hotSetMaxBytes.default(DEFAULT_INJECTION.hotSetMaxBytes),
  recentWhenNoMatch: injectionFields.recentWhenNoMatch.default(DEFAULT_INJECTION.recentWhenNoMatch),
});
/** A workspace's override: the fields it sets; the others are the global ones. */
export const injectionOverrideSchema = z.object(injectionFields).partial();

/** One harvest run's budget by default: about 20 chunks of a long session (a chunk is up to 60,000 characters). */
const DEFAULT_HARVEST_BUDGET = { calls: 20, chars: 1_500_000 } as const;

/** The extractor backends a person can choose for the harvest's jobs. */
export const HARVEST_EXTRACTORS = ['rules', 'command', 'http'] as const;

/** The extractor backends a person can choose for consolidation: the harvest's, with the same model configuration. */
export const CONSOLIDATION_EXTRACTORS = HARVEST_EXTRACTORS;

export const settingsSchema = z.object({
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  /** Show the rendered Markdown preview by default in the editor. */
  previewByDefault: z.boolean().default(false),
  /**
   * Workspaces whose agents' sessions are harvested into the inbox by the agents' hooks:
   * off until a person turns it on.
   */
  harvestWorkspaces: z.array(z.string().min(1).max(64)).max(1000).default([]),
  /**
   * What proposes candidates from a session: `rules` (offline, a person's explicit
   * "remember that...", "always...", "we use X, not Y"), `command` (harvestCommand) or `http`
   * (harvestHttp). The `agent` backend needs no setting: the running agent proposes through MCP.
   */
  harvestExtractor: z.enum(HARVEST_EXTRACTORS).default('rules'),
  /** The command the `command` backend runs (through /bin/sh): the prompt on its stdin, JSON on its stdout. */
  harvestCommand: z.string().max(2000).default(''),
  /** The model the `http` backend asks; the key is read from the environment variable `keyEnv`, never stored. */
  harvestHttp: z
    .object({
      api: z.enum(['anthropic', 'openai']),
      /** Base URL: https://api.anthropic.com, or an OpenAI-compatible server's (…/v1). */
      url: z.string().url().max(2000),
      model: z.string().min(1).max(200),
      keyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/),
    })
    .nullable()
    .default(null),
  /**
   * What proposes a consolidation (`cairn consolidate`): `rules` (offline: unused files, files
   * saying the same thing), or a model through `command` (harvestCommand) or `http` (harvestHttp),
   * the same configuration as the harvest's.
   */
  consolidationExtractor: z.enum(CONSOLIDATION_EXTRACTORS).default('rules'),
  /** Candidates an extractor is less sure of than this are not proposed. */
  harvestMinConfidence: z.number().min(0).max(1).default(0.6),
  /**
   * The most one harvest run sends to a model: calls and characters of prompt. A long session
   * reaching it is harvested on over the next runs, each from where the last stopped.
   */
  harvestBudget: z
    .object({ calls: z.number().int().min(1).max(10_000), chars: z.number().int().min(1_000).max(1_000_000_000) })
    .default({ ...DEFAULT_HARVEST_BUDGET }),
  /**
   * Review mode, per scope root: agents' writes to these become proposals in the inbox
   * instead of changing memory. Keys: `global`, `project:<projectId>`, `workspace:<workspaceId>`.
   */
  reviewScopes: z.array(z.string().min(1).max(100)).max(1000).default([]),
  /** What agents are given without a tool call: the hot set's budget, what each prompt gets. */
  injection: injectionSettingsSchema.default({ ...DEFAULT_INJECTION }),
  /** Per workspace id, the injection settings it overrides (a workspace not here uses the global ones). */
  injectionByWorkspace: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), injectionOverrideSchema)
    .refine((m) => Object.keys(m).length <= 1000, 'at most 1000 workspaces')
    .default({}),
  /**
   * Sync of the global memory through a git repository the person owns (`cairn sync`, Settings ›
   * Sync): its URL or path as they gave it; null: off. A credential in the URL is never shown.
   * `workspaces`: the ids of the workspaces whose memory syncs too (off for each by default).
   * `afterChangeSeconds`: how long after memory changes a running app, `cairn serve` or MCP session syncs.
   */
  sync: z
    .object({
      remote: z.string().trim().min(1).max(2000),
      workspaces: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)).max(1000).default([]),
      afterChangeSeconds: z.number().int().min(1).max(3600).default(30),
    })
    .nullable()
    .default(null),
});

type PatchShape<T> = { [K in keyof T]: T[K] extends z.ZodDefault<infer Inner> ? z.ZodOptional<Inner> : never };

/**
 * A change to some settings: the fields given, nothing else. Not `settingsSchema.partial()`: its
 * fields keep their defaults, so a patch of one field would reset every other to its default.
 */
export const settingsPatchSchema = z.object(
  Object.fromEntries(Object.entries(settingsSchema.shape).map(([key, field]) => [key, field.unwrap().optional()])) as PatchShape<typeof settingsSchema.shape>,
);
