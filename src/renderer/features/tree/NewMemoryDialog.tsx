/**
 * "New memory": the name of a file in one of the view's available scopes, opened in the editor as a
 * new file with a frontmatter template. Nothing is written here: the editor's first Save creates it
 * (as the person, never over an existing file), so a new memory closed unsaved leaves nothing on
 * disk, in agents' context, or in the usage. The name is checked here by the path rules agents'
 * paths follow, and one the view already lists is refused (open it instead).
 */
import { useState } from 'react';
import type { Scope } from '../../../common/memory/constants';
import { parseMemoryPath } from '../../../common/memory/paths';
import { Dialog, FormActions } from '../dialogs/Dialog';
import { SCOPE_LABELS, scopeRoot } from './tree-model';

/** What a new memory opens with: an empty description for the person to fill in. */
export const NEW_MEMORY_TEMPLATE = '---\ndescription: \n---\n\n';

/** Why `path` cannot be a new memory file, or null. */
function problemOf(path: string, exists: (path: string) => boolean): string | null {
  try {
    const parsed = parseMemoryPath(path);
    if (parsed.kind !== 'scope' || parsed.segments.length === 0) return `${path} is not a file.`;
  } catch (err) {
    return (err as Error).message;
  }
  return exists(path) ? `${path} already exists; open it to edit it, or choose another name.` : null;
}

export function NewMemoryDialog({ scopes, exists, onClose, onOpen }: { scopes: readonly Scope[]; exists: (path: string) => boolean; onClose: () => void; onOpen: (path: string, text: string) => void }) {
  const [scope, setScope] = useState<Scope>(scopes.includes('project') ? 'project' : scopes[0]!);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const rel = name.trim().replace(/^\/+/, '');
  const path = `${scopeRoot(scope)}/${rel.includes('.') ? rel : `${rel}.md`}`;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const problem = problemOf(path, exists);
    setError(problem);
    if (problem === null) onOpen(path, NEW_MEMORY_TEMPLATE);
  };

  return (
    <Dialog title="New memory" onClose={onClose}>
      <form className="form new-memory" onSubmit={submit}>
        {scopes.length > 1 && (
          <fieldset className="segmented">
            <legend>Scope</legend>
            {scopes.map((s) => (
              <label key={s}>
                <input type="radio" name="scope" checked={scope === s} onChange={() => setScope(s)} /> {SCOPE_LABELS[s].toLowerCase()}
              </label>
            ))}
          </fieldset>
        )}
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="notes/build-steps.md" required />
        </label>
        {rel && <p className="muted new-memory-path">Creates {path} when you first save it.</p>}
        <FormActions error={error} submitLabel="Create" disabled={rel === ''} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
