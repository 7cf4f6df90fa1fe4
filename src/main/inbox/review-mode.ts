/**
 * Review mode, a per-scope setting: an agent's writes to a scope under review become
 * `change` items in the inbox instead of changing memory (memory-tool.ts computes them; this keeps
 * them). The setting is `reviewScopes` in <home>/config.json, a list of scope owners: `global`,
 * `project:<projectId>`, `workspace:<workspaceId>` (identity.ts's scopeOwner, the same keys as the
 * pins). Off by default: an empty list.
 *
 * Invariant: the setting is read on every agent write, so a change made by another process (the
 * app, `cairn inbox review`) holds from the next write, without a restart. Reading config.json
 * costs tens of microseconds, next to the milliseconds of a write (measured in review-mode.test.ts).
 */
import type { Scope } from '../../common/memory/constants';
import { scopeOwner } from '../../common/memory/identity';
import type { ProposedChange, ReviewGate } from '../memory/review-gate';
import type { MemorySession } from '../memory/session';
import type { InboxStore } from './inbox-store';

/** The key of a scope root in `reviewScopes`, as `session` sees it; null when it has no owner. */
export function reviewKey(scope: Scope, session: Pick<MemorySession, 'workspaceId' | 'projectId'>): string | null {
  return scopeOwner(scope, session);
}

export class ReviewMode implements ReviewGate {
  constructor(
    private readonly inbox: InboxStore,
    /** The setting as it is now (read each time: another process may have changed it). */
    private readonly reviewScopes: () => readonly string[],
  ) {}

  underReview(scope: Scope, session: MemorySession): boolean {
    const key = reviewKey(scope, session);
    return key !== null && this.reviewScopes().includes(key);
  }

  propose(change: ProposedChange, session: MemorySession): string {
    const binding = session.scopes.project;
    // The checkout, so that `cairn inbox approve` finds the same session (a local one; a remote
    // workspace is found by its id).
    const cwd = binding.available && binding.runtime.label === 'local' ? binding.root.anchor : null;
    return this.inbox.addChange(change, { workspaceId: session.workspaceId, projectId: session.projectId, owner: reviewKey(change.scope, session) ?? change.scope, cwd }).id;
  }
}
