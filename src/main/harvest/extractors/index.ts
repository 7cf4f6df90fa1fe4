/**
 * The harvest's extractor from the settings (issue 19): `harvestExtractor` picks the backend,
 * `rules` (offline), `command` (harvestCommand) or `http` (harvestHttp). A backend chosen but not
 * configured is an error that says which setting to fill in, never a silent fall back to another
 * backend (a person who chose a model would otherwise get the rules' proposals unknowingly).
 *
 * The `agent` backend needs no setting (the running agent proposes through MCP) and is not here.
 */
import type { settingsSchema } from '../../../common/api/settings';
import type { Extractor } from '../harvest-run';
import { rulesExtractor } from '../rules-extractor';
import type { z } from 'zod';
import { commandExtractor, type CommandOptions } from './command-extractor';
import { httpExtractor, type HttpOptions } from './http-extractor';
import type { ModelExtractorOptions } from './model-extractor';

export { HARVEST_CHILD_ENV } from './command-extractor';
export { HARVEST_PROMPT_MARKER } from './prompt';

/** The settings the choice reads. */
export type ExtractorSettings = Pick<z.infer<typeof settingsSchema>, 'harvestExtractor' | 'harvestCommand' | 'harvestHttp'>;

/** What the backends may be given besides the settings: clocks and timeouts (tests), chunk budget, reports. */
export type ExtractorOptions = Omit<CommandOptions, 'env'> & Omit<HttpOptions, 'env'> & ModelExtractorOptions;


/**
 * The extractor the settings choose. `env` is the environment the command inherits and the http
 * backend reads its key from (at each call, never kept).
 */
export function extractorFor(settings: ExtractorSettings, env: NodeJS.ProcessEnv = process.env, options: ExtractorOptions = {}): Extractor {
  switch (settings.harvestExtractor) {
    case 'rules':
      return rulesExtractor;
    case 'command':
      if (settings.harvestCommand.trim() === '') {
        throw new Error('The harvest extractor is "command" but no command is set: set harvestCommand (for example `claude -p --output-format json` or `codex exec --skip-git-repo-check -`), or choose the "rules" extractor.');
      }
      return commandExtractor(settings.harvestCommand, { ...options, env });
    case 'http':
      if (settings.harvestHttp === null) {
        throw new Error('The harvest extractor is "http" but no model is set: set harvestHttp ({ api: "anthropic" or "openai", url, model, keyEnv: the environment variable holding the API key }), or choose the "rules" extractor.');
      }
      return httpExtractor(settings.harvestHttp, { ...options, env });
  }
}
