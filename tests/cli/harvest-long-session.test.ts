// A long Claude Code session harvested by the command backend, as a person runs `cairn harvest`:
// Cairn is killed (SIGKILL) while the model answers its third chunk, and the next run asks only
// the chunks not done; what the killed run found reaches the inbox, the most confident proposed
// and the rest held, which `cairn inbox list` says and `--held` shows. A run's budget (the
// harvestBudget setting) stops it with a clear line, and the next run goes on. Real processes:
// the built CLI, and a stand-in model CLI (fake-model.mjs: no model runs here).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { mergeStoredSettings } from '../support/settings-file';
import { makeSandbox, CAIRN_BIN, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';

const FAKE_MODEL = path.join(REPO_ROOT, 'src', 'main', 'harvest', 'extractors', 'fixtures', 'fake-model.mjs');
const SESSION = '5b1f0c2e-7d4a-4e8b-9c3f-000000000042';
const RULES = 12;
// A message of about 25,000 characters: two of them fill a chunk of the command backend (60,000).
const FILLER = ' We went through the logs of the last deploy together and most of it was noise about retries.'.repeat(260);

let sb: Sandbox;
let home: string[];
let record: string;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  home = ['--home', sb.home];
  record = path.join(sb.dir, 'model-runs.jsonl');
  mergeStoredSettings(sb.home, { harvestExtractor: 'command', harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' claude` });
});
afterEach(async () => {
  await sb.cleanup();
});

const rule = (n: number) => `Always run the service-${n} contract tests before pushing.`;

/** A Claude Code transcript (the lines as Claude Code writes a typed prompt) of RULES long messages, each stating a rule. */
async function longTranscript(): Promise<string> {
  const lines = Array.from({ length: RULES }, (_, i) =>
    JSON.stringify({
      parentUuid: i === 0 ? null : `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      isSidechain: false,
      userType: 'external',
      cwd: sb.checkout,
      sessionId: SESSION,
      version: '2.1.14',
      type: 'user',
      message: { role: 'user', content: `${rule(i + 1)}${FILLER}` },
      uuid: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      timestamp: `2026-11-20T10:${String(i).padStart(2, '0')}:00.000Z`,
      permissionMode: 'default',
      promptSource: 'typed',
    }),
  );
  const file = path.join(sb.dir, `${SESSION}.jsonl`);
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

interface ModelRun {
  prompt: string;
  pid: number;
}
async function modelRuns(): Promise<ModelRun[]> {
  const text = await fs.readFile(record, 'utf8').catch(() => '');
  // A run's line may be half written while it is read: only lines that have ended count.
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean).map((l) => JSON.parse(l) as ModelRun);
}
/** The rules a prompt carries (which chunk it is). */
const rulesIn = (prompt: string) => [...prompt.matchAll(/Always run the service-(\d+) contract tests/g)].map((m) => Number(m[1]));

describe('cairn harvest of a long session', () => {
  it('resumes after Cairn is killed midway, asking only the chunks not done, and holds what is past the limit', async () => {
    const transcript = await longTranscript();
    const env = { ...process.env, FAKE_MODEL_RECORD: record, FAKE_MODEL_HANG_AT: '3' };
    const child = spawn(CAIRN_BIN, ['harvest', '--transcript', transcript, ...home], { env, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Wait until the model is asked about the third chunk (it never answers), then kill Cairn.
    for (let runs = await modelRuns(); runs.length < 3; runs = await modelRuns()) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(child.exitCode, 'cairn harvest ended before the third chunk').toBeNull();
    }
    child.kill('SIGKILL');
    await exited;
    const killed = await modelRuns();
    process.kill(killed[2]!.pid, 'SIGKILL');
    expect(killed.map((r) => rulesIn(r.prompt))).toEqual([[1, 2], [3, 4], [5, 6]]);
    // The killed run's lock on the session goes stale a minute after its last refresh: the test
    // moves its time back rather than wait (the next run then takes it over, as it would).
    const sessions = path.join(sb.home, 'harvest', 'sessions');
    const locks = (await fs.readdir(sessions)).filter((n) => n.endsWith('.lock'));
    expect(locks.length).toBe(1);
    const past = new Date(Date.now() - 5 * 60_000);
    await fs.utimes(path.join(sessions, locks[0]!), past, past);

    const again = await runCairn(['harvest', '--transcript', transcript, ...home], { env: { FAKE_MODEL_RECORD: record } });
    expect(again.status, again.stderr).toBe(0);
    // Chunks 1 and 2 were done before the kill: only chunks 3 to 6 are asked.
    expect((await modelRuns()).slice(3).map((r) => rulesIn(r.prompt))).toEqual([[5, 6], [7, 8], [9, 10], [11, 12]]);
    expect(again.stdout).toMatch(/proposed 10\b/);
    expect(again.stdout).toContain('2 more were held back (less confident than those proposed). See them with cairn inbox list --held.');

    const listed = await runCairn(['inbox', 'list', ...home]);
    expect(listed.stdout).toContain('2 more were held back (less confident than those proposed). See them with cairn inbox list --held;');
    const held = JSON.parse((await runCairn(['inbox', 'list', '--held', '--json', ...home])).stdout) as { items: Array<{ status: string; candidate: { text: string } }> };
    const pending = JSON.parse((await runCairn(['inbox', 'list', '--json', ...home])).stdout) as { items: Array<{ candidate: { text: string } }> };
    expect(held.items.map((i) => i.status)).toEqual(['held', 'held']);
    // Every rule the session stated is in the inbox once: nothing the killed run found was lost.
    expect([...pending.items, ...held.items].map((i) => i.candidate.text).sort()).toEqual(Array.from({ length: RULES }, (_, i) => rule(i + 1)).sort());
  });

  it('stops at the budget with a line saying how many chunks wait, and the next run goes on', async () => {
    const transcript = await longTranscript();
    mergeStoredSettings(sb.home, { harvestBudget: { calls: 4, chars: 10_000_000 } });
    const env = { FAKE_MODEL_RECORD: record };
    const first = await runCairn(['harvest', '--transcript', transcript, ...home], { env });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("Stopped at the run's budget (4 calls, 10,000,000 characters): 2 chunks of the session wait for the next harvest.");
    expect((await modelRuns()).length).toBe(4);
    const second = await runCairn(['harvest', '--transcript', transcript, ...home], { env });
    expect(second.stdout).not.toContain('Stopped at');
    expect((await modelRuns()).slice(4).map((r) => rulesIn(r.prompt))).toEqual([[9, 10], [11, 12]]);
    const pending = JSON.parse((await runCairn(['inbox', 'list', '--json', ...home])).stdout) as { items: unknown[] };
    expect(pending.items.length).toBe(RULES);
  });
});
