// The import boundaries of docs/architecture.md ("Layers"), checked with the project's own ESLint
// config: the outer ones (common, renderer, main) and the inner ones of src/main.
import * as path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const importing = (source: string) => `import * as x from '${source}';\nexport const a = x;\n`;

describe('import boundaries', () => {
  it.each([
    ['src/common/memory/x.ts', "import * as fs from 'node:fs';\nexport const a = fs;\n", /no Node builtins/],
    ['src/common/memory/x.ts', "import * as path from 'path';\nexport const a = path;\n", /no Node builtins/],
    ['src/common/memory/x.ts', "import { MemoryService } from '../../main/memory/memory-service';\nexport const a = MemoryService;\n", /nothing from main/],
    ['src/common/x.ts', "import { a } from '../renderer/main';\nexport const b = a;\n", /nothing from main, renderer/],
    ['src/renderer/x.ts', "import { MemoryService } from '../main/memory/memory-service';\nexport const a = MemoryService;\n", /never imports src\/main/],
    ['src/renderer/x.ts', "import { readFile } from 'node:fs/promises';\nexport const a = readFile;\n", /no Node APIs/],
    // Inner layers of src/main.
    ['src/main/runtime/x.ts', importing('../memory/memory-service'), /runtime imports only src\/common/],
    ['src/main/runtime/local/x.ts', importing('../../workspaces/registry'), /runtime imports only src\/common/],
    ['src/main/runtime/ssh/x.ts', importing('../../journal/journal'), /runtime imports only src\/common/],
    ['src/main/memory/x.ts', importing('../journal/journal'), /memory imports none of journal, api, mcp, cli/],
    ['src/main/memory/scanners/x.ts', importing('../../api/router'), /memory imports none of journal, api, mcp, cli/],
    ['src/main/memory/x.ts', importing('../mcp/memory-mcp-server'), /memory imports none of journal, api, mcp, cli/],
    ['src/main/memory/x.ts', importing('../cli/usage'), /memory imports none of journal, api, mcp, cli/],
    ['src/main/api/x.ts', importing('../mcp/http-endpoint'), /api never imports mcp/],
    ['src/main/history/x.ts', importing('../memory/memory-service'), /history imports only src\/common and the runtime/],
    ['src/main/mcp/x.ts', importing('../api/router'), /mcp never imports api/],
    ['src/main/memory/x.ts', importing('../harvest/transcript'), /memory imports none of journal, api, mcp, cli, harvest/],
    ['src/main/harvest/x.ts', importing('../journal/journal'), /harvest imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/harvest/x.ts', importing('../host/home-services'), /harvest imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/sweep/x.ts', importing('../journal/journal'), /sweep imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/sweep/x.ts', importing('../cli/usage'), /sweep imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/import/x.ts', importing('../cli/usage'), /import imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/import/x.ts', importing('../host/home-services'), /import imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/sweep/x.ts', importing('../api/router'), /sweep imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/memory/x.ts', importing('../sweep/sweeps'), /memory imports none of journal, api, mcp, cli, harvest, sweep/],
    ['src/main/agent-files/x.ts', importing('../api/router'), /agent-files imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/agent-files/x.ts', importing('../host/home-services'), /agent-files imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/context/x.ts', importing('../cli/usage'), /context imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/context/x.ts', importing('../host/home-services'), /context imports none of journal, api, mcp, cli, electron, host/],
    ['src/main/outside/x.ts', importing('../harvest/transcript'), /outside imports only src\/common and the runtime/],
    ['src/main/outside/x.ts', importing('../agent-files/envelope'), /outside imports only src\/common and the runtime/],
    ['src/main/outside/x.ts', importing('../memory/memory-service'), /outside imports only src\/common and the runtime/],
    ['src/main/runtime/local/x.ts', importing('../../outside/outside-file'), /runtime imports only src\/common/],
  ])('%s may not import this', async (file, code, message) => {
    const errors = await boundaryErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    ['src/renderer/x.ts', "import { MEMORY_ROOT } from '../common/memory/constants';\nexport const a = MEMORY_ROOT;\n"],
    ['src/main/x.ts', "import * as fs from 'node:fs';\nimport { MEMORY_ROOT } from '../common/memory/constants';\nexport const a = [fs, MEMORY_ROOT];\n"],
    ['src/common/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    ['src/main/runtime/local/x.ts', importing('../../../common/memory/paths')],
    ['src/main/runtime/ssh/x.ts', importing('../local-lock')],
    ['src/main/memory/x.ts', importing('../runtime/runtime')],
    ['src/main/memory/x.ts', importing('../history/history-store')],
    ['src/main/history/x.ts', importing('../../common/memory/paths')],
    ['src/main/history/x.ts', importing('../runtime/local/atomic-write')],
    ['src/main/memory/x.ts', importing('../../common/memory/constants')],
    ['src/main/journal/x.ts', importing('../memory/memory-service')],
    ['src/main/api/x.ts', importing('../journal/change-feed')],
    ['src/main/mcp/x.ts', importing('../journal/change-feed')],
    ['src/main/harvest/x.ts', importing('../memory/scanners/content-scanner')],
    ['src/main/sweep/x.ts', importing('../memory/memory-service')],
    ['src/main/sweep/x.ts', importing('../history/history-store')],
    ['src/main/sweep/x.ts', importing('../harvest/checks')],
    ['src/main/sweep/x.ts', importing('../workspaces/registry')],
    ['src/main/cli/x.ts', importing('../sweep/sweeps')],
    ['src/main/agent-files/x.ts', importing('../harvest/checks')],
    ['src/main/import/x.ts', importing('../harvest/checks')],
    ['src/main/agent-files/x.ts', importing('../runtime/local/atomic-write')],
    ['src/main/outside/x.ts', importing('../runtime/local/containment')],
    ['src/main/agent-files/x.ts', importing('../outside/outside-file')],
    ['src/main/import/x.ts', importing('../outside/outside-file')],
    ['src/main/harvest/x.ts', importing('../outside/outside-file')],
    ['src/main/host/x.ts', importing('../agent-files/agent-files')],
    ['src/main/context/x.ts', importing('../memory/context-builder')],
    ['src/main/host/x.ts', importing('../context/context-host')],
    ['src/main/cli/x.ts', importing('../context/context-socket')],
  ])('%s may import this', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});
