/**
 * `cairn setup`: the configuration that makes an agent use Cairn, printed or merged into the
 * agent's own files.
 * - Claude Code: the MCP server in the project's `.mcp.json` (with `--session-context off`: the
 *   hooks give the index and the hot set, so the instructions leave them out), and the SessionStart (every source,
 *   compaction included) and UserPromptSubmit hooks running `cairn context --format claude-hook`
 *   in the project's `.claude/settings.json`, with the read-only memory_search in its
 *   `permissions.allow` (the memory tool, which writes, is the person's to allow).
 * - Codex: `[mcp_servers.cairn]` in `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`), with
 *   `required = true` (Codex waits for the server, so its instructions, the index and the hot set,
 *   reach the first request) and `default_tools_approval_mode = "writes"` (the read-only tool runs
 *   without a prompt; a person's own choice of mode is kept); and in `$CODEX_HOME/hooks.json` (the
 *   same shape as Claude Code's hooks) the UserPromptSubmit hook running `cairn context --format
 *   claude-hook` (Codex reads that output as Claude Code does) and the harvest hooks.
 * - Cursor: the MCP server in the project's `.cursor/mcp.json`.
 * - Gemini CLI: the MCP server and the hooks in the project's `.gemini/settings.json`, and the
 *   rules that run the read-only tools without asking in `~/.gemini/policies/cairn.toml` (gemini-config.ts).
 * The server is `<launcher> mcp`, with CAIRN_HOME in its environment when a home was chosen. The
 * context hooks name their agent (`--agent claude`, `codex`, `gemini`, `copilot`), so the app shows
 * it as seen in the workspace; a hook an older setup wrote without it is updated in place on a re-run.
 * The project's files are the repository's: a symlink among them (a file, or a directory on the
 * way) is written through only when it stays inside the checkout and out of .git (config-file.ts).
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { errnoOf } from '../runtime/local/containment';
import { findGitRoot } from '../workspaces/identity';
import { Backups, sha256 } from './backups';
import { missingDirs, readConfigFile, replaceConfigFile, SetupError, type ConfigFile } from './config-file';
import { CLAUDE_ALLOW_RULES, contextHook, harvestHook, mergeClaudeAllow, mergeClaudeHooks, mergeMcpServer, type McpServerEntry, type TextEdit } from './json-config';
import { hasComments } from './json-edit';
import { shellLine } from './launcher';
import { codexSnippet, mergeCodexServer, type TomlTable } from './toml-config';
import { COPILOT_EXTRA_ARGS, copilotHooks, copilotHooksSnippet, copilotServerEntry, defaultCopilotHome, mergeCopilotHooks, mergeCopilotServer } from './copilot-config';
import { defaultGeminiCliHome, GEMINI_EXTRA_ARGS, geminiPolicyFile, geminiPolicyTarget, geminiSettingsTarget } from './gemini-config';

export const AGENTS = ['claude', 'codex', 'cursor', 'gemini', 'copilot'] as const;
export type Agent = (typeof AGENTS)[number];
export const AGENT_NAMES: Record<Agent, string> = { claude: 'Claude Code', codex: 'Codex', cursor: 'Cursor', gemini: 'Gemini CLI', copilot: 'Copilot CLI' };

/** The name of Cairn's entry in every agent's MCP configuration. */
export const SERVER_NAME = 'cairn';

export interface SetupOptions {
  /** The command that runs the CLI: bin/cairn's absolute path, or `cairn`. */
  launcher: string;
  /** Cairn's home to pass to the server and hooks (absolute), when one was chosen. */
  home?: string | undefined;
  /** The project directory (any directory inside it); its git root is the project root. */
  cwd: string;
  /** Codex's home: $CODEX_HOME, else ~/.codex. */
  codexHome?: string | undefined;
  /** Where Gemini CLI keeps its user files (`.gemini` in it): $GEMINI_CLI_HOME, else the home. */
  geminiCliHome?: string | undefined;
  /** Copilot CLI's home: $COPILOT_HOME, else ~/.copilot. */
  copilotHome?: string | undefined;
}

