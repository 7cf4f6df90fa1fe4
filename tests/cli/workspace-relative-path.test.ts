// `cairn workspace add --path` with a relative folder: the registry takes
// absolute folders only (a server must never resolve against its own directory), so the command
// line resolves the argument against the shell's directory, as a person at a terminal means it.
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

describe('cairn workspace add --path RELATIVE', () => {
  it('registers the folder relative to the shell\'s directory, by its absolute path', async () => {
    const cairn = (...args: string[]) => runCairn(['--home', sb.home, ...args], { cwd: sb.dir });
    expect(await cairn('workspace', 'add', '--name', 'Widgets', '--path', 'checkout', '--id', 'widgets')).toEqual({ status: 0, stdout: 'widgets\n', stderr: '' });
    const listed = JSON.parse((await cairn('workspace', 'list', '--json')).stdout) as { path: string }[];
    expect(listed.map((w) => w.path)).toEqual([sb.checkout]);
  });
});
