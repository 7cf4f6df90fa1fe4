/**
 * "Agent edited" and "edited outside Cairn" badges: what the badge of a file can be,
 * and the key that names a file as a person sees it. The server keeps, per key, when the person
 * last opened the file (main/memory/seen-store.ts); the renderer keeps its rows' badges by the
 * same key (renderer/features/changes/badge-store.ts).
 *
 * Invariant: a global file is one file in every view (its key is its path); a project or
 * workspace file is keyed by the workspace it is seen from. Keys are compared, never parsed.
 */
import { z } from 'zod';
import type { Actor, Scope } from './constants';

const BADGES = ['agent', 'external'] as const;
export type Badge = (typeof BADGES)[number];
export const badgeSchema = z.enum(BADGES);

/**
 * The badge a change by `actor` gives a file: none for the person's own; a sync's (another
 * machine's change, come in through git like a pull) is badged as a change from outside Cairn.
 */
export function badgeOf(actor: Actor): Badge | null {
  return actor === 'person' ? null : actor === 'sync' ? 'external' : actor;
}

/**
 * The key of a file seen from a workspace (null: the global view alone). Paths start with `/`, so a
 * global key (the path) never equals a workspace's (`<workspaceId>:<path>`).
 */
export function badgeKey(workspaceId: string | null, scope: Scope, path: string): string {
  return scope === 'global' ? path : `${workspaceId ?? '-'}:${path}`;
}
