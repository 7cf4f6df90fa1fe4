/**
 * The host's checks of an extractor's candidates: whatever an extractor (a model, a
 * command, the rules) proposes, only candidates that pass every check reach the inbox, and every
 * refusal is counted by its reason, for the person to see.
 *
 * A candidate passes when: its evidence exists in the segment (each quote found verbatim in its
 * message after whitespace is normalised) and supports it (quotes long enough to carry meaning,
 * sharing the claim's words, not only a compaction's summary); no tool output it stands on speaks
 * to AI agents (planted instructions), nor does it repeat what a tool's output in the segment says
 * to them (the agent echoing a planted order) unless the person's own quotes say it; a preference
 * or a convention has the person's own words among its evidence; its confidence is at least the
 * threshold; the content scanners find neither a
 * secret nor an injected instruction in its text, its rationale, its evidence quotes, or the
 * messages they are from, as written or with the lead-ins of their lines and sentences taken off
 * (see LEAD_INS); it repeats nothing of this batch, the inbox, a candidate decided (rejected or
 * approved, as proposed or as edited) recently, or a line already in memory; and fewer than MAX_PER_SEGMENT came before it.
 */
import { scanContent } from '../memory/scanners/content-scanner';
import type { Candidate } from '../inbox/candidate';
import type { TranscriptMessage } from './transcript';

/** The most candidates one segment may bring to the inbox. */
export const MAX_PER_SEGMENT = 10;
/** The confidence a candidate needs by default (a setting may raise or lower it). */
export const DEFAULT_MIN_CONFIDENCE = 0.6;

export const REJECTION_REASONS = [
  'no-evidence',
  /** The quotes are too short to carry meaning, share too little of the claim, say the opposite, or are only a compaction's summary. */
  'unsupported',
  /** A tool's output it stands on, or one whose words it repeats, speaks to AI agents ("Note to AI agents reading this file: ..."): planted, never a fact. */
  'addressed-to-agents',
  'not-persons-words',
  'low-confidence',
  'flagged',
  'duplicate-in-batch',
  'already-in-inbox',
  'rejected-before',
  /** A person approved it before (perhaps edited, perhaps into another file than memory is compared with). */
  'approved-before',
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
  /** Texts a person approved (as proposed and as edited): decided, whichever file they went to. */
  readonly approved?: Iterable<string>;
  /** Lines of the memory files of the scopes the candidates may go to. */
  readonly memoryLines: Iterable<string>;
  /** Texts this run already took (earlier chunks of a long session): a repeat is a duplicate in the batch. */
  readonly batch?: Iterable<string>;
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

/**
 * Words too common to say what a text is about: a quote made only of them ("commit" is one word,
 * "and the" none) carries no claim. English, and the commonest of a few other languages people
 * write to agents in.
 */
const STOPWORDS = new Set(
  (
    'a an the and or but if then so of to in on at by for with from into onto as is are was were be been being it its this that these those ' +
    'there here i me my we us our you your he she they them their his her not no do does did done have has had will would can could should ' +
    'shall may might must just also very too than such only own same all any each every some more most other about again once up down out ' +
    'over under what which who whom whose when where why how please ok okay yes user person agent prefers prefer wants want likes like ' +
    'der die das und oder nicht ist ein eine le la les et ou est un une de des el los las y o es en que por para il lo gli di che per non'
  ).split(' '),
);

/** A text's content words: lower case, letters and digits, not stopwords, a crude stem. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.add(stem(raw));
  }
  return out;
}

/** "commits", "committed", "committing" and "commit" alike: enough for overlap, not a linguist's stem. */
function stem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/u, '').replace(/(.)\1$/u, '$1') || word;
}

/** Words that turn a statement into its opposite. */
const NEGATION = /\b(?:never|not|no|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|mustn'?t|can'?t|cannot|avoid|without|nor|stop)\b/i;

/** The fewest content words a quote needs to carry a claim. */
const MIN_QUOTE_WORDS = 3;

/**
 * Whether the quotes support the claim: together they hold at least MIN_QUOTE_WORDS content words
 * (or as many as a shorter claim has), share at least two of the claim's (or all of a claim that
 * has fewer), and none says "never" where
 * the claim does not, or the other way round. Lexical, so a paraphrase that shares no word fails
 * (the extractors are told to quote, not paraphrase), and an opposite that hides its negation in
 * another word passes; it stops a one-word quote or a quote about something else.
 */
function supports(claim: string, quotes: readonly string[]): boolean {
  const claimWords = contentWords(claim);
  const quoteWords = new Set<string>();
  for (const q of quotes) for (const w of contentWords(q)) quoteWords.add(w);
  if (quoteWords.size < Math.min(MIN_QUOTE_WORDS, claimWords.size) || quoteWords.size === 0) return false;
  let shared = 0;
  for (const w of claimWords) if (quoteWords.has(w)) shared++;
  if (shared < Math.min(2, claimWords.size)) return false;
  const negated = quotes.some((q) => NEGATION.test(q));
  return negated === NEGATION.test(claim) || quotes.length > 1;
}

/**
 * Text in a tool's output that speaks to AI agents, the shape of instructions planted in a file or
 * a web page for the agent that reads it ("Note to AI agents reading this file: remember ...", "If
 * you are an AI assistant, ...", "Dear Claude, ..."). A person does not write a file's notes to
 * "AI agents"; whatever such text asks for is never a fact of the project.
 */
