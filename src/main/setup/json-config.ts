/**
 * Cairn's entries in JSON configuration files: the `mcpServers` map of Claude Code's `.mcp.json`
 * and Cursor's `.cursor/mcp.json`, and the hooks of Claude Code's `.claude/settings.json`. They are
 * added once, updated in place when they point at another launcher, never duplicated, and taken
 * out again; everything else of the file stays byte for byte (the edits are json-edit.ts's).
 */
import { isDeepStrictEqual } from 'node:util';
import { SetupError } from './config-file';
import { appendElement, emptyInside, isBare, nodeAt, readJson, removeItem, replaceNode, setMember, valueOf, type JsonKey, type JsonText } from './json-edit';

/** An MCP server entry as Claude Code, Cursor and Codex spell it. */
export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/** The words of a command line that runs `cairn` (after any VAR=value assignments), else null. */
function cairnWords(command: string): string[] | null {
  const words = shellWords(command);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  return words.length > 0 && basename(words[0]!) === 'cairn' ? words : null;
}

/** Any hook running `cairn context --format <format>` (the agent's hook format), however it was written. */
export function isCairnContextHook(command: string, format = 'claude-hook'): boolean {
  const words = cairnWords(command);
  if (words === null || !words.includes('context')) return false;
  return words.includes(`--format=${format}`) || words.some((w, i) => w === '--format' && words[i + 1] === format);
}

/**
 * A hook exactly as `cairn setup` writes it (`cairn <words>`, optionally `--agent NAME`, optionally
 * `--home X`), whatever launcher, agent and home: a hook an older setup wrote without `--agent` is
 * one too, so a re-run updates it in place and `--remove` takes it out.
 */
function isSetupWrittenHook(command: string, words: readonly string[]): boolean {
  const all = shellWords(command);
  if (all.length < words.length + 1 || basename(all[0]!) !== 'cairn' || !words.every((w, i) => all[i + 1] === w)) return false;
  const rest = all.slice(words.length + 1);
  if (rest.length >= 2 && rest[0] === '--agent') rest.splice(0, 2);
  return rest.length === 0 || (rest.length === 2 && rest[0] === '--home');
}

/** Any hook running `cairn harvest --hook`, however it was written. */
export function isCairnHarvestHook(command: string): boolean {
  const words = cairnWords(command);
  return words !== null && words.includes('harvest') && words.includes('--hook');
}

const CLAUDE_HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit'] as const;
/** The events before which a session's transcript is harvested: a compaction, its end. */
const CLAUDE_HARVEST_EVENTS = ['PreCompact', 'SessionEnd'] as const;

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
 * The rules Cairn adds to Claude Code's `permissions.allow`: its read-only tool runs without a
 * prompt; the `memory` tool, which writes, is left for the person to allow or not.
 */
export const CLAUDE_ALLOW_RULES = ['mcp__cairn__memory_search'] as const;

