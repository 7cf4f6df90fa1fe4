/**
 * Gemini CLI's files for `cairn setup gemini` (learned from @google/gemini-cli 0.61's own code and
 * docs, and checked against the real client in tests/agents/gemini-cli.test.ts):
 * - the project's `.gemini/settings.json`: `mcpServers.cairn` (the shape of Claude Code's entries)
 *   and `hooks` in Claude Code's shape (`{ hooks: [{ type: "command", command }] }` per event):
 *   SessionStart and BeforeAgent (each prompt) run `cairn context --format claude-hook` (Gemini CLI
 *   reads `hookSpecificOutput.additionalContext` and hands it to the model inside
 *   `<hook_context>`), SessionEnd runs `cairn harvest --hook` (its input carries `transcript_path`
 *   and `cwd`). No PreCompress hook: Gemini CLI 0.61 fires it before every model call, before it
 *   looks whether the history needs compressing at all (ChatCompressionService.compress), so a
 *   harvest there would run on every turn; a compression leaves the lines before it in the session
 *   file (it appends the shortened history as a `$set`), and Cairn's reader keeps them, so the
 *   harvest at the session's end reads the whole session. Gemini CLI reads a
 *   project's settings only in a folder the person trusted, which is theirs to do.
 * - Cairn's policy file `~/.gemini/policies/cairn.toml` (`$GEMINI_CLI_HOME` instead of the home
 *   when set): the rules that run Cairn's read-only tools without asking, memory_search and the
 *   memory tool's `view`. Policies in a project's `.gemini/policies` are not read by this version,
 *   and `tools.allowed` in a project's settings would replace the person's own list (the setting
 *   is not merged across files, and is deprecated), so the user's policy folder is the one place.
 *   Every other call of Cairn's tools is the person's to allow (Gemini CLI asks; `gemini -p`,
 *   which cannot ask, refuses them and does not even offer a tool nothing allows).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { SetupError } from './config-file';
import { contextHook, harvestHook, mergeClaudeHooks, mergeMcpServer, removeClaudeHooks, removeMcpServer, type BeforeSetup, type JsonRemoval, type McpServerEntry, type TextEdit } from './json-config';

/** The events whose hook gives the model context: the session's start, and each prompt. */
const GEMINI_CONTEXT_EVENTS = ['SessionStart', 'BeforeAgent'] as const;
/** The event at which the session's file is harvested: the session's end (not PreCompress: see above). */
const GEMINI_HARVEST_EVENTS = ['SessionEnd'] as const;

/**
 * The SessionStart hook hands the model the memory index and the hot set, so the server leaves
 * them out of its instructions (Gemini CLI 0.61 does not put a server's instructions in its prompt
 * anyway; this keeps it once should a later version do so).
 */
export const GEMINI_EXTRA_ARGS = ['--session-context', 'off'];

/** Gemini CLI's home for its user files: $GEMINI_CLI_HOME, else the user's home (it keeps `.gemini` in it). */
export function defaultGeminiCliHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.GEMINI_CLI_HOME?.trim();
  return home ? path.resolve(home) : os.homedir();
}

/** Cairn's policy file in Gemini CLI's user policies. */
export function geminiPolicyFile(geminiCliHome: string): string {
  return path.join(geminiCliHome, '.gemini', 'policies', 'cairn.toml');
}

const POLICY_MARK = '# Cairn: its read-only tools run without asking';

/**
 * The policy file. A tool's arguments are matched as Gemini CLI writes them for its rules: keys
 * sorted, each top-level `"key":value` between NUL characters (a NUL inside a value is escaped),
 * so the pattern matches the `command` argument itself and nothing nested.
 */
