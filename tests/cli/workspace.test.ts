// `cairn workspace` for local checkouts (SSH ones: tests/ssh/workspaces.test.ts): add with a chosen
// or derived id, list (text and JSON in the API's shape), tool --workspace, remove.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe('cairn workspace (local)', () => {
  it('adds, lists, runs tool --workspace from anywhere, and removes', async () => {
    const cairn = (...args: string[]) => runCairn(['--home', sb.home, ...args], { cwd: sb.dir });
    expect(await cairn('workspace', 'add', '--name', 'Widgets', '--path', sb.checkout, '--id', 'widgets')).toEqual({ status: 0, stdout: 'widgets\n', stderr: '' });
    expect(JSON.parse((await cairn('workspace', 'list', '--json')).stdout)).toEqual([{ id: 'widgets', name: 'Widgets', kind: 'local', path: sb.checkout, host: null }]);
    // Run from outside the checkout: the registered workspace brings it.
    const created = await cairn('tool', '--workspace', 'widgets', JSON.stringify({ command: 'create', path: '/memories/project/p.md', file_text: 'p' }));
    expect(created.stdout).toBe('File created successfully at: /memories/project/p.md\n');
    await fs.access(path.join(sb.checkout, '.cairn', 'memory', 'p.md'));
    expect((await cairn('workspace', 'add', '--name', 'x', '--path', path.join(sb.dir, 'nope'))).stderr).toMatch(/There is no folder at/);
    expect((await cairn('workspace', 'remove', 'widgets')).stdout).toContain('Removed widgets');
    expect((await cairn('workspace', 'list')).stdout).toContain('No workspaces are registered');
    await fs.access(path.join(sb.checkout, '.cairn', 'memory', 'p.md'));
  });
});
