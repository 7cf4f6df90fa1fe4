/**
 * The sweep's extractor from the settings: `sweepExtractor` picks the backend, `rules`
 * (offline) or a model through `command` / `http`, configured by the harvest's own settings
 * (harvestCommand, harvestHttp) and run by the harvest's runner (harvest/extractors/index.ts
 * modelBackendFor). `cairn sweep --extractor` overrides the setting.
 *
 * Invariant: a backend chosen but not configured is an error saying which setting to fill in,
 * never a silent fall back to the rules (a person who chose a model would otherwise get the rules'
 * proposal unknowingly).
 */
import type { z } from 'zod';
import { SWEEP_EXTRACTORS, type settingsSchema } from '../../common/api/settings';
import { MemoryToolError } from '../../common/memory/errors';
import { modelBackendFor } from '../harvest/extractors';
import type { StartTimer } from '../harvest/extractors/model-extractor';
import type { SweepExtractor } from './extractor';
import { modelSweepExtractor } from './model-sweep';
import { rulesExtractor } from './rules-sweep';

export type SweepExtractorName = (typeof SWEEP_EXTRACTORS)[number];

/** The settings the choice reads. */
export type SweepSettings = Pick<z.infer<typeof settingsSchema>, 'sweepExtractor' | 'harvestCommand' | 'harvestHttp'>;

export interface SweepBackendOptions {
  /** Overrides settings.sweepExtractor (`cairn sweep --extractor`). */
  readonly name?: string | undefined;
  /** The environment the command inherits and the http backend reads its key from (at each call). */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly startTimer?: StartTimer;
}

/** The extractor the settings (or `name`) choose; a MemoryToolError a person can act on when it cannot be. */
export function sweepExtractorFor(settings: SweepSettings, options: SweepBackendOptions = {}): SweepExtractor {
  const name = options.name ?? settings.sweepExtractor;
  if (!(SWEEP_EXTRACTORS as readonly string[]).includes(name)) throw new MemoryToolError(`There is no sweep extractor ${JSON.stringify(name)}; choose one of ${SWEEP_EXTRACTORS.join(', ')}.`);
  const choice = name as SweepExtractorName;
  if (choice === 'rules') return rulesExtractor;
  try {
    return modelSweepExtractor(choice, modelBackendFor(choice, settings, 'sweep', options.env ?? process.env, { ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.startTimer ? { startTimer: options.startTimer } : {}) }));
  } catch (err) {
    throw err instanceof Error ? new MemoryToolError(err.message) : err;
  }
}
