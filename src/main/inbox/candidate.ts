/**
 * A candidate memory: what an extractor proposes from a segment of a transcript, before
 * the host's checks and a person's review. Every extractor (agent, command, http, rules) answers
 * in this shape; nothing here is memory until a person approves it.
 */
import type { Scope } from '../../common/memory/constants';

export const CANDIDATE_CATEGORIES = ['preference', 'convention', 'fact', 'command', 'lesson'] as const;
export type CandidateCategory = (typeof CANDIDATE_CATEGORIES)[number];

/** Where a candidate's grounds are in the segment: a message, and words quoted from it verbatim. */
interface Evidence {
  readonly messageId: string;
  readonly quote: string;
  /** Who wrote the message (set by the host from the transcript, whatever the extractor said). */
  readonly speaker?: 'person' | 'agent' | 'tool';
  /** When, where the transcript says. */
  readonly at?: string | null;
}

export interface Candidate {
  readonly category: CandidateCategory;
  /** The memory itself, one or two sentences, as it would be written to a file. */
  readonly text: string;
  /** The scope it suits: a person's own preference is global, a codebase's convention project. */
  readonly scope: Scope;
  readonly evidence: readonly Evidence[];
  /** 0..1: how sure the extractor is that this is worth remembering as written. */
  readonly confidence: number;
  /** Why the extractor proposes it, for the person reviewing. */
  readonly rationale: string;
}
