/**
 * Where an approved candidate goes when the person names no file. The inbox suggests its
 * category's file at the top of its scope (`/memories/global/preferences.md`, suggestedTarget);
 * a person who keeps that category in a folder of the same name (`preferences/`) and has no such
 * file gets the folder's file instead, never a sibling beside the folder: the first of
 * `general.md`, `<name>.md`, `index.md`, `README.md` that is a file in it, else a new `general.md`.
 *
 * Invariants: only a one-level `<name>.md` target is ever moved, and only while no file of that name
 * exists (a person's own `preferences.md` stays the target); it only stats, so nothing is read,
 * written or counted as a use; a scope that cannot be looked at leaves the target as it was.
 */
import { parseMemoryPath } from '../../common/memory/paths';
import type { MemorySession } from '../memory/session';

/** The files of a category's folder that read as its general file, in the order they are preferred. */
const FOLDER_FILES = (name: string) => ['general.md', `${name}.md`, 'index.md', 'README.md'];

/** The file `target` resolves to in `session` (see the header); `target` itself when it stays. */
export async function resolveDefaultTarget(target: string, session: MemorySession): Promise<string> {
  let parsed;
  try {
    parsed = parseMemoryPath(target);
  } catch {
    return target;
  }
  if (parsed.kind !== 'scope' || parsed.segments.length !== 1 || !parsed.segments[0]!.endsWith('.md')) return target;
  const binding = session.scopes[parsed.scope];
  if (!binding.available) return target;
  const file = parsed.segments[0]!;
  const name = file.slice(0, -'.md'.length);
  const { runtime, root } = binding;
  try {
    if ((await runtime.stat(root, [file], false)) !== null) return target;
    if ((await runtime.stat(root, [name], false))?.type !== 'directory') return target;
    let chosen = 'general.md';
    for (const candidate of FOLDER_FILES(name)) {
      if ((await runtime.stat(root, [name, candidate], false))?.type === 'file') {
        chosen = candidate;
        break;
      }
    }
    return `${target.slice(0, -file.length)}${name}/${chosen}`;
  } catch {
    // A scope that cannot be looked at now: the approval's own write says why, on the suggested file.
    return target;
  }
}
