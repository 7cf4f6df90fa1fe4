// The harvest trigger Claude Code runs: `cairn harvest --hook` reads the hook's JSON,
// does nothing while harvest is off for the workspace (the default), and when a person has turned
// it on (`cairn harvest --enable`) queues a harvest that runs on its own, returning at once; the
// proposals then arrive in the inbox. Real processes, real disk; the background harvest is waited
// for by its outcome (the inbox, the job gone), never by a fixed sleep.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { runTraced } from '../support/module-trace/traced';
import { makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let transcript: string;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  const fixture = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'codex', 'rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl');
  transcript = path.join(sb.dir, 'rollout-session.jsonl');
  await fs.writeFile(transcript, (await fs.readFile(fixture, 'utf8')).replaceAll('/home/dev/projects/widgets', sb.checkout));
});
afterEach(async () => {
  await sb.cleanup();
});

const hookInput = () => JSON.stringify({ session_id: 'abc', transcript_path: transcript, cwd: sb.checkout, hook_event_name: 'SessionEnd' });
const queuedJobs = async () => (await fs.readdir(path.join(sb.home, 'harvest', 'jobs')).catch(() => [])).filter((n) => n.endsWith('.json')).length;
const pending = async () => (JSON.parse((await runCairn(['inbox', '--json', '--home', sb.home])).stdout) as { items: unknown[] }).items.length;

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000; // a passing wait returns at once; this only bounds a failure
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('cairn harvest --hook', () => {
  it("loads neither the context's answer nor the scanners (it runs at every compaction and session end)", async () => {
    const r = await runTraced(sb.dir, ['harvest', '--hook', '--home', sb.home], { input: hookInput() });
    expect(r.status, r.stderr).toBe(0);
    const { chunks } = r;
    expect(chunks, chunks.join(', ')).toContain('chunk:harvest-hook');
    expect(chunks, chunks.join(', ')).not.toContain('chunk:context-here');
    expect(chunks, chunks.join(', ')).not.toContain('chunk:content-scanner');
    expect(r.loaded).not.toContain('zod');
  });

  it('does nothing while harvest is off for the workspace, the default', async () => {
    expect((await runCairn(['harvest', '--status', '--home', sb.home, '--cwd', sb.checkout])).stdout).toMatch(/^Harvest is off for workspace /);
    const hook = await runCairn(['harvest', '--hook', '--home', sb.home], { input: hookInput() });
    expect(hook).toMatchObject({ status: 0, stdout: '' });
    // Had it queued a harvest, its job would be there now (it is written before the hook returns).
    expect(await queuedJobs()).toBe(0);
  });

  it('queues a harvest once turned on, returns at once, and the proposals arrive in the inbox', async () => {
    expect((await runCairn(['harvest', '--enable', '--home', sb.home, '--cwd', sb.checkout])).stdout).toMatch(/^Harvest is on for workspace /);
    const hook = await runCairn(['harvest', '--hook', '--home', sb.home], { input: hookInput() });
    expect(hook.status).toBe(0);
    await until('the proposals', async () => (await pending()) > 0);
    await until('the job to go', async () => (await queuedJobs()) === 0);
    expect(await pending()).toBe(2);
    const status = await runCairn(['harvest', '--status', '--home', sb.home, '--cwd', sb.checkout]);
    expect(status.stdout).toMatch(/^Harvest is on for workspace /);
    expect(status.stdout).toMatch(/Last run (just now|1 min ago): 2 proposed/);
    // Turned off again, the next hook queues nothing.
    expect((await runCairn(['harvest', '--disable', '--home', sb.home, '--cwd', sb.checkout])).stdout).toMatch(/^Harvest is off/);
    await runCairn(['harvest', '--hook', '--home', sb.home], { input: hookInput() });
    expect(await queuedJobs()).toBe(0);
  });

  it('does nothing inside Cairn\'s own extraction run (the command backend\'s agent)', async () => {
    await runCairn(['harvest', '--enable', '--home', sb.home, '--cwd', sb.checkout]);
    const hook = await runCairn(['harvest', '--hook', '--home', sb.home], { input: hookInput(), env: { CAIRN_HARVEST_CHILD: '1' } });
    expect(hook).toMatchObject({ status: 0, stdout: '' });
    expect(await queuedJobs()).toBe(0);
  });

  it('never fails the agent: bad input exits 0 with a note', async () => {
    const bad = await runCairn(['harvest', '--hook', '--home', sb.home], { input: 'not json' });
    expect(bad.status).toBe(0);
    expect(bad.stderr).toMatch(/nothing was harvested/);
    const partial = await runCairn(['harvest', '--hook', '--home', sb.home], { input: JSON.stringify({ cwd: 'relative' }) });
    expect(partial).toMatchObject({ status: 0 });
    expect(partial.stderr).toMatch(/no transcript_path and cwd/);
  });
});
