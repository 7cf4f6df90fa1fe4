// Undoing a delete made by another process gives the file back its usage: an agent deletes a used,
// pinned file through the built CLI (a process of its own, which exits), and the person undoes it
// in the app (this process's services) or with `cairn undo` (a third process). The file's uses, its
// last use and its pin are back, so it ranks in the hot set as before.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, runJsonl } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { openHome, type HomeServices } from '../../src/main/host/home-services';

let sb: Sandbox;
let home: HomeServices;

const FILE = '/memories/global/deploy.md';
const flags = () => ['--cwd', sb.checkout, '--home', sb.home];
/** An agent's commands, in a `cairn tool` process of their own. */
const agent = (...commands: unknown[]) => runJsonl([...flags(), '--agent', 'claude'], commands);
const stored = () => (JSON.parse(fs.readFileSync(path.join(sb.home, 'memory-meta.json'), 'utf8')) as { files: Record<string, unknown> }).files['global:deploy.md'];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  home = openHome(sb.home);
  const made = await agent({ command: 'create', path: FILE, file_text: 'Deploy with make deploy.\n' }, { command: 'view', path: FILE }, { command: 'view', path: FILE });
  expect(made.every((a) => a.ok)).toBe(true);
  await home.service.setPinned(FILE, true, sb.session);
});
afterEach(async () => {
  await home.close();
  await sb.cleanup();
});

describe("undoing an agent's delete made through the CLI", () => {
  it('in the app gives the file back its uses and its pin', async () => {
    const before = stored();
    expect(before).toMatchObject({ pinned: true, accessCount: 3, lastWriteBy: 'agent' });
    expect((await agent({ command: 'delete', path: FILE }))[0]!.ok).toBe(true);
    expect(stored()).toBeUndefined();

    const undone = await home.versions.undo('last', sb.session);
    expect(undone).toMatchObject({ status: 'ok' });
    await home.usage.flush();
    expect(fs.existsSync(path.join(sb.roots.global, 'deploy.md'))).toBe(true);
    expect(stored()).toEqual(before);
    // The app's own reading of the usage agrees (what the hot set ranks by).
    expect((await home.usage.read()).get('global:deploy.md')).toEqual(before);
  });

  it('with cairn undo, another process again, as well', async () => {
    const before = stored();
    expect((await agent({ command: 'delete', path: FILE }))[0]!.ok).toBe(true);
    const undo = await runCairn(['undo', '--last', ...flags()]);
    expect(undo.stderr).toBe('');
    expect(undo.stdout).toMatch(/^Undid delete of \/memories\/global\/deploy\.md/);
    expect(stored()).toEqual(before);
    // Once given back, the stats are the file's alone: a second delete and undo give the same again.
    expect((await agent({ command: 'delete', path: FILE }))[0]!.ok).toBe(true);
    expect((await runCairn(['undo', '--last', ...flags()])).status).toBe(0);
    expect(stored()).toEqual(before);
  });
});
