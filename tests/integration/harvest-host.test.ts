// The harvest in a long-lived host, through the oRPC router over real services in a temp
// home: the idle pickup of Codex sessions (a fake clock decides "idle for 30 minutes"; the rollout
// is a real file in a temp $CODEX_HOME), "Harvest now" finding Claude Code's transcripts of the
// workspace, the status line's states, Retry of a failed harvest, rejecting a whole session, and
// the inbox and status streams seeing changes made by another process (a `cairn` CLI run).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { RouterClient } from '@orpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HarvestStatus } from '../../src/common/api/contract';
import type { AppRouter } from '../../src/main/api/router';
import { codexSessionFiles, sessionFilesIn } from '../../src/main/harvest/session-files';
import type { AppHost } from '../../src/main/host/app-host';
import { CODEX_IDLE_MS } from '../../src/main/host/harvest-host';
import { openHostOn } from '../support/app-host';
import { runCairn } from '../support/cli';
import { codexDayDir } from '../support/file-tree';
import { makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';

const CODEX_FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'codex', 'rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl');
const CLAUDE_FIXTURES = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'claude');

let sb: Sandbox;
let host: AppHost;
let client: RouterClient<AppRouter>;
let ws: string;
let clock: number;
let codexHome: string;
let claudeDir: string;
let rollout: string;

beforeEach(async () => {
  sb = await makeSandbox();
  codexHome = path.join(sb.dir, 'codex-home');
  claudeDir = path.join(sb.dir, 'claude-config');
  const day = codexDayDir(codexHome);
  await fs.mkdir(day, { recursive: true });
  rollout = path.join(day, path.basename(CODEX_FIXTURE));
  await fs.writeFile(rollout, (await fs.readFile(CODEX_FIXTURE, 'utf8')).replaceAll('/home/dev/projects/widgets', sb.checkout));
  const written = (await fs.stat(rollout)).mtimeMs;
  clock = Math.ceil(written); // whole milliseconds, as the ISO times the jobs record
  const roots = { codexHome, claudeConfigDir: claudeDir };
  ({ host, client, ws } = await openHostOn(sb, {
    harvest: {
      now: () => clock,
      tickMs: 0,
      sessionsIn: (dir) => sessionFilesIn(dir, roots, clock),
      codexSessions: () => codexSessionFiles(codexHome, clock, 7),
    },
  }));
});
afterEach(async () => {
  await host.close();
  await sb.cleanup();
});

const pending = async () => (await client.inbox.list({})).items.length;

