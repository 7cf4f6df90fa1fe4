// The import-boundary rule of design.md, checked with the project's own ESLint config.
import * as path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it.each([
    ['src/common/memory/x.ts', "import * as fs from 'node:fs';\nexport const a = fs;\n", /no Node builtins/],
    ['src/common/memory/x.ts', "import * as path from 'path';\nexport const a = path;\n", /no Node builtins/],
    ['src/common/memory/x.ts', "import { MemoryService } from '../../main/memory/memory-service';\nexport const a = MemoryService;\n", /nothing from main/],
    ['src/common/x.ts', "import { a } from '../renderer/main';\nexport const b = a;\n", /nothing from main, renderer/],
    ['src/renderer/x.ts', "import { MemoryService } from '../main/memory/memory-service';\nexport const a = MemoryService;\n", /never imports src\/main/],
    ['src/renderer/x.ts', "import { readFile } from 'node:fs/promises';\nexport const a = readFile;\n", /no Node APIs/],
  ])('%s may not import this', async (file, code, message) => {
    const errors = await boundaryErrors(file, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    ['src/renderer/x.ts', "import { MEMORY_ROOT } from '../common/memory/constants';\nexport const a = MEMORY_ROOT;\n"],
    ['src/main/x.ts', "import * as fs from 'node:fs';\nimport { MEMORY_ROOT } from '../common/memory/constants';\nexport const a = [fs, MEMORY_ROOT];\n"],
    ['src/common/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
  ])('%s may import this', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });
});
