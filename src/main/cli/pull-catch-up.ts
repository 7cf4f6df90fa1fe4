/**
 * Project memory a pull brought while no Cairn process watched the checkout, held now (the Inbox
 * as a change from elsewhere, kept from agents) where the scanners flag it or its scope is under
 * review: what `cairn inbox list` does before it lists, and the hooks before they answer after
 * HEAD moved in a home that holds some scope under review.
 */
import type { MemoryHome } from '../host/memory-home';
import { PulledMemory } from '../inbox/pulled-memory';
import { ReviewMode } from '../inbox/review-mode';
import type { MemorySession } from '../memory/session';

/** From HEAD's last move, or from `since` (a commit HEAD named before); resolves to the ids of the items held. */
export function catchUpPulls(services: Pick<MemoryHome, 'inbox' | 'history' | 'registry'>, session: MemorySession, since?: string | null): Promise<string[]> {
  const review = new ReviewMode(services.inbox, () => services.registry.reviewScopes());
  return new PulledMemory({ inbox: services.inbox, history: services.history, underReview: (scope, s) => review.underReview(scope, s) }).catchUp(session, since);
}
