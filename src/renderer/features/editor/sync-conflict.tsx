/**
 * A memory file in a sync conflict, as the editor shows it: it was changed on this machine and on
 * another, the sync kept this machine's text in memory and put the other machine's in the Inbox
 * (main/sync/sync-run.ts). The editor's banner says so (which remote, which commit) and offers the
 * same choices as the Inbox item, plus Compare: this machine's text against the other machine's,
 * resolved piece by piece (MergePanel.tsx, mergeTwoWay: no common version is known here).
 *
 * Invariants: the Inbox item is the one record of the conflict, so the banner is shown exactly
 * while it is pending (the inbox's live query), whichever window or command decides it. Both texts
 * are kept until the person chooses: the file is written only by a choice, and the item is
 * decided only after that write succeeded.
 */
import { useMemo } from 'react';
import type { ApiClient } from '../../api/client';
import { useInbox } from '../inbox/use-inbox';
import type { InboxItem } from '../inbox/inbox-model';
import type { MergeSides } from './MergePanel';

/** The two sides of a sync's conflict, as Compare names them. */
export const SYNC_SIDES: MergeSides = { mine: 'This machine', theirs: 'The other machine', label: "This machine's text and the other machine's, piece by piece", cleanNote: 'Lines the two machines hold alike are kept as they are.' };

/** The pending Inbox item holding the other machine's side of `path` (null: no sync conflict, or `enabled` false). */
export function useSyncConflict(workspaceId: string | null, path: string, enabled: boolean): InboxItem | null {
  const { items } = useInbox(workspaceId);
  return useMemo(() => (enabled && items?.find((i) => i.kind === 'change' && i.from?.kind === 'sync' && i.from.conflict && i.change?.path === path)) || null, [enabled, items, path]);
}

/** What the banner says of a sync conflict. */
export function syncConflictText(item: InboxItem): string {
  const from = item.from!;
  const where = `synced from ${from.remote ?? 'the sync remote'}, commit ${from.commit.slice(0, 7)}`;
  if (item.change?.after === null) return `This file was deleted on another machine (${where}) and changed on this one. This machine's text stays until you choose.`;
  return `This file was changed on this machine and on another (${where}). Both texts are kept until you choose: this machine's in memory, the other machine's in the Inbox.`;
}

/**
 * Settles the conflict with `text` (this machine's file held `sha256`): the other machine's exact
 * text is the Inbox item's approval; this machine's is its rejection; anything else (a merge) is
 * saved as the person, then the item rejected, its part being in the saved text. An error message,
 * or null once settled.
 */
export async function settleSyncConflict(client: ApiClient, workspaceId: string | null, item: InboxItem, text: string, sha256: string | null): Promise<string | null> {
  const change = item.change!;
  if (text === change.after) {
    const approved = await client.inbox.approve({ workspaceId, id: item.id });
    return approved.status === 'ok' ? null : approved.message;
  }
  if (text !== change.before || sha256 === null) {
    const saved = await client.memory.save({ workspaceId, path: change.path, content: text, expectedSha256: sha256 });
    if (saved.status === 'conflict') return 'The file changed again meanwhile; nothing was saved. Compare again.';
    if (saved.status !== 'ok') return saved.message;
  }
  const rejected = await client.inbox.reject({ workspaceId, id: item.id });
  return rejected.status === 'ok' ? null : rejected.message;
}
