// A long session harvested by a model backend, chunk by chunk, on a real temp home: a run that
// stops (a failed call standing in for a crash: the state written after each chunk is the same)
// resumes after the last chunk done and asks nothing twice; a run's budget of calls and
// characters is kept, says how many chunks wait, and the next run goes on from there; across all
// chunks the most confident are proposed and the rest held in the inbox, never lost and never
// proposed again. The "model" is a scripted Ask (no model runs here): it proposes each port the
// person states, with a confidence the test chooses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_INBOX_PENDING } from '../../common/memory/constants';
import { MAX_PER_SEGMENT } from './checks';
import { modelExtractor, type Ask } from './extractors/model-extractor';
import { harvestTranscript, type HarvestRequest } from './harvest-run';
import { InboxStore, type MemoryItem } from '../inbox/inbox-store';
import type { Transcript, TranscriptMessage } from './transcript';
import { rejectItem } from '../inbox/inbox-review';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'cairn-long-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const CHUNKS = 12;
// Long enough that each message is a chunk of its own at the smallest chunk budget.
const FILLER = ' The rest of this message is about lunch, the weather and the office plants, none of it worth keeping.'.repeat(6);

function statement(n: number): string {
  return `Remember that service ${n} listens on port ${8000 + n}.`;
}

function session(id = 'long-1'): Transcript {
  const messages: TranscriptMessage[] = Array.from({ length: CHUNKS }, (_, i) => ({
    id: `m${i + 1}`,
    role: 'user',
    kind: 'text',
    text: `${statement(i + 1)}${FILLER}`,
    at: null,
    fromPerson: true,
    sidechain: false,
  }));
  return { agent: 'claude', sessionId: id, cwd: '/home/dev/acme', compactions: [], skipped: {}, messages };
}

/** The messages a prompt carries: the JSON lines between its data block's boundary lines. */
function messagesIn(prompt: string): Array<{ id: string; text: string }> {
  const lines = prompt.split('\n');
  const begin = lines.findIndex((l) => /^TRANSCRIPT-BEGIN-/.test(l));
  const end = lines.findIndex((l) => /^TRANSCRIPT-END-/.test(l));
  return lines.slice(begin + 1, end).map((l) => JSON.parse(l) as { id: string; text: string });
}

/** A scripted model: each stated port proposed, at `confidence(n)`; records which messages it was asked about. */
function scriptedModel(confidence: (n: number) => number = () => 0.9): { ask: Ask; asked: string[]; failAt: { call: number | null } } {
  const asked: string[] = [];
  const failAt = { call: null as number | null };
  const ask: Ask = async (prompt) => {
    const messages = messagesIn(prompt);
    asked.push(...messages.map((m) => m.id));
    if (failAt.call !== null && asked.length >= failAt.call) throw new Error('the model server went away');
    const candidates = messages.map((m) => {
      const n = Number(/service (\d+)/.exec(m.text)![1]);
      return { category: 'fact', text: `Service ${n} listens on port ${8000 + n}.`, scope: 'project', evidence: [{ messageId: m.id, quote: statement(n) }], confidence: confidence(n), rationale: 'The person stated it.' };
    });
    return { text: JSON.stringify({ candidates }), tokens: { input: 100, output: 20 } };
  };
  return { ask, asked, failAt };
}

function request(inbox: InboxStore, ask: Ask, more: Partial<HarvestRequest> = {}): HarvestRequest {
  return { home, transcript: session(), extractor: modelExtractor('command', ask, { chunkChars: 1_000 }), inbox, workspaceId: null, projectId: null, memoryLines: [], ...more };
}

const texts = (items: readonly MemoryItem[]) => items.map((i) => i.candidate.text).sort();
const port = (n: number) => `Service ${n} listens on port ${8000 + n}.`;

