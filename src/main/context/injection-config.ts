/**
 * The injection settings in force for a workspace (common/context/injection.ts), read straight from
 * the registry's file, `<home>/config.json` (./registry.ts owns it and writes them through the
 * settings), without the registry: `cairn context`, which agents' hooks run before every prompt,
 * and `cairn mcp`'s early answer must not load zod. One small file read and JSON.parse per call.
 *
 * A missing or unreadable file, or one that is not JSON, gives the defaults; a field that is not
 * valid gives its default (or the global value, in an override), whatever the others hold.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { injectionFor, type InjectionSettings } from '../../common/context/injection';

/** The registry's file under the home (WorkspaceRegistry.file). */
const CONFIG_FILE = 'config.json';

export function readInjection(home: string, workspaceId: string | null): InjectionSettings {
  return injectionFor(readConfigFile(home).settings, workspaceId);
}

/**
 * The registry's file as it is stored, read without the registry (and so without zod): its
 * top-level members, unchecked; none when it is missing, unreadable, not JSON or not an object.
 * Also `cairn mcp`'s early answer's reader of the registered workspaces (cli/mcp-command.ts).
 */
export function readConfigFile(home: string): Record<string, unknown> {
  let config: unknown = null;
  try {
    config = JSON.parse(fs.readFileSync(path.join(home, CONFIG_FILE), 'utf8'));
  } catch {
    // No settings yet (or unreadable): nothing stored.
  }
  return typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
}
