// The `agent` consolidation backend's own parts, without a server (the server end to end:
// tests/integration/mcp-consolidate.test.ts): which scope a call without one consolidates, the
// agent's changes read as a model's (null fields absent, "kind" as "op"), and the prompt as put
// to an agent (the model's data and rules, its own first line, the answer asked of the tool).
// Pure: the input is built here, no disk.
import { describe, expect, it } from 'vitest';
import { MCP_CONSOLIDATE_PROMPT_MARKER, MEMORY_CONSOLIDATE_TOOL } from '../../common/memory/tool-description';
import { HARVEST_PROMPT_MARKER } from '../harvest/extractors/prompt';
import type { MemorySession } from '../memory/session';
import type { ConsolidationFileInput, ConsolidationInput } from '../consolidation/extractor';
import { consolidationPrompt } from '../consolidation/consolidation-prompt';
import { agentConsolidationExtractor, consolidationScope } from './memory-consolidate';

const NOW = Date.parse('2027-03-01T12:00:00Z');
const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

function file(name: string, content: string, sha256: string): ConsolidationFileInput {
  return {
    path: `/memories/project/${name}`,
    sha256,
    size: content.length,
    mtimeMs: NOW - 100 * 86_400_000,
    content,
    usage: { pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null },
    score: 0,
    protected: false,
  };
}

const input: ConsolidationInput = {
  scope: 'project',
  now: NOW,
  days: 60,
  files: [file('a.md', 'Deploys use the script.\n', SHA_A), file('b.md', 'Deploys use the script.\n', SHA_B)],
  stale: ['/memories/project/a.md', '/memories/project/b.md'],
  since: { last: null, changed: [], total: 0 },
};

/** A session with or without a project scope (only `scopes.project.available` is read). */
const sessionWithProject = (available: boolean) => ({ scopes: { project: available ? { available: true } : { available: false, reason: 'no git checkout' } } }) as unknown as MemorySession;

describe('the scope a consolidation is of', () => {
  it('is the one named; without one, the project scope when the session has it, else global', () => {
    expect(consolidationScope(sessionWithProject(true), 'workspace')).toBe('workspace');
    expect(consolidationScope(sessionWithProject(true), null)).toBe('project');
    expect(consolidationScope(sessionWithProject(true), undefined)).toBe('project');
    expect(consolidationScope(sessionWithProject(false), '')).toBe('global');
    expect(() => consolidationScope(sessionWithProject(true), 'team')).toThrow('Choose a scope: one of global, project, workspace.');
  });
});

describe("the agent's changes", () => {
  it('are read as a model\'s: null fields absent (a strict-mode client sends them), deletes merged into a written file are a merge', async () => {
    const answer = await agentConsolidationExtractor([
      { kind: 'delete', path: '/memories/project/b.md', basedOn: SHA_B, reason: 'Says what a.md says.', content: null, to: null, mergedInto: '/memories/project/a.md' },
      { kind: 'write', path: '/memories/project/a.md', basedOn: SHA_A, content: 'Deploys use the release script.\n', reason: 'Clearer.', to: null, mergedInto: null },
    ]).propose(input);
    expect(answer).toEqual({
      changes: [
        {
          kind: 'merge',
          keep: '/memories/project/a.md',
          others: ['/memories/project/b.md'],
          content: 'Deploys use the release script.\n',
          reason: 'Says what a.md says. Clearer.',
          basedOn: { '/memories/project/b.md': SHA_B, '/memories/project/a.md': SHA_A },
        },
      ],
      refused: [],
    });
  });

  it('a delete with every optional field null is a plain delete; a write creating a file nothing is merged into is refused, as a model\'s', async () => {
    const answer = await agentConsolidationExtractor([
      { kind: 'delete', path: '/memories/project/a.md', basedOn: SHA_A, reason: 'Stale.', content: null, to: null, mergedInto: null },
      { kind: 'write', path: '/memories/project/new.md', basedOn: null, content: 'x\n', reason: 'New.' },
    ]).propose(input);
    expect(answer.changes).toEqual([{ kind: 'delete', path: '/memories/project/a.md', reason: 'Stale.', basedOn: { '/memories/project/a.md': SHA_A } }]);
    expect(answer.refused).toEqual([{ change: 'write /memories/project/new.md', reason: 'it creates /memories/project/new.md without merging any file into it: a consolidation adds no memory' }]);
  });
});

describe('the prompt as put to an agent', () => {
  it("holds the model's data and rules, begins with its own line (the session stays harvestable), and asks for a call of memory_consolidate with kind", () => {
    const model = consolidationPrompt(input);
    const agent = consolidationPrompt(input, { marker: MCP_CONSOLIDATE_PROMPT_MARKER, tool: MEMORY_CONSOLIDATE_TOOL });
    expect(agent.startsWith(`${MCP_CONSOLIDATE_PROMPT_MARKER}\n`)).toBe(true);
    expect(agent).not.toContain(HARVEST_PROMPT_MARKER);
    // Everything from the role to the end of the data is the model's, byte for byte.
    const body = (p: string) => p.slice(p.indexOf('You are the consolidator'), p.lastIndexOf('MEMORY-END-'));
    expect(body(agent)).toBe(body(model));
    expect(agent).toContain('Answer by calling the tool `memory_consolidate` once, with "scope": "project" and "changes", a list in exactly this shape:\n[{"kind":"delete",');
    expect(agent).toContain('Each change has "kind" ("write", "delete" or "rename")');
    expect(agent).toContain('If nothing should change, call it with "changes": []. Do not change memory yourself');
    expect(agent).not.toContain('"op":"delete"');
  });
});
