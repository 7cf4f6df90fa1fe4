// The Cancel of a consolidation as the router wires it: the client call's AbortSignal
// reaches consolidation.propose's handler, which hands it to Consolidations.propose; the proposal stops, nothing
// is stored, the answer says so. Real services in a temp home, the router called in process with
// a signal aborted before the call (the only way to land a cancel at a known point: the rules
// extractor answers in milliseconds, so a cancel "in flight" would race it).
import * as fs from 'node:fs';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/main/api/router';
import { openTestAppHost } from '../support/app-host';
import { putAged } from '../support/file-tree';
import type { Sandbox } from '../support/sandbox';

let sb: Sandbox;
let client: RouterClient<AppRouter>;
let workspaceId: string;
let close: () => Promise<void>;

beforeEach(async () => {
  ({ sb, client, ws: workspaceId, close } = await openTestAppHost());
  // A file unused for 100 days: without the cancel, a proposal to delete it.
  putAged(sb.roots.project, 'old.md', 'An old note.\n', 100);
});
afterEach(() => close());

describe('consolidation.propose and its signal', () => {
  it('a cancelled proposal stores nothing, says so, and frees the scope for the next one', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client.consolidation.propose({ workspaceId, scope: 'project' }, { signal: controller.signal })).resolves.toEqual({
      status: 'error',
      message: 'Cancelled: nothing was proposed and nothing was written.',
    });
    expect((await client.consolidation.list({ workspaceId })).proposals).toEqual([]);
    expect(fs.readdirSync(sb.roots.project)).toEqual(['old.md']);
    // The lease was released: the next proposal goes through.
    await expect(client.consolidation.propose({ workspaceId, scope: 'project' })).resolves.toMatchObject({ status: 'proposed', summary: '1 deletion' });
  });
});
