// harvestTranscript on a real temp home: a session Cairn's own extraction started (its prompt,
// opened by HARVEST_PROMPT_MARKER, is the first user message: what `codex exec` or `claude -p`
// leave behind) is never harvested, and no extractor is called for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_INBOX_PENDING } from '../../common/memory/constants';
import { MCP_CONSOLIDATE_PROMPT_MARKER, MCP_HARVEST_PROMPT_MARKER } from '../../common/memory/tool-description';
import { HARVEST_PROMPT_MARKER } from './extractors/prompt';
import { harvestTranscript, type Extractor } from './harvest-run';
import { InboxStore } from '../inbox/inbox-store';
import { extractByRules } from './rules-extractor';
import type { Transcript } from './transcript';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'cairn-run-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function transcript(firstUserText: string): Transcript {
  return {
    agent: 'codex',
    sessionId: 'own-run-1',
    cwd: '/home/dev/acme',
    compactions: [],
    skipped: {},
    messages: [
      { id: 'u1', role: 'user', kind: 'text', text: firstUserText, at: null, fromPerson: true, sidechain: false },
      { id: 'a1', role: 'assistant', kind: 'text', text: '{"candidates":[]}', at: null, fromPerson: false, sidechain: false },
      { id: 'u2', role: 'user', kind: 'text', text: 'Remember that the nightly build runs on node 20.', at: null, fromPerson: true, sidechain: false },
    ],
  };
}

describe('harvestTranscript', () => {
  it("never harvests a session of Cairn's own extraction", async () => {
    let calls = 0;
    const extractor: Extractor = { name: 'rules', extract: async (segment) => (calls++, extractByRules(segment)) };
    const inbox = new InboxStore(home);
    const own = await harvestTranscript({ home, transcript: transcript(`${HARVEST_PROMPT_MARKER}\nPropose memories from this transcript...`), extractor, inbox, workspaceId: null, projectId: null, memoryLines: [] });
    expect(own).toMatchObject({ status: 'own-run', extractorCalled: false, proposed: [] });
    expect(calls).toBe(0);
    // The same session opened by a person's words is harvested.
    const person = await harvestTranscript({ home, transcript: { ...transcript('Hi, can you look at the build?'), sessionId: 'person-1' }, extractor, inbox, workspaceId: null, projectId: null, memoryLines: [] });
    expect(person.status).toBe('harvested');
    expect(person.proposed.length).toBe(1);
    expect(calls).toBe(1);
  });

  it("never takes Cairn's own prompts or proposing calls for what the session said: memory is not harvested back into memory", async () => {
    const seen: string[] = [];
    const extractor: Extractor = { name: 'rules', extract: async (segment) => (seen.push(...segment.map((m) => m.id)), extractByRules(segment)) };
    const inbox = new InboxStore(home);
    const said = (id: string, text: string, fromPerson = true) => ({ id, role: 'user' as const, kind: 'text' as const, text, at: null, fromPerson, sidechain: false });
    const session: Transcript = {
      ...transcript('Hi'),
      sessionId: 'prompts-1',
      messages: [
        // The consolidate prompt carries memory files' text, which reads like a person's rules.
        said('p1', `${MCP_CONSOLIDATE_PROMPT_MARKER}\n/memories/project/tools.md\nAlways use pnpm, never npm.`),
        { id: 'c1', role: 'assistant', kind: 'tool_call', text: 'memory_consolidate {"changes":[{"kind":"delete","reason":"Remember that stale notes go"}]}', at: null, fromPerson: false, sidechain: false },
        { id: 'c2', role: 'user', kind: 'tool_result', text: 'memory_consolidate: Proposed 1 deletion. Remember that a person reviews it.', at: null, fromPerson: false, sidechain: false },
        said('p2', `${MCP_HARVEST_PROMPT_MARKER}\nAlways quote the session.`),
        said('u9', 'Remember that releases go out on Fridays.'),
      ],
    };
    const summary = await harvestTranscript({ home, transcript: session, extractor, inbox, workspaceId: null, projectId: null, memoryLines: [] });
    expect(seen).toEqual(['u9']);
    expect(summary.proposed.map((p) => ("candidate" in p ? p.candidate.text : p.text))).toEqual(["Releases go out on Fridays."]);
    // Only Cairn's words since the last harvest: the session is read to its end, and no extractor is asked.
    const again = await harvestTranscript({ home, transcript: { ...session, messages: [...session.messages, said('p3', `${MCP_CONSOLIDATE_PROMPT_MARKER}\nNever push on Fridays.`)] }, extractor, inbox, workspaceId: null, projectId: null, memoryLines: [] });
    expect(again).toMatchObject({ status: 'harvested', extractorCalled: false, proposed: [] });
    expect(seen).toEqual(['u9']);
  });

  it('counts what a full inbox did not take as inbox-full, and proposes nothing past MAX_INBOX_PENDING', async () => {
    const inbox = new InboxStore(home);
    const filler = Array.from({ length: MAX_INBOX_PENDING }, (_, i) => ({ category: 'fact' as const, text: `Filler ${i}.`, scope: 'global' as const, evidence: [{ messageId: 'm', quote: 'q' }], confidence: 0.9, rationale: 'r' }));
    inbox.add(filler, { agent: 'claude', sessionId: 'other', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' });
    const extractor: Extractor = { name: 'rules', extract: async (segment) => extractByRules(segment) };
    const run = await harvestTranscript({ home, transcript: { ...transcript('Hi, can you look at the build?'), sessionId: 'full-1' }, extractor, inbox, workspaceId: null, projectId: null, memoryLines: [] });
    expect(run).toMatchObject({ status: 'harvested', proposed: [] });
    expect(run.rejected['inbox-full']).toBe(1);
    expect(inbox.list('pending')).toHaveLength(MAX_INBOX_PENDING);
  });
});
