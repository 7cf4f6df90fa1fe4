// The consolidation routes as the UI will call them: the built `cairn serve` on a loopback port,
// oRPC over HTTP with the token. Propose, list, get, apply a part, discard; refusals come back as
// typed errors a person can act on, naming no host path. Files are aged on the disk (mtimes), so
// no clock is raced.
import * as fs from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConsolidationProposal } from '../../src/common/consolidation/proposal';
import { stopProcess } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { rpc, serve, type Served } from '../support/serve';
import { putAged } from '../support/file-tree';

let sb: Sandbox;
let served: Served;
let workspaceId: string;

const put = (name: string, text: string, ageDays: number): void => putAged(sb.roots.project, name, text, ageDays);

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  served = await serve(sb.home);
  workspaceId = ((await rpc(served, 'workspaces/add', { name: 'widgets', path: sb.checkout })) as { id: string }).id;
});
afterEach(async () => {
  await stopProcess(served.server);
  await sb.cleanup();
});

describe('consolidation routes', () => {
  it('propose, list, get, apply a part, then nothing is left to apply; discard leaves the files', async () => {
    put('a.md', 'Old note a.\n', 100);
    put('b.md', 'Old note b.\n', 100);
    const proposed = (await rpc(served, 'consolidation/propose', { workspaceId, scope: 'project' })) as { status: string; summary: string; proposal: ConsolidationProposal };
    expect(proposed).toMatchObject({ status: 'proposed', summary: '2 deletions' });
    const id = proposed.proposal.id;
    expect(((await rpc(served, 'consolidation/list', { workspaceId })) as { proposals: ConsolidationProposal[] }).proposals.map((p) => [p.id, p.state])).toEqual([[id, 'open']]);
    expect(await rpc(served, 'consolidation/get', { workspaceId, id })).toMatchObject({ id, scope: 'project', changes: [{ kind: 'delete', path: '/memories/project/a.md' }, { kind: 'delete', path: '/memories/project/b.md' }] });

    const applied = (await rpc(served, 'consolidation/apply', { workspaceId, id, only: ['/memories/project/b.md'] })) as { status: string; proposal: ConsolidationProposal };
    expect(applied).toMatchObject({ status: 'ok', proposal: { state: 'applied', result: { applied: ['/memories/project/b.md'], skipped: [] } } });
    expect(fs.readdirSync(sb.roots.project)).toEqual(['a.md']);
    // The consolidation is one change in the history, undone by the history's route.
    expect(await rpc(served, 'history/undo', { workspaceId, id: applied.proposal.result!.batch })).toMatchObject({ status: 'ok' });
    expect(fs.readdirSync(sb.roots.project).sort()).toEqual(['a.md', 'b.md']);
    expect(await rpc(served, 'consolidation/apply', { workspaceId, id })).toMatchObject({ status: 'error', message: expect.stringContaining(`Proposal ${id} was applied at`) });

    const next = ((await rpc(served, 'consolidation/propose', { workspaceId, scope: 'project', days: 30 })) as { proposal: ConsolidationProposal }).proposal.id;
    expect(await rpc(served, 'consolidation/discard', { workspaceId, id: next })).toEqual({ status: 'ok', message: `Discarded proposal ${next}; nothing was written.` });
    expect(fs.readdirSync(sb.roots.project).sort()).toEqual(['a.md', 'b.md']);
  });

  it('answers "nothing" for an empty scope, and refuses unknown ids without a host path', async () => {
    expect(await rpc(served, 'consolidation/propose', { workspaceId, scope: 'workspace' })).toMatchObject({ status: 'nothing', summary: 'nothing to consolidate' });
    const refused = (await rpc(served, 'consolidation/apply', { workspaceId, id: 'nope' })) as { status: string; message: string };
    expect(refused).toEqual({ status: 'error', message: 'There is no proposal "nope" for the scopes this session sees; list them with `cairn consolidate list`.' });
    await expect(rpc(served, 'consolidation/get', { workspaceId, id: 'nope' })).rejects.toThrow(/answered 400/);
    await expect(rpc(served, 'consolidation/propose', { workspaceId, scope: 'project', days: 0 })).rejects.toThrow(/answered 400/);
    expect(JSON.stringify(refused)).not.toContain(sb.dir);
  });
});
