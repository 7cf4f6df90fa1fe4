// The registry's workspace management on a real temp home: a rename changes
// the display name only, in config.json, across processes' reads; a relative folder is refused and
// never resolved against this process's directory; a folder that went away is said in a person's
// words in the status, while the session agents get keeps the protocol's text.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { RegistryError, WorkspaceRegistry } from './registry';
import { NO_PROJECT_REASON } from './session';

let sb: Sandbox;
let registry: WorkspaceRegistry;
beforeEach(async () => {
  sb = await makeSandbox();
  const global = sb.session.scopes.global;
  if (!global.available) throw new Error('the sandbox has no global scope');
  registry = new WorkspaceRegistry(sb.home, { local: global.runtime });
});
afterEach(async () => {
  await sb.cleanup();
});

describe('renaming a workspace', () => {
  it('changes the display name only: same id, folder and memory, seen by another registry on the home', async () => {
    const ws = await registry.add('widgets', sb.checkout);
    await fs.mkdir(path.join(sb.home, 'workspaces', ws.id, 'memory'), { recursive: true });
    await fs.writeFile(path.join(sb.home, 'workspaces', ws.id, 'memory', 'w.md'), 'w');
    expect(await registry.rename(ws.id, '  Widgets\n(main)  ')).toBe('Widgets (main)');
    const other = new WorkspaceRegistry(sb.home, { local: registry.local });
    expect(other.list()).toEqual([{ ...ws, name: 'Widgets (main)' }]);
    expect(await fs.readFile(path.join(sb.home, 'workspaces', ws.id, 'memory', 'w.md'), 'utf8')).toBe('w');
    // Adding the same folder again keeps the new name.
    expect((await registry.add('widgets', sb.checkout)).name).toBe('Widgets (main)');
  });

  it('refuses an empty name, a name over 100 characters and an unknown id, changing nothing', async () => {
    const ws = await registry.add('widgets', sb.checkout);
    await expect(registry.rename(ws.id, ' \n ')).rejects.toThrow(/needs a name/);
    await expect(registry.rename(ws.id, 'x'.repeat(101))).rejects.toThrow(/at most 100 characters; this one has 101/);
    await expect(registry.rename('nope', 'Other')).rejects.toThrow(RegistryError);
    expect(registry.list().map((w) => w.name)).toEqual(['widgets']);
  });
});

describe('adding a local folder', () => {
  it('refuses a relative path, even one that names a real folder from this process\'s directory', async () => {
    const relative = path.relative(process.cwd(), sb.checkout);
    expect(path.isAbsolute(relative)).toBe(false);
    await expect(registry.add('x', relative)).rejects.toThrow(`"${relative}" is relative`);
    await expect(registry.add('x', '~/src/app')).rejects.toThrow(/\(~ is not expanded\)/);
    expect(registry.list()).toEqual([]);
  });

  it('says a folder is missing only when it is; one that cannot be reached is said as it is', async () => {
    await expect(registry.add('x', path.join(sb.dir, 'nope'))).rejects.toThrow(`There is no folder at ${path.join(sb.dir, 'nope')}.`);
    const loop = path.join(sb.dir, 'loop');
    await fs.symlink(loop, loop);
    await expect(registry.add('x', loop)).rejects.toThrow(`The folder ${loop} cannot be opened (ELOOP).`);
    expect(registry.list()).toEqual([]);
  });
});

describe('a workspace whose folder went away', () => {
  it('has a status a person can act on; agents are still told the protocol\'s text', async () => {
    const ws = await registry.add('widgets', sb.checkout);
    expect(await registry.status(ws.id)).toEqual({ id: ws.id, reachable: true, reason: null, hostKey: null });
    expect(registry.folderProblem(ws.id)).toBeNull();
    await fs.rm(sb.checkout, { recursive: true });
    const said = `The folder ${sb.checkout} no longer exists. Remove this workspace, or restore the folder.`;
    expect(registry.folderProblem(ws.id)).toBe(said);
    expect(await registry.status(ws.id)).toEqual({ id: ws.id, reachable: false, reason: said, hostKey: null });
    const session = await registry.session(ws.id);
    expect(session.scopes.project).toMatchObject({ available: false, reason: NO_PROJECT_REASON });
    // A file where the folder was.
    await fs.writeFile(sb.checkout, 'not a folder');
    expect(registry.folderProblem(ws.id)).toBe(`${sb.checkout} is now a file, not a folder. Remove this workspace, or restore the folder.`);
  });
});
