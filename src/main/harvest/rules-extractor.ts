/**
 * The `rules` extractor (issue 19): deterministic and offline. It proposes only what a person said
 * outright in a transcript ("remember that ...", "from now on ...", "always ..." / "never ...",
 * "we use X, not Y", "I prefer ..."), sentence by sentence, from the messages the person typed.
 * Nothing the agent, a tool or a hook wrote is ever evidence here, and code blocks, quoted text and
 * questions are skipped: precision over recall (the floor is 0.9 precision, 0.6 recall).
 *
 * Invariants: the same messages give the same candidates, in message order; each candidate's
 * evidence quote is a verbatim substring of its message's text; at most MAX_RULE_CANDIDATES.
 */
import type { Candidate, CandidateCategory } from './candidate';
import type { TranscriptMessage } from './transcript';

/** The most candidates one run proposes (the host's checks cap a segment at 10 as well). */
export const MAX_RULE_CANDIDATES = 10;

const MIN_SENTENCE = 12;
const MAX_SENTENCE = 300;

interface Rule {
  readonly name: string;
  readonly re: RegExp;
  readonly confidence: number;
  /** The memory's text and category from the match; null to drop it after all. */
  readonly make: (m: RegExpExecArray, sentence: string) => { text: string; category: CandidateCategory } | null;
}

// Words a person may put before the statement itself.
const LEAD = String.raw`^(?:(?:ok(?:ay)?|also|and|btw|by the way|fyi|note|one more thing|oh|so|hey|please|pls|just)[,:!]?\s+)*`;

const COMMAND_WORD_RE = /`[^`]+`/;

function sentenceCase(text: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const body = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!)`"']$/.test(body) ? body.replace(/!$/, '.') : `${body}.`;
}

const RULES: readonly Rule[] = [
  {
    name: 'remember',
    re: new RegExp(`${LEAD}(?:remember|keep in mind|don't forget|do not forget|never forget)(?:\\s+that)?[:,]?\\s+(.+)$`, 'i'),
    confidence: 0.9,
    make: (m) => {
      const what = m[1]!;
      // "remember to run lint" is an instruction; "remember when we ..." is a memory of the past.
      if (/^(?:when|how|what|where|why|if|whether|the time)\b/i.test(what)) return null;
      const directive = /^to\s+/i.test(what);
      const text = sentenceCase(directive ? what.replace(/^to\s+/i, '') : what);
      return { text, category: directive ? 'convention' : COMMAND_WORD_RE.test(what) ? 'command' : 'fact' };
    },
  },
  {
    name: 'from-now-on',
    re: new RegExp(`${LEAD}(?:from now on|going forward|in (?:the )?future|henceforth|for future reference)[,:]?\\s+(.+)$`, 'i'),
    confidence: 0.85,
    make: (m) => ({ text: sentenceCase(m[1]!), category: /^i\b/i.test(m[1]!) ? 'preference' : 'convention' }),
  },
  {
    name: 'always-never',
    re: new RegExp(`${LEAD}((?:always|never|don't ever|do not ever)\\s+.+)$`, 'i'),
    confidence: 0.75,
    make: (m) => ({ text: sentenceCase(m[1]!), category: 'convention' }),
  },
  {
    name: 'we-use',
    re: new RegExp(`${LEAD}(we(?:'re| are)? (?:use|using|prefer)\\s+.+?,?\\s+(?:not|instead of|rather than)\\s+.+)$`, 'i'),
    confidence: 0.8,
    make: (m) => ({ text: sentenceCase(m[1]!), category: 'convention' }),
  },
  {
    name: 'use-instead',
    re: new RegExp(`${LEAD}(use\\s+.+?\\s+(?:instead of|rather than)\\s+.+)$`, 'i'),
    confidence: 0.8,
    make: (m) => ({ text: sentenceCase(m[1]!), category: 'convention' }),
  },
  {
    name: 'prefer',
    re: new RegExp(`${LEAD}i(?:'d| would)? (?:really |strongly )?(?:prefer|rather)\\s+(.+)$`, 'i'),
    confidence: 0.8,
    make: (m) => ({ text: sentenceCase(`The user prefers ${m[1]!.replace(/^(?:that\s+)?/i, '')}`), category: 'preference' }),
  },
];

/** Sentences of a message that may hold a statement: prose, outside code blocks and quotes. */
function sentences(text: string): Array<{ sentence: string }> {
  const out: Array<{ sentence: string }> = [];
  let fenced = false;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (/^(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || line === '' || line.startsWith('>') || line.startsWith('$ ') || line.startsWith('<')) continue;
    const item = line.replace(/^(?:[-*+]|\d+[.)])\s+/, '');
    // Split after . ! ? followed by a space and a capital or a quote; never inside a code span.
    let start = 0;
    let inCode = false;
    for (let i = 0; i < item.length; i++) {
      const c = item[i]!;
      if (c === '`') inCode = !inCode;
      if (inCode || (c !== '.' && c !== '!' && c !== '?')) continue;
      const next = item[i + 1];
      if (next === undefined || (next === ' ' && /[A-Z"'`(]/.test(item[i + 2] ?? ''))) {
        out.push({ sentence: item.slice(start, i + 1).trim() });
        start = i + 1;
      }
    }
    if (start < item.length) out.push({ sentence: item.slice(start).trim() });
  }
  return out;
}

/** Whether a sentence asks, supposes or reports rather than states: never a candidate. */
function notAStatement(sentence: string): boolean {
  return (
    sentence.endsWith('?') ||
    /^(?:if|when|whether|should|would|could|can|do|does|did|is|are|was|were|why|how|what|who|where|maybe|perhaps)\b/i.test(sentence) ||
    /\b(?:you said|they said|he said|she said|the docs say|according to)\b/i.test(sentence)
  );
}

/** Proposes candidates from what the person said outright in `messages`. */
export function extractByRules(messages: readonly TranscriptMessage[]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (!message.fromPerson || message.kind !== 'text' || message.sidechain) continue;
    for (const { sentence } of sentences(message.text)) {
      if (sentence.length < MIN_SENTENCE || sentence.length > MAX_SENTENCE || notAStatement(sentence)) continue;
      // The quote must be found verbatim in the message (the host checks it so).
      if (!message.text.includes(sentence)) continue;
      for (const rule of RULES) {
        const m = rule.re.exec(sentence);
        if (!m) continue;
        const made = rule.make(m, sentence);
        if (!made || made.text.length < MIN_SENTENCE) break;
        const key = made.text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
        if (seen.has(key)) break;
        seen.add(key);
        out.push({
          category: made.category,
          text: made.text,
          scope: made.category === 'preference' ? 'global' : 'project',
          evidence: [{ messageId: message.id, quote: sentence }],
          confidence: rule.confidence,
          rationale: `The person said so outright (${rule.name}).`,
        });
        if (out.length >= MAX_RULE_CANDIDATES) return out;
        break;
      }
    }
  }
  return out;
}
