/**
 * The extractor the settings name (issue 19). Interim: `rules` only, until the model backends
 * (extractors/) are wired here.
 */
import type { Settings } from '../workspaces/registry';
import type { Extractor } from './harvest-run';
import { rulesExtractor } from './rules-extractor';

export const EXTRACTOR_NAMES: readonly string[] = ['rules', 'command', 'http'];

export function extractorFor(settings: Pick<Settings, 'harvestExtractor'>): Extractor {
  if (settings.harvestExtractor === 'rules') return rulesExtractor;
  throw new Error(`the ${settings.harvestExtractor} extractor is not available yet`);
}