/** Adds `rules` to `permissions.allow`, each once; nothing when all are there. */
export function mergeClaudeAllow(text: string | null, rules: readonly string[], file: string): TextEdit {
  let current = text ?? '';
  const permissions = nodeAt(readJson(current, file).root, ['permissions']);
  if (permissions && permissions.type !== 'object') throw new SetupError(`${file}: "permissions" is not an object; it was left untouched.`);
  const changes: string[] = [];
  for (const rule of rules) {
    const doc = readJson(current, file);
    const allow = nodeAt(doc.root, ['permissions', 'allow']);
    if (allow?.type === 'array' && (valueOf(allow) as unknown[]).includes(rule)) continue;
    current = appendElement(doc, ['permissions', 'allow'], rule, file);
    changes.push(`allowed ${rule} (read-only) to run without asking`);
  }
  return { text: changes.length > 0 ? current : null, changes, notes: [] };
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


/** What a merge or a removal makes of a file: its new text (null when nothing changes), and what it did. */
export interface TextEdit {
  readonly text: string | null;
  readonly changes: string[];
  readonly notes: string[];
}

/** Sets `mcpServers[name]`, added or updated in place; nothing when it already is exactly that. */
export function mergeMcpServer(text: string | null, name: string, entry: McpServerEntry, file: string): TextEdit {
  const doc = readJson(text ?? '', file);
  const servers = nodeAt(doc.root, ['mcpServers']);
  if (servers && servers.type !== 'object') throw new SetupError(`${file}: "mcpServers" is not an object; it was left untouched.`);
  const previous = servers ? nodeAt(servers, [name]) : null;
  if (previous && isDeepStrictEqual(valueOf(previous), entry)) return { text: null, changes: [], notes: [] };
  const change = previous ? `updated MCP server "${name}" (it was ${JSON.stringify(valueOf(previous))})` : `added MCP server "${name}"`;
  return { text: setMember(doc, ['mcpServers', name], entry, file), changes: [change], notes: [] };
}

/** The `command` strings of an event's hooks, with where each is. */
function hookCommands(doc: JsonText, event: string): Array<{ command: string; path: JsonKey[] }> {
  const out: Array<{ command: string; path: JsonKey[] }> = [];
  const groups = nodeAt(doc.root, ['hooks', event]);
  for (let g = 0; g < (groups?.type === 'array' ? (groups.children?.length ?? 0) : 0); g++) {
    const list = nodeAt(doc.root, ['hooks', event, g, 'hooks']);
    if (list?.type !== 'array') continue;
    for (let h = 0; h < (list.children?.length ?? 0); h++) {
      const path = ['hooks', event, g, 'hooks', h, 'command'];
      const command = nodeAt(doc.root, path);
      if (command?.type === 'string') out.push({ command: command.value as string, path });
    }
  }
  return out;
}

/**
 * How an agent's settings hold its hooks under `hooks.<event>` (an array): where each hook's command
 * is, the element a new hook is appended as, and whether hooks sit in groups (a group left with no
 * hook goes with its last one).
 */
export interface HookLayout {
  commands(doc: JsonText, event: string): Array<{ command: string; path: JsonKey[] }>;
  element(command: string): unknown;
  readonly grouped: boolean;
}

/** Claude Code's layout (Codex's hooks.json and Gemini CLI's settings share it): groups of `{type, command}`. */
const CLAUDE_HOOK_LAYOUT: HookLayout = { commands: hookCommands, element: (command) => ({ hooks: [{ type: 'command', command }] }), grouped: true };

/**
 * Adds Cairn's hooks to the events of Claude Code's settings. A hook `cairn setup` wrote before with
 * another launcher or home is updated in place; one the user wrote by hand is kept as it is.
 */
export function mergeClaudeHooks(text: string | null, wanted: readonly CairnHook[], file: string): TextEdit {
  return mergeHooks(text, wanted, file, CLAUDE_HOOK_LAYOUT);
}

/** Adds Cairn's hooks to an agent's settings laid out as `layout` says (see mergeClaudeHooks). */
export function mergeHooks(text: string | null, wanted: readonly CairnHook[], file: string, layout: HookLayout): TextEdit {
  let current = text ?? '';
  const hooks = nodeAt(readJson(current, file).root, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new SetupError(`${file}: "hooks" is not an object; it was left untouched.`);
  const changes: string[] = [];
  const notes: string[] = [];
  for (const hook of wanted) {
    for (const event of hook.events) {
      const doc = readJson(current, file);
      const groups = nodeAt(doc.root, ['hooks', event]);
      if (groups && groups.type !== 'array') throw new SetupError(`${file}: "hooks.${event}" is not an array; it was left untouched.`);
      const found = layout.commands(doc, event).filter((c) => hook.isIt(c.command));
      if (found.some((c) => c.command === hook.command)) continue;
      const stale = found.find((c) => isSetupWrittenHook(c.command, hook.words));
      if (stale) {
        current = replaceNode(doc, nodeAt(doc.root, stale.path)!, hook.command);
        changes.push(`updated the ${event} hook (it ran ${JSON.stringify(stale.command)})`);
      } else if (found.length > 0) {
        notes.push(`kept your own ${event} hook ${JSON.stringify(found[0]!.command)}`);
      } else {
        current = appendElement(doc, ['hooks', event], layout.element(hook.command), file);
        changes.push(`added the ${event} hook`);
      }
    }
  }
  return { text: changes.length > 0 ? current : null, changes, notes };
}

/**
 * The file as it was before `cairn setup` first put Cairn in it, when a backup says so: `text` null
 * when setup created it. What a removal leaves follows it: a container Cairn's entries leave empty
 * stays when it was there (`"hooks": {}` stays `{}`, `{ }` stays `{ }`) and goes when setup added it.
 * Unknown (null): such containers go, and a file left as `{}` is deleted.
 */
export type BeforeSetup = { readonly text: string | null } | null;

/** What taking Cairn out of a JSON config made of it; `empty`: nothing is left, the file goes. */
export interface JsonRemoval extends TextEdit {
  readonly empty: boolean;
}

export interface Pruning {
  /** The inside an emptied container at `path` gets back. */
  inside(path: readonly JsonKey[]): string;
  /** Whether an emptied container at `path` stays. */
  keeps(path: readonly JsonKey[]): boolean;
  /** The file before setup when it held no JSON value (blank): it gets that back. */
  readonly blank: string | null;
}

export function pruningFor(before: BeforeSetup): Pruning {
  const unknown: Pruning = { inside: () => '', keeps: () => false, blank: null };
  if (before === null || before.text === null) return unknown;
  let doc: JsonText;
  try {
    doc = readJson(before.text, 'the backup');
  } catch {
    return unknown; // a backup that does not parse says nothing of what was there before
  }
  if (!doc.root) return { ...unknown, blank: before.text };
  return { inside: (path) => emptyInside(doc, path) ?? '', keeps: (path) => path.length === 0 || nodeAt(doc.root, path) !== null, blank: null };
}

/** Takes out the member or element at `path`, its container getting back what it held before. */
function removeAt(text: string, path: readonly JsonKey[], pruning: Pruning, file: string): string {
  const doc = readJson(text, file);
  return removeItem(doc, nodeAt(doc.root, path)!, pruning.inside(path.slice(0, -1)));
}

/** Takes out the container at `path` when Cairn's removals left it empty and it was not there before. */
function prune(text: string, path: readonly JsonKey[], pruning: Pruning, file: string): string {
  const doc = readJson(text, file);
  const node = nodeAt(doc.root, path);
  return node && isBare(doc, node) && !pruning.keeps(path) ? removeAt(text, path, pruning, file) : text;
}

export function finish(text: string, changes: string[], notes: string[], pruning: Pruning, file: string): JsonRemoval {
  if (changes.length === 0) return { text: null, changes, notes, empty: false };
  const doc = readJson(text, file);
  if (doc.root && isBare(doc, doc.root)) {
    if (pruning.blank !== null) return { text: pruning.blank, changes, notes, empty: false };
    if (!pruning.keeps([])) return { text: '', changes, notes, empty: true };
  }
  return { text, changes, notes, empty: false };
}

/** `mcpServers[name]` taken out when it runs Cairn (another server of that name is kept, with a note). */
export function removeMcpServer(text: string, name: string, file: string, before: BeforeSetup = null): JsonRemoval {
  const doc = readJson(text, file);
  const servers = nodeAt(doc.root, ['mcpServers']);
  if (!servers) return { text: null, changes: [], notes: [], empty: false };
  if (servers.type !== 'object') throw new SetupError(`${file}: "mcpServers" is not an object; it was left untouched.`);
  const entry = nodeAt(servers, [name]);
  if (!entry) return { text: null, changes: [], notes: [], empty: false };
  if (!isCairnServer(valueOf(entry))) return { text: null, changes: [], notes: [`kept the MCP server "${name}": it does not run cairn mcp (${JSON.stringify(valueOf(entry))})`], empty: false };
  const pruning = pruningFor(before);
  const out = prune(removeAt(text, ['mcpServers', name], pruning, file), ['mcpServers'], pruning, file);
  return finish(out, [`removed MCP server "${name}"`], [], pruning, file);
}

/**
 * The hooks in `ours` that `cairn setup` writes taken out of an agent's settings laid out as `layout`
 * says, with any launcher and home; one of ours written another way (a person's own) is kept, with a
 * note. An event left with no hook goes, and `hooks` when all went.
 */
export function removeHooks(text: string, file: string, pruning: Pruning, layout: HookLayout, ours: readonly CairnHook[]): { text: string; changes: string[]; notes: string[] } {
  const hooks = nodeAt(readJson(text, file).root, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new SetupError(`${file}: "hooks" is not an object; it was left untouched.`);
  const events = (hooks?.children ?? []).map((p) => p.children?.[0]?.value as string);
  const changes: string[] = [];
  const notes: string[] = [];
  let out = text;
  for (const event of events) {
    let removed = 0;
    const kept: string[] = [];
    // From the last hook back, so the places of those still to look at do not move.
    for (const { command, path } of layout.commands(readJson(out, file), event).reverse()) {
      if (ours.some((o) => isSetupWrittenHook(command, o.words))) {
        const hook = path.slice(0, -1);
        out = removeAt(out, hook, pruning, file);
        removed++;
        if (!layout.grouped) continue;
        const list = hook.slice(0, -1);
        const doc = readJson(out, file);
        if (isBare(doc, nodeAt(doc.root, list)!)) out = removeAt(out, list.slice(0, -1), pruning, file);
      } else if (ours.some((o) => o.isIt(command))) {
        kept.unshift(`kept your own ${event} hook ${JSON.stringify(command)}`);
      }
    }
    notes.push(...kept);
    if (removed === 0) continue;
    changes.push(`removed the ${event} hook`);
    out = prune(out, ['hooks', event], pruning, file);
  }
  if (changes.length > 0) out = prune(out, ['hooks'], pruning, file);
  return { text: out, changes, notes };
}

/**
 * Cairn's hooks taken out of Claude Code's settings: those `cairn setup` writes (`cairn context
 * --format claude-hook`, `cairn harvest --hook`, with any launcher and home). A Cairn hook written
 * another way (a person's own) is kept, with a note. A group left with no hook goes too.
 */
export function removeClaudeHooks(text: string, file: string, before: BeforeSetup = null): JsonRemoval {
  const pruning = pruningFor(before);
  const { changes, notes, ...hooks } = removeHooks(text, file, pruning, CLAUDE_HOOK_LAYOUT, [contextHook(''), harvestHook('')]);
  let out = hooks.text;
  // The permission rules setup adds (CLAUDE_ALLOW_RULES), from the last back.
  const allow = nodeAt(readJson(out, file).root, ['permissions', 'allow']);
  const rules = allow?.type === 'array' ? (valueOf(allow) as unknown[]) : [];
  let taken = 0;
  for (let i = rules.length - 1; i >= 0; i--) {
    if (!(CLAUDE_ALLOW_RULES as readonly unknown[]).includes(rules[i])) continue;
    out = removeAt(out, ['permissions', 'allow', i], pruning, file);
    changes.push(`removed the permission ${String(rules[i])}`);
    taken++;
  }
  if (taken > 0) out = prune(prune(out, ['permissions', 'allow'], pruning, file), ['permissions'], pruning, file);
  return finish(out, changes, notes, pruning, file);
}
