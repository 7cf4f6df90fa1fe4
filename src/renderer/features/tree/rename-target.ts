/**
 * Where a rename sends a file or directory, from what the person typed: a full virtual path
 * (`/memories/global/languages/go.md`) or a path inside the item's scope (`languages/go.md`). Pure,
 * so the dialog explains a bad name before anything is sent.
 *
 * Invariants: the path rules are common/memory/paths.ts's (parseMemoryPath), never a copy; a move
 * to another scope is refused here as the core refuses it (renames stay within one scope), so a
 * full path typed for another scope is never read as a directory inside this one.
 */
import { MEMORY_ROOT, type Scope } from '../../../common/memory/constants';
import { MemoryToolError } from '../../../common/memory/errors';
import { parseMemoryPath } from '../../../common/memory/paths';
import { SCOPE_LABELS, scopeRoot } from './tree-model';

export interface RenameSource {
  readonly kind: 'file' | 'dir';
  readonly scope: Scope;
  /** Virtual path. */
  readonly path: string;
}

export type RenameTarget = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly problem: string };

const scopeWord = (scope: Scope) => `${SCOPE_LABELS[scope].toLowerCase()} memory`;

/** The virtual path `typed` names for `source` (`exists`: whether a file or directory is at a path now). */
export function renameTarget(typed: string, source: RenameSource, exists: (path: string) => boolean = () => false): RenameTarget {
  const text = typed.trim();
  if (text === '') return { ok: false, problem: 'Type the new name or path.' };
  // `memories/project/x.md` without its first slash is a full path too, not a directory "memories".
  const full = text === MEMORY_ROOT || text.startsWith(`${MEMORY_ROOT}/`) || text.startsWith(`${MEMORY_ROOT.slice(1)}/`);
  const path = full ? `/${text.replace(/^\/+/, '').replace(/\/+$/, '')}` : `${scopeRoot(source.scope)}/${text.replace(/^\/+|\/+$/g, '')}`;
  let parsed;
  try {
    parsed = parseMemoryPath(path);
  } catch (err) {
    if (err instanceof MemoryToolError) return { ok: false, problem: err.message };
    throw err;
  }
  if (parsed.kind === 'root' || parsed.segments.length === 0) {
    return { ok: false, problem: `${path} is ${parsed.kind === 'root' ? 'the directory of all scopes' : 'a scope itself'}; name a file or directory inside ${scopeRoot(source.scope)}.` };
  }
  if (parsed.scope !== source.scope) {
    return {
      ok: false,
      problem:
        `A memory moves within its scope: ${source.path} stays in ${scopeWord(source.scope)}. To move it to ${scopeWord(parsed.scope)}, ` +
        `create it there (New memory, ${scopeRoot(parsed.scope)}/…) with its text, then delete this one.`,
    };
  }
  if (path === source.path) return { ok: false, problem: 'That is where it is now.' };
  if (source.kind === 'dir' && path.startsWith(`${source.path}/`)) return { ok: false, problem: 'A directory cannot move inside itself.' };
  if (exists(path)) return { ok: false, problem: `${path} already exists; Cairn never overwrites. Choose another name.` };
  return { ok: true, path };
}

/** The part of a path the dialog selects when it opens: the base name, without a file's `.md`, as VS Code does. */
export function baseNameRange(path: string, kind: 'file' | 'dir'): [number, number] {
  const start = path.lastIndexOf('/') + 1;
  const dot = kind === 'file' ? path.lastIndexOf('.') : -1;
  return [start, dot > start ? dot : path.length];
}
