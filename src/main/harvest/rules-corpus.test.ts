// The rules extractor against a labelled corpus (tests/fixtures/harvest-corpus/README.md):
// transcripts whose expected memories were written blind, before the extractor's output was seen.
// An entry holds its messages inline, or names a transcript recorded from a real client
// (tests/fixtures/agents), read here by Cairn's own reader so the messages are the real format's.
// Proposals are matched to expected memories by content-word overlap (the rule below, documented in
// the README); precision and recall over the whole corpus are printed with every miss and false
// positive, and held to the floor: precision at least 0.9, recall at least 0.7.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTranscriptFile } from './read-transcript';
import { extractByRules } from './rules-extractor';
import { isCairnsOwn, type MessageKind, type MessageRole, type TranscriptAgent, type TranscriptMessage } from './transcript';

interface CorpusMessage {
  id: string;
  role: MessageRole;
  kind: MessageKind;
  text: string;
  fromPerson: boolean;
  sidechain: boolean;
}

/** An entry as written: its messages inline, or the recording (under tests/fixtures) they are read from. */
interface CorpusEntry {
  id: string;
  agent: TranscriptAgent;
  notes: string;
  messages?: CorpusMessage[];
  recording?: string;
  expected: string[];
}

interface CorpusTranscript {
  id: string;
  agent: TranscriptAgent;
  notes: string;
  /** The recording the messages were read from, if any. */
  recording: string | null;
  messages: TranscriptMessage[];
  expected: string[];
}

const FIXTURES_DIR = new URL('../../../tests/fixtures/', import.meta.url);
const CORPUS_DIR = new URL('harvest-corpus/', FIXTURES_DIR);

async function loadEntry(entry: CorpusEntry): Promise<CorpusTranscript> {
  if ((entry.messages === undefined) === (entry.recording === undefined)) throw new Error(`${entry.id}: give either messages or a recording`);
  const base = { id: entry.id, agent: entry.agent, notes: entry.notes, expected: entry.expected };
  if (entry.messages) return { ...base, recording: null, messages: entry.messages.map((m) => ({ ...m, at: null })) };
  const transcript = await readTranscriptFile(fileURLToPath(new URL(entry.recording!, FIXTURES_DIR)));
  if (transcript.agent !== entry.agent) throw new Error(`${entry.id}: read as ${transcript.agent}'s, labelled ${entry.agent}'s`);
  return { ...base, recording: entry.recording!, messages: [...transcript.messages] };
}

async function loadCorpus(): Promise<CorpusTranscript[]> {
  const names = readdirSync(CORPUS_DIR).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(names.map((name) => loadEntry(JSON.parse(readFileSync(new URL(name, CORPUS_DIR), 'utf8')) as CorpusEntry)));
}

// ---- the matching rule ----

/** Words that carry no content of a memory: dropped before comparing. */
const STOP_WORDS = new Set(
  (
    'a an the and or but if so to of in on at for with by from as into than then that this these those it its ' +
    'is are was were be been being am do does did has have had will would should could can may might must shall ' +
    'i me my myself we us our ourselves you your yourself he she they them their one ones there here ' +
    // How a memory names the person it is about ("The user prefers ...").
    'user person ' +
    'please pls just also really very only any all every each some such more most ' +
    'remember note fyi btw heads up ok okay oh hey ever sure make want need like thing things way ' +
    'in fine good great thanks'
  ).split(/\s+/),
);

/** Words that say "not" (a polarity: "X instead of Y" and "X, not Y" say the same). */
const NEGATIONS = new Set(['not', 'never', 'no', 'dont', 'nothing', 'instead', 'rather']);

