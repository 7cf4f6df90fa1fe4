/**
 * Where the agents' hooks put what went wrong, since a hook must never fail a person's prompt:
 * `<home>/logs/<name>.log`, one line per failure (mode 0600 in a 0700 directory; it may name host
 * paths, and only the person reads it). Over LOG_MAX_BYTES the log is moved to `<name>.log.old`,
 * so it never grows without bound. Writing it never throws.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const LOG_MAX_BYTES = 1024 * 1024;

/** The prompt hook's log (`cairn context --format claude-hook`, and a host answering it). */
export const CONTEXT_HOOK_LOG = 'context-hook';

/** Appends `err` to the hook's log under `home`; true when it was written. */
export function logHookError(home: string, name: string, err: unknown, now = new Date()): boolean {
  try {
    const dir = path.join(home, 'logs');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${name}.log`);
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    if (size > LOG_MAX_BYTES) fs.renameSync(file, `${file}.old`);
    const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
    fs.appendFileSync(file, `${now.toISOString()} ${detail.replace(/\n/g, '\n    ')}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
