/**
 * The consolidation's extractor from the settings: `consolidationExtractor` picks the backend, `rules`
 * (offline) or a model through `command` / `http`, configured by the harvest's own settings
 * (harvestCommand, harvestHttp) and run by the harvest's runner (harvest/extractors/index.ts
 * modelBackendFor). `cairn consolidate --extractor` overrides the setting.
 *
 * Invariant: a backend chosen but not configured is an error saying which setting to fill in,
 * never a silent fall back to the rules (a person who chose a model would otherwise get the rules'
 * proposal unknowingly).
 */
import type { z } from 'zod';
import { CONSOLIDATION_EXTRACTORS, type settingsSchema } from '../../common/api/settings';
import { MemoryToolError } from '../../common/memory/errors';
import { modelBackendFor } from '../harvest/extractors';
import type { StartTimer } from '../harvest/extractors/model-extractor';
import type { ConsolidationExtractor } from './extractor';
import { modelConsolidationExtractor } from './model-consolidation';
import { rulesExtractor } from './rules-consolidation';

type ConsolidationExtractorName = (typeof CONSOLIDATION_EXTRACTORS)[number];

/** The settings the choice reads. */
export type ConsolidationSettings = Pick<z.infer<typeof settingsSchema>, 'consolidationExtractor' | 'harvestCommand' | 'harvestHttp'>;

export interface ConsolidationBackendOptions {
  /** Overrides settings.consolidationExtractor (`cairn consolidate --extractor`). */
  readonly name?: string | undefined;
  /** The environment the command inherits and the http backend reads its key from (at each call). */
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  readonly startTimer?: StartTimer;
}

/** The extractor the settings (or `name`) choose; a MemoryToolError a person can act on when it cannot be. */
export function consolidationExtractorFor(settings: ConsolidationSettings, options: ConsolidationBackendOptions = {}): ConsolidationExtractor {
  const name = options.name ?? settings.consolidationExtractor;
  if (!(CONSOLIDATION_EXTRACTORS as readonly string[]).includes(name)) throw new MemoryToolError(`There is no consolidation extractor ${JSON.stringify(name)}; choose one of ${CONSOLIDATION_EXTRACTORS.join(', ')}.`);
  const choice = name as ConsolidationExtractorName;
  if (choice === 'rules') return rulesExtractor;
  try {
    return modelConsolidationExtractor(choice, modelBackendFor(choice, settings, 'consolidation', options.env ?? process.env, { ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.startTimer ? { startTimer: options.startTimer } : {}) }));
  } catch (err) {
    throw err instanceof Error ? new MemoryToolError(err.message) : err;
  }
}
