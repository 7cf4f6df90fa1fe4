/**
 * Injection settings: how much memory agents are given without a tool call. Global
 * settings, and per workspace an override of any of them (a field the override leaves out is the
 * global one). Stored in the registry's settings (`<home>/config.json`: `injection` and
 * `injectionByWorkspace`, keyed by workspace id); the API's schema is in common/api/settings.ts.
 *
 * Invariants:
 * - The defaults are the constants the context was built with before these settings existed, so
 *   a home that never set them gives the same bytes (tests/cli/context-goldens.test.ts).
 * - Pure and without zod: `cairn context`, which agents' hooks run before every prompt, reads the
 *   stored value with injectionFor, which takes each field that is valid and the default (or the
 *   global value) for any other, so a hand-edited config can narrow nothing but that field.
 */
import { HOT_TOTAL_BYTES, INDEX_MAX_BYTES, RELEVANT_MAX_BYTES, RELEVANT_MAX_FILES } from '../memory/constants';

/**
 * What each prompt gets: `relevant`, the files that best match it; `recent_only`, the most
 * recently used or changed files whatever it says; `off`, nothing (memory_search still works).
 */
export const RELEVANT_MODES = ['relevant', 'recent_only', 'off'] as const;
export type RelevantMode = (typeof RELEVANT_MODES)[number];

export interface InjectionSettings {
  /** The memories given with each prompt. */
  readonly relevant: RelevantMode;
  /** Their budget: the whole `<relevant_memories>` block in bytes, and how many files. */
  readonly relevantMaxBytes: number;
  readonly relevantMaxFiles: number;
  /** The hot set's budget in bytes (the whole `<hot_memories>` block); 0 leaves the hot set out. */
  readonly hotSetMaxBytes: number;
  /** With `relevant`, when no clean file matches a prompt: the most recent clean ones instead of nothing. */
  readonly recentWhenNoMatch: boolean;
}

export type InjectionOverride = Partial<InjectionSettings>;

export const DEFAULT_INJECTION: InjectionSettings = Object.freeze({
  relevant: 'relevant',
  relevantMaxBytes: RELEVANT_MAX_BYTES,
  relevantMaxFiles: RELEVANT_MAX_FILES,
  hotSetMaxBytes: HOT_TOTAL_BYTES,
  recentWhenNoMatch: false,
});

/** The range of each number (whole numbers only). */
export const INJECTION_LIMITS = {
  relevantMaxBytes: { min: 512, max: 64 * 1024 },
  relevantMaxFiles: { min: 1, max: 50 },
  hotSetMaxBytes: { min: 0, max: 256 * 1024 },
} as const satisfies Record<'relevantMaxBytes' | 'relevantMaxFiles' | 'hotSetMaxBytes', { min: number; max: number }>;

/**
 * The most UTF-8 bytes of context any settings give at once (a session's start: the index, the hot
 * set and a prompt's memories, each at its largest budget), with room for what the budgets do not
 * count: the index's notes (scopes unavailable or over the cap, names withheld) and the blank lines
 * between the parts. What a host's answer to the prompt hook can carry is bounded by it.
 */
export const MAX_CONTEXT_BYTES = INDEX_MAX_BYTES + INJECTION_LIMITS.hotSetMaxBytes.max + INJECTION_LIMITS.relevantMaxBytes.max + 16 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `value` is a valid value of field `key`. */
export function validInjectionValue<K extends keyof InjectionSettings>(key: K, value: unknown): value is InjectionSettings[K] {
  switch (key) {
    case 'relevant':
      return typeof value === 'string' && (RELEVANT_MODES as readonly string[]).includes(value);
    case 'recentWhenNoMatch':
      return typeof value === 'boolean';
    default: {
      const limits = INJECTION_LIMITS[key as keyof typeof INJECTION_LIMITS];
      return typeof value === 'number' && Number.isInteger(value) && value >= limits.min && value <= limits.max;
    }
  }
}

const KEYS = Object.keys(DEFAULT_INJECTION) as Array<keyof InjectionSettings>;

/** The valid fields of a stored override (anything else is dropped). */
export function readOverride(value: unknown): InjectionOverride {
  if (!isObject(value)) return {};
  const out: Record<string, unknown> = {};
  for (const key of KEYS) if (validInjectionValue(key, value[key])) out[key] = value[key];
  return out as InjectionOverride;
}

/**
 * The settings in force for `workspaceId` (null: no workspace), from the stored settings object
 * (the registry's `settings`, parsed or raw): the global ones over the defaults, then the
 * workspace's override over those.
 */
export function injectionFor(settings: unknown, workspaceId: string | null): InjectionSettings {
  const stored = isObject(settings) ? settings : {};
  const byWorkspace = isObject(stored.injectionByWorkspace) ? stored.injectionByWorkspace : {};
  const override = workspaceId !== null && Object.hasOwn(byWorkspace, workspaceId) ? readOverride(byWorkspace[workspaceId]) : {};
  return { ...DEFAULT_INJECTION, ...readOverride(stored.injection), ...override };
}
