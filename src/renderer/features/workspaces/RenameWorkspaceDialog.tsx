/**
 * "Rename…" of a workspace: its display name only (workspaces.rename); the id, the folder and the
 * memory stay. Opens with the current name selected; the server's refusal is shown in the dialog.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog, FormActions } from '../dialogs/Dialog';

export function RenameWorkspaceDialog({ workspace, onClose }: { workspace: { id: string; name: string }; onClose: () => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState(workspace.name);
  const input = useRef<HTMLInputElement>(null);
  const action = useAction();
  useEffect(() => input.current?.select(), []);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const result = await client.workspaces.rename({ id: workspace.id, name });
      if (result.status === 'error') return result.message;
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.list.key() });
      onClose();
    });
  };

  return (
    <Dialog title={`Rename ${workspace.name}`} onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label>
          Name
          <input ref={input} value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required data-autofocus />
        </label>
        <p className="muted">Only the name shown in Cairn changes; the folder and its memory stay as they are.</p>
        <FormActions error={action.error} submitLabel="Rename" disabled={action.busy || name.trim() === '' || name.trim() === workspace.name} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