/** Content words: lower case, negations unified as `not`, stop words dropped, a plural `s` off. */
function contentWords(text: string): Set<string> {
  const words = text
    .toLowerCase()
    .replace(/n['’]t\b/g, ' not')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .map((w) => (NEGATIONS.has(w) ? 'not' : w))
    .filter((w) => !STOP_WORDS.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  return new Set(words);
}

/**
 * How well a proposal matches an expected memory: 0 when it does not; else the Jaccard index.
 * A match: the same polarity (both with a negation or neither), and Jaccard at least 0.6, or at least 0.8 of the expected words in the proposal and the
 * proposal no more than twice as long in content words.
 */
function matchScore(proposed: string, expected: string): number {
  const p = contentWords(proposed);
  const e = contentWords(expected);
  if (p.size === 0 || e.size === 0) return 0;
  // "Always X" is not "never X": both negated or neither.
  if (p.has('not') !== e.has('not')) return 0;
  const shared = [...e].filter((w) => p.has(w)).length;
  const jaccard = shared / (p.size + e.size - shared);
  if (jaccard >= 0.6) return jaccard;
  if (shared / e.size >= 0.8 && p.size <= 2 * e.size) return jaccard;
  return 0;
}

/** Pairs proposals with expected memories one to one, best score first. */
function matchAll(proposed: readonly string[], expected: readonly string[]): Array<[number, number]> {
  const pairs: Array<{ p: number; e: number; score: number }> = [];
  proposed.forEach((pt, p) => expected.forEach((et, e) => {
    const score = matchScore(pt, et);
    if (score > 0) pairs.push({ p, e, score });
  }));
  pairs.sort((a, b) => b.score - a.score || a.p - b.p || a.e - b.e);
  const usedP = new Set<number>();
  const usedE = new Set<number>();
  const out: Array<[number, number]> = [];
  for (const { p, e } of pairs) {
    if (usedP.has(p) || usedE.has(e)) continue;
    usedP.add(p);
    usedE.add(e);
    out.push([p, e]);
  }
  return out;
}

// ---- the measurement ----

interface PerTranscript {
  id: string;
  proposed: string[];
  expected: string[];
  matched: number;
  falsePositives: string[];
  misses: string[];
}

function measure(corpus: readonly CorpusTranscript[]): { rows: PerTranscript[]; precision: number; recall: number; proposed: number; expected: number; matched: number } {
  const rows = corpus.map((t): PerTranscript => {
    // What a harvest gives an extractor: Cairn's own prompts and proposing calls left out (harvest-run.ts).
    const proposed = extractByRules(t.messages.filter((m) => !isCairnsOwn(m))).map((c) => c.text);
    const pairs = matchAll(proposed, t.expected);
    const mp = new Set(pairs.map(([p]) => p));
    const me = new Set(pairs.map(([, e]) => e));
    return {
      id: t.id,
      proposed,
      expected: t.expected,
      matched: pairs.length,
      falsePositives: proposed.filter((_, i) => !mp.has(i)),
      misses: t.expected.filter((_, i) => !me.has(i)),
    };
  });
  const proposed = rows.reduce((n, r) => n + r.proposed.length, 0);
  const expected = rows.reduce((n, r) => n + r.expected.length, 0);
  const matched = rows.reduce((n, r) => n + r.matched, 0);
  return { rows, proposed, expected, matched, precision: proposed === 0 ? 1 : matched / proposed, recall: expected === 0 ? 1 : matched / expected };
}

function report(m: ReturnType<typeof measure>): string {
  const lines = [
    `rules extractor on the harvest corpus (${m.rows.length} transcripts)`,
    `  proposed ${m.proposed}, expected ${m.expected}, matched ${m.matched}`,
    `  precision ${m.precision.toFixed(3)} (floor 0.9), recall ${m.recall.toFixed(3)} (floor 0.7)`,
    '',
    '  transcript                          prop  exp  match',
  ];
  for (const r of m.rows) lines.push(`  ${r.id.padEnd(36)}${String(r.proposed.length).padStart(4)}${String(r.expected.length).padStart(5)}${String(r.matched).padStart(7)}`);
  const fps = m.rows.filter((r) => r.falsePositives.length > 0);
  const misses = m.rows.filter((r) => r.misses.length > 0);
  lines.push('', `  false positives (${fps.reduce((n, r) => n + r.falsePositives.length, 0)}):`);
  for (const r of fps) for (const t of r.falsePositives) lines.push(`    ${r.id}: ${JSON.stringify(t)}`);
  lines.push('', `  misses (${misses.reduce((n, r) => n + r.misses.length, 0)}):`);
  for (const r of misses) for (const t of r.misses) lines.push(`    ${r.id}: ${JSON.stringify(t)}`);
  return lines.join('\n');
}

const CORPUS = await loadCorpus();
const MEASURED = measure(CORPUS);

describe('the harvest corpus', () => {
  it('has at least 30 well-formed transcripts, with positives and hard negatives', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
    for (const t of CORPUS) {
      expect(t.messages.length, t.id).toBeGreaterThan(0);
      expect(new Set(t.messages.map((m) => m.id)).size, t.id).toBe(t.messages.length);
      for (const m of t.messages) {
        expect(['user', 'assistant'], t.id).toContain(m.role);
        expect(['text', 'tool_call', 'tool_result', 'summary'], t.id).toContain(m.kind);
        expect(typeof m.fromPerson === 'boolean' && typeof m.sidechain === 'boolean', t.id).toBe(true);
        // Only the person's own typed text can be theirs.
        if (m.fromPerson) expect(m.role === 'user' && m.kind === 'text', t.id).toBe(true);
      }
    }
    expect(CORPUS.filter((t) => t.expected.length === 0).length).toBeGreaterThanOrEqual(5);
    expect(MEASURED.expected).toBeGreaterThanOrEqual(40);
  });

  // The readers' path, not retyped messages: each real client's recording, read as a harvest reads it.
  it("holds a recording of each real client, read by Cairn's reader into the person's typed words", () => {
    const recorded = CORPUS.filter((t) => t.recording !== null);
    expect(new Set(recorded.map((t) => t.agent))).toEqual(new Set(['claude', 'codex', 'copilot', 'gemini']));
    for (const t of recorded) {
      expect(t.messages.filter((m) => m.fromPerson).length, t.id).toBeGreaterThan(0);
      // The harness's own text (instructions files, session context, tool output) is never the person's.
      expect(t.messages.some((m) => !m.fromPerson && m.role === 'user'), t.id).toBe(true);
    }
  });

  it('matches by content words: paraphrase and polarity', () => {
    expect(matchScore("Please don't ever force-push to main.", 'Never force-push to main.')).toBeGreaterThan(0);
    expect(matchScore('Always force-push to main.', 'Never force-push to main.')).toBe(0);
    expect(matchScore('We use pnpm in this repo, not npm.', 'We use pnpm, not npm.')).toBeGreaterThan(0);
    expect(matchScore('We use pnpm in this repo, not npm, and the build for packages/web is failing after a typescript bump.', 'We use pnpm, not npm.')).toBe(0);
  });

  // The labels are not changed to fit the extractor: if this fails, the extractor is what changes.
  // Below the floor when written (rules-extractor.ts as of 51614f2): 12 proposed, 48 expected,
  // 6 matched: precision 0.500, recall 0.125. The extractor was rewritten (clauses, lead-ins,
  // standing orders, general statements, retractions) while looking at this corpus, so its figures
  // here (37 proposed, 37 matched: precision 1.0, recall 0.77) flatter it; a corpus written blind
  // after the rules is the fair measure (see the corpus README). The recordings of the real clients
  // and the adversarial entries, labelled blind, brought it to 50 transcripts: 42 proposed, 52
  // expected, 40 matched (precision 0.952, recall 0.769); the two false positives are the secrets
  // the person said, which the host's checks refuse (adversarial.test.ts).
  it('the rules extractor: precision at least 0.9, recall at least 0.7', () => {
    console.log(report(MEASURED));
    expect(MEASURED.precision).toBeGreaterThanOrEqual(0.9);
    expect(MEASURED.recall).toBeGreaterThanOrEqual(0.7);
  });
});
