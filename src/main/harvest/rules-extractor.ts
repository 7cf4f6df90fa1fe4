/**
 * The `rules` extractor: deterministic and offline. It proposes only what a person said
 * outright in a transcript, clause by clause, from the messages the person typed:
 * - statements after a lead-in that marks them as lasting ("remember that", "from now on", "FYI",
 *   "heads up", "note for the future:", "for the record", "lesson learned:", "rule of thumb:", "our
 *   convention is", "in general", "going forward");
 * - standing orders ("always ...", "never ...", "don't ever ...", "make sure you always ...",
 *   "don't ... without asking", "use X instead of Y", "we use X, not Y", "we don't use X");
 * - a person's preferences ("I prefer ...", "I'd rather ...");
 * - declarations that say they hold generally ("... here", "in this repo", "everywhere", "every
 *   table", "on my machine", "in prod"), in the present tense.
 * Nothing the agent, a tool or a hook wrote is ever evidence here; code blocks, quoted and pasted
 * text, questions, suppositions, stories of the past, one-offs ("this time", "for now", "in this
 * PR") and words taken back ("never mind", "scratch that") are skipped: precision over recall.
 *
 * Invariants: the same messages give the same candidates, in message order; each candidate's
 * evidence quote is a verbatim substring of its message's text; at most MAX_RULE_CANDIDATES.
 */
import type { Candidate, CandidateCategory } from '../inbox/candidate';
import { normalizedText } from './checks';
import type { Extractor } from './harvest-run';
import type { TranscriptMessage } from './transcript';

/** The most candidates one run proposes (the host's checks cap a segment at 10 as well). */
export const MAX_RULE_CANDIDATES = 10;

const MIN_CLAUSE = 12;
const MAX_CLAUSE = 300;

/** Words before the statement that only soften or connect it. */
const FILLER = /^(?:(?:hey|ok(?:ay)?|k|yep|yes|yeah|great|perfect|nice|cool|thanks|thank you|ugh|hm+|oh|ah|so|also|and|but|then|one thing|one more(?: thing)?|wait|please|pls|plz|just)\b[,:!.]?\s+)+/i;

/** Lead-ins that mark what follows as lasting: the clause is a candidate whatever it says. */
const LASTING =
  /^(?:remember(?: that)?|keep in mind(?: that)?|don'?t forget(?: that)?|do not forget(?: that)?|never forget(?: that)?|from now on|going forward|in (?:the )?future|henceforth|for future reference|fyi|btw|by the way|heads[- ]up|note(?: for (?:the )?future)?|for the record|lesson learned|rule of thumb(?: (?:in|for) this (?:repo|codebase|project))?|our convention is(?: that)?|the convention (?:here )?is(?: that)?|in general|as a rule|general rule)\b[,:!.]?\s*(?:that\s+)?/i;

/** Standing orders at the start of a clause. */
const ORDER = /^(?:make sure (?:you |to )?|be sure (?:to )?|remember to |it'd be great if you could |could you |you should )?(always|alwyas|allways|never|don'?t ever|do not ever|don'?t|dont|do not)\b/i;

/** Ways a clause says it holds generally, not just for the task at hand. */
const GENERAL = /\b(?:here|in this (?:repo|repository|codebase|project|package|folder|team|org)|in our (?:repo|codebase|code|project)|everywhere|every (?:\w+)|all (?:\w+)|any (?:test|script|file|table|change)s?|always|never|on (?:my|this) (?:machine|laptop|box)|in (?:prod|production|dev|staging)|that's (?:the|our) rule|that's how we)\b/i;

/** A verb in the present: what a declaration of how things are needs. */
const PRESENT =
  /\b(?:is|are|isn't|aren't|has|have|runs?|lives?|goes|go|gets?|needs?|must|should|uses?|use|owns?|takes?|follows?|reads?|resets?|returns?|keeps?|works?|means?|requires?|calls?|lives|points?|stays?|belongs?|listens?|serves?|deploys?|builds?|starts?|stores?|sends?|writes?|handles?|connects?|depends?|expects?|contains?|holds?|ships?|publishes?|exposes?|accepts?|produces?|generates?|hosts?|routes?|caches?|syncs?|fails?|expires?|rotates?|binds?|talks?|sits?)\b/i;

/** A clause that takes back the one before it. */
const RETRACTION = /^(?:(?:actually|no|wait|hmm|um)[,.]?\s+)*(?:scratch that|forget (?:i said|that|it)|never mind|nevermind|ignore that|not that)\b/i;

/** What makes a clause no statement at all. */
function notAStatement(clause: string): boolean {
  return (
    clause.endsWith('?') ||
    /^(?:if|when|whether|should|would|could|can|do|does|did|is|are|was|were|why|how|what|who|where|maybe|perhaps|what if|is it|are we|do we|does it)\b/i.test(clause) ||
    /\b(?:you said|they said|he said|she said|keeps saying|the docs say|docs say|according to|someone filed|the issue says|old readme|says ")\b/i.test(clause) ||
    // A story of the past, or of another place.
    // ("is deployed from", "are shipped as": the passive of the present is no story.)
    /\b(?:used to|back at|my old|previous|last (?:week|time|year)|at my old job|was|were|did|broke|wrote|(?<!\b(?:is|are|be|gets?)\s+)(?:deployed|shipped)|said|asked)\b/i.test(clause) ||
    // A one-off, or words taken back.
    /\b(?:this time|for now|yet|in this pr|this pr|for this one|today|right now|never mind|nevermind|scratch that|forget i said|ignore that)\b/i.test(clause) ||
    // "don't always": an observation, not a rule.
    /\b(?:don'?t|doesn'?t|does not|do not|not) always\b/i.test(clause) ||
    // Sarcasm marks.
    /what could possibly go wrong|🙄|\/s\b/i.test(clause)
  );
}

function sentenceCase(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ').replace(/[,;:—–-]+$/, '');
  const body = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!)`"']$/.test(body) ? body.replace(/!+$/, '.') : `${body}.`;
}

/** The clauses of a message that may hold a statement: prose, outside code blocks, quotes and logs. */
function clauses(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (/^(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line === '' || line.startsWith('>') || line.startsWith('$ ') || line.startsWith('<') || /^(?:npm|yarn|pnpm) (?:ERR|WARN)|^#\d+ \[|^\s*at /.test(line)) continue;
    const item = line.replace(/^(?:[-*+]|\d+[.)])\s+(?:\[[ x]\]\s+)?/, '');
    // Split after . ! ? and at ; — –, never inside a code span or a URL.
    let start = 0;
    let inCode = false;
    for (let i = 0; i < item.length; i++) {
      const c = item[i]!;
      if (c === '`') inCode = !inCode;
      if (inCode) continue;
      const next = item[i + 1];
      const ends = ((c === '.' || c === '!' || c === '?') && (next === undefined || next === ' ')) || c === ';' || ((c === '—' || c === '–') && item[i - 1] === ' ');
      if (!ends) continue;
      out.push(item.slice(start, c === ';' || c === '—' || c === '–' ? i : i + 1).trim());
      start = i + 1;
    }
    if (start < item.length) out.push(item.slice(start).trim());
  }
  return out.flatMap(splitAtCommas).filter((c) => c.length > 0);
}

