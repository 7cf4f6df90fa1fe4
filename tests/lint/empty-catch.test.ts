// A dropped error is dropped on purpose and says why: with the project's own ESLint config, a bare
// `catch {}` anywhere in src (main, common, renderer) fails lint, and a catch whose only content is
// a comment saying why the error is safe to ignore passes (files linted from memory, nothing written).
import * as path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/sandbox';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function emptyBlockErrors(file: string, code: string): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) });
  expect(result!.messages.filter((m) => m.fatal)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === 'no-empty').length;
}

describe('empty catch blocks', () => {
  const bare = 'export function f(): void {\n  try {\n    JSON.parse("x");\n  } catch {}\n}\n';
  const reasoned = 'export function f(): void {\n  try {\n    JSON.parse("x");\n  } catch {\n    // Not JSON: nothing to take from it.\n  }\n}\n';

  it.each(['src/main/memory/lint-probe.ts', 'src/common/lint-probe.ts', 'src/renderer/lib/lint-probe.ts'])('fail lint in %s unless a comment says why', async (file) => {
    expect(await emptyBlockErrors(file, bare)).toBe(1);
    expect(await emptyBlockErrors(file, reasoned)).toBe(0);
  });
});
