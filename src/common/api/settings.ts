/**
 * The app's settings, as stored in the workspace registry and carried by the API. Apart from the
 * contract so the registry (loaded by every `cairn` command) does not load oRPC with it.
 */
import { z } from 'zod';

/** The extractor backends a person can choose for the harvest's jobs (issue 19). */
export const HARVEST_EXTRACTORS = ['rules', 'command', 'http'] as const;

export const settingsSchema = z.object({
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  /** Show the rendered Markdown preview by default in the editor. */
  previewByDefault: z.boolean().default(false),
  /**
   * Workspaces whose agents' sessions are harvested into the inbox by the agents' hooks (issue 19):
   * off until a person turns it on.
   */
  harvestWorkspaces: z.array(z.string().min(1).max(64)).max(1000).default([]),
  /**
   * What proposes candidates from a session (issue 19): `rules` (offline, a person's explicit
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
  /** Candidates an extractor is less sure of than this are not proposed. */
  harvestMinConfidence: z.number().min(0).max(1).default(0.6),
  /**
   * Review mode (issue 19), per scope root: agents' writes to these become proposals in the inbox
   * instead of changing memory. Keys: `global`, `project:<projectId>`, `workspace:<workspaceId>`.
   */
  reviewScopes: z.array(z.string().min(1).max(100)).max(1000).default([]),
});

type PatchShape<T> = { [K in keyof T]: T[K] extends z.ZodDefault<infer Inner> ? z.ZodOptional<Inner> : never };

/**
 * A change to some settings: the fields given, nothing else. Not `settingsSchema.partial()`: its
 * fields keep their defaults, so a patch of one field would reset every other to its default.
 */
export const settingsPatchSchema = z.object(
  Object.fromEntries(Object.entries(settingsSchema.shape).map(([key, field]) => [key, field.unwrap().optional()])) as PatchShape<typeof settingsSchema.shape>,
);
