/**
 * Whether a process of this machine still runs, by its pid: the one answer every owner of a
 * pid-stamped file (a temp file, server.json, the context socket, a harvest job) asks for. A
 * process that is gone, or a zombie (ended, not reaped yet: Linux's /proc tells), does not run; one
 * of another user does (EPERM).
 */
import * as fs from 'node:fs';

export function processRuns(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // Reaped between the two looks (where there is a /proc at all).
    return !fs.existsSync('/proc/self');
  }
  // "pid (comm) state ...": the state follows the last parenthesis.
  return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
}
