/**
 * What a newcomer sees while no workspace is registered: what Cairn is, and the one step that
 * makes it useful, adding the folder of a project agents work in. Once added, the window opens
 * that workspace, whose empty state (FirstRun) shows the setup lines for that very checkout, so
 * no command with a placeholder path is ever offered to copy. The folder must be absolute, as in
 * "Add workspace" (common/workspaces/folder-path.ts); the SSH case stays in that dialog.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { relativeFolderProblem } from '../../../common/workspaces/folder-path';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { ErrorText } from '../../lib/ErrorText';

export function Welcome({ onAdded, onGlobalOnly }: { onAdded: (workspaceId: string) => void; onGlobalOnly: () => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [folder, setFolder] = useState('');
  const action = useAction();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const relative = relativeFolderProblem(folder, 'local');
      if (relative !== null) return relative;
      const trimmed = folder.trim().replace(/\/+$/, '') || '/';
      const added = await client.workspaces.add({ name: trimmed.split('/').pop() || 'workspace', path: trimmed });
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.key() });
      onAdded(added.id);
    });
  };

  return (
    <section className="first-run welcome" aria-label="Welcome to Cairn">
      <h2>Welcome to Cairn</h2>
      <p>
        Cairn keeps the memory your coding agents build up between sessions: the build steps they worked out, your preferences, the lessons from
        their mistakes. You see, edit, pin and prune it here.
      </p>
      <p>Start with a project your agents work in. Cairn then shows the exact command that connects each agent to it.</p>
      <form className="form welcome-form" onSubmit={submit}>
        <label>
          Project folder (absolute path)
          <input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/home/you/src/project" required />
        </label>
        <ErrorText>{action.error}</ErrorText>
        <div className="form-actions">
          <button type="submit" className="btn primary" disabled={action.busy || folder.trim() === ''}>
            Add this project
          </button>
          <button type="button" className="link" onClick={onGlobalOnly}>
            Only global memory for now
          </button>
        </div>
      </form>
    </section>
  );
}
