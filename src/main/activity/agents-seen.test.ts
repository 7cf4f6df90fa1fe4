// Agents seen per workspace, on a real temp home with a fake clock: an MCP session is "connected"
// while it is open and its process runs (a killed one, that wrote no close, reads as seen at its
// last time), a hook's or `cairn tool`'s call is seen (written at most once a minute per session),
// two stores (two processes) agree, and records a month old go.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentsSeen, KEEP_DAYS } from './agents-seen';

let home: string;
let clock: number;
const now = () => clock;
const T0 = Date.parse('2026-11-29T10:00:00.000Z');

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-seen-')));
  clock = T0;
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe('agents seen', () => {
  it('says an agent is connected while its session is open, and seen once it closed', () => {
    const mcp = new AgentsSeen(home, { now });
    const close = mcp.connected('ws1', { name: 'claude-code', session: 'a' });
    const app = new AgentsSeen(home, { now });
    expect(app.list()).toEqual([{ workspaceId: 'ws1', name: 'claude-code', session: 'a', at: new Date(T0).toISOString(), connected: true }]);
    clock += 5 * 60_000;
    close();
    expect(app.list()).toMatchObject([{ name: 'claude-code', connected: false, at: new Date(clock).toISOString() }]);
  });

  it('does not call a session whose process is gone connected', () => {
    new AgentsSeen(home, { now }).connected('ws1', { name: 'codex-mcp-client', session: 'b' });
    expect(new AgentsSeen(home, { now, alive: () => false }).list()).toMatchObject([{ name: 'codex-mcp-client', connected: false }]);
  });

  it('keeps a connected session over a later one that ended, per workspace and agent', () => {
    const seen = new AgentsSeen(home, { now });
    seen.connected('ws1', { name: 'claude-code', session: 'open' });
    clock += 1000;
    seen.connected('ws1', { name: 'claude-code', session: 'ended' })();
    seen.seen('ws2', { name: 'claude', session: 'h' });
    expect(seen.list().map((a) => [a.workspaceId, a.name, a.session, a.connected])).toEqual([
      ['ws2', 'claude', 'h', false],
      ['ws1', 'claude-code', 'open', true],
    ]);
  });

  it('writes a call at most once a minute per session, and forgets a month-old record', () => {
    const seen = new AgentsSeen(home, { now });
    seen.seen('ws1', { name: 'copilot', session: 's' });
    clock += 30_000;
    seen.seen('ws1', { name: 'copilot', session: 's' });
    expect(seen.list()[0]!.at).toBe(new Date(T0).toISOString());
    clock += 31_000;
    seen.seen('ws1', { name: 'copilot', session: 's' });
    expect(seen.list()[0]!.at).toBe(new Date(clock).toISOString());

    const old = fs.readdirSync(seen.dir).map((f) => path.join(seen.dir, f))[0]!;
    const monthAgo = (clock - (KEEP_DAYS + 1) * 24 * 60 * 60 * 1000) / 1000;
    fs.utimesSync(old, monthAgo, monthAgo);
    seen.seen('ws9', { name: 'gemini', session: 'g' });
    expect(seen.list().map((a) => a.name)).toEqual(['gemini']);
  });

  it('skips a record that does not parse and records nothing without a workspace', () => {
    const seen = new AgentsSeen(home, { now });
    seen.seen(null, { name: 'claude', session: '' });
    fs.mkdirSync(seen.dir, { recursive: true });
    fs.writeFileSync(path.join(seen.dir, 'x.json'), '{not json');
    expect(seen.list()).toEqual([]);
  });
});
