/**
 * "Add workspace": a local checkout by its folder, or a checkout on another machine over SSH
 * (`[user@]host[:port]` and the absolute path there). A new SSH host's key is shown for trust in
 * the workspace list once it is added.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage, useApi } from '../../api/api-context';
import { Dialog } from '../dialogs/Dialog';

export function AddWorkspaceDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (id: string) => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<'local' | 'ssh'>('local');
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [host, setHost] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const derived = name.trim() || path.trim().replace(/\/+$/, '').split('/').pop() || 'workspace';
      const input = kind === 'ssh' ? { name: derived, path: path.trim(), ssh: host.trim() } : { name: derived, path: path.trim() };
      const added = await client.workspaces.add(input);
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.key() });
      onAdded(added.id);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
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
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <div className="dialog-footer">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy || path.trim() === '' || (kind === 'ssh' && host.trim() === '')}>
            {kind === 'ssh' ? 'Connect and add' : 'Add'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
