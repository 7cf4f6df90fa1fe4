/**
 * Merging Cairn into JSON configuration files: the `mcpServers` map of Claude Code's `.mcp.json`
 * and Cursor's `.cursor/mcp.json`, and the hooks of Claude Code's `.claude/settings.json`. The
 * user's other entries stay as they are; Cairn's own entries are added once, updated in place when
 * they point at another launcher, and never duplicated.
 */
import { isDeepStrictEqual } from 'node:util';
import { SetupError } from './config-file';

/** An MCP server entry as Claude Code, Cursor and Codex spell it. */
export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a JSON config whose top level must be an object; an empty file is an empty config. */
export function parseJsonConfig(text: string | null, file: string): JsonObject {
  if (text === null) return {};
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new SetupError(`${file} is not valid JSON (${(err as Error).message}); fix it or move it away and run again. It was left untouched.`);
  }
  if (!isObject(value)) throw new SetupError(`${file} must hold a JSON object at the top level; it was left untouched.`);
  return value;
}

/** The indentation the file already uses (two spaces for a new file). */
function indentOf(text: string | null): string | number {
  const match = text?.match(/^[{[][^\n]*\n([ \t]+)\S/);
  return match?.[1] ?? 2;
}

export function stringifyJsonConfig(doc: JsonObject, previous: string | null): string {
  return `${JSON.stringify(doc, null, indentOf(previous))}\n`;
}

/** Sets `mcpServers[name]`; returns what changed, or null when it already was exactly that. */
export function mergeMcpServer(doc: JsonObject, name: string, entry: McpServerEntry, file: string): string | null {
  if (doc.mcpServers === undefined) doc.mcpServers = {};
  const servers = doc.mcpServers;
  if (!isObject(servers)) throw new SetupError(`${file}: "mcpServers" is not an object; it was left untouched.`);
  const previous = servers[name];
  if (isDeepStrictEqual(previous, entry)) return null;
  servers[name] = entry;
  return previous === undefined ? `added MCP server "${name}"` : `updated MCP server "${name}" (it was ${JSON.stringify(previous)})`;
}

/** Splits a command line into words: enough of the shell to recognize Cairn's own hook. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? line.length : end;
      inWord = true;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) i++;
        word += line[i];
        i++;
      }
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

const basename = (p: string) => p.split(/[\\/]/).pop() ?? p;

/** Any hook running `cairn context --format claude-hook`, however it was written. */
export function isCairnContextHook(command: string): boolean {
  const words = shellWords(command);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  if (words.length === 0 || basename(words[0]!) !== 'cairn' || !words.includes('context')) return false;
  return words.includes('--format=claude-hook') || words.some((w, i) => w === '--format' && words[i + 1] === 'claude-hook');
}

/** A hook exactly as `cairn setup` writes it (`cairn <words>`, optionally `--home X`), whatever launcher and home. */
function isSetupWrittenHook(command: string, words: readonly string[]): boolean {
  const all = shellWords(command);
  if (all.length !== words.length + 1 && all.length !== words.length + 3) return false;
  return basename(all[0]!) === 'cairn' && words.every((w, i) => all[i + 1] === w) && (all.length === words.length + 1 || all[words.length + 1] === '--home');
}

/** Any hook running `cairn harvest --hook`, however it was written. */
export function isCairnHarvestHook(command: string): boolean {
  const words = shellWords(command);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  return words.length > 0 && basename(words[0]!) === 'cairn' && words.includes('harvest') && words.includes('--hook');
}

export const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit'] as const;
/** The events before which a session's transcript is harvested (issue 19): a compaction, its end. */
export const CLAUDE_HARVEST_EVENTS = ['PreCompact', 'SessionEnd'] as const;

/** One of Cairn's hooks: its command, the events it runs on, and how to know it in a file. */
export interface CairnHook {
  readonly command: string;
  readonly events: readonly string[];
  /** Whether a command in the file is this hook, however it was written (a person's own too). */
  readonly isIt: (command: string) => boolean;
  /** The words after `cairn` that `cairn setup` writes (to update its own hook in place). */
  readonly words: readonly string[];
}

/** The context hook (SessionStart without a matcher, so it also runs after a compaction, and UserPromptSubmit). */
export function contextHook(command: string): CairnHook {
  return { command, events: CLAUDE_HOOK_EVENTS, isIt: isCairnContextHook, words: ['context', '--format', 'claude-hook'] };
}

/** The harvest hook (PreCompact and SessionEnd): queues a harvest when it is on for the workspace. */
export function harvestHook(command: string): CairnHook {
  return { command, events: CLAUDE_HARVEST_EVENTS, isIt: isCairnHarvestHook, words: ['harvest', '--hook'] };
}

/**
 * Adds Cairn's hooks to the events of Claude Code's settings. A hook `cairn setup` wrote before with
 * another launcher or home is updated in place; one the user wrote by hand is kept as it is.
 */
export function mergeClaudeHooks(doc: JsonObject, wanted: string | readonly CairnHook[], file: string): { changes: string[]; notes: string[] } {
  const cairnHooks = typeof wanted === 'string' ? [contextHook(wanted)] : wanted;
  if (doc.hooks === undefined) doc.hooks = {};
  const hooks = doc.hooks;
  if (!isObject(hooks)) throw new SetupError(`${file}: "hooks" is not an object; it was left untouched.`);
  const changes: string[] = [];
  const notes: string[] = [];
  for (const hook of cairnHooks) {
    for (const event of hook.events) {
      if (hooks[event] === undefined) hooks[event] = [];
      const groups = hooks[event];
      if (!Array.isArray(groups)) throw new SetupError(`${file}: "hooks.${event}" is not an array; it was left untouched.`);
      const found: JsonObject[] = [];
      for (const group of groups) {
        if (!isObject(group) || !Array.isArray(group.hooks)) continue;
        for (const h of group.hooks) {
          if (isObject(h) && typeof h.command === 'string' && hook.isIt(h.command)) found.push(h);
        }
      }
      if (found.some((h) => h.command === hook.command)) continue;
      const stale = found.find((h) => isSetupWrittenHook(h.command as string, hook.words));
      if (stale) {
        changes.push(`updated the ${event} hook (it ran ${JSON.stringify(stale.command)})`);
        stale.command = hook.command;
      } else if (found.length > 0) {
        notes.push(`kept your own ${event} hook ${JSON.stringify(found[0]!.command)}`);
      } else {
        groups.push({ hooks: [{ type: 'command', command: hook.command }] });
        changes.push(`added the ${event} hook`);
      }
    }
  }
  return { changes, notes };
}
