/**
 * The per-workspace switch of harvest by the agents' hooks: off until the person turns
 * it on; stored in the settings (`harvestWorkspaces`), which `cairn harvest --hook` reads.
 */
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/api-context';
import { useSaveSettings } from '../settings/use-save-settings';

export function HarvestSwitch({ workspaceId }: { workspaceId: string }) {
  const { orpc } = useApi();
  const settings = useQuery(orpc.settings.get.queryOptions());
  const save = useSaveSettings();
  const on = settings.data?.harvestWorkspaces.includes(workspaceId) ?? false;
  const toggle = (checked: boolean) => {
    const current = new Set(settings.data?.harvestWorkspaces ?? []);
    if (checked) current.add(workspaceId);
    else current.delete(workspaceId);
    save.mutate({ harvestWorkspaces: [...current].sort() });
  };
  return (
    <label className="check inbox-switch" title="When on, Claude Code's hooks (cairn setup claude) propose memories from this workspace's sessions before a compaction and at a session's end.">
      <input type="checkbox" checked={on} disabled={settings.data === undefined || save.isPending} onChange={(e) => toggle(e.target.checked)} /> Propose memories from this workspace&rsquo;s agent sessions
    </label>
  );
}
