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

export function isObject(value: unknown): value is JsonObject {
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

/**
 * Whether an MCP server entry (a JSON config's, or a table of Codex's config.toml) runs Cairn:
 * `<...>/cairn mcp ...` (what `cairn setup` writes, for any launcher or home), or a URL entry of
 * Cairn's MCP endpoint (`.../mcp?cwd=...`, what `cairn setup --http --print` shows).
 */
export function isCairnServer(entry: unknown): boolean {
  if (!isObject(entry)) return false;
  if (typeof entry.command === 'string') return basename(entry.command) === 'cairn' && Array.isArray(entry.args) && entry.args[0] === 'mcp';
  return typeof entry.url === 'string' && /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/mcp(\?|$)/.test(entry.url);
}

/** What removing Cairn from a JSON config did: the doc without Cairn, and with what that emptied taken out too. */
export interface JsonRemoval {
  /** Cairn's entries taken out; containers they leave empty kept. */
  readonly kept: JsonObject;
  /** The same, with the containers Cairn's entries leave empty taken out as well. */
  readonly pruned: JsonObject;
  readonly changes: string[];
  readonly notes: string[];
}

/** `mcpServers[name]` taken out when it runs Cairn (another server of that name is kept, with a note). */
export function removeMcpServer(doc: JsonObject, name: string, file: string): JsonRemoval {
  const kept = structuredClone(doc);
  const servers = kept.mcpServers;
  if (servers === undefined) return { kept, pruned: kept, changes: [], notes: [] };
  if (!isObject(servers)) throw new SetupError(`${file}: "mcpServers" is not an object; it was left untouched.`);
  if (servers[name] === undefined) return { kept, pruned: kept, changes: [], notes: [] };
  if (!isCairnServer(servers[name])) return { kept, pruned: kept, changes: [], notes: [`kept the MCP server "${name}": it does not run cairn mcp (${JSON.stringify(servers[name])})`] };
  delete servers[name];
  const pruned = structuredClone(kept);
  if (Object.keys(servers).length === 0) delete pruned.mcpServers;
  return { kept, pruned, changes: [`removed MCP server "${name}"`], notes: [] };
}

/**
 * Cairn's hooks taken out of Claude Code's settings: those `cairn setup` writes (`cairn context
 * --format claude-hook`, `cairn harvest --hook`, with any launcher and home). A Cairn hook written
 * another way (a person's own) is kept, with a note. A group left with no hook goes too.
 */
export function removeClaudeHooks(doc: JsonObject, file: string): JsonRemoval {
  const kept = structuredClone(doc);
  const hooks = kept.hooks;
  if (hooks === undefined) return { kept, pruned: kept, changes: [], notes: [] };
  if (!isObject(hooks)) throw new SetupError(`${file}: "hooks" is not an object; it was left untouched.`);
  const ours = [contextHook(''), harvestHook('')];
  const changes: string[] = [];
  const notes: string[] = [];
  const emptied: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    let removed = 0;
    const left = groups.filter((group) => {
      if (!isObject(group) || !Array.isArray(group.hooks)) return true;
      const list = group.hooks as unknown[];
      const before = list.length;
      group.hooks = list.filter((h) => {
        if (!isObject(h) || typeof h.command !== 'string') return true;
        const command = h.command;
        if (ours.some((o) => isSetupWrittenHook(command, o.words))) return false;
        if (ours.some((o) => o.isIt(command))) notes.push(`kept your own ${event} hook ${JSON.stringify(command)}`);
        return true;
      });
      const after = (group.hooks as unknown[]).length;
      removed += before - after;
      return !(before > after && after === 0);
    });
    if (removed === 0) continue;
    hooks[event] = left;
    changes.push(`removed the ${event} hook`);
    if (left.length === 0) emptied.push(event);
  }
  const pruned = structuredClone(kept);
  const prunedHooks = pruned.hooks as JsonObject;
  for (const event of emptied) delete prunedHooks[event];
  if (emptied.length > 0 && Object.keys(prunedHooks).length === 0) delete pruned.hooks;
  return { kept, pruned, changes, notes };
}