describe('the harvest in the app and serve', () => {
  it('picks up a Codex session once it has been idle for 30 minutes, only where harvest is on, once', async () => {
    clock += CODEX_IDLE_MS + 1;
    await host.harvest.tick();
    expect(await pending()).toBe(0); // harvest is off: the default
    expect((await client.harvest.status({ workspaceId: ws })).state).toBe('off');

    await client.settings.set({ harvestWorkspaces: [ws] });
    clock -= 2; // 29 min 59.999 s after the last write: still a live session
    await host.harvest.tick();
    expect(await pending()).toBe(0);
    expect((await client.harvest.status({ workspaceId: ws })).state).toBe('idle');

    clock += 2;
    await host.harvest.tick();
    expect(await pending()).toBe(2);
    const status = await client.harvest.status({ workspaceId: ws });
    expect(status).toMatchObject({ state: 'idle', queued: 0, failure: null, lastRun: { agent: 'codex', outcome: 'succeeded', proposed: 2 } });

    // The same rollout, unchanged: not queued again.
    await host.harvest.tick();
    expect(host.harvest.jobs.list()).toEqual([]);
    expect(await pending()).toBe(2);
  });

  it('harvests the workspace\'s sessions now, on a person\'s request; rejects a whole session', async () => {
    // A Claude Code transcript of this checkout, where Claude Code keeps it.
    const fixture = (await fs.readdir(CLAUDE_FIXTURES)).find((n) => n.endsWith('.jsonl'))!;
    const text = await fs.readFile(path.join(CLAUDE_FIXTURES, fixture), 'utf8');
    const cwd = /"cwd":"([^"]+)"/.exec(text)![1]!;
    const project = path.join(claudeDir, 'projects', sb.checkout.replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(project, { recursive: true });
    await fs.writeFile(path.join(project, 'c0ffee00-0000-4000-8000-000000000001.jsonl'), text.replaceAll(cwd, sb.checkout));

    expect(await client.harvest.now({ workspaceId: ws })).toMatchObject({ status: 'ok', message: 'Queued 2 sessions for harvest; proposals arrive in the inbox.' });
    await host.harvest.kick();
    const items = (await client.inbox.list({})).items;
    const agents = new Set(items.map((i) => (i.kind === 'memory' ? i.agent : null)));
    expect(agents).toEqual(new Set(['claude', 'codex']));
    const codexSession = items.find((i) => i.kind === 'memory' && i.agent === 'codex');
    const sessionId = codexSession!.kind === 'memory' ? codexSession!.sessionId : '';
    const fromCodex = items.filter((i) => i.kind === 'memory' && i.sessionId === sessionId).length;
    expect(await client.inbox.rejectSession({ sessionId })).toMatchObject({ status: 'ok', message: `Rejected ${fromCodex} proposal${fromCodex === 1 ? '' : 's'} from that session.` });
    expect((await client.inbox.list({})).items.every((i) => i.kind === 'memory' && i.agent === 'claude')).toBe(true);
  });

  it('shows a failed harvest with its reason and retry time, and retries it on request', async () => {
    await client.settings.set({ harvestWorkspaces: [ws], harvestExtractor: 'command', harvestCommand: `${JSON.stringify(process.execPath)} -e "process.exit(3)"` });
    await client.harvest.now({ workspaceId: ws });
    await host.harvest.kick();
    let status = await client.harvest.status({ workspaceId: ws });
    expect(status.state).toBe('failed');
    expect(status.failure).toMatchObject({ attempts: 1, message: expect.stringMatching(/exit|status 3/) });
    expect(Date.parse(status.failure!.retryAt!) - clock).toBe(60_000);
    expect(status.failure!.message).not.toContain(sb.home);

    // Fixed: the person's Retry runs it now.
    await client.settings.set({ harvestExtractor: 'rules' });
    expect(await client.harvest.retry({ workspaceId: ws })).toMatchObject({ status: 'ok', message: 'Retrying 1 session now.' });
    await host.harvest.kick();
    status = await client.harvest.status({ workspaceId: ws });
    expect(status).toMatchObject({ state: 'idle', failure: null, lastRun: { outcome: 'succeeded', proposed: 2 } });
    expect(await client.harvest.retry({ workspaceId: ws })).toMatchObject({ status: 'ok', message: 'No failed harvest to retry.' });
  });

  it('streams the inbox count and the status as another process changes them', async () => {
    requireBuiltCli();
    const controller = new AbortController();
    const counts: number[] = [];
    const statuses: HarvestStatus[] = [];
    const inbox = await client.inbox.onChange(undefined, { signal: controller.signal });
    const status = await client.harvest.onStatus({ workspaceId: ws }, { signal: controller.signal });
    const until = async (what: string, done: () => boolean): Promise<void> => {
      const deadline = Date.now() + 20_000; // bounds a failure only
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const reading = Promise.all([
      (async () => {
        for await (const e of inbox) counts.push(e.pending);
      })().catch(() => {}),
      (async () => {
        for await (const s of status) statuses.push(s);
      })().catch(() => {}),
    ]);
    await until('the first events', () => counts.length > 0 && statuses.length > 0);
    expect(counts[0]).toBe(0);
    expect(statuses[0]!.state).toBe('off');
    // Another process harvests (a terminal's `cairn harvest --transcript`): the count follows.
    const run = await runCairn(['harvest', '--transcript', rollout, '--home', sb.home]);
    expect(run.status).toBe(0);
    await until('the inbox count to reach 2', () => counts.at(-1) === 2);
    // The hook's path (another process: the hook queues, its detached worker runs): the status
    // stream sees the run end. The session was harvested above, so this run finds nothing new.
    await client.settings.set({ harvestWorkspaces: [ws] });
    // The switch is a setting: the status stream says so without waiting for a run.
    await until('the status to say on', () => statuses.at(-1)?.enabled === true);
    const hook = await runCairn(['harvest', '--hook', '--home', sb.home], { input: JSON.stringify({ session_id: 's', transcript_path: rollout, cwd: sb.checkout }) });
    expect(hook.status).toBe(0);
    // The worker records the run, then lets the job go: a status between the two still says it
    // runs, so the stream is waited on until both have happened.
    await until('the run to show in the status', () => statuses.at(-1)?.lastRun?.outcome === 'nothing-found' && statuses.at(-1)?.state === 'idle');
    expect(statuses.at(-1)).toMatchObject({ enabled: true, state: 'idle', queued: 0 });
    controller.abort();
    await reading;
  });
});