/** Words that carry a clause on past a comma ("X, not Y", "X, so Z", "X, only Y"). */
const CARRIES_ON = /^(?:not|no|never|only|so|which|that|who|when|where|while|because|since|like|rather|instead|with|without|as|or|except|unless|even|if|then|otherwise|e\.g\.|i\.e\.|too|either|nor|plus)\b/i;

/**
 * A sentence's independent parts: a comma starts a new one unless what follows carries the first
 * on; ", and" / ", but" start one only before a whole clause (a verb in the present). A comma
 * inside a code span is no boundary.
 */
function splitAtCommas(sentence: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let inCode = false;
  let inQuote = false;
  for (let i = 0; i < sentence.length; i++) {
    const c = sentence[i]!;
    if (c === '`') inCode = !inCode;
    if (c === '"' || c === '\u201c' || c === '\u201d') inQuote = c === '\u201c' ? true : c === '\u201d' ? false : !inQuote;
    if (inCode || inQuote || c !== ',' || sentence[i + 1] !== ' ') continue;
    // "From now on, write ...": a lead-in belongs to what follows it.
    if (sentence.slice(start, i).replace(FILLER, '').replace(LASTING, '').trim() === '') continue;
    const after = sentence.slice(i + 2);
    const joined = /^(?:and|but)\s+(.*)$/i.exec(after);
    if (joined ? !PRESENT.test(joined[1]!) : CARRIES_ON.test(after)) continue;
    parts.push(sentence.slice(start, i).trim());
    start = joined ? i + 2 + joined[0].length - joined[1]!.length : i + 2;
  }
  parts.push(sentence.slice(start).trim());
  return parts;
}

interface Made {
  readonly text: string;
  readonly category: CandidateCategory;
  readonly confidence: number;
  readonly why: string;
}

