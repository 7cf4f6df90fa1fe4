/**
 * "Add workspace": a local checkout by its folder, or a checkout on another machine over SSH
 * (`[user@]host[:port]` and the absolute path there). A new SSH host's key is shown for trust in
 * the workspace list once it is added. The folder must be absolute (common/workspaces/folder-path.ts):
 * a relative one is refused here, with the reason, before anything is sent (the server refuses it too).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { relativeFolderProblem } from '../../../common/workspaces/folder-path';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog, FormActions } from '../dialogs/Dialog';

export function AddWorkspaceDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (id: string) => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<'local' | 'ssh'>('local');
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [host, setHost] = useState('');
  const action = useAction();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const relative = relativeFolderProblem(path, kind);
      if (relative !== null) return relative;
      const derived = name.trim() || path.trim().replace(/\/+$/, '').split('/').pop() || 'workspace';
      const input = kind === 'ssh' ? { name: derived, path: path.trim(), ssh: host.trim() } : { name: derived, path: path.trim() };
      const added = await client.workspaces.add(input);
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.key() });
      onAdded(added.id);
    });
  };

  return (
    <Dialog title="Add workspace" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <fieldset className="segmented">
          <legend>Where is the checkout?</legend>
          <label>
            <input type="radio" name="kind" checked={kind === 'local'} onChange={() => setKind('local')} /> On this computer
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'ssh'} onChange={() => setKind('ssh')} /> Over SSH
          </label>
        </fieldset>
        {kind === 'ssh' && (
          <label>
            Host
            <input value={host} onChange={(e) => setHost(e.target.value)} placeholder="user@devbox:22 (or an alias from ~/.ssh/config)" required />
          </label>
        )}
        <label>
          {kind === 'ssh' ? 'Folder on that host (absolute path)' : 'Folder (absolute path)'}
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/you/src/project" required />
        </label>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="the folder's name" />
        </label>
        <FormActions error={action.error} submitLabel={kind === 'ssh' ? 'Connect and add' : 'Add'} disabled={action.busy || path.trim() === '' || (kind === 'ssh' && host.trim() === '')} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
