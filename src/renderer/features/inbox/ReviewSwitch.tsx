/**
 * Review mode's switches, in the Inbox's header beside the harvest switch: per scope of
 * this view, whether agents' writes to it wait here for the person instead of changing memory. Off
 * until turned on; stored in the settings (`reviewScopes`, keyed by the scope's owner, which the
 * server names: inbox.reviewScopes), read by every agent's process at its next write.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/api-context';

const SCOPE_NAMES = { global: 'global', project: 'project', workspace: 'workspace' } as const;

export function ReviewSwitch({ workspaceId }: { workspaceId: string | null }) {
  const { orpc } = useApi();
  const queryClient = useQueryClient();
  const scopes = useQuery(orpc.inbox.reviewScopes.queryOptions({ input: { workspaceId } }));
  const settings = useQuery(orpc.settings.get.queryOptions());
  const save = useMutation(
    orpc.settings.set.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(orpc.settings.get.queryKey(), next);
        void queryClient.invalidateQueries({ queryKey: orpc.inbox.reviewScopes.key() });
      },
    }),
  );
  const toggle = (key: string, checked: boolean) => {
    const current = new Set(settings.data?.reviewScopes ?? []);
    if (checked) current.add(key);
    else current.delete(key);
    save.mutate({ reviewScopes: [...current].sort() });
  };
  const ready = scopes.data !== undefined && settings.data !== undefined && !save.isPending;
  // While a change is being saved, the switch shows what was asked for (it is not undone on screen).
  const held = save.isPending ? (save.variables.reviewScopes ?? []) : (settings.data?.reviewScopes ?? null);
  return (
    <fieldset className="inbox-review" title="While on, an agent's create, edit, delete or rename in that memory changes nothing: it waits here as a diff until you approve it. Your own edits are never held.">
      <legend>Hold agents&rsquo; changes for my review:</legend>
      {(scopes.data ?? []).map((s) => (
        <label key={s.scope} className="check inbox-switch">
          <input
            type="checkbox"
            checked={s.key !== null && (held?.includes(s.key) ?? s.on)}
            disabled={!ready || s.key === null}
            onChange={(e) => s.key !== null && toggle(s.key, e.target.checked)}
          />{' '}
          {SCOPE_NAMES[s.scope]} memory
        </label>
      ))}
    </fieldset>
  );
}
