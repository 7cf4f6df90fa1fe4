/**
 * The host's checks of an extractor's candidates (issue 19): whatever an extractor (a model, a
 * command, the rules) proposes, only candidates that pass every check reach the inbox, and every
 * refusal is counted by its reason, for the person to see.
 *
 * A candidate passes when: its evidence exists in the segment (each quote found verbatim in its
 * message after whitespace is normalised); a preference or a convention has the person's own words
 * among its evidence; its confidence is at least the threshold; the content scanners find neither a
 * secret nor an injected instruction in its text, its evidence quotes, or the messages they are from; it repeats nothing of this batch, the inbox, a
 * candidate rejected recently, or a line already in memory; and fewer than MAX_PER_SEGMENT came
 * before it.
 */
import { scanContent } from '../memory/scanners/content-scanner';
import type { Candidate } from './candidate';
import type { TranscriptMessage } from './transcript';

/** The most candidates one segment may bring to the inbox. */
export const MAX_PER_SEGMENT = 10;
/** The confidence a candidate needs by default (a setting may raise or lower it). */
export const DEFAULT_MIN_CONFIDENCE = 0.6;

export const REJECTION_REASONS = [
  'no-evidence',
  'not-persons-words',
  'low-confidence',
  'flagged',
  'duplicate-in-batch',
  'already-in-inbox',
  'rejected-before',
  'already-in-memory',
  'over-limit',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** What the candidates are compared with: texts already proposed, rejected, or in memory. */
export interface KnownTexts {
  readonly inbox: Iterable<string>;
  readonly rejected: Iterable<string>;
  /** Lines of the memory files of the scopes the candidates may go to. */
  readonly memoryLines: Iterable<string>;
}

export interface CheckOutcome {
  readonly accepted: Candidate[];
  /** Every reason, with how many candidates it refused (zero included). */
  readonly rejected: Record<RejectionReason, number>;
}

/** Lower case, words only: how two texts are compared for repeats. */
export function normalizedText(text: string): string {
  return text
    .toLowerCase()
    .replace(/^[\s>*+-]*(?:\[[ x]\]\s*)?/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Every reason, at zero. */
export function noRejections(): Record<RejectionReason, number> {
  return Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
}

export function checkCandidates(candidates: readonly Candidate[], segment: readonly TranscriptMessage[], known: KnownTexts, minConfidence = DEFAULT_MIN_CONFIDENCE): CheckOutcome {
  const rejected = noRejections();
  // The scanners' verdict on a whole message, worked out once however many candidates cite it.
  const verdicts = new Map<TranscriptMessage, boolean>();
  const flaggedMessage = (message: TranscriptMessage): boolean => {
    let flagged = verdicts.get(message);
    if (flagged === undefined) verdicts.set(message, (flagged = scanContent(message.text).length > 0));
    return flagged;
  };
  const byId = new Map(segment.map((m) => [m.id, m]));
  const inbox = new Set([...known.inbox].map(normalizedText));
  const refused = new Set([...known.rejected].map(normalizedText));
  const inMemory = new Set([...known.memoryLines].map(normalizedText).filter((l) => l.length > 0));
  const batch = new Set<string>();
  const accepted: Candidate[] = [];
  for (const c of candidates) {
    const reason = ((): RejectionReason | null => {
      const grounds = c.evidence.map((e) => ({ e, message: byId.get(e.messageId) }));
      if (grounds.length === 0 || grounds.some(({ e, message }) => !message || e.quote.trim() === '' || !squash(message.text).includes(squash(e.quote)))) return 'no-evidence';
      if ((c.category === 'preference' || c.category === 'convention') && !grounds.some(({ message }) => message!.fromPerson)) return 'not-persons-words';
      if (!(c.confidence >= minConfidence)) return 'low-confidence';
      // The text as proposed, the words it stands on, and the messages they are from: an
      // extractor's rewording (a capital, a full stop) or cut (a line without the rest of a
      // command) can hide from the scanners what they find in the whole; a message that holds a
      // secret or an injected instruction is evidence of nothing.
      if (scanContent(c.text).length > 0 || grounds.some(({ e, message }) => scanContent(e.quote).length > 0 || flaggedMessage(message!))) return 'flagged';
      const key = normalizedText(c.text);
      if (batch.has(key)) return 'duplicate-in-batch';
      if (inbox.has(key)) return 'already-in-inbox';
      if (refused.has(key)) return 'rejected-before';
      if (inMemory.has(key)) return 'already-in-memory';
      if (accepted.length >= MAX_PER_SEGMENT) return 'over-limit';
      batch.add(key);
      return null;
    })();
    if (reason === null) accepted.push(c);
    else rejected[reason]++;
  }
  return { accepted, rejected };
}
