import { describe, expect, it } from 'vitest';
import { CATALOGUE, entryFor, MAX_PATTERN_DEPTH } from './catalogue';
import { parseId } from './discovery';

const at = (id: string, folders: string[] = ['-work-widgets']) => {
  const parsed = parseId(id);
  return parsed ? entryFor(parsed.place, parsed.rel, folders) : null;
};

describe('the catalogue', () => {
  it('cites every entry, and names each agent first among those that read its file', () => {
    for (const e of CATALOGUE) {
      expect(e.cite).toMatch(/^https:\/\//);
      expect(e.readBy[0]).toBe(e.agent);
    }
  });

  it('knows each documented place, and nothing beside it', () => {
    expect(at('CLAUDE.md')).toMatchObject({ agent: 'claude', place: 'checkout' });
    expect(at('~/.claude/CLAUDE.md')).toMatchObject({ agent: 'claude', place: 'global' });
    expect(at('~/.claude/projects/-work-widgets/memory/MEMORY.md')).toMatchObject({ agent: 'claude', kind: 'memory' });
    expect(at('~/.claude/projects/-work-other/memory/MEMORY.md')).toBeNull(); // another project's auto memory
    expect(at('~/.claude/projects/-work-widgets/memory/sub/x.md')).toBeNull(); // auto memory is one level
    expect(at('AGENTS.md')).toMatchObject({ agent: 'codex', readBy: ['codex', 'cursor', 'copilot'] });
    expect(at('~/.codex/memories/rollout_summaries/a.md')).toMatchObject({ agent: 'codex', kind: 'memory' });
    expect(at('.cursor/rules/a/b/c.mdc')).toMatchObject({ agent: 'cursor' });
    expect(at(`.cursor/rules/${'d/'.repeat(MAX_PATTERN_DEPTH)}x.mdc`)).toBeNull();
    expect(at('.cursor/rules/x.md')).toBeNull(); // Cursor ignores plain .md rules
    expect(at('.github/instructions/docs.instructions.md')).toMatchObject({ agent: 'copilot' });
    expect(at('.github/instructions/docs.md')).toBeNull();
    expect(at('GEMINI.md')).toMatchObject({ agent: 'gemini' });
    for (const id of ['README.md', 'src/CLAUDE.md', '~/CLAUDE.md', '.git/CLAUDE.md', '../CLAUDE.md', './CLAUDE.md', '', '~/', 'CLAUDE.md/', '.cursor/rules/.git/x.mdc']) expect(at(id)).toBeNull();
  });
});
