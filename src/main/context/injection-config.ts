/**
 * The registry's file, `<home>/config.json` (workspaces/registry.ts owns it and writes it), read
 * straight, without the registry: `cairn context`, which agents' hooks run before every prompt,
 * and `cairn mcp`'s early answer must not load zod. They read it once per call, and take the
 * injection settings in force for a workspace from it (common/context/injection.ts: injectionFor).
 *
 * A missing or unreadable file, or one that is not JSON, gives the defaults; a field that is not
 * valid gives its default (or the global value, in an override), whatever the others hold.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The registry's file under the home (WorkspaceRegistry.file). */
const CONFIG_FILE = 'config.json';

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
