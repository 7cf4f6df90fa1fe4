/**
 * "New memory": a file in one of the view's available scopes, created by the person (actor `user`)
 * with a frontmatter template, then opened. Never overwrites: an existing path is an error.
 */
import { useState } from 'react';
import type { Scope } from '../../../common/memory/constants';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog, FormActions } from '../dialogs/Dialog';
import { SCOPE_LABELS, scopeRoot } from './tree-model';

const TEMPLATE = '---\ndescription: \n---\n\n';

export function NewMemoryDialog({ workspaceId, scopes, onClose, onCreated }: { workspaceId: string | null; scopes: readonly Scope[]; onClose: () => void; onCreated: (path: string) => void }) {
  const { client } = useApi();
  const [scope, setScope] = useState<Scope>(scopes.includes('project') ? 'project' : scopes[0]!);
  const [name, setName] = useState('');
  const action = useAction();
  const rel = name.trim().replace(/^\/+/, '');
  const path = `${scopeRoot(scope)}/${rel.includes('.') ? rel : `${rel}.md`}`;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const result = await client.memory.create({ workspaceId, path, kind: 'file', content: TEMPLATE });
      if (result.status === 'error') return result.message;
      onCreated(path);
    });
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
        <FormActions error={action.error} submitLabel="Create" disabled={action.busy || rel === ''} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
