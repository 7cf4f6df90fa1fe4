/**
 * `cairn setup claude|codex|cursor --remove`: takes Cairn's entries out of the files `cairn setup`
 * writes (the same files, found the same way: setup.ts), and only those: the MCP server `cairn`
 * when it runs `cairn mcp` (any launcher, any home) or Cairn's URL, and the hooks setup writes
 * (`cairn context --format claude-hook`, `cairn harvest --hook`). Everything else of the file
 * stays; a Cairn hook a person wrote another way is kept and named.
 *
 * Byte for byte: when the file is exactly as a setup left it (setup's record in <home>/backups
 * says so by its hash, backups.ts), it gets back the bytes it had before that setup, and a file
 * setup created is deleted with the directories setup made for it, when they are empty. When it
 * changed since, Cairn's entries are cut out of the text as it is (json-config.ts, toml-config.ts):
 * the rest, the person's changes included, stays byte for byte; a container Cairn's entries leave
 * empty stays when the file had it before setup (per setup's backup) and goes otherwise.
 *
 * Like setup: every file is read and worked out before any is written; what each file held is kept
 * in <home>/backups first; writes are atomic; symlinks follow setup's rules (config-file.ts: a
 * project's links only within the checkout and out of .git).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Backups, sha256 } from './backups';
import { deleteConfigFile, replaceConfigFile, type ConfigFile } from './config-file';
import { removeClaudeHooks, removeMcpServer, shellWords, type BeforeSetup, type TextEdit } from './json-config';
import { nodeAt, readJson } from './json-edit';
import { AGENT_NAMES, defaultCodexHome, projectRoot, readTarget, SERVER_NAME, type Agent } from './setup';
import { parseTomlConfig, removeCodexServer } from './toml-config';
import { defaultCopilotHome, removeCopilotHooks } from './copilot-config';
import { defaultGeminiCliHome, geminiPolicyFile, removeGeminiPolicy, removeGeminiSettings } from './gemini-config';

type Kind = 'mcp-json' | 'claude-settings' | 'codex-toml' | 'gemini-settings' | 'gemini-policy' | 'copilot-settings';

export interface RemovePlan {
  readonly agent: Agent;
  readonly root: string | null;
  readonly targets: ReadonlyArray<{ path: string; kind: Kind }>;
}

export async function planRemove(agent: Agent, options: { cwd: string; codexHome?: string | undefined; geminiCliHome?: string | undefined; copilotHome?: string | undefined }): Promise<RemovePlan> {
  switch (agent) {
    case 'copilot': {
      const copilotHome = options.copilotHome ?? defaultCopilotHome();
      // mcp-config.json has Claude Code's mcpServers map: the same removal.
      return { agent, root: null, targets: [{ path: path.join(copilotHome, 'mcp-config.json'), kind: 'mcp-json' }, { path: path.join(copilotHome, 'settings.json'), kind: 'copilot-settings' }] };
    }
    case 'gemini': {
      const root = await projectRoot(options.cwd);
      const policy = geminiPolicyFile(options.geminiCliHome ?? defaultGeminiCliHome());
      return { agent, root, targets: [{ path: path.join(root, '.gemini', 'settings.json'), kind: 'gemini-settings' }, { path: policy, kind: 'gemini-policy' }] };
    }
    case 'claude': {
      const root = await projectRoot(options.cwd);
      return { agent, root, targets: [{ path: path.join(root, '.mcp.json'), kind: 'mcp-json' }, { path: path.join(root, '.claude', 'settings.json'), kind: 'claude-settings' }] };
    }
    case 'cursor': {
      const root = await projectRoot(options.cwd);
      return { agent, root, targets: [{ path: path.join(root, '.cursor', 'mcp.json'), kind: 'mcp-json' }] };
    }
    case 'codex': {
      const codexHome = options.codexHome ?? defaultCodexHome();
      // Codex's hooks.json has the shape of Claude Code's hooks: the same removal.
      return { agent, root: null, targets: [{ path: path.join(codexHome, 'config.toml'), kind: 'codex-toml' }, { path: path.join(codexHome, 'hooks.json'), kind: 'claude-settings' }] };
    }
  }
}

/** What removal makes of one file: its new text, or deleted (with the directories setup made for it), or unchanged. */
type Result =
  | { action: 'unchanged'; notes: string[] }
  | { action: 'write' | 'delete'; text: string | null; restored: boolean; changes: string[]; notes: string[]; dirs: string[] };

