// Which agent's transcripts a client's session is looked for in, by the name the client gives in
// its MCP handshake (Claude Code says claude-code, Codex codex-mcp-client, as observed of the real
// clients); any other client's session is looked for in both.
import { describe, expect, it } from 'vitest';
import { clientAgents } from './memory-propose';

describe('the agent a client is', () => {
  it.each([
    ['claude-code', ['claude']],
    ['codex-mcp-client', ['codex']],
    ['cursor-vscode', undefined],
    [undefined, undefined],
  ] as const)('%s -> %j', (name, agents) => {
    expect(clientAgents(name)).toEqual(agents);
  });
});