export function defaultCodexHome(): string {
  const env = process.env.CODEX_HOME;
  return env && env.length > 0 ? path.resolve(env) : path.join(os.homedir(), '.codex');
}

/** The MCP server entry; `extraArgs` follow `mcp`. */
function serverEntry(options: Pick<SetupOptions, 'launcher' | 'home'>, extraArgs: string[] = []): McpServerEntry {
  return { command: options.launcher, args: ['mcp', ...extraArgs], ...(options.home ? { env: { CAIRN_HOME: options.home } } : {}) };
}

/**
 * The command of the context hooks in Claude Code's format (Codex and Gemini CLI run the same),
 * naming the agent whose config it goes in: its calls then show that agent as seen in the workspace.
 */
function claudeHookCommand(options: Pick<SetupOptions, 'launcher' | 'home'>, agent: Agent): string {
  return shellLine([options.launcher, 'context', '--format', 'claude-hook', '--agent', agent, ...(options.home ? ['--home', options.home] : [])]);
}

/** The command of Claude Code's harvest hooks (PreCompact, SessionEnd; a no-op until harvest is turned on). */
function claudeHarvestCommand(options: Pick<SetupOptions, 'launcher' | 'home'>): string {
  return shellLine([options.launcher, 'harvest', '--hook', ...(options.home ? ['--home', options.home] : [])]);
}

/**
 * Cursor starts MCP servers in a directory of its own choosing, so the server is told the project
 * (Cursor expands `${workspaceFolder}` in args to the open project's root).
 */
const CURSOR_EXTRA_ARGS = ['--cwd', '${workspaceFolder}'];

/**
 * Claude Code's SessionStart hook already hands the model the memory index and the hot set, so its
 * server leaves them out of its instructions: the model reads them once, not twice.
 */
const CLAUDE_EXTRA_ARGS = ['--session-context', 'off'];

/**
 * Codex's keys in Cairn's `[mcp_servers.cairn]`: Codex waits for a required server before the first
 * request (else `codex exec` sends it without Cairn's tools and instructions), and with "writes" it
 * runs the tools marked read-only (memory_search) without a prompt and asks before the others.
 */
function codexServerEntry(server: McpServerEntry): McpServerEntry & TomlTable {
  const { env, ...rest } = server;
  return { ...rest, required: true, default_tools_approval_mode: 'writes', ...(env ? { env } : {}) };
}

/** The keys of Cairn's Codex entry whose value is the person's once set (setup keeps it). */
const CODEX_PERSONS_CHOICE = ['default_tools_approval_mode'] as const;

/**
 * Codex's hooks.json (in CODEX_HOME, the shape of Claude Code's hooks): the prompt hook, and the
 * harvest hooks. No SessionStart hook: the server's instructions already carry the index and the
 * hot set (Codex puts them in every request), so the model reads them once.
 */
function codexHooksTarget(file: string, command: string, harvest: string): SetupTarget {
  const prompt = { ...contextHook(command), events: ['UserPromptSubmit'] };
  const hook = [{ hooks: [{ type: 'command', command }] }];
  const harvestHooks = [{ hooks: [{ type: 'command', command: harvest }] }];
  return {
    path: file,
    snippet: `${JSON.stringify({ hooks: { UserPromptSubmit: hook, PreCompact: harvestHooks, SessionEnd: harvestHooks } }, null, 2)}\n`,
    merge: (previous) => mergeClaudeHooks(previous, [prompt, harvestHook(harvest)], file),
  };
}

interface SetupTarget {
  /** Absolute path of the config file. */
  path: string;
  /** What to print for --print: Cairn's part of the file. */
  snippet: string;
  merge(previous: string | null): TextEdit;
}

export interface SetupPlan {
  agent: Agent;
  /** The project root (for the project-level configs of Claude Code and Cursor). */
  root: string | null;
  targets: SetupTarget[];
  /** Printed after the files with --print: an equivalent command, as a shell line. */
  alternative?: { title: string; line: string; asComment?: boolean };
  /** Said after writing. */
  nextSteps: string;
}

