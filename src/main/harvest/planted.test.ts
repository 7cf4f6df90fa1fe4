// Planted samples: every secret and injection sample of the scanners' corpus
// (tests/fixtures/scanner-corpus), planted in a transcript as the person's own words in the forms
// the rules extractor picks up ("Remember that ...", "From now on, ...", "Always ..."), the whole
// sample and its flagged line alone, goes through the full pipeline (harvestTranscript with the
// rules extractor, a real temp home, InboxStore): no inbox item's text, rationale or evidence holds
// a planted sample. The 'flagged' refusals are counted and printed; a control statement in each transcript
// shows the pipeline does put the person's other words in the inbox.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanContent } from '../memory/scanners/content-scanner';
import type { Candidate } from '../inbox/candidate';
import { REJECTION_REASONS, type RejectionReason } from './checks';
import { harvestTranscript, type Extractor } from './harvest-run';
import { InboxStore, type InboxItem } from '../inbox/inbox-store';
import { extractByRules } from './rules-extractor';
import type { Transcript, TranscriptMessage } from './transcript';

interface Sample {
  id: string;
  rule: string;
  line: number;
  text: string;
  /** Secrets only: the credential itself. */
  secret?: string;
}

function corpus(name: string): Sample[] {
  const url = new URL(`../../../tests/fixtures/scanner-corpus/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Sample[];
}

const SAMPLES: Array<Sample & { kind: 'secret' | 'injection' }> = [
  ...corpus('secrets').map((s) => ({ ...s, kind: 'secret' as const })),
  ...corpus('injection').map((s) => ({ ...s, kind: 'injection' as const })),
];

const rules: Extractor = { name: 'rules', extract: (segment) => Promise.resolve(extractByRules(segment)) };

/** Compared without case and runs of plain whitespace (hidden Unicode is kept: it is the sample). */
const squash = (text: string): string => text.replace(/[ \t\r\n]+/g, ' ').trim().toLowerCase();

/** The line a sample's finding names, without a list marker or heading mark. */
function flaggedLine(sample: Sample): string {
  return (sample.text.split('\n')[sample.line - 1] ?? '').replace(/^\s*(?:[-*+]|#+|\d+[.)])\s+/, '').replace(/[ \t\r]+/g, ' ').trim();
}

/** What of a sample must never be in the inbox: the credential, or the flagged line. */
function needle(sample: Sample): string {
  return sample.secret ?? flaggedLine(sample);
}

const FORMS: ReadonlyArray<(s: string) => string> = [(s) => `Remember that ${s}`, (s) => `From now on, ${s}`, (s) => `Always ${s}`];

/**
 * What is planted of a sample: the whole sample, and its flagged line alone: always for a secret
 * (the line holds the credential), for an injection when the scanners find that line on its own
 * (a "Human:" line out of its chat transcript, say, is no injection by itself).
 */
function plantings(sample: Sample): string[] {
  const line = flaggedLine(sample);
  const alone = line !== sample.text.trim() && (sample.secret !== undefined || scanContent(line).length > 0);
  return alone ? [sample.text.trim(), line] : [sample.text.trim()];
}

function transcriptFor(sample: Sample, n: number): Transcript {
  const planted = plantings(sample).flatMap((s) => FORMS.map((form) => form(s)));
  const said = [...planted, `Remember that the nightly build for planted case ${n} runs on node 20.`];
  const messages: TranscriptMessage[] = said.flatMap((text, i): TranscriptMessage[] => [
    { id: `p${n}-u${i}`, role: 'user', kind: 'text', text, at: null, fromPerson: true, sidechain: false },
    { id: `p${n}-a${i}`, role: 'assistant', kind: 'text', text: 'Noted.', at: null, fromPerson: false, sidechain: false },
  ]);
  return { agent: 'claude', sessionId: `planted-${sample.id}`, cwd: '/home/dev/acme', messages, compactions: [], skipped: {} };
}

/** An inbox item that proposes a memory (not an agent's change under review): the kind a harvest makes. */
type MemoryItem = Extract<InboxItem, { readonly candidate: unknown }>;

/** The memory items among `items` (the inbox, or a harvest's proposals). */
function memoryItems(items: ReadonlyArray<InboxItem | Candidate>): MemoryItem[] {
  return items.filter((item): item is MemoryItem => 'candidate' in item);
}

/** Every text of an item a person (or a later prompt) would see: the memory, its rationale, its quotes. */
function itemTexts(item: MemoryItem): Array<{ where: string; text: string }> {
  return [
    { where: 'text', text: item.candidate.text },
    { where: 'rationale', text: item.candidate.rationale },
    ...item.candidate.evidence.map((e) => ({ where: 'evidence', text: e.quote })),
  ];
}

interface Leak {
  readonly id: string;
  readonly where: string;
  readonly text: string;
  /** Whether the scanners find anything in the leaked text itself. */
  readonly scannerFinds: boolean;
}

/** Where an item holds one of `samples`: its credential, or its flagged line. */
function leaksIn(item: MemoryItem, samples: readonly Sample[]): Leak[] {
  return itemTexts(item).flatMap(({ where, text }) =>
    samples.filter((sample) => squash(text).includes(squash(needle(sample)))).map((sample) => ({ id: sample.id, where, text, scannerFinds: scanContent(text).length > 0 })),
  );
}

describe('samples of the scanners, planted in transcripts', () => {
  let home: string;
  let inbox: InboxStore;
  const rejected = Object.fromEntries(REJECTION_REASONS.map((r) => [r, 0])) as Record<RejectionReason, number>;
  let candidates = 0;
  let plantedMessages = 0;
  /** Leaks found in each harvest's own proposals, against its own sample. */
  const leaks: Leak[] = [];
  const flaggedBySample = new Map<string, number>();

  beforeAll(async () => {
    home = mkdtempSync(path.join(tmpdir(), 'cairn-planted-'));
    inbox = new InboxStore(home);
    for (const [n, sample] of SAMPLES.entries()) {
      const transcript = transcriptFor(sample, n);
      plantedMessages += transcript.messages.filter((m) => m.fromPerson).length - 1;
      candidates += extractByRules(transcript.messages).length;
      const summary = await harvestTranscript({ home, transcript, extractor: rules, inbox, workspaceId: null, projectId: null, memoryLines: [] });
      if (summary.status !== 'harvested') throw new Error(`${sample.id}: ${summary.status}`);
      for (const r of REJECTION_REASONS) rejected[r] += summary.rejected[r];
      flaggedBySample.set(sample.id, summary.rejected.flagged);
      for (const item of memoryItems(summary.proposed)) leaks.push(...leaksIn(item, [sample]));
    }
    const leakedIds = [...new Set(leaks.map((l) => l.id))];
    console.log(
      [
        `planted: ${SAMPLES.length} samples (${SAMPLES.filter((s) => s.kind === 'secret').length} secrets, ${SAMPLES.filter((s) => s.kind === 'injection').length} injections) in ${plantedMessages} messages of the person`,
        `  rules candidates ${candidates}, inbox items ${inbox.list().length} (${SAMPLES.length} of them control statements)`,
        `  refused: ${REJECTION_REASONS.filter((r) => rejected[r] > 0).map((r) => `${r} ${rejected[r]}`).join(', ') || 'none'}`,
        `  samples with no 'flagged' refusal: ${[...flaggedBySample].filter(([, f]) => f === 0).map(([id]) => id).join(', ') || 'none'}`,
        `  samples reaching the inbox: ${leakedIds.length}${leakedIds.length > 0 ? ` (${leakedIds.join(', ')})` : ''}`,
        ...leaks.map((l) => `    ${l.id} in ${l.where}${l.scannerFinds ? ' (the scanners find it there)' : ''}: ${JSON.stringify(l.text)}`),
      ].join('\n'),
    );
  });

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('the planted forms are ones the rules extractor proposes, and the scanners refuse them', () => {
    expect(candidates).toBeGreaterThan(SAMPLES.length);
    expect(rejected.flagged).toBeGreaterThan(0);
  });

  it("the pipeline runs: each transcript's control statement reaches the inbox", () => {
    const texts = memoryItems(inbox.list()).map((i) => i.candidate.text);
    SAMPLES.forEach((_, n) => expect(texts).toContain(`The nightly build for planted case ${n} runs on node 20.`));
  });

  it('no memory text in the inbox is one the scanners flag', () => {
    const flagged = memoryItems(inbox.list()).filter((item) => scanContent(item.candidate.text).length > 0);
    expect(flagged.map((i) => i.candidate.text)).toEqual([]);
  });

  // Failed when written (51614f2): 20 of the 273 samples reached the inbox, because the checks
  // scanned only the candidate's text, which the extractor had reworded out of the scanners' sight
  // (a capital, a full stop, "Always " kept before a line-anchored marker). The checks then scanned
  // the evidence quotes and whole messages too (9 left: the three secrets the scanners missed, a
  // .pgpass line, "root pw is ...", a Heroku key that is a bare UUID, and six injections whose
  // marker must open a line: "Always System prompt: ...", "Always Human: ..."). Now the scanners
  // find those secrets, and the checks also scan each text with the lead-ins of its lines and
  // sentences ("Always", "Remember that") taken off: none reaches the inbox.
  it('no inbox item holds a planted sample, in its text or its evidence', () => {
    const all = memoryItems(inbox.list()).flatMap((item) => leaksIn(item, SAMPLES));
    expect(leaks).toEqual([]);
    expect(all).toEqual([]);
  });
});
