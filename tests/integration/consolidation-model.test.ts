// The consolidation's model backend behind the API, as the app's "Consolidate..." uses it: the
// setting consolidationExtractor chooses `command` (harvestCommand: a real child process, the node script
// src/main/consolidation/fixtures/fake-consolidation-model.mjs standing in for `claude -p`; no model runs here).
// Real services in a temp home, the router called in process. The proposal crosses the contract
// with its rename (the new file marked created) and the refused change; the UI's Cancel, landed
// while the model runs (it never answers, so nothing races), stops its process and stores nothing.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/main/api/router';
import { processRuns } from '../../src/main/runtime/local/process-alive';
import { openTestAppHost } from '../support/app-host';
import { putAged } from '../support/file-tree';
import { REPO_ROOT, type Sandbox } from '../support/sandbox';

const FAKE_MODEL = path.join(REPO_ROOT, 'src', 'main', 'consolidation', 'fixtures', 'fake-consolidation-model.mjs');
const P = (name: string) => `/memories/project/${name}`;

let sb: Sandbox;
let client: RouterClient<AppRouter>;
let workspaceId: string;
let close: () => Promise<void>;
let record: string;
let answerFile: string;

beforeEach(async () => {
  ({ sb, client, ws: workspaceId, close } = await openTestAppHost());
  putAged(sb.roots.project, 'old.md', 'An old note.\n', 100);
  putAged(sb.roots.project, 'misc.md', 'Release: run scripts/release.\n', 100);
  record = path.join(sb.dir, 'record.jsonl');
  answerFile = path.join(sb.dir, 'answer.txt');
  fs.writeFileSync(
    answerFile,
    JSON.stringify({
      changes: [
        { op: 'rename', path: P('misc.md'), to: P('release.md'), basedOn: `{{sha:${P('misc.md')}}}`, reason: 'It holds the release steps.' },
        { op: 'delete', path: P('old.md'), basedOn: 'c'.repeat(64), reason: 'Old.' },
      ],
    }),
  );
});
afterEach(() => close());

const useModel = (mode = '') => client.settings.set({ consolidationExtractor: 'command', harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}' ${mode}` });

describe('consolidation.propose with the command backend', () => {
  it("proposes the model's rename through the contract, with the change it refused and why", async () => {
    await useModel();
    const outcome = await client.consolidation.propose({ workspaceId, scope: 'project' });
    if (outcome.status !== 'proposed') throw new Error(JSON.stringify(outcome));
    expect(outcome.summary).toBe('1 rename');
    expect(outcome.proposal).toMatchObject({
      extractor: 'command',
      changes: [{ kind: 'rename', path: P('misc.md'), files: [{ path: P('misc.md'), content: null }, { path: P('release.md'), created: true, content: 'Release: run scripts/release.\n' }] }],
      refused: [{ change: `delete ${P('old.md')}`, reason: expect.stringMatching(/^it was based on version cccccccccccc of \/memories\/project\/old\.md, which is at [0-9a-f]{12} now$/) }],
    });
    const applied = await client.consolidation.apply({ workspaceId, id: outcome.proposal.id });
    expect(applied).toMatchObject({ status: 'ok', proposal: { state: 'applied', result: { applied: [P('misc.md')] } } });
    expect(fs.readdirSync(sb.roots.project).sort()).toEqual(['old.md', 'release.md']);
  });

  it("the UI's Cancel while the model runs stops its process, stores nothing and frees the scope", async () => {
    await useModel('hang');
    const controller = new AbortController();
    const proposing = client.consolidation.propose({ workspaceId, scope: 'project' }, { signal: controller.signal });
    // The model runs once it has written its start file (an event waited for, not a delay).
    while (!fs.existsSync(`${record}.started`)) await new Promise((r) => setTimeout(r, 10));
    const pid = Number(fs.readFileSync(`${record}.started`, 'utf8'));
    controller.abort();
    await expect(proposing).resolves.toEqual({ status: 'error', message: 'Cancelled: nothing was proposed and nothing was written.' });
    expect(processRuns(pid)).toBe(false);
    expect((await client.consolidation.list({ workspaceId })).proposals).toEqual([]);
    // The lease was released: the rules propose at once.
    await client.settings.set({ consolidationExtractor: 'rules' });
    await expect(client.consolidation.propose({ workspaceId, scope: 'project' })).resolves.toMatchObject({ status: 'proposed' });
  });

  it('a model chosen but not configured is an error saying which setting to fill in', async () => {
    await client.settings.set({ consolidationExtractor: 'http', harvestHttp: null });
    await expect(client.consolidation.propose({ workspaceId, scope: 'project' })).resolves.toMatchObject({ status: 'error', message: expect.stringContaining('The consolidation extractor is "http" but no model is set: set harvestHttp') });
  });
});
