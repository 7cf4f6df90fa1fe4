/**
 * `cairn setup claude|codex|cursor --remove` (issue 23): takes Cairn's entries out of the files
 * `cairn setup` writes (the same files, found the same way: setup.ts), and only those: the MCP
 * server `cairn` when it runs `cairn mcp` (any launcher, any home) or Cairn's URL, and the hooks
 * setup writes (`cairn context --format claude-hook`, `cairn harvest --hook`). Everything else of
 * the file stays; a Cairn hook a person wrote another way is kept and named.
 *
 * Byte-identical: when nothing else changed since setup, the file is left exactly as it was before
 * setup. Setup keeps the file it replaced as `<file>.bak-<timestamp>`; if the newest such backup
 * without Cairn in it holds exactly what the file holds once Cairn's entries are out (for JSON:
 * the same keys in the same order, and the file still formatted as setup wrote it; for TOML: the
 * same text, up to trailing blank lines, which setup's append drops), that backup's bytes are
 * written back. Otherwise the entries are taken out of the file as it is now (JSON re-serialized
 * with its own indentation; TOML edited as text). A file left with nothing in it (`{}`, or only
 * blank lines) was created by setup from nothing: it is deleted, so the project is as before.
 *
 * Like setup: every file is read and worked out before any is written; each file changed keeps
 * its previous content in a new backup beside it; writes are atomic; symlinks follow setup's
 * rules (config-file.ts: a project's links only within the checkout and out of .git).
 */
import * as path from 'node:path';
import { deleteConfigFile, replaceConfigFile, backupsOf, SetupError, type ConfigFile } from './config-file';
import { isObject, parseJsonConfig, removeClaudeHooks, removeMcpServer, stringifyJsonConfig, type JsonObject, type JsonRemoval } from './json-config';
import { AGENT_NAMES, defaultCodexHome, projectRoot, readTarget, SERVER_NAME, type Agent } from './setup';
import { removeCodexServer, tomlTail } from './toml-config';

type Kind = 'mcp-json' | 'claude-settings' | 'codex-toml';

export interface RemovePlan {
  readonly agent: Agent;
  readonly root: string | null;
  readonly targets: ReadonlyArray<{ path: string; kind: Kind }>;
}

export async function planRemove(agent: Agent, options: { cwd: string; codexHome?: string | undefined }): Promise<RemovePlan> {
  switch (agent) {
    case 'claude': {
      const root = await projectRoot(options.cwd);
      return { agent, root, targets: [{ path: path.join(root, '.mcp.json'), kind: 'mcp-json' }, { path: path.join(root, '.claude', 'settings.json'), kind: 'claude-settings' }] };
    }
    case 'cursor': {
      const root = await projectRoot(options.cwd);
      return { agent, root, targets: [{ path: path.join(root, '.cursor', 'mcp.json'), kind: 'mcp-json' }] };
    }
    case 'codex':
      return { agent, root: null, targets: [{ path: path.join(options.codexHome ?? defaultCodexHome(), 'config.toml'), kind: 'codex-toml' }] };
  }
}

/** What removal makes of one file: its new text, null to delete it, or unchanged. */
type Result = { action: 'unchanged'; notes: string[] } | { action: 'write' | 'delete'; text: string | null; restored: string | null; changes: string[]; notes: string[] };

const sameOrder = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function removeJson(kind: 'mcp-json' | 'claude-settings', text: string, file: string): JsonRemoval {
  const doc = parseJsonConfig(text, file);
  return kind === 'mcp-json' ? removeMcpServer(doc, SERVER_NAME, file) : removeClaudeHooks(doc, file);
}

