/**
 * Cairn's entries in GitHub Copilot CLI's own files (`cairn setup copilot`), both in its home
 * ($COPILOT_HOME, else ~/.copilot), as Copilot CLI 1.0.102 reads them (its bundled help and a real
 * run against a scripted model):
 * - `mcp-config.json`: `mcpServers.cairn`, a `local` (stdio) server with `tools: ["*"]`, as
 *   `copilot mcp add` writes it. A user-level server: Copilot CLI starts it in every session (a
 *   project's `.mcp.json` is read only once the folder is trusted, and never by `copilot -p`
 *   unless told to), in the directory the session runs in, which selects the workspace.
 * - `settings.json`: user-level hooks under `hooks.<event>`, each `{type: "command", bash}` (the
 *   same schema as a repository's `.github/hooks/*.json`). sessionStart and userPromptSubmitted
 *   run `cairn context --format copilot-hook`: Copilot CLI sends its own input (camelCase
 *   `sessionId`, `cwd`, `prompt` on a prompt) and takes a top-level `additionalContext` from the
 *   hook's stdout: a session start's becomes a message before the first prompt, a prompt's a
 *   `<system_reminder>` after it. preCompact and sessionEnd run `cairn harvest --hook`, which finds
 *   the session's file by its sessionId (a no-op until harvest is turned on for the workspace).
 * Copilot CLI keeps a server's instructions out of the system prompt (only allowlisted servers'
 * go in), so the hooks are what hands over the index and the hot set.
 *
 * Taken out again by `--remove`: the server when it runs `cairn mcp`, and the hooks exactly as
 * setup writes them; a Cairn hook a person wrote another way is kept, with a note.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { finish, isCairnContextHook, isCairnHarvestHook, mergeHooks, mergeMcpServer, pruningFor, removeHooks, type BeforeSetup, type CairnHook, type HookLayout, type JsonRemoval, type McpServerEntry, type TextEdit } from './json-config';
import { nodeAt, type JsonKey, type JsonText } from './json-edit';
import { shellLine } from './launcher';

/** Copilot CLI's home: $COPILOT_HOME, else ~/.copilot. */
export function defaultCopilotHome(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const set = env.COPILOT_HOME?.trim();
  return set ? path.resolve(set) : path.join(home, '.copilot');
}

/**
 * The sessionStart hook hands the model the memory index and the hot set, so the server leaves them
 * out of its instructions (Copilot CLI 1.0.102 puts only allowlisted servers' instructions in its
 * prompt; this keeps them once for a person who starts it with --allow-all-mcp-server-instructions).
 */
export const COPILOT_EXTRA_ARGS = ['--session-context', 'off'];

/** Cairn's server as Copilot CLI's mcp-config.json spells a stdio server (what `copilot mcp add` writes). */
export function copilotServerEntry(entry: McpServerEntry): McpServerEntry & { type: 'local'; tools: string[] } {
  return { type: 'local', command: entry.command, args: entry.args, ...(entry.env ? { env: entry.env } : {}), tools: ['*'] };
}

/** The events whose hooks give the session its context, and the words after `cairn` they run. */
const COPILOT_CONTEXT_EVENTS = ['sessionStart', 'userPromptSubmitted'] as const;
const CONTEXT_WORDS = ['context', '--format', 'copilot-hook'] as const;
/** The events before which a session is harvested (a compaction, its end). */
const COPILOT_HARVEST_EVENTS = ['preCompact', 'sessionEnd'] as const;
const HARVEST_WORDS = ['harvest', '--hook'] as const;

type Launch = { launcher: string; home?: string | undefined };
const line = (options: Launch, words: readonly string[]) => shellLine([options.launcher, ...words, ...(options.home ? ['--home', options.home] : [])]);

/** Cairn's hooks in Copilot CLI's settings.json: the context hook and the harvest hook. */
export function copilotHooks(options: Launch): CairnHook[] {
  return [
    { command: line(options, [...CONTEXT_WORDS, '--agent', 'copilot']), events: COPILOT_CONTEXT_EVENTS, isIt: (command) => isCairnContextHook(command, 'copilot-hook'), words: CONTEXT_WORDS },
    { command: line(options, HARVEST_WORDS), events: COPILOT_HARVEST_EVENTS, isIt: isCairnHarvestHook, words: HARVEST_WORDS },
  ];
}

/** What `--print` shows of settings.json. */
export function copilotHooksSnippet(wanted: readonly CairnHook[]): string {
  const hooks = Object.fromEntries(wanted.flatMap((hook) => hook.events.map((event) => [event, [{ type: 'command', bash: hook.command }]])));
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}

/** The `bash` commands of an event's hooks, with where each is. */
function hookCommands(doc: JsonText, event: string): Array<{ command: string; path: JsonKey[] }> {
  const out: Array<{ command: string; path: JsonKey[] }> = [];
  const list = nodeAt(doc.root, ['hooks', event]);
  for (let h = 0; h < (list?.type === 'array' ? (list.children?.length ?? 0) : 0); h++) {
    const path = ['hooks', event, h, 'bash'];
    const command = nodeAt(doc.root, path);
    if (command?.type === 'string') out.push({ command: command.value as string, path });
  }
  return out;
}

/** Copilot CLI's layout of hooks: each event's array holds `{type: "command", bash}` itself. */
const COPILOT_HOOK_LAYOUT: HookLayout = { commands: hookCommands, element: (command) => ({ type: 'command', bash: command }), grouped: false };

/**
 * Adds Cairn's hooks to Copilot CLI's settings.json. A hook setup wrote before with another
 * launcher or home is updated in place; one the person wrote by hand is kept as it is.
 */
export function mergeCopilotHooks(text: string | null, wanted: readonly CairnHook[], file: string): TextEdit {
  return mergeHooks(text, wanted, file, COPILOT_HOOK_LAYOUT);
}

/** Cairn's hooks taken out of Copilot CLI's settings.json (those setup writes); an event left with none goes too. */
export function removeCopilotHooks(text: string, file: string, before: BeforeSetup = null): JsonRemoval {
  const pruning = pruningFor(before);
  const { text: out, changes, notes } = removeHooks(text, file, pruning, COPILOT_HOOK_LAYOUT, copilotHooks({ launcher: 'cairn' }));
  return finish(out, changes, notes, pruning, file);
}

/** Sets Cairn's server in mcp-config.json (Copilot CLI's spelling of it). */
export function mergeCopilotServer(text: string | null, name: string, entry: McpServerEntry, file: string): TextEdit {
  return mergeMcpServer(text, name, copilotServerEntry(entry), file);
}
