/**
 * "New memory": a file in one of the view's available scopes, created by the person (actor `user`)
 * with a frontmatter template, then opened. Never overwrites: an existing path is an error.
 */
import { useState } from 'react';
import type { Scope } from '../../../common/memory/constants';
import { errorMessage, useApi } from '../../api/api-context';
import { Dialog } from '../dialogs/Dialog';
import { SCOPE_LABELS, scopeRoot } from './tree-model';

const TEMPLATE = '---\ndescription: \n---\n\n';

export function NewMemoryDialog({ workspaceId, scopes, onClose, onCreated }: { workspaceId: string | null; scopes: readonly Scope[]; onClose: () => void; onCreated: (path: string) => void }) {
  const { client } = useApi();
  const [scope, setScope] = useState<Scope>(scopes.includes('project') ? 'project' : scopes[0]!);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rel = name.trim().replace(/^\/+/, '');
  const path = `${scopeRoot(scope)}/${rel.includes('.') ? rel : `${rel}.md`}`;

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const result = await client.memory.create({ workspaceId, path, kind: 'file', content: TEMPLATE });
      if (result.status === 'error') setError(result.message);
      else onCreated(path);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="New memory" onClose={onClose}>
      <form className="form" onSubmit={submit}>
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
        {rel && <p className="muted">Creates {path}</p>}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-footer">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy || rel === ''}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}
