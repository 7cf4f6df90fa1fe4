/**
 * Names no other file of this process or any other will have: the pid, a random tag drawn once per
 * process (a pid can be reused after a crash), and a counter. For temp and trash entries, which are
 * created exclusively (O_EXCL or a rename onto a fresh name), so the names need to be unique, not
 * secret; drawing random bytes for each write cost more than the rest of naming it.
 */
import { randomBytes } from 'node:crypto';

const PROCESS_TAG = `${process.pid}-${randomBytes(4).toString('hex')}-`;
let counter = 0;

/** `<pid>-<tag>-<n>`: starts with the pid, so leftovers can be told by whose they are. */
export function uniqueName(): string {
  return PROCESS_TAG + (counter++).toString(36);
}