/** Cairn's entries cut out of the text as it is; `empty`: nothing else is left. */
function cutOut(kind: Kind, text: string, file: string, before: BeforeSetup): TextEdit & { empty: boolean } {
  if (kind === 'codex-toml') {
    const removal = removeCodexServer(text, SERVER_NAME, file);
    return { ...removal, empty: removal.text !== null && removal.text.trim() === '' };
  }
  if (kind === 'gemini-settings') return removeGeminiSettings(text, file, before);
  if (kind === 'copilot-settings') return removeCopilotHooks(text, file, before);
  if (kind === 'gemini-policy') return removeGeminiPolicy(text);
  return kind === 'mcp-json' ? removeMcpServer(text, SERVER_NAME, file, before) : removeClaudeHooks(text, file, before);
}

/** Whether Cairn is in `text`; null when it does not parse. */
function holdsCairn(kind: Kind, text: string): boolean | null {
  try {
    return cutOut(kind, text, 'the backup', null).changes.length > 0;
  } catch {
    return null;
  }
}

/** The homes Cairn's entries in `text` name (CAIRN_HOME of the server, --home of the hooks): setup kept its records there. */
function homesNamedIn(kind: Kind, text: string): string[] {
  const homes: string[] = [];
  try {
    if (kind === 'codex-toml') {
      const servers = parseTomlConfig(text, '').mcp_servers as Record<string, { env?: { CAIRN_HOME?: unknown } }> | undefined;
      homes.push(servers?.[SERVER_NAME]?.env?.CAIRN_HOME as string);
    } else if (kind === 'gemini-policy') {
      // Names no home.
    } else if (kind === 'mcp-json' || kind === 'gemini-settings') {
      const entry = nodeAt(readJson(text, '').root, ['mcpServers', SERVER_NAME, 'env', 'CAIRN_HOME']);
      homes.push(entry?.value as string);
    } else {
      for (const command of text.match(/"[^"\n]*--home[^"\n]*"/g) ?? []) {
        const words = shellWords(JSON.parse(command) as string);
        homes.push(words[words.indexOf('--home') + 1]!);
      }
    }
  } catch {
    // An entry that does not read names no home.
  }
  return homes.filter((h) => typeof h === 'string' && path.isAbsolute(h));
}

async function workOut(kind: Kind, file: ConfigFile, stores: readonly Backups[]): Promise<Result> {
  const text = file.text!;
  const records = (await Promise.all(stores.map(async (store) => (await store.recordsOf(file.path)).map((record) => ({ record, store })))))
    .flat()
    .sort((a, b) => (a.record.time < b.record.time ? 1 : a.record.time > b.record.time ? -1 : 0));
  const beforeOf = async ({ record, store }: (typeof records)[number]): Promise<{ text: string | null } | undefined> => {
    if (record.before === null) return { text: null };
    const before = await store.read(record.before, record.beforeSha256);
    return before === null ? undefined : { text: before };
  };

  // The file before Cairn was first put in it, per the newest setup that found it without Cairn.
  let original: BeforeSetup = null;
  let originalDirs: string[] = [];
  for (const entry of records) {
    const before = await beforeOf(entry);
    if (before && (before.text === null || holdsCairn(kind, before.text) === false)) {
      original = before;
      originalDirs = before.text === null ? entry.record.createdDirs : [];
      break;
    }
  }
  const removal = cutOut(kind, text, file.path, original);
  if (removal.changes.length === 0) return { action: 'unchanged', notes: removal.notes };
  const done = { changes: removal.changes, notes: removal.notes };

  // Exactly as setup left it (each step back checked by its hash): the bytes from before setup.
  let current: string | null = text;
  for (const entry of records) {
    if (current === null || sha256(current) !== entry.record.afterSha256) continue;
    const before = await beforeOf(entry);
    if (!before) break;
    current = before.text;
    if (current === null) return { action: 'delete', text: null, restored: true, ...done, dirs: entry.record.createdDirs };
    const cairn = holdsCairn(kind, current);
    if (cairn === false) return { action: 'write', text: current, restored: true, ...done, dirs: [] };
    if (cairn === null) break;
  }

  // Changed since: Cairn's entries cut out of it as it is.
  if (removal.empty) return { action: 'delete', text: null, restored: false, ...done, dirs: original?.text === null ? originalDirs : [] };
  return { action: 'write', text: removal.text, restored: false, ...done, dirs: [] };
}

