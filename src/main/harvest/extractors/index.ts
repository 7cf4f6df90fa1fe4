/**
 * The harvest's extractor from the settings: `harvestExtractor` picks the backend,
 * `rules` (offline), `command` (harvestCommand) or `http` (harvestHttp). A backend chosen but not
 * configured is an error that says which setting to fill in, never a silent fall back to another
 * backend (a person who chose a model would otherwise get the rules' proposals unknowingly).
 *
 * The `agent` backend needs no setting (the running agent proposes through MCP) and is not here.
 *
 * modelBackendFor is the one place a model backend is built from the settings: the harvest here and
 * the consolidation (consolidation/consolidation-backends.ts, setting `consolidationExtractor`) both run their prompts through it.
 */
import type { settingsSchema } from '../../../common/api/settings';
import type { Extractor } from '../harvest-run';
import { rulesExtractor } from '../rules-extractor';
import type { z } from 'zod';
import { commandAsk, type CommandOptions } from './command-extractor';
import { httpAsk, type HttpOptions } from './http-extractor';
import { modelExtractor, type Ask, type ModelExtractorOptions } from './model-extractor';

/** The settings the choice reads. */
export type ExtractorSettings = Pick<z.infer<typeof settingsSchema>, 'harvestExtractor' | 'harvestCommand' | 'harvestHttp'>;

/** What the backends may be given besides the settings: clocks and timeouts (tests), chunk budget, reports. */
export type ExtractorOptions = Omit<CommandOptions, 'env'> & Omit<HttpOptions, 'env'> & ModelExtractorOptions;


/** The settings a model backend is configured by (the harvest's, reused by the consolidation). */
export type ModelSettings = Pick<z.infer<typeof settingsSchema>, 'harvestCommand' | 'harvestHttp'>;

/**
 * The runner of a model backend as the settings configure it; `role` names who asks ("harvest",
 * "consolidation") in the error when the backend chosen is not configured. `env` is the environment the
 * command inherits and the http backend reads its key from (at each call, never kept).
 */
export function modelBackendFor(choice: 'command' | 'http', settings: ModelSettings, role: string, env: NodeJS.ProcessEnv = process.env, options: Omit<CommandOptions, 'env' | 'signal'> & Omit<HttpOptions, 'env' | 'signal'> = {}): Ask {
  if (choice === 'command') {
    if (settings.harvestCommand.trim() === '') {
      throw new Error(`The ${role} extractor is "command" but no command is set: set harvestCommand (for example \`claude -p --output-format json\` or \`codex exec --skip-git-repo-check -\`), or choose the "rules" extractor.`);
    }
    return commandAsk(settings.harvestCommand, { ...options, env });
  }
  if (settings.harvestHttp === null) {
    throw new Error(`The ${role} extractor is "http" but no model is set: set harvestHttp ({ api: "anthropic" or "openai", url, model, keyEnv: the environment variable holding the API key }), or choose the "rules" extractor.`);
  }
  return httpAsk(settings.harvestHttp, { ...options, env });
}

/** The extractor the settings choose (see modelBackendFor for `env`). */
export function extractorFor(settings: ExtractorSettings, env: NodeJS.ProcessEnv = process.env, options: ExtractorOptions = {}): Extractor {
  if (settings.harvestExtractor === 'rules') return rulesExtractor;
  return modelExtractor(settings.harvestExtractor, modelBackendFor(settings.harvestExtractor, settings, 'harvest', env, options), options);
}
