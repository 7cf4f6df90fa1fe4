// The workspaces.* routes a person's UI uses, over the real router and
// services in a temp home: rename (display name only), a relative folder refused by the server
// (never resolved against the server's directory), and a folder that went away said in a person's
// words in memory.list and workspaces.status, while an agent on the same workspace is still told
// the protocol's text.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppHost } from '../../src/main/host/app-host';
import type { AppRouter } from '../../src/main/api/router';
import { NO_PROJECT_REASON } from '../../src/main/workspaces/session';
import { openTestAppHost } from '../support/app-host';
import type { Sandbox } from '../support/sandbox';

let sb: Sandbox;
let host: AppHost;
let client: RouterClient<AppRouter>;
let ws: string;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ sb, host, client, ws, close } = await openTestAppHost());
});
afterEach(() => close());

describe('workspaces.rename', () => {
  it('renames the display name and nothing else; a bad name or id is refused as a sentence', async () => {
    await client.memory.save({ workspaceId: ws, path: '/memories/workspace/w.md', content: 'w', expectedSha256: null });
    expect(await client.workspaces.rename({ id: ws, name: 'Widgets (main)' })).toEqual({ status: 'ok', message: 'Renamed to Widgets (main).' });
    expect(await client.workspaces.list()).toEqual([{ id: ws, name: 'Widgets (main)', kind: 'local', path: sb.checkout, host: null }]);
    expect((await client.memory.list({ workspaceId: ws })).files.map((f) => f.path)).toEqual(['/memories/workspace/w.md']);
    expect(await client.workspaces.rename({ id: ws, name: '   ' })).toMatchObject({ status: 'error', message: expect.stringMatching(/needs a name/) });
    expect(await client.workspaces.rename({ id: 'nope', name: 'x' })).toEqual({ status: 'error', message: 'No workspace nope is registered.' });
  });
});

describe('workspaces.add with a relative folder', () => {
  it('is refused with the reason, though it names a real folder from the server\'s directory', async () => {
    const relative = path.relative(process.cwd(), sb.checkout);
    await expect(client.workspaces.add({ name: 'x', path: relative })).rejects.toThrow(`The folder must be an absolute path that starts with /, such as /home/you/src/project; "${relative}" is relative.`);
    expect((await client.workspaces.list()).map((w) => w.id)).toEqual([ws]);
  });
});

describe('a workspace whose folder was deleted', () => {
  it('is explained to the person in memory.list and workspaces.status; an agent is told there is no git repository', async () => {
    await fs.rm(sb.checkout, { recursive: true });
    const said = `The folder ${sb.checkout} no longer exists. Remove this workspace, or restore the folder.`;
    expect(await client.workspaces.status({ id: ws })).toEqual({ id: ws, reachable: false, reason: said, hostKey: null });
    const scopes = (await client.memory.list({ workspaceId: ws })).scopes;
    expect(scopes).toEqual([
      { scope: 'global', available: true, reason: null },
      { scope: 'project', available: false, reason: said },
      { scope: 'workspace', available: true, reason: null },
    ]);
    const agentView = await host.service.execute({ command: 'view', path: '/memories' }, await host.registry.session(ws), { mode: 'exec', actor: 'agent' });
    expect(agentView.output).toContain(`/memories/project/ (unavailable: ${NO_PROJECT_REASON.replace(/\.$/, '')}`);
    expect(agentView.output).not.toContain(sb.checkout);
  });
});
