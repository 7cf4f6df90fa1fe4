// An Inbox card names the file its approval writes to: a proposal whose category the person keeps
// in a folder of its name (`preferences/`) shows that folder's file, not a `preferences.md` beside
// it, and approving it without naming a file writes exactly there. The real router over a temp home.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/main/api/router';
import type { AppHost } from '../../src/main/host/app-host';
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

/** A harvested preference from the workspace, pending in the inbox; its id. */
function propose(text: string): string {
  const [item] = host.inbox.add([{ category: 'preference', text, scope: 'global', evidence: [{ messageId: 'm', quote: text }], confidence: 0.9, rationale: 'r' }], {
    agent: 'claude',
    sessionId: 's',
    cwd: null,
    workspaceId: ws,
    projectId: null,
    extractor: 'rules',
  });
  return item!.id;
}

const shownTarget = async (id: string) => (await client.inbox.list({})).items.find((i) => i.id === id)?.target;

describe('an Inbox card’s target', () => {
  it('is the folder’s file when the category is kept in a folder, and approving writes there', async () => {
    expect((await client.memory.create({ workspaceId: ws, path: '/memories/global/preferences/typescript.md', kind: 'file', content: '- Strict mode.\n' })).status).toBe('ok');
    const id = propose('Prefers small pull requests.');
    expect(await shownTarget(id)).toBe('/memories/global/preferences/general.md');
    expect(await client.inbox.approve({ workspaceId: ws, id })).toMatchObject({ status: 'ok', path: '/memories/global/preferences/general.md' });
    expect(fs.existsSync(path.join(sb.roots.global, 'preferences.md'))).toBe(false);
  });

  it('is the category file at the top of the scope when there is no such folder', async () => {
    const id = propose('Prefers tabs.');
    expect(await shownTarget(id)).toBe('/memories/global/preferences.md');
    expect(await client.inbox.approve({ workspaceId: ws, id })).toMatchObject({ status: 'ok', path: '/memories/global/preferences.md' });
  });
});
