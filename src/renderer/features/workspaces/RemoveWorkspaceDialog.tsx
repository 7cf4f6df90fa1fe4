/**
 * "Remove…" of a workspace (workspaces.remove), asked first. The confirmation says what stays (the
 * checkout and the project memory in it, which agents working there keep using) and what goes (the
 * workspace memory Cairn keeps for this checkout in its home, counted when it can be listed).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { ConfirmDialog } from '../dialogs/Dialog';
import { ErrorText } from '../../lib/ErrorText';

export interface RemovableWorkspace {
  readonly id: string;
  readonly name: string;
  readonly path: string;
  readonly host: string | null;
}

export function RemoveWorkspaceDialog({ workspace, onClose }: { workspace: RemovableWorkspace; onClose: () => void }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const action = useAction();
  const list = useQuery({ ...orpc.memory.list.queryOptions({ input: { workspaceId: workspace.id } }), retry: false });
  const workspaceFiles = list.data?.files.filter((f) => f.scope === 'workspace').length;
  const where = workspace.host ? `${workspace.host}:${workspace.path}` : workspace.path;

  const remove = () =>
    action.run(async () => {
      const result = await client.workspaces.remove({ id: workspace.id });
      if (result.status === 'error') return result.message;
      queryClient.removeQueries({ queryKey: orpc.memory.list.queryKey({ input: { workspaceId: workspace.id } }) });
      await queryClient.invalidateQueries({ queryKey: orpc.workspaces.key() });
      onClose();
    });

  return (
    <ConfirmDialog title={`Remove ${workspace.name}?`} confirmLabel="Remove workspace" danger busy={action.busy} onConfirm={() => void remove()} onCancel={onClose}>
      <p>
        The checkout at <code className="ws-path">{where}</code> and its project memory (<code>.cairn/memory</code> in it) are untouched: agents
        working there keep using them, and adding the folder again shows them here.
      </p>
      <p>
        {workspaceFiles === undefined
          ? 'Its workspace memory, which Cairn keeps for this checkout in its own folder, is deleted.'
          : workspaceFiles === 0
            ? 'It has no workspace memory to delete.'
            : `Its workspace memory (${workspaceFiles} file${workspaceFiles === 1 ? '' : 's'}, kept for this checkout in Cairn's own folder) is deleted.`}
      </p>
      <ErrorText>{action.error}</ErrorText>
    </ConfirmDialog>
  );
}
