// The Activity view's rows from a real history and inbox in a temp home: an agent's change carries
// its agent and session through the log (and a line written without one, as older Cairns wrote,
// still reads, with no agent); a person's own changes are no activity; inbox proposals and held
// changes are rows; filters by workspace, scope and agent; a row's sides read back; and a page that
// merges the rows a follower sends it holds what listing everything again would answer.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryStore, type HistoryChange } from '../history/history-store';
import { InboxStore } from '../inbox/inbox-store';
import { mergeActivityRows, type ActivityFilterInput } from '../../common/api/contract/activity';
import { ActivityFollower, listActivity, readActivity } from './activity-feed';

let home: string;
let clock: number;
const now = () => clock;
const bytes = (t: string) => new TextEncoder().encode(t);

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-activity-')));
  clock = Date.parse('2026-11-29T10:00:00.000Z');
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function change(over: Partial<HistoryChange>): HistoryChange {
  return { owner: 'workspace:ws1', scope: 'workspace', path: '/memories/workspace/a.md', op: 'create', before: null, after: bytes('one\n'), actor: 'agent', cause: 'tool', workspaceId: 'ws1', projectId: null, ...over };
}

describe('the activity feed', () => {
  it('lists agents’ changes newest first with who made them, and the inbox’s items', () => {
    const history = new HistoryStore(home, { now });
    const inbox = new InboxStore(home, now);
    history.prepare([change({ agent: { name: 'claude-code', session: 's-1' } })]);
    clock += 1000;
    history.prepare([change({ op: 'update', before: bytes('one\n'), after: bytes('one\ntwo\n'), agent: { name: 'codex-mcp-client', session: 's-2' } })]);
    clock += 1000;
    // Older records have no agent; a person's own change is no agent's activity.
    history.record([change({ path: '/memories/workspace/old.md' })]);
    history.record([change({ path: '/memories/workspace/mine.md', actor: 'person', cause: 'ui' })]);
    clock += 1000;
    inbox.add([{ category: 'fact', text: 'The build runs with make.', scope: 'project', evidence: [{ messageId: 'm', quote: 'make' }], confidence: 0.9, rationale: 'r' }], {
      agent: 'gemini',
      sessionId: 'g-7',
      cwd: null,
      workspaceId: 'ws2',
      projectId: 'p',
      extractor: 'agent',
    });

    // A second reader (another process) sees the same, agent included: it went through the log.
    const listing = listActivity(new HistoryStore(home, { now }), inbox);
    expect(listing.rows.map((r) => [r.kind, r.path, r.agent?.name ?? null, r.agent?.session ?? null, r.workspaceId])).toEqual([
      ['proposal', '/memories/project/facts.md', 'gemini', 'g-7', 'ws2'],
      ['create', '/memories/workspace/old.md', null, null, 'ws1'],
      ['edit', '/memories/workspace/a.md', 'codex-mcp-client', 's-2', 'ws1'],
      ['create', '/memories/workspace/a.md', 'claude-code', 's-1', 'ws1'],
    ]);
    expect(listing.agents).toEqual(['claude-code', 'codex-mcp-client', 'gemini']);

    expect(listActivity(history, inbox, { agent: 'codex-mcp-client' }).rows.map((r) => r.kind)).toEqual(['edit']);
    expect(listActivity(history, inbox, { workspaceId: 'ws2' }).rows.map((r) => r.kind)).toEqual(['proposal']);
    expect(listActivity(history, inbox, { scope: 'workspace', limit: 1 }).rows.map((r) => r.path)).toEqual(['/memories/workspace/old.md']);

    const edit = listing.rows[2]!;
    expect(readActivity(history, inbox, edit.id)).toMatchObject({ before: 'one\n', after: 'one\ntwo\n' });
    expect(readActivity(history, inbox, listing.rows[0]!.id)).toMatchObject({ before: null, after: 'The build runs with make.' });
    expect(readActivity(history, inbox, 'v:nothing-here')).toBeNull();
  });

  it('lists project memory a pull changed and what a sync brought in, but not a person\u2019s own outside edits of other scopes', () => {
    const history = new HistoryStore(home, { now });
    const inbox = new InboxStore(home, now);
    // A `git pull` changed project memory in the checkout (an outside edit of the project scope).
    history.record([change({ owner: 'project:p', scope: 'project', path: '/memories/project/team.md', actor: 'external', cause: 'external', workspaceId: 'ws1', projectId: 'p' })]);
    clock += 1000;
    history.record([change({ owner: 'global', scope: 'global', path: '/memories/global/synced.md', actor: 'sync', cause: 'sync:0123456789ab', workspaceId: null })]);
    clock += 1000;
    // The person's editor changing their own global file is no activity of anyone else's.
    history.record([change({ owner: 'global', scope: 'global', path: '/memories/global/mine.md', actor: 'external', cause: 'external', workspaceId: null })]);
    const rows = listActivity(history, inbox).rows;
    expect(rows.map((r) => [r.path, r.by])).toEqual([
      ['/memories/global/synced.md', 'sync'],
      ['/memories/project/team.md', 'external'],
    ]);
  });

  it('refuses to record an agent name that is not fit to keep, rather than writing a line no reader takes', () => {
    const history = new HistoryStore(home, { now });
    expect(() => history.prepare([change({ agent: { name: 'bad\nname', session: '' } })])).toThrow(/agent/);
    expect(history.list()).toEqual([]);
  });

  it('sends a page the rows of changes made since it looked, which merged give the listing anew, for every filter and limit', () => {
    const writer = new HistoryStore(home, { now });
    const inbox = new InboxStore(home, now);
    const agent = (name: string) => ({ name, session: `${name}-1` });
    for (let i = 0; i < 4; i++) {
      writer.prepare([change({ path: `/memories/workspace/n${i}.md`, agent: agent(i % 2 ? 'codex' : 'claude-code') })]);
      clock += 1000;
    }
    inbox.add([{ category: 'fact', text: 'Tests run with vitest.', scope: 'project', evidence: [{ messageId: 'm', quote: 'vitest' }], confidence: 0.9, rationale: 'r' }], { agent: 'gemini', sessionId: 'g-1', cwd: null, workspaceId: 'ws2', projectId: 'p', extractor: 'agent' });
    clock += 1000;
    // The server's reader (another process than the agents writing).
    const reader = new HistoryStore(home, { now });
    const filters: ActivityFilterInput[] = [{}, { agent: 'codex' }, { workspaceId: 'ws3' }, { scope: 'project' }, { limit: 3 }, { agent: 'gemini-cli', limit: 2 }];
    const held = filters.map((f) => listActivity(reader, inbox, f));
    const follower = new ActivityFollower(reader);
    expect(follower.next()).toEqual([]);

    // Meanwhile: agents' edits (one a batch of two, one in a new workspace by a new agent), and a person's own edit.
    writer.prepare([change({ op: 'update', path: '/memories/workspace/n1.md', before: bytes('one\n'), after: bytes('two\n'), agent: agent('codex') })]);
    clock += 1000;
    writer.prepare([change({ path: '/memories/workspace/b1.md', agent: agent('claude-code') }), change({ path: '/memories/workspace/b2.md', agent: agent('claude-code') })]);
    clock += 1000;
    writer.record([change({ path: '/memories/workspace/mine.md', actor: 'person', cause: 'ui' })]);
    writer.prepare([change({ owner: 'project:q', scope: 'project', path: '/memories/project/p.md', workspaceId: 'ws3', projectId: 'q', agent: agent('gemini-cli') })]);

    const fresh = follower.next()!;
    expect(fresh.map((r) => r.path)).toEqual(['/memories/project/p.md', '/memories/workspace/b2.md', '/memories/workspace/b1.md', '/memories/workspace/n1.md']);
    filters.forEach((f, i) => {
      const again = listActivity(reader, inbox, f);
      const merged = mergeActivityRows(held[i]!, fresh, f);
      expect(merged.rows, JSON.stringify(f)).toEqual(again.rows);
      expect(merged.agents).toEqual(again.agents);
      expect(merged.workspaces).toEqual(again.workspaces);
      // A row the page already had (listed after the follower started) is merged once.
      expect(mergeActivityRows(again, fresh, f)).toEqual(again);
    });
    expect(follower.next()).toEqual([]);

    // A change taken back after the follower saw it: it cannot say what came since, so the page lists again.
    const [batch] = writer.prepare([change({ path: '/memories/workspace/gone.md', agent: agent('codex') })]);
    expect(follower.next()!.map((r) => r.path)).toEqual(['/memories/workspace/gone.md']);
    writer.abandon(batch!);
    expect(follower.next()).toBeNull();
    expect(follower.next()).toEqual([]);
  });
});
