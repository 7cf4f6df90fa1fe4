/**
 * `cairn harvest --hook [--home DIR]`: what Claude Code's PreCompact and SessionEnd hooks run
 *, and Copilot CLI's preCompact and sessionEnd. It reads the hook's JSON on stdin
 * (session_id, transcript_path, cwd; Copilot CLI sends sessionId and cwd only, its session file
 * being `<COPILOT_HOME>/session-state/<sessionId>/events.jsonl`), and when harvest
 * is on for the workspace of that cwd (the setting `harvestWorkspaces`, off by default) it queues
 * a harvest job for the transcript (harvest/harvest-jobs.ts) and starts the queue's worker,
 * `cairn harvest --work`, on its own, detached, and returns at once: a hook holds up the agent
 * while it runs, so this loads almost nothing (no home services, no zod). Inside Cairn's own
 * extraction run (a `claude -p` the command backend started: HARVEST_CHILD_ENV) it does nothing,
 * so Cairn never harvests itself.
 *
 * It never fails the agent: whatever goes wrong, it exits 0 (a note on stderr says why).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { COPILOT_EVENTS_FILE, copilotHome } from '../harvest/copilot-session';
import { HARVEST_CHILD_ENV } from '../harvest/harvest-child';
import { errnoOf } from '../runtime/local/containment';
import { assertOwnHome } from '../runtime/local/ownership';
import { resolveHome } from '../workspaces/home-dir';
import { localWorkspaceId } from '../workspaces/session';
import { readAll } from './read-all';
import type { CliIo } from './tool-command';


/**
 * Whether harvest is on for `workspaceId` in the home's settings (config.json, read without zod).
 * No settings file means off, the default; one that cannot be read or is not JSON throws, so the
 * hook's note says why nothing was harvested instead of taking harvest for off.
 */
export function harvestEnabled(home: string, workspaceId: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(path.join(home, 'config.json'), 'utf8');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return false;
    throw new Error(`the settings (config.json in Cairn's home) cannot be read (${errnoOf(err)})`, { cause: err });
  }
  let config: { settings?: { harvestWorkspaces?: unknown } } | null;
  try {
    config = JSON.parse(text) as typeof config;
  } catch {
    throw new Error("the settings (config.json in Cairn's home) are not JSON");
  }
  const on = config?.settings?.harvestWorkspaces;
  return Array.isArray(on) && on.includes(workspaceId);
}

/** Copilot CLI's session file of `sessionId` (a uuid, so no path can be made of it), when it is there. */
function copilotSessionFile(sessionId: unknown): string | undefined {
  if (typeof sessionId !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sessionId)) return undefined;
  const file = path.join(copilotHome(), 'session-state', sessionId, COPILOT_EVENTS_FILE);
  return fs.existsSync(file) ? file : undefined;
}

export async function harvestHook(args: string[], io: CliIo): Promise<number> {
  try {
    const { values } = parseArgs({ args, strict: false, options: { home: { type: 'string' }, hook: { type: 'boolean' } } });
    const home = resolveHome(typeof values.home === 'string' ? values.home : undefined);
    assertOwnHome(home);
    const input = JSON.parse(await readAll(io.stdin, 1024 * 1024)) as { transcript_path?: unknown; sessionId?: unknown; cwd?: unknown };
    const transcript = input.transcript_path ?? copilotSessionFile(input.sessionId);
    const cwd = input.cwd;
    if (typeof transcript !== 'string' || typeof cwd !== 'string' || !path.isAbsolute(transcript) || !path.isAbsolute(cwd)) {
      io.stderr.write('cairn harvest --hook: the hook input has no transcript_path and cwd; nothing was harvested.\n');
      return 0;
    }
    if (process.env[HARVEST_CHILD_ENV]) return 0;
    const workspaceId = await localWorkspaceId(cwd);
    if (!harvestEnabled(home, workspaceId)) return 0;
    // Loaded only when harvest is on: the hook of a workspace with harvest off loads nothing more.
    const { HarvestJobs } = await import('../harvest/harvest-jobs');
    new HarvestJobs(home).enqueue({ transcript, cwd, workspaceId });
    startWorker(home);
    return 0;
  } catch (err) {
    io.stderr.write(`cairn harvest --hook: ${(err as Error)?.message ?? String(err)}; nothing was harvested.\n`);
    return 0;
  }
}

/** Starts `cairn harvest --work` for `home`, detached: it runs the queue, then exits. */
export function startWorker(home: string): void {
  const cli = process.argv[1];
  if (!cli) return;
  const child = spawn(process.execPath, [cli, 'harvest', '--work', '--home', home], { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
}
