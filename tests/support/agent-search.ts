/**
 * What an agent's `memory_search` answers for a backend's session (the MCP server's SessionSearch
 * over the host's context builder): the paths of its hits, best first. Component tests compare the
 * UI's content search with it; they live under src/renderer, which may not import src/main.
 */
import { SessionSearch } from '../../src/main/context/session-search';
import type { UiBackend } from './ui-backend';

export async function agentSearchPaths(b: UiBackend, query: string): Promise<string[]> {
  const search = new SessionSearch(b.host.builder, b.session);
  try {
    const answer = await search.search(query);
    return answer.split('\n').filter((l) => l.startsWith('/memories/'));
  } finally {
    search.close();
  }
}