describe('a long session', () => {
  it('resumes after the last chunk done when a run stops midway, asking no chunk twice', async () => {
    const inbox = new InboxStore(home);
    const model = scriptedModel();
    model.failAt.call = 5;
    await expect(harvestTranscript(request(inbox, model.ask))).rejects.toThrow(/Chunk 5 of 12: the model server went away/);
    expect(model.asked).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);

    const resumed = scriptedModel();
    const summary = await harvestTranscript(request(inbox, resumed.ask));
    // Chunks 1 to 4 were done: the run goes on at chunk 5, and the chunks it counts are those left.
    expect(resumed.asked).toEqual(['m5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11', 'm12']);
    expect(summary.status).toBe('harvested');
    // What the first run found is not lost: all twelve ports are proposed or held.
    expect(summary.proposed.length).toBe(MAX_PER_SEGMENT);
    expect(summary.heldBack).toBe(CHUNKS - MAX_PER_SEGMENT);
    expect([...texts(inbox.candidates('pending')), ...texts(inbox.candidates('held'))].sort()).toEqual(Array.from({ length: CHUNKS }, (_, i) => port(i + 1)).sort());
    // The cost is the whole run's, the four calls before the stop included.
    expect(summary.cost).toEqual({ calls: 12, chars: expect.any(Number), inputTokens: 1200, outputTokens: 240 });

    // Done: nothing new, no model asked.
    const again = scriptedModel();
    expect((await harvestTranscript(request(inbox, again.ask))).status).toBe('nothing-new');
    expect(again.asked).toEqual([]);
  });

  it('keeps to the budget of calls, says how many chunks wait, and the next run goes on from there', async () => {
    const inbox = new InboxStore(home);
    const budget = { calls: 5, chars: 1_000_000 };
    const first = scriptedModel();
    const one = await harvestTranscript(request(inbox, first.ask, { budget }));
    expect(first.asked).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(one.stopped).toEqual({ chunksLeft: 7, budget });
    expect(one.cost.calls).toBe(5);
    expect(texts(inbox.candidates('pending'))).toEqual([1, 2, 3, 4, 5].map(port).sort());

    const second = scriptedModel();
    const two = await harvestTranscript(request(inbox, second.ask, { budget }));
    expect(second.asked).toEqual(['m6', 'm7', 'm8', 'm9', 'm10']);
    expect(two.stopped).toEqual({ chunksLeft: 2, budget });

    const third = scriptedModel();
    const three = await harvestTranscript(request(inbox, third.ask, { budget }));
    expect(third.asked).toEqual(['m11', 'm12']);
    expect(three.stopped).toBeNull();
    expect(three.cost.calls).toBe(2);
    expect(inbox.candidates('pending').length).toBe(CHUNKS);
  });

  it('sends nothing past the budget of characters, and changes nothing when not even one prompt fits', async () => {
    const inbox = new InboxStore(home);
    const model = scriptedModel();
    const tight = { calls: 100, chars: 1_000 };
    const none = await harvestTranscript(request(inbox, model.ask, { budget: tight }));
    expect(model.asked).toEqual([]);
    expect(none).toMatchObject({ status: 'harvested', proposed: [], heldBack: 0, stopped: { chunksLeft: 12, budget: tight } });
    expect(none.cost.calls).toBe(0);
    // With room for a run, it starts at the beginning: nothing was marked done.
    const roomy = scriptedModel();
    await harvestTranscript(request(inbox, roomy.ask, { budget: { calls: 100, chars: 10_000_000 } }));
    expect(roomy.asked[0]).toBe('m1');
    expect(roomy.asked.length).toBe(CHUNKS);
  });

  it('proposes the most confident of all the chunks and holds the rest, which are never proposed again', async () => {
    const inbox = new InboxStore(home);
    // Later chunks are surer: the earliest two are the least confident.
    const model = scriptedModel((n) => 0.6 + n * 0.03);
    const summary = await harvestTranscript(request(inbox, model.ask));
    expect(summary.proposed.length).toBe(MAX_PER_SEGMENT);
    expect(texts(inbox.candidates('pending'))).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(port).sort());
    expect(texts(inbox.candidates('held'))).toEqual([1, 2].map(port).sort());
    // The held ones take no pending room: they ask nothing.
    expect(inbox.room()).toBe(MAX_INBOX_PENDING - MAX_PER_SEGMENT);

    // A fork of the session (its history copied under a new id) proposes none of them again.
    const fork = scriptedModel((n) => 0.6 + n * 0.03);
    const forked = await harvestTranscript(request(inbox, fork.ask, { transcript: session('fork-1') }));
    expect(forked.proposed).toEqual([]);
    expect(forked.heldBack).toBe(0);
    expect(forked.rejected['already-in-inbox']).toBe(CHUNKS);

    // A held item can be decided like any other.
    const held = inbox.candidates('held')[0]!;
    rejectItem(inbox, held.id);
    expect(inbox.get(held.id)?.status).toBe('rejected');
  });

  it('forgets held items after the time decided ones are kept', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const inbox = new InboxStore(home, () => now);
    await harvestTranscript(request(inbox, scriptedModel((n) => 0.6 + n * 0.03).ask));
    expect(inbox.candidates('held').length).toBe(2);
    now += 91 * 24 * 60 * 60 * 1000;
    expect(inbox.prune()).toBe(2);
    expect(inbox.candidates('held')).toEqual([]);
    // Pending items are the person's to decide: housekeeping never takes them.
    expect(inbox.candidates('pending').length).toBe(MAX_PER_SEGMENT);
  });
});
