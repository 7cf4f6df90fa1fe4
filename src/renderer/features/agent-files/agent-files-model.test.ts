// The words of other agents' files: groups in the agents' order, "read by", sizes, an
// adopt's result as a person reads it, line ranges, and the pane's key for an open agent file.
import { describe, expect, it } from 'vitest';
import type { AgentFile } from '../../../common/agent-files/schema';
import { adoptResultText, agentIdOf, agentOpenKey, groupByAgent, matchesFilter, mergeRanges, rangesText, readByText, sizeText } from './agent-files-model';

const file = (over: Partial<AgentFile>): AgentFile => ({
  id: 'CLAUDE.md',
  agent: 'claude',
  readBy: ['claude'],
  kind: 'instructions',
  place: 'checkout',
  path: 'CLAUDE.md',
  size: 10,
  mtime: '2026-11-28T00:00:00.000Z',
  sha256: null,
  unreadable: null,
  linkTo: null,
  ...over,
});

describe('agent files, in words', () => {
  it('groups files per agent in the agents’ order, global files first', () => {
    const groups = groupByAgent([
      file({ id: 'GEMINI.md', path: 'GEMINI.md', agent: 'gemini', readBy: ['gemini'] }),
      file({ id: 'CLAUDE.md', path: 'CLAUDE.md' }),
      file({ id: '~/.claude/CLAUDE.md', path: '~/.claude/CLAUDE.md', place: 'global' }),
      file({ id: 'AGENTS.md', path: 'AGENTS.md', agent: 'codex', readBy: ['codex', 'cursor'] }),
    ]);
    expect(groups.map((g) => [g.name, g.files.map((f) => f.id)])).toEqual([
      ['Claude Code', ['~/.claude/CLAUDE.md', 'CLAUDE.md']],
      ['Codex', ['AGENTS.md']],
      ['Gemini CLI', ['GEMINI.md']],
    ]);
  });

  it('says who reads a file and how big it is', () => {
    expect(readByText(['claude'])).toBe('read by Claude Code');
    expect(readByText(['codex', 'cursor'])).toBe('read by Codex and Cursor');
    expect(readByText(['codex', 'cursor', 'gemini'])).toBe('read by Codex, Cursor and Gemini CLI');
    expect(sizeText(812)).toBe('812 B');
    expect(sizeText(3482)).toBe('3.4 KB');
    expect(sizeText(40_000)).toBe('39 KB');
  });

  it('says what an adopt did: proposed, repeats by reason, refusals with their line', () => {
    expect(
      adoptResultText({
        status: 'ok',
        added: ['a', 'b', 'c'],
        duplicates: [
          { text: 'x', reason: 'already-in-memory' },
          { text: 'y', reason: 'already-in-memory' },
        ],
        refused: [{ line: 12, reason: 'a secret' }],
        message: '',
      }),
    ).toBe('3 proposed to the Inbox, 2 already in memory, 1 refused: a secret on line 12.');
    expect(adoptResultText({ status: 'ok', added: [], duplicates: [{ text: 'x', reason: 'already-in-inbox' }], refused: [], message: '' })).toBe(
      'Nothing proposed to the Inbox, 1 already in the Inbox.',
    );
    expect(adoptResultText({ status: 'error', message: 'The project scope is unavailable.' })).toBe('The project scope is unavailable.');
  });

  it('merges and words line ranges', () => {
    expect(mergeRanges([[5, 3], [9, 9], [6, 7]])).toEqual([[3, 7], [9, 9]]);
    expect(rangesText([[2, 2]])).toBe('line 2');
    expect(rangesText([[3, 5], [9, 9]])).toBe('lines 3–5, 9');
  });

  it('tells an agent file’s key from a memory path, and filters by path and agent', () => {
    expect(agentIdOf(agentOpenKey('~/.codex/AGENTS.md'))).toBe('~/.codex/AGENTS.md');
    expect(agentIdOf('/memories/project/a.md')).toBeNull();
    expect(matchesFilter(file({ path: '.cursor/rules/style.mdc', readBy: ['cursor'] }), 'cursor style')).toBe(true);
    expect(matchesFilter(file({}), 'codex')).toBe(false);
  });
});
