/** settings.set, whose answer (the settings as stored) becomes settings.get's data at once. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/api-context';

export function useSaveSettings() {
  const { orpc } = useApi();
  const queryClient = useQueryClient();
  return useMutation(orpc.settings.set.mutationOptions({ onSuccess: (next) => queryClient.setQueryData(orpc.settings.get.queryKey(), next) }));
}