/** The project root of `cwd`: its git checkout's root, else the directory itself. */
export async function projectRoot(cwd: string): Promise<string> {
  const dir = path.resolve(cwd);
  let stat;
  try {
    stat = await fs.stat(dir);
  } catch (err) {
    // Only a folder that is not there "does not exist"; one that cannot be reached is said as it is.
    const code = errnoOf(err);
    throw new SetupError(code === 'ENOENT' || code === 'ENOTDIR' ? `${dir} does not exist` : `${dir} cannot be opened (${code})`);
  }
  if (!stat.isDirectory()) throw new SetupError(`${dir} is not a directory`);
  return (await findGitRoot(dir)) ?? dir;
}

function mcpJsonTarget(file: string, entry: McpServerEntry): SetupTarget {
  return {
    path: file,
    snippet: `${JSON.stringify({ mcpServers: { [SERVER_NAME]: entry } }, null, 2)}\n`,
    merge: (previous) => mergeMcpServer(previous, SERVER_NAME, entry, file),
  };
}

function claudeSettingsTarget(file: string, command: string, harvest: string): SetupTarget {
  const hook = [{ hooks: [{ type: 'command', command }] }];
  const harvestHooks = [{ hooks: [{ type: 'command', command: harvest }] }];
  return {
    path: file,
    snippet: `${JSON.stringify({ hooks: { SessionStart: hook, UserPromptSubmit: hook, PreCompact: harvestHooks, SessionEnd: harvestHooks }, permissions: { allow: CLAUDE_ALLOW_RULES } }, null, 2)}\n`,
    merge(previous) {
      const hooked = mergeClaudeHooks(previous, [contextHook(command), harvestHook(harvest)], file);
      const allowed = mergeClaudeAllow(hooked.text ?? previous, CLAUDE_ALLOW_RULES, file);
      const merged = { text: allowed.text ?? hooked.text, changes: [...hooked.changes, ...allowed.changes], notes: hooked.notes };
      // Kept as they are, but Claude Code reads this file as strict JSON.
      const comments = previous !== null && hasComments(previous) ? ['it has comments, which Claude Code does not accept in settings.json (it reports the file as invalid); Cairn kept them as they are'] : [];
      return { ...merged, notes: [...merged.notes, ...comments] };
    },
  };
}

/** What a person does after `cairn setup copilot`, and what Copilot CLI asks. */
const COPILOT_NEXT_STEPS = [
  'Start a new Copilot CLI session: it starts "cairn mcp" in the directory you start it in, which selects the workspace and project (check with /mcp), and its hooks give it the memory index, the hot set and the relevant memories (and, once harvest is on, propose memories from its sessions: cairn harvest --enable).',
  'Copilot CLI runs memory_search (marked read-only) without asking and asks before each call of the memory tool, which may write (`copilot -p` cannot ask, so there it refuses them); to let it use memory without asking, start it with --allow-tool=cairn.',
].join(' ');