/** What a clause (fillers stripped) proposes, if anything. */
function fromClause(clause: string): Made | null {
  let rest = clause.replace(FILLER, '');
  let lasting = false;
  for (let i = 0; i < 3; i++) {
    const lead = LASTING.exec(rest);
    if (!lead || lead[0].length === 0) break;
    lasting = true;
    rest = rest.slice(lead[0].length).replace(FILLER, '');
  }
  // "X is read-only, so test it against Y": the task that follows is no part of the memory.
  rest = rest.replace(/,\s+so\s+(?:test|use|run|try|check|add|write|do|make|keep|put|please)\b.*$/i, '');
  if (rest.length < MIN_CLAUSE - 4 || notAStatement(rest)) return null;
  // "remember to run lint" is an order.
  const orderLead = /^to\s+/i.test(rest) ? rest.replace(/^to\s+/i, '') : null;
  if (orderLead) return { text: sentenceCase(orderLead), category: 'convention', confidence: 0.85, why: 'a standing order' };
  const prefer = /^i(?:'d| would)? (?:really |strongly )?(?:prefer|rather)\s+(.+)$/i.exec(rest);
  if (prefer) return { text: sentenceCase(`The user prefers ${prefer[1]!.replace(/^that\s+/i, '')}`), category: 'preference', confidence: 0.8, why: 'a preference, said outright' };
  // About the person's own things: a preference or a fact of their machine.
  if (/^(?:i|i'm|my)\b/i.test(rest) && !/\bon (?:my|this) (?:machine|laptop|box)\b|^i'?m on\b/i.test(rest)) return null;
  // About the agent's own future doing, addressed to it: only as an order.
  const order = ORDER.exec(rest);
  if (order) {
    const word = order[1]!.toLowerCase();
    const body = rest.slice(order[0].length).trim();
    if (body.length < 4) return null;
    const plainDont = /^(?:don'?t|dont|do not)$/.test(word);
    // A bare "don't" is a standing order only when it says so (ever, any, without asking, every).
    if (plainDont && !lasting && !/\b(?:ever|any|anything|without asking|every|in this (?:repo|codebase|project)|here)\b/i.test(body)) return null;
    const lead = /^(?:always|alwyas|allways)$/.test(word) ? 'Always' : /^never|ever$/.test(word) ? 'Never' : "Don't";
    return { text: sentenceCase(`${lead} ${body}`), category: 'convention', confidence: 0.8, why: 'a standing order' };
  }
  if (/^(?:we|we're|we are)\s+(?:use|using|prefer|keep|don'?t use|do not use|never use|always use)\b/i.test(rest)) {
    if (!lasting && !/\b(?:not|instead of|rather than|only|never|always|here|in this|prefixed|all)\b/i.test(rest)) return null;
    return { text: sentenceCase(rest), category: 'convention', confidence: 0.8, why: 'how the team works, said outright' };
  }
  if (/^use\s+.+\s+(?:instead of|rather than|not)\s+/i.test(rest)) return { text: sentenceCase(rest), category: 'convention', confidence: 0.8, why: 'a standing order' };
  if (/^stick to\b/i.test(rest) || (/^(?:prefer|avoid|put|keep|show|write|name|prefix|test|run|use|add)\b/i.test(rest) && (lasting || /\b(?:in general|always|never|every|everywhere|here|in this|rather than|instead of|not)\b/i.test(rest)))) {
    return { text: sentenceCase(rest), category: 'convention', confidence: 0.7, why: 'a standing order' };
  }
  const declares = PRESENT.test(rest) && !/^(?:you|it|this|that|these|those|there)\b/i.test(rest);
  if (lasting && (declares || /`[^`]+`/.test(rest))) {
    return { text: sentenceCase(rest), category: /`[^`]+`/.test(rest) ? 'command' : 'fact', confidence: 0.75, why: 'said as worth keeping' };
  }
  if (declares && GENERAL.test(rest)) return { text: sentenceCase(rest), category: /`[^`]+`/.test(rest) ? 'command' : 'convention', confidence: 0.65, why: 'said as holding generally' };
  return null;
}

/** Proposes candidates from what the person said outright in `messages`. */
export function extractByRules(messages: readonly TranscriptMessage[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (!message.fromPerson || message.kind !== 'text' || message.sidechain) continue;
    const parts = clauses(message.text);
    for (const [i, clause] of parts.entries()) {
      if (clause.length < MIN_CLAUSE || clause.length > MAX_CLAUSE) continue;
      // Taken back at once ("always squash merge. actually scratch that"): not said after all.
      if (RETRACTION.test(parts[i + 1] ?? '')) continue;
      // The quote must be found verbatim in the message (the host checks it so).
      if (!message.text.includes(clause)) continue;
      const made = fromClause(clause);
      if (!made || made.text.length < MIN_CLAUSE) continue;
      const key = normalizedText(made.text);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        category: made.category,
        text: made.text,
        scope: made.category === 'preference' ? 'global' : 'project',
        evidence: [{ messageId: message.id, quote: clause }],
        confidence: made.confidence,
        rationale: `The person said so outright (${made.why}).`,
      });
      if (out.length >= MAX_RULE_CANDIDATES) return out;
    }
  }
  return out;
}

/** The `rules` backend of the extractor interface (offline, deterministic). */
export const rulesExtractor: Extractor = { name: 'rules', extract: async (segment) => extractByRules(segment) };