const GEMINI_POLICY = `${POLICY_MARK} (written by \`cairn setup gemini\`, taken away by \`cairn setup gemini --remove\`).
# Gemini CLI asks before any other call of Cairn's tools; to allow more, write a rule in a file of your own.
[[rule]]
mcpName = "cairn"
toolName = "memory_search"
decision = "allow"
priority = 100

[[rule]]
mcpName = "cairn"
toolName = "memory"
argsPattern = '\\x00"command":"view"\\x00'
decision = "allow"
priority = 100
`;

/** A file of the setup: its path, what --print shows, and its merge. */
interface Target {
  path: string;
  snippet: string;
  merge(previous: string | null): TextEdit;
}

function hooksOf(contextCommand: string, harvestCommand: string) {
  return [
    { ...contextHook(contextCommand), events: GEMINI_CONTEXT_EVENTS },
    { ...harvestHook(harvestCommand), events: GEMINI_HARVEST_EVENTS },
  ];
}

/** The project's `.gemini/settings.json`: the server and the hooks, merged into what is there. */
export function geminiSettingsTarget(file: string, name: string, entry: McpServerEntry, contextCommand: string, harvestCommand: string): Target {
  const context = [{ hooks: [{ type: 'command', command: contextCommand }] }];
  const harvest = [{ hooks: [{ type: 'command', command: harvestCommand }] }];
  return {
    path: file,
    snippet: `${JSON.stringify({ mcpServers: { [name]: entry }, hooks: { SessionStart: context, BeforeAgent: context, SessionEnd: harvest } }, null, 2)}\n`,
    merge(previous) {
      const server = mergeMcpServer(previous, name, entry, file);
      const hooks = mergeClaudeHooks(server.text ?? previous, hooksOf(contextCommand, harvestCommand), file);
      const text = hooks.text ?? server.text;
      return { text, changes: [...server.changes, ...hooks.changes], notes: [...server.notes, ...hooks.notes] };
    },
  };
}

/** Whether a policy file is Cairn's (it starts with Cairn's mark). */
function isCairnsPolicy(text: string): boolean {
  return text.replace(/^\uFEFF/, '').startsWith(POLICY_MARK);
}

/** Cairn's policy file: written whole, updated when it is an older one of Cairn's, else left alone. */
export function geminiPolicyTarget(file: string): Target {
  return {
    path: file,
    snippet: GEMINI_POLICY,
    merge(previous) {
      if (previous === GEMINI_POLICY) return { text: null, changes: [], notes: [] };
      if (previous === null) return { text: GEMINI_POLICY, changes: ['added the rules that run Cairn\u2019s read-only tools without asking'], notes: [] };
      if (isCairnsPolicy(previous)) return { text: GEMINI_POLICY, changes: ['updated the rules that run Cairn\u2019s read-only tools without asking'], notes: [] };
      throw new SetupError(`${file} is not Cairn's policy file (it does not start with "${POLICY_MARK}"); it was left untouched. Move it away and run this again.`);
    },
  };
}

/** Cairn's server and hooks taken out of Gemini CLI's settings; the rest stays byte for byte. */
export function removeGeminiSettings(text: string, file: string, before: BeforeSetup = null): JsonRemoval {
  const server = removeMcpServer(text, 'cairn', file, before);
  if (server.empty) return server;
  const hooks = removeClaudeHooks(server.text ?? text, file, before);
  const changed = server.changes.length > 0 || hooks.changes.length > 0;
  return {
    text: changed ? (hooks.text ?? server.text) : null,
    changes: [...server.changes, ...hooks.changes],
    notes: [...server.notes, ...hooks.notes],
    empty: hooks.empty,
  };
}

/** Cairn's policy file taken away (deleted whole); a file of that name that is not Cairn's is kept. */
export function removeGeminiPolicy(text: string): JsonRemoval {
  if (!isCairnsPolicy(text)) return { text: null, changes: [], notes: ['kept it: it is not Cairn\u2019s policy file'], empty: false };
  return { text: '', changes: ['removed the rules that run Cairn\u2019s read-only tools without asking'], notes: [], empty: true };
}
