/**
 * Outside edits held from agents: memory that arrived from elsewhere without passing through Cairn
 * (project memory a `git pull` brought into the checkout) and waits in the Inbox for a person.
 * The text is on disk as git wrote it; what reaches agents without a tool call (the context
 * builder's index, hot set and relevant memories) leaves such a file out while it is held.
 *
 * One small file per held item, `<home>/inbox/held/<item id>.json` holding the scope's owner and
 * the file's virtual path, written by the inbox store together with the item (there while the item
 * is pending, removed once it is decided), and read here by itself, so that the prompt hook, which
 * opens nothing of the home but the usage and the facts cache, pays one readdir (none held: a
 * missing folder).
 *
 * Invariants: a hold names a scope owner and a path of that scope, so it holds back the file only in
 * sessions that see the same owner (the same project); a hold file that cannot be read or is no
 * hold is skipped (the scanners still keep flagged text from agents; the Inbox lists the item).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SCOPES, type Scope } from '../../common/memory/constants';
import { scopeOwner } from '../../common/memory/identity';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import type { MemorySession } from './session';

/** The folder of holds, below the home (beside the inbox's items). */
const HELD_DIR = path.join('inbox', 'held');

/** One held file: whose scope, and which file of it. */
export interface HeldEdit {
  readonly owner: string;
  readonly path: string;
}

const ID_RE = /^[0-9a-z]{9}-[0-9a-f]{8}$/;

function holdFile(home: string, id: string): string {
  if (!ID_RE.test(id)) throw new Error(`not an inbox item id: ${id}`);
  return path.join(home, HELD_DIR, `${id}.json`);
}

/** Holds `edit` back from agents while the inbox item `id` waits. */
export function holdEdit(home: string, id: string, edit: HeldEdit): void {
  fs.mkdirSync(path.join(home, HELD_DIR), { recursive: true, mode: 0o700 });
  writeOwnFileSync(holdFile(home, id), `${JSON.stringify({ owner: edit.owner, path: edit.path })}\n`);
}

/** Lets the file of item `id` reach agents again (its item was decided); nothing when it held none. */
export function releaseEdit(home: string, id: string): void {
  fs.rmSync(holdFile(home, id), { force: true });
}

function scopeOfPath(p: string): Scope | null {
  const scope = p.split('/')[2];
  return (SCOPES as readonly string[]).includes(scope ?? '') ? (scope as Scope) : null;
}

/** The virtual paths held back from agents in `session` (the files of its scopes' owners that wait in the Inbox). */
export function heldPaths(home: string, session: Pick<MemorySession, 'workspaceId' | 'projectId'>): ReadonlySet<string> {
  const dir = path.join(home, HELD_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return new Set(); // nothing held (or no folder Cairn can read: the Inbox says what waits)
  }
  const held = new Set<string>();
  for (const name of names) {
    if (!name.endsWith('.json') || !ID_RE.test(name.slice(0, -5))) continue;
    let edit: Partial<HeldEdit>;
    try {
      edit = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as Partial<HeldEdit>;
    } catch {
      continue; // removed meanwhile (decided), or torn: see the header
    }
    if (typeof edit.owner !== 'string' || typeof edit.path !== 'string') continue;
    const scope = scopeOfPath(edit.path);
    if (scope !== null && scopeOwner(scope, session) === edit.owner) held.add(edit.path);
  }
  return held;
}