async function workOut(kind: Kind, file: ConfigFile): Promise<Result> {
  const text = file.text!;
  if (kind === 'codex-toml') {
    const removal = removeCodexServer(text, SERVER_NAME, file.path);
    if (removal.text === null) return { action: 'unchanged', notes: removal.notes };
    for (const backup of await backupsOf(file)) {
      let without: string | null;
      try {
        without = removeCodexServer(backup.text, SERVER_NAME, backup.path).text;
      } catch {
        continue;
      }
      if (without !== null) continue; // Cairn was in it already: not the file before setup.
      if (tomlTail(backup.text) === removal.text) return { action: 'write', text: backup.text, restored: backup.path, changes: removal.changes, notes: removal.notes };
    }
    return removal.text.trim() === '' ? { action: 'delete', text: null, restored: null, changes: removal.changes, notes: removal.notes } : { action: 'write', text: removal.text, restored: null, changes: removal.changes, notes: removal.notes };
  }
  const removal = removeJson(kind, text, file.path);
  if (removal.changes.length === 0) return { action: 'unchanged', notes: removal.notes };
  // The file as setup wrote it (its own indentation, JSON.stringify's layout): nothing else reformatted it.
  const asSetupWrote = text === stringifyJsonConfig(parseJsonConfig(text, file.path), text);
  if (asSetupWrote) {
    for (const backup of await backupsOf(file)) {
      let before: JsonObject;
      try {
        before = parseJsonConfig(backup.text, backup.path);
        if (removeJson(kind, backup.text, backup.path).changes.length > 0) continue; // Cairn was in it already.
      } catch {
        continue;
      }
      if (sameOrder(removal.kept, before) || sameOrder(removal.pruned, before)) return { action: 'write', text: backup.text, restored: backup.path, changes: removal.changes, notes: removal.notes };
    }
  }
  if (isObject(removal.pruned) && Object.keys(removal.pruned).length === 0) return { action: 'delete', text: null, restored: null, changes: removal.changes, notes: removal.notes };
  return { action: 'write', text: stringifyJsonConfig(removal.pruned, text), restored: null, changes: removal.changes, notes: removal.notes };
}

export interface RemoveOutcome {
  readonly path: string;
  readonly action: 'absent' | 'unchanged' | 'written' | 'deleted';
  readonly changes: string[];
  readonly notes: string[];
  readonly backup: string | null;
  /** The setup backup whose bytes were written back, when the file is now exactly as before setup. */
  readonly restored: string | null;
  readonly writtenTo: string | null;
}

/** Removes Cairn from every file of the plan; every file is worked out before any is written. */
export async function applyRemove(plan: RemovePlan, now = new Date()): Promise<RemoveOutcome[]> {
  const worked: Array<{ target: RemovePlan['targets'][number]; file: ConfigFile; result: Result | null }> = [];
  for (const target of plan.targets) {
    const file = await readTarget(plan, target.path);
    worked.push({ target, file, result: file.text === null ? null : await workOut(target.kind, file) });
  }
  const outcomes: RemoveOutcome[] = [];
  for (const { target, file, result } of worked) {
    const writtenTo = file.throughLink ? file.realPath : null;
    if (result === null) outcomes.push({ path: target.path, action: 'absent', changes: [], notes: [], backup: null, restored: null, writtenTo: null });
    else if (result.action === 'unchanged') outcomes.push({ path: target.path, action: 'unchanged', changes: [], notes: result.notes, backup: null, restored: null, writtenTo: null });
    else if (result.action === 'delete') {
      const backup = await deleteConfigFile(file, now);
      outcomes.push({ path: target.path, action: 'deleted', changes: result.changes, notes: result.notes, backup, restored: null, writtenTo });
    } else {
      const backup = await replaceConfigFile(file, result.text!, now);
      outcomes.push({ path: target.path, action: 'written', changes: result.changes, notes: result.notes, backup, restored: result.restored, writtenTo });
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
    else if (o.action === 'deleted') lines.push(`${o.path}: ${o.changes.join('; ')}; nothing else was in it, so it was deleted (setup had created it)`);
    else lines.push(`${o.path}: ${o.changes.join('; ')}${o.restored ? `; it is again exactly as before setup (${path.basename(o.restored)})` : ''}`);
    if (o.writtenTo && (o.action === 'written' || o.action === 'deleted')) lines.push(`  it is a symbolic link: ${o.action === 'deleted' ? 'deleted' : 'written to'} ${o.writtenTo}`);
    for (const note of o.notes) lines.push(`  note: ${note}`);
    if (o.backup) lines.push(`  the previous file is kept in ${o.backup}`);
  }
  const changed = outcomes.some((o) => o.action === 'written' || o.action === 'deleted');
  lines.push(changed ? `${name} no longer uses Cairn${plan.root ? ` in ${plan.root}` : ''}; start a new session for it to take effect.` : `Nothing changed: Cairn was not set up for ${name}${plan.root ? ` in ${plan.root}` : ''}.`);
  return `${lines.join('\n')}\n`;
}

export { SetupError };