export async function planSetup(agent: Agent, options: SetupOptions): Promise<SetupPlan> {
  switch (agent) {
    case 'claude': {
      const root = await projectRoot(options.cwd);
      const entry = serverEntry(options, CLAUDE_EXTRA_ARGS);
      const env = entry.env ? Object.entries(entry.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]) : [];
      return {
        agent,
        root,
        targets: [mcpJsonTarget(path.join(root, '.mcp.json'), entry), claudeSettingsTarget(path.join(root, '.claude', 'settings.json'), claudeHookCommand(options, 'claude'), claudeHarvestCommand(options))],
        alternative: {
          title: `or, instead of .mcp.json, with Claude Code's own CLI (run in ${root}; --scope user for every project)`,
          line: shellLine(['claude', 'mcp', 'add', '--scope', 'project', ...env, SERVER_NAME, '--', entry.command, ...entry.args]),
        },
        nextSteps: 'Start a new Claude Code session in the project: it asks once to approve the project\'s "cairn" MCP server (check with /mcp), and the hooks give it the memory index, the hot set and the relevant memories. memory_search runs without asking; the memory tool, which writes, asks until you allow it ("mcp__cairn__memory" in permissions.allow).',
      };
    }
    case 'cursor': {
      const root = await projectRoot(options.cwd);
      return {
        agent,
        root,
        targets: [mcpJsonTarget(path.join(root, '.cursor', 'mcp.json'), serverEntry(options, CURSOR_EXTRA_ARGS))],
        nextSteps: 'Open the project in Cursor and enable the "cairn" server under Settings > MCP (Cursor asks once for a new project server).',
      };
    }
    case 'gemini': {
      const root = await projectRoot(options.cwd);
      return {
        agent,
        root,
        targets: [
          geminiSettingsTarget(path.join(root, '.gemini', 'settings.json'), SERVER_NAME, serverEntry(options, GEMINI_EXTRA_ARGS), claudeHookCommand(options, 'gemini'), claudeHarvestCommand(options)),
          geminiPolicyTarget(geminiPolicyFile(options.geminiCliHome ?? defaultGeminiCliHome())),
        ],
        nextSteps: [
          'Start Gemini CLI in the project and trust the folder when it asks (it reads a project\'s .gemini/settings.json only in a trusted folder; check the server with /mcp).',
          'It runs memory_search and the memory tool\'s view without asking (Cairn\'s policy file) and asks before every other call of Cairn\'s tools; `gemini -p` cannot ask, so there it refuses them. To let Gemini CLI write memory without asking, add a rule of your own in ~/.gemini/policies (mcpName = "cairn", toolName = "*", decision = "allow", priority = 200).',
        ].join(' '),
      };
    }
    case 'copilot': {
      const copilotHome = options.copilotHome ?? defaultCopilotHome();
      const mcpFile = path.join(copilotHome, 'mcp-config.json');
      const settingsFile = path.join(copilotHome, 'settings.json');
      const server = serverEntry(options, COPILOT_EXTRA_ARGS);
      const hooks = copilotHooks(options);
      return {
        agent,
        root: null,
        targets: [
          { path: mcpFile, snippet: `${JSON.stringify({ mcpServers: { [SERVER_NAME]: copilotServerEntry(server) } }, null, 2)}\n`, merge: (previous) => mergeCopilotServer(previous, SERVER_NAME, server, mcpFile) },
          { path: settingsFile, snippet: copilotHooksSnippet(hooks), merge: (previous) => mergeCopilotHooks(previous, hooks, settingsFile) },
        ],
        alternative: {
          title: 'or, for the server alone (without the hooks), with Copilot CLI\'s own CLI',
          asComment: true,
          line: shellLine(['copilot', 'mcp', 'add', ...(server.env ? Object.entries(server.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]) : []), SERVER_NAME, '--', server.command, ...server.args]),
        },
        nextSteps: COPILOT_NEXT_STEPS,
      };
    }
    case 'codex': {
      const codexHome = options.codexHome ?? defaultCodexHome();
      const file = path.join(codexHome, 'config.toml');
      const server = serverEntry(options);
      const entry = codexServerEntry(server);
      return {
        agent,
        root: null,
        targets: [
          { path: file, snippet: codexSnippet(SERVER_NAME, entry), merge: (previous) => mergeCodexServer(previous, SERVER_NAME, entry, file, CODEX_PERSONS_CHOICE) },
          codexHooksTarget(path.join(codexHome, 'hooks.json'), claudeHookCommand(options, 'codex'), claudeHarvestCommand(options)),
        ],
        alternative: {
          title: 'or, for the server alone (without required and the approval mode), with Codex\'s own CLI',
          asComment: true,
          line: shellLine(['codex', 'mcp', 'add', ...(server.env ? Object.entries(server.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]) : []), SERVER_NAME, '--', server.command, ...server.args]),
        },
        nextSteps: [
          'Start a new Codex session: it starts "cairn mcp" from the directory you start it in, which selects the workspace and project (check with /mcp).',
          'Codex runs memory_search without asking and asks before each call of the memory tool, which may write (default_tools_approval_mode = "writes"; `codex exec` cannot ask, so there it refuses them). To let Codex use memory without asking, set default_tools_approval_mode = "approve" in [mcp_servers.cairn]; setup keeps your choice.',
          'Codex runs a new hook only once you trust it: open /hooks in Codex and trust Cairn\'s hooks (the prompt hook brings the memories relevant to each prompt).',
        ].join(' '),
      };
    }
  }
}

