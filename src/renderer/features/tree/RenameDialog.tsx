/**
 * Rename or move a file or directory within its scope (actor `user`). The new path is typed
 * relative to the scope root; Cairn never overwrites (an existing target is an error) and a
 * directory moves with everything in it.
 */
import { useState } from 'react';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog, FormActions } from '../dialogs/Dialog';
import { scopeRoot, type Row } from './tree-model';

type Target = Extract<Row, { kind: 'dir' | 'file' }>;

export interface RenameDialogProps {
  workspaceId: string | null;
  target: Target;
  /** Why it cannot be renamed now (unsaved edits to it), or null. */
  blocked?: string | null;
  onClose: () => void;
  onRenamed: (from: string, to: string) => void;
}

export function RenameDialog({ workspaceId, target, blocked = null, onClose, onRenamed }: RenameDialogProps) {
  const { client } = useApi();
  const root = scopeRoot(target.scope);
  const [rel, setRel] = useState(target.path.slice(root.length + 1));
  const action = useAction();
  const to = `${root}/${rel.trim().replace(/^\/+|\/+$/g, '')}`;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const result = await client.memory.rename({ workspaceId, fromPath: target.path, toPath: to });
      if (result.status === 'error') return result.message;
      onRenamed(target.path, to);
    });
  };


  return (
    <Dialog title={`Rename ${target.path}`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label>
          New path in {root}/
          <input value={rel} onChange={(e) => setRel(e.target.value)} required data-autofocus />
        </label>
        {blocked && <p className="error-text">{blocked}</p>}
        <FormActions error={action.error} submitLabel="Rename" disabled={action.busy || blocked !== null || to === target.path || rel.trim() === ''} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