/** Removes the directories setup made for a file it created, innermost first, those left empty only. */
async function removeEmptyDirs(dirs: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of [...dirs].reverse()) {
    const st = await fs.lstat(dir).catch(() => null);
    if (!st?.isDirectory()) break;
    try {
      await fs.rmdir(dir);
      removed.push(dir);
    } catch {
      break; // not empty (the person's files are there): kept, and the folders above it too
    }
  }
  return removed;
}

export interface RemoveOutcome {
  readonly path: string;
  readonly action: 'absent' | 'unchanged' | 'written' | 'deleted';
  readonly changes: string[];
  readonly notes: string[];
  /** Where the file as it was before the removal is kept (in <home>/backups). */
  readonly backup: string | null;
  /** Whether the file is again exactly as it was before setup (from setup's backup). */
  readonly restored: boolean;
  /** The directories setup had made for the file, removed with it. */
  readonly removedDirs: string[];
  readonly writtenTo: string | null;
}

/**
 * Removes Cairn from every file of the plan; every file is worked out before any is written. Backups
 * go to `home`; setup's records are looked up there and in the homes Cairn's entries name.
 */
export async function applyRemove(plan: RemovePlan, home: string, now = new Date()): Promise<RemoveOutcome[]> {
  const backups = new Backups(home);
  const worked: Array<{ target: RemovePlan['targets'][number]; file: ConfigFile; result: Result | null }> = [];
  for (const target of plan.targets) {
    const file = await readTarget(plan, target.path);
    const homes = file.text === null ? [] : [...new Set([home, ...homesNamedIn(target.kind, file.text)])];
    worked.push({ target, file, result: file.text === null ? null : await workOut(target.kind, file, homes.map((h) => new Backups(h))) });
  }
  // Every backup is kept before any file is written: a home that cannot take them stops the run first.
  const kept = new Map<ConfigFile, string>();
  for (const { file, result } of worked) {
    if (result && result.action !== 'unchanged') kept.set(file, await backups.keep(await backups.stem(file.path, now), file.text!, 'before-remove'));
  }
  const outcomes: RemoveOutcome[] = [];
  for (const { target, file, result } of worked) {
    const writtenTo = file.throughLink ? file.realPath : null;
    const none = { changes: [], notes: [], backup: null, restored: false, removedDirs: [], writtenTo: null };
    if (result === null) outcomes.push({ path: target.path, action: 'absent', ...none });
    else if (result.action === 'unchanged') outcomes.push({ path: target.path, action: 'unchanged', ...none, notes: result.notes });
    else {
      let removedDirs: string[] = [];
      if (result.action === 'delete') {
        await deleteConfigFile(file);
        removedDirs = await removeEmptyDirs(result.dirs);
      } else {
        await replaceConfigFile(file, result.text!);
      }
      const action = result.action === 'delete' ? 'deleted' : 'written';
      outcomes.push({ path: target.path, action, changes: result.changes, notes: result.notes, backup: kept.get(file)!, restored: result.restored, removedDirs, writtenTo });
    }
  }
  return outcomes;
}

export function renderRemoval(plan: RemovePlan, outcomes: readonly RemoveOutcome[]): string {
  const name = AGENT_NAMES[plan.agent];
  const lines: string[] = [];
  for (const o of outcomes) {
    if (o.action === 'absent') lines.push(`${o.path}: not there, nothing to remove`);
    else if (o.action === 'unchanged') lines.push(`${o.path}: unchanged, Cairn is not in it`);
    else if (o.action === 'deleted') {
      const dirs = o.removedDirs.length > 0 ? `, and so was ${o.removedDirs.join(', ')}, which setup had made for it` : '';
      lines.push(`${o.path}: ${o.changes.join('; ')}; nothing else was in it, so it was deleted (setup had created it)${dirs}`);
    } else lines.push(`${o.path}: ${o.changes.join('; ')}${o.restored ? '; it is again exactly as before setup' : ''}`);
    if (o.writtenTo && (o.action === 'written' || o.action === 'deleted')) lines.push(`  it is a symbolic link: ${o.action === 'deleted' ? 'deleted' : 'written to'} ${o.writtenTo}`);
    for (const note of o.notes) lines.push(`  note: ${note}`);
    if (o.backup) lines.push(`  the previous file is kept in ${o.backup}`);
  }
  const changed = outcomes.some((o) => o.action === 'written' || o.action === 'deleted');
  lines.push(changed ? `${name} no longer uses Cairn${plan.root ? ` in ${plan.root}` : ''}; start a new session for it to take effect.` : `Nothing changed: Cairn was not set up for ${name}${plan.root ? ` in ${plan.root}` : ''}.`);
  return `${lines.join('\n')}\n`;
}