/** What --print shows: each file's Cairn part under a `# <agent>: <file>` line. */
export function renderPlan(plan: SetupPlan): string {
  const name = AGENT_NAMES[plan.agent];
  const sections = plan.targets.map((t) => `# ${name}: merge into ${t.path}\n${t.snippet}`);
  // Commented out where it would break the file format of the output (TOML).
  const alt = plan.alternative;
  if (alt) sections.push(`# ${alt.title}:\n${alt.asComment ? '# ' : ''}${alt.line}\n`);
  return sections.join('\n');
}

export interface FileOutcome {
  path: string;
  created: boolean;
  changes: string[];
  notes: string[];
  /** Where the file as it was before is kept (in <home>/backups), or null when there was no file. */
  backup: string | null;
  /** Where a symlinked file's content really is (written there), or null for a plain file. */
  writtenTo: string | null;
}

/**
 * Reads a file of a setup (or removal) plan. A file in the project is the repository's: no symlink
 * may lead its write out of the checkout.
 */
export function readTarget(plan: { readonly agent: Agent; readonly root: string | null }, file: string): Promise<ConfigFile> {
  const inProject = plan.root !== null && !path.relative(plan.root, file).startsWith('..');
  return readConfigFile(file, inProject ? { within: plan.root!, instead: `cairn setup ${plan.agent} --print` } : undefined);
}

/**
 * Merges every file of the plan. Every file is read and merged before any is written, so an
 * invalid file stops the run with nothing written. Before a file is changed, what it held is kept
 * in `<home>/backups`, with a record of the change that lets --remove give it back byte for byte.
 */
export async function applyPlan(plan: SetupPlan, home: string, now = new Date()): Promise<FileOutcome[]> {
  const backups = new Backups(home);
  const merged = [];
  for (const target of plan.targets) {
    const file = await readTarget(plan, target.path);
    merged.push({ target, file, result: target.merge(file.text) });
  }
  // Every backup and record is kept before any file is written: a home that cannot take them stops the run first.
  const kept = new Map<ConfigFile, string | null>();
  for (const { file, result } of merged) {
    if (result.text === null || result.text === file.text) continue;
    const stem = await backups.stem(file.path, now);
    const backup = file.text !== null ? await backups.keep(stem, file.text, 'before-setup') : null;
    await backups.record(stem, {
      file: path.resolve(file.path),
      writtenTo: file.realPath,
      before: backup === null ? null : path.basename(backup),
      beforeSha256: file.text === null ? null : sha256(file.text),
      afterSha256: sha256(result.text),
      createdDirs: await missingDirs(file),
      time: now.toISOString(),
    });
    kept.set(file, backup);
  }
  const outcomes: FileOutcome[] = [];
  for (const { target, file, result } of merged) {
    const changed = kept.has(file);
    if (changed) await replaceConfigFile(file, result.text!);
    outcomes.push({
      path: target.path,
      created: file.text === null && changed,
      changes: changed ? result.changes : [],
      notes: result.notes,
      backup: kept.get(file) ?? null,
      writtenTo: file.throughLink ? file.realPath : null,
    });
  }
  return outcomes;
}

/** The report printed after writing. */
export function renderOutcomes(plan: SetupPlan, outcomes: FileOutcome[]): string {
  const name = AGENT_NAMES[plan.agent];
  const lines: string[] = [];
  for (const o of outcomes) {
    if (o.changes.length === 0) lines.push(`${o.path}: unchanged, Cairn is already in it`);
    else lines.push(`${o.path}: ${o.created ? 'created; ' : ''}${o.changes.join('; ')}`);
    if (o.writtenTo && o.changes.length > 0) lines.push(`  it is a symbolic link: written to ${o.writtenTo}`);
    for (const note of o.notes) lines.push(`  note: ${note}`);
    if (o.backup) lines.push(`  the previous file is kept in ${o.backup}`);
  }
  const changed = outcomes.some((o) => o.changes.length > 0);
  lines.push(changed ? `${name} is set up to use Cairn${plan.root ? ` in ${plan.root}` : ''}. ${plan.nextSteps}` : `Nothing changed: ${name} was already set up to use Cairn.`);
  return `${lines.join('\n')}\n`;
}