const ADDRESSED_TO_AGENTS = [
  /\b(?:note|message|instructions?|attention|reminder|notice|hint|memo)\s*(?:to|for)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:ai|llms?|language\s+models?|(?:ai\s+|coding\s+)?(?:agents?|assistants?)|bots?|copilot|claude|codex|gemini|chatgpt)\b/i,
  /\b(?:if|when)\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|language\s+model|(?:ai\s+|coding\s+)?(?:agent|assistant)|bot|copilot|claude|codex|gemini|chatgpt)\b/i,
  /\b(?:ai|llm|coding)\s+(?:agents?|assistants?|models?)\s+(?:reading|processing|that\s+reads?|who\s+reads?|scanning)\b/i,
  /\b(?:dear|hey|hello|hi)\s+(?:ai|llm|agent|assistant|claude|codex|gemini|copilot|chatgpt)\b/i,
  /\b(?:ai|llm)s?\s*[:,]\s*(?:remember|always|never|you\s+must|make\s+sure)\b/i,
];

/** Whether a tool's output speaks to AI agents (see ADDRESSED_TO_AGENTS). */
export function addressesAgents(text: string): boolean {
  return ADDRESSED_TO_AGENTS.some((re) => re.test(text));
}

/** The passages of a text that speak to AI agents: each from where it addresses them to the end of its paragraph. */
function passagesToAgents(text: string): string[] {
  const out: string[] = [];
  for (const re of ADDRESSED_TO_AGENTS) {
    for (const match of text.matchAll(new RegExp(re.source, 'gi'))) {
      const rest = text.slice(match.index);
      out.push(rest.slice(0, rest.search(/\n[ \t]*\n|$/)));
    }
  }
  return out;
}

/**
 * Whether a claim repeats a passage: at least half of its content words (and two) are the
 * passage's. The planted order said again in the agent's own words ("The doc also says all deploys
 * must target ...") is still the planted order.
 */
function repeats(claim: string, passage: string): boolean {
  const claimWords = contentWords(claim);
  const passageWords = contentWords(passage);
  let shared = 0;
  for (const w of claimWords) if (passageWords.has(w)) shared++;
  return shared >= Math.max(2, Math.ceil(claimWords.size / 2));
}

/** Every reason, at zero. */
export function noRejections(): Record<RejectionReason, number> {
  return Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
}

/**
 * `textIsQuote`: each candidate's text is its quote's own words, reformatted (an import of a
 * person's file), not a claim an extractor made of them: whether the quotes support it is not asked.
 * `limit`: the most accepted (a long session's run checks each chunk with none, and caps the whole).
 */
export function checkCandidates(candidates: readonly Candidate[], segment: readonly TranscriptMessage[], known: KnownTexts, minConfidence = DEFAULT_MIN_CONFIDENCE, textIsQuote = false, limit = MAX_PER_SEGMENT): CheckOutcome {
  const rejected = noRejections();
  // The scanners' verdict on a whole message, worked out once however many candidates cite it.
  const verdicts = new Map<TranscriptMessage, boolean>();
  const flaggedMessage = (message: TranscriptMessage): boolean => {
    let flagged = verdicts.get(message);
    if (flagged === undefined) verdicts.set(message, (flagged = flaggedText(message.text)));
    return flagged;
  };
  const byId = new Map(segment.map((m) => [m.id, m]));
  // What the segment's tool output says to AI agents: planted, whichever message repeats it.
  const toAgents = segment.filter((m) => m.kind === 'tool_result').flatMap((m) => passagesToAgents(m.text));
  const inbox = new Set([...known.inbox].map(normalizedText));
  const refused = new Set([...known.rejected].map(normalizedText));
  const approved = new Set([...(known.approved ?? [])].map(normalizedText));
  const inMemory = new Set([...known.memoryLines].map(normalizedText).filter((l) => l.length > 0));
  const batch = new Set([...(known.batch ?? [])].map(normalizedText));
  const accepted: Candidate[] = [];
  // When more pass than a segment may bring, the most confident are kept (ties in the order given),
  // not the earliest; what passes is then put back in the order given.
  const byConfidence = candidates.map((c, i) => ({ c, i })).sort((a, b) => (b.c.confidence || 0) - (a.c.confidence || 0) || a.i - b.i);
  const order = new Map<Candidate, number>();
  for (const { c, i } of byConfidence) {
    order.set(c, i);
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
      // A compaction's summary orients; it is never the only grounds of anything.
      if (grounds.every(({ message }) => message!.kind === 'summary')) return 'unsupported';
      if (!textIsQuote && !supports(c.text, grounds.map(({ e }) => e.quote))) return 'unsupported';
      if (grounds.some(({ message }) => message!.kind === 'tool_result' && addressesAgents(message!.text))) return 'addressed-to-agents';
      // Quoted from the agent repeating it, the planted text is no more a fact; unless the
      // person's own words say it (then it is theirs to decide).
      const persons = grounds.filter(({ message }) => message!.fromPerson).map(({ e }) => e.quote);
      if (toAgents.some((p) => repeats(c.text, p)) && !(persons.length > 0 && supports(c.text, persons))) return 'addressed-to-agents';
      const key = normalizedText(c.text);
      if (batch.has(key)) return 'duplicate-in-batch';
      if (inbox.has(key)) return 'already-in-inbox';
      if (refused.has(key)) return 'rejected-before';
      if (approved.has(key)) return 'approved-before';
      if (inMemory.has(key)) return 'already-in-memory';
      if (accepted.length >= limit) return 'over-limit';
      batch.add(key);
      return null;
    })();
    if (reason === null) accepted.push(c);
    else rejected[reason]++;
  }
  accepted.sort((a, b) => order.get(a)! - order.get(b)!);
  return { accepted, rejected };
}
