// How the inbox reads: which proposals a view reviews, grouped by session in the list's order, the
// words for confidence and evidence, a typed target checked, and where the focus goes next.
import { describe, expect, it } from 'vitest';
import { changeApprovedText, changeTitle, confidenceText, evidenceSpeaker, groupBySession, itemsForView, neighbourOf, splitKinds, targetProblem, type InboxItem } from './inbox-model';

const item = (id: string, over: Partial<InboxItem> = {}): InboxItem => ({
  id,
  kind: 'memory',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'pending',
  category: 'fact',
  text: `text ${id}`,
  scope: 'project',
  confidence: 0.8,
  rationale: 'why',
  evidence: [],
  target: '/memories/project/facts.md',
  agent: 'claude',
  sessionId: 's1',
  extractor: 'rules',
  workspaceId: 'w1',
  decidedAt: null,
  approvedTo: null,
  change: null,
  from: null,
  ...over,
});

/** An agent's change held by review mode, as the API gives it. */
const held = (id: string, change: NonNullable<InboxItem['change']>): InboxItem =>
  item(id, { kind: 'change', category: null, confidence: null, rationale: '', agent: null, sessionId: '', extractor: 'review', target: change.newPath ?? change.path, change });

describe('inbox model', () => {
  it("a workspace reviews its own proposals and those of no workspace; the global view only the latter; decided ones never", () => {
    const items = [item('a'), item('b', { workspaceId: null }), item('c', { workspaceId: 'w2' }), item('d', { status: 'approved' })];
    expect(itemsForView(items, 'w1').map((i) => i.id)).toEqual(['a', 'b']);
    expect(itemsForView(items, null).map((i) => i.id)).toEqual(['b']);
  });

  it('groups by agent and session in the order given', () => {
    const groups = groupBySession([item('a', { sessionId: 's2' }), item('b'), item('c', { sessionId: 's2' }), item('d', { agent: 'codex' })]);
    expect(groups.map((g) => [g.key, g.items.map((i) => i.id)])).toEqual([
      ['claude:s2', ['a', 'c']],
      ['claude:s1', ['b']],
      ['codex:s1', ['d']],
    ]);
  });

  it('words confidence and evidence', () => {
    expect(confidenceText(0.834)).toBe('83% sure');
    expect(confidenceText(2)).toBe('100% sure');
    expect(evidenceSpeaker('preference')).toBe('You said');
    expect(evidenceSpeaker('lesson')).toBe('In the session');
    // Who said it, as the transcript recorded it, wins over what the category implies.
    expect(evidenceSpeaker('lesson', 'person')).toBe('You said');
    expect(evidenceSpeaker('fact', 'agent')).toBe('The agent said');
    expect(evidenceSpeaker('command', 'tool')).toBe('A tool\u2019s output');
  });

  it('checks a typed target', () => {
    expect(targetProblem('/memories/project/notes.md')).toBeNull();
    expect(targetProblem('  ')).toMatch(/^Give the memory file/);
    expect(targetProblem('notes.md')).toMatch(/starts with \/memories\/global\//);
    expect(targetProblem('/memories/other/x.md')).not.toBeNull();
    expect(targetProblem('/memories/project/dir/')).toMatch(/directory/);
  });

  it('moves the focus to the next proposal, else the one before', () => {
    const items = [item('a'), item('b'), item('c')];
    expect(neighbourOf(items, 'b')).toBe('c');
    expect(neighbourOf(items, 'c')).toBe('b');
    expect(neighbourOf([item('a')], 'a')).toBeNull();
  });
});

describe("agents' changes held by review mode", () => {
  const edit = held('c1', { command: 'str_replace', path: '/memories/project/notes.md', newPath: null, before: 'a\n', after: 'b\n' });
  const move = held('c2', { command: 'rename', path: '/memories/project/a.md', newPath: '/memories/project/b.md', before: 'x', after: 'x' });

  it('are shown apart from the proposals of sessions, never as a session of their own', () => {
    const items = [edit, item('m1'), move, item('m2', { sessionId: 's2' })];
    expect(splitKinds(items).changes.map((i) => i.id)).toEqual(['c1', 'c2']);
    expect(splitKinds(items).proposals.map((i) => i.id)).toEqual(['m1', 'm2']);
    expect(groupBySession(items).map((g) => g.key)).toEqual(['claude:s1', 'claude:s2']);
  });

  it('say what they do and what an approval did', () => {
    expect(changeTitle(edit.change!)).toBe('Edit /memories/project/notes.md');
    expect(changeTitle(move.change!)).toBe('Rename /memories/project/a.md to /memories/project/b.md');
    expect(changeApprovedText(move.change!)).toBe('Approved: /memories/project/a.md is renamed to /memories/project/b.md.');
    expect(changeApprovedText({ ...edit.change!, command: 'delete' })).toBe('Approved: /memories/project/notes.md is deleted.');
    expect(confidenceText(null)).toBe('');
  });
});
