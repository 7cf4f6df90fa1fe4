/**
 * The host's checks of an extractor's candidates (issue 19): whatever an extractor (a model, a
 * command, the rules) proposes, only candidates that pass every check reach the inbox, and every
 * refusal is counted by its reason, for the person to see.
 *
 * A candidate passes when: its evidence exists in the segment (each quote found verbatim in its
 * message after whitespace is normalised); a preference or a convention has the person's own words
 * among its evidence; its confidence is at least the threshold; the content scanners find neither a
 * secret nor an injected instruction in its text, its rationale, its evidence quotes, or the
 * messages they are from, as written or with the lead-ins of their lines and sentences taken off
 * (see LEAD_INS); it repeats nothing of this batch, the inbox, a candidate rejected recently, or a
 * line already in memory; and fewer than MAX_PER_SEGMENT came before it.
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
  /** A model's answer held it in a shape that is no candidate (counted by the extractor, not checked here). */
  'malformed',
  /** It passed, but the inbox held as many pending items as it takes (counted by the caller of InboxStore.add, not checked here). */
  'inbox-full',
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

/** Text with runs of whitespace as one space: how a quote is found in a message. */
export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * Words that open a standing order or a lasting statement ("Always ...", "Remember that ...", "From
 * now on, ..."), as a person says them and as an extractor keeps them ("Always " + the order). The
 * scanners find some markers only where they open a line or a sentence (a "System prompt:" marker,
 * a "### Instruction:" header, "Human:" and "Assistant:" turns): a marker anywhere else is mostly
 * prose about it. A lead-in in front of one hides nothing from the agent that later reads the
 * memory (the marker is still what the order is about), so the checks scan each text a second time
 * with the lead-ins at the start of its lines and sentences taken off. Only lead-ins that leave
 * what follows as said are taken off; a negation ("never", "don't") is not, since without it the
 * rest would read as the opposite order.
 */
const LEAD_IN_WORDS = String.raw`always|remember(?:[ \t]+that)?|keep[ \t]+in[ \t]+mind(?:[ \t]+that)?|(?:don'?t|do[ \t]+not|never)[ \t]+forget(?:[ \t]+that)?|from[ \t]+now[ \t]+on|going[ \t]+forward|henceforth|in[ \t]+(?:the[ \t]+)?future|for[ \t]+future[ \t]+reference|note(?:[ \t]+that)?|fyi|btw|by[ \t]+the[ \t]+way|heads[ \t-]up|for[ \t]+the[ \t]+record|lesson[ \t]+learned|rule[ \t]+of[ \t]+thumb|important|as[ \t]+a[ \t]+rule|in[ \t]+general|make[ \t]+sure(?:[ \t]+(?:you|to))?|be[ \t]+sure[ \t]+to`;
/** A line's or a sentence's start, its list or quote marks, fillers, then one or more lead-ins. */
const LEAD_INS = new RegExp(
  String.raw`(^|[.!?][ \t]+)([ \t>*+-]*)(?:(?:ok(?:ay)?|so|also|and|please|hey)[ \t]*[,!]?[ \t]+)*(?:(?:${LEAD_IN_WORDS})\b[ \t]*[,:!]?[ \t]*)+`,
  'gim',
);

/** text with the lead-ins at the start of its lines and sentences taken off (text itself when it has none). */
function withoutLeadIns(text: string): string {
  return text.replace(LEAD_INS, '$1$2');
}

/** Whether the scanners find a secret or an injected instruction in text, as written or without its lead-ins. */
function flaggedText(text: string): boolean {
  if (scanContent(text).length > 0) return true;
  const bare = withoutLeadIns(text);
  return bare !== text && scanContent(bare).length > 0;
}

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
    if (flagged === undefined) verdicts.set(message, (flagged = flaggedText(message.text)));
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
      // The text as proposed, the rationale shown beside it, the words it stands on, and the
      // messages they are from: an extractor's rewording (a capital, a full stop, "Always " kept
      // before a line's marker) or cut (a line without the rest of a command) can hide from the
      // scanners what they find in the whole; a message that holds a secret or an injected
      // instruction is evidence of nothing.
      if (flaggedText(c.text) || flaggedText(c.rationale) || grounds.some(({ e, message }) => flaggedText(e.quote) || flaggedMessage(message!))) return 'flagged';
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
