// The Activity view's sentences: who (the real clients' names in words, a name Cairn does not know
// as it is, "An agent" when none was recorded), what, when; the sidebar's line of agents; and where
// the "New since you last looked" divider goes.
import { describe, expect, it } from 'vitest';
import type { ActivityRow } from '../../../common/api/contract';
import { agentWords, newRowsCount, presenceWords, rowLabel, rowSentence, sessionWords } from './activity-words';

const NOW = Date.parse('2026-11-29T10:00:00.000Z');
const ago = (min: number) => new Date(NOW - min * 60_000).toISOString();
const row = (over: Partial<ActivityRow>): ActivityRow => ({ id: 'v:1', kind: 'edit', at: ago(5), workspaceId: 'ws', scope: 'project', path: '/memories/project/a.md', oldPath: null, agent: null, status: null, by: null, ...over });

describe('activity words', () => {
  it('names the real clients in words and keeps an unknown name as it is', () => {
    expect(agentWords(row({ agent: { name: 'claude-code', session: '' } }))).toBe('Claude Code');
    expect(agentWords(row({ agent: { name: 'codex-mcp-client', session: '' } }))).toBe('Codex');
    expect(agentWords(row({ agent: { name: 'gemini-cli-mcp-client', session: '' } }))).toBe('Gemini CLI');
    expect(agentWords(row({ agent: { name: 'copilot', session: '' } }))).toBe('Copilot CLI');
    expect(agentWords(row({ agent: { name: 'my-own-client', session: '' } }))).toBe('my-own-client');
    expect(agentWords(row({}))).toBe('An agent');
    // A pull that changed project memory, and a sync's incoming change, say where they came from.
    expect(agentWords(row({ by: 'external' }))).toBe('Outside Cairn (a pull or an editor)');
    expect(agentWords(row({ by: 'sync' }))).toBe('Another machine (sync)');
  });

  it('says a row in one sentence', () => {
    expect(rowSentence(row({ agent: { name: 'claude-code', session: 'abc' } }), NOW)).toBe('Claude Code edited /memories/project/a.md, 5 min ago');
    expect(rowSentence(row({ kind: 'rename', oldPath: '/memories/project/old.md' }), NOW)).toBe('An agent renamed /memories/project/old.md to /memories/project/a.md, 5 min ago');
    expect(rowSentence(row({ kind: 'proposal', agent: { name: 'gemini', session: 'g' } }), NOW)).toBe('Gemini CLI proposed to the Inbox /memories/project/a.md, 5 min ago');
    expect(sessionWords(row({ agent: { name: 'x', session: '0123456789abcdef' } }))).toBe('session 01234567');
    expect(sessionWords(row({ agent: { name: 'x', session: '' } }))).toBeNull();
  });

  it('names a row by every word it shows, in its order, then whether it is new', () => {
    expect(rowLabel(row({ agent: { name: 'claude-code', session: '0123456789abcdef' } }), 'widgets', true, NOW)).toBe('Claude Code edited /memories/project/a.md, widgets, project, session 01234567, 5 min ago, new');
    expect(rowLabel(row({ kind: 'rename', oldPath: '/memories/project/old.md' }), 'no workspace', false, NOW)).toBe('An agent renamed /memories/project/old.md to /memories/project/a.md, no workspace, project, 5 min ago');
    // A proposal shows its state; a held change says it in its kind.
    expect(rowLabel(row({ kind: 'proposal', status: 'approved', agent: { name: 'gemini', session: '' } }), 'widgets', false, NOW)).toBe('Gemini CLI proposed to the Inbox /memories/project/a.md, widgets, project, approved, 5 min ago');
    expect(rowLabel(row({ kind: 'held', status: 'pending' }), 'widgets', false, NOW)).toBe('An agent held for review /memories/project/a.md, widgets, project, 5 min ago');
  });

  it('says which agents a workspace has: connected first, else the last seen', () => {
    const a = (name: string, min: number, connected: boolean) => ({ workspaceId: 'ws', name, session: 's', at: ago(min), connected });
    expect(presenceWords([a('codex-mcp-client', 5, false), a('claude-code', 30, true)], NOW)).toBe('Claude Code connected');
    expect(presenceWords([a('claude-code', 30, false), a('codex-mcp-client', 5, false)], NOW)).toBe('Codex seen 5 min ago');
    expect(presenceWords([], NOW)).toBeNull();
  });

  it('counts the rows newer than the last look', () => {
    const rows = [row({ at: ago(1) }), row({ at: ago(2) }), row({ at: ago(10) })];
    expect(newRowsCount(rows, ago(5))).toBe(2);
    expect(newRowsCount(rows, null)).toBe(3);
    expect(newRowsCount(rows, ago(0))).toBe(0);
  });
});
