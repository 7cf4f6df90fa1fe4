/**
 * Pinning a file from anywhere in a view (a tree row, the editor): shown at once in the list, then
 * settled by the server's answer and a fresh list. A list still loading from before the pin would
 * undo it when it lands, so that one is cancelled first.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useApi } from '../../api/api-context';
import type { MemoryFile } from './tree-model';

export function usePin(workspaceId: string | null): (file: MemoryFile, pinned: boolean) => Promise<void> {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  return useCallback(
    async (file: MemoryFile, pinned: boolean) => {
      const queryKey = orpc.memory.list.queryKey({ input: { workspaceId } });
      await queryClient.cancelQueries({ queryKey });
      queryClient.setQueryData(queryKey, (old) => old && { ...old, files: old.files.map((f) => (f.path === file.path ? { ...f, pinned } : f)) });
      try {
        await client.memory.setPinned({ workspaceId, path: file.path, pinned });
      } finally {
        void queryClient.invalidateQueries({ queryKey });
      }
    },
    [client, orpc, queryClient, workspaceId],
  );
}
