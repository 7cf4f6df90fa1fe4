// The `command` backend with real child processes: a stand-in for a model CLI
// (fixtures/fake-model.mjs, a node script; no model runs here) gets the prompt on stdin through
// /bin/sh and answers as Claude Code or Codex would, fails, hangs, prints garbage or floods. What
// it received is recorded, so the tests see what left Cairn: the marker line, the transcript with
// its secrets redacted, CAIRN_HARVEST_CHILD=1, and an empty directory of its own. The timeouts run
// on a manual clock the test advances once the child is known to be running.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harvestTranscript } from '../harvest-run';
import { InboxStore } from '../../inbox/inbox-store';
import type { Transcript } from '../transcript';
import { DEFAULT_COMMAND_TIMEOUT_MS, HARVEST_CHILD_ENV, runHarvestCommand } from './command-extractor';
import { agentMessage, corpusSecret, manualClock, message } from './fixtures/support';
import { extractorFor } from './index';
import { HARVEST_PROMPT_MARKER } from './prompt';

/** The settings that choose the `command` backend running `command`. */
const commandSettings = (command: string) => ({ harvestExtractor: 'command' as const, harvestCommand: command, harvestHttp: null });

const FAKE_MODEL = fileURLToPath(new URL('./fixtures/fake-model.mjs', import.meta.url));

/** The command line a person would configure, running the fake model in a mode. */
const commandFor = (mode: string): string => `'${process.execPath}' '${FAKE_MODEL}' ${mode}`;

interface Record {
  mode: string;
  child: string | null;
  cwd: string;
  cwdEntries: string[];
  pid: number;
  prompt: string;
}

let dir: string;
let recordFile: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-cmd-test-')));
  recordFile = path.join(dir, 'record.jsonl');
  env = { PATH: process.env.PATH, FAKE_MODEL_RECORD: recordFile };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function records(): Record[] {
  try {
    return fs
      .readFileSync(recordFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record);
  } catch {
    return [];
  }
}

/** Waits (on the event loop, not a clock) until the child has recorded that it runs. */
async function untilRecorded(count = 1): Promise<Record[]> {
  while (records().length < count) await new Promise((r) => setImmediate(r));
  return records();
}

/** Whether a process still runs: a zombie (ended, not yet reaped by whoever adopted it) does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ...".
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    // Reaped between the two looks (where there is a /proc at all).
    return !fs.existsSync('/proc/self');
  }
}

const token = corpusSecret('github-token');
const segment = [
  message('u1', `Deploy with GH_TOKEN=${token} for now. We always squash merge.`),
  agentMessage('a1', 'Merged with squash. Should I always do that?'),
  message('u2', 'Never push to main directly.'),
];

describe('the command backend', () => {
  it('sends the marked prompt with secrets redacted, in its own empty directory, flagged as a harvest child, and reads the Claude Code envelope', async () => {
    const extractor = extractorFor(commandSettings(commandFor('claude')), env);
    const candidates = await extractor.extract(segment);
    expect(candidates.map((c) => c.text)).toEqual(['We always squash merge.', 'Never push to main directly.']);
    expect(candidates[0]).toMatchObject({ category: 'convention', scope: 'project', evidence: [{ messageId: 'u1', quote: 'We always squash merge.' }], confidence: 0.9 });

    const [sent] = records();
    expect(sent!.prompt.startsWith(`${HARVEST_PROMPT_MARKER}\n`)).toBe(true);
    expect(sent!.prompt).not.toContain(token);
    expect(sent!.prompt).toContain('GH_TOKEN=[redacted secret: github-token]');
    expect(sent!.child).toBe('1');
    expect(HARVEST_CHILD_ENV).toBe('CAIRN_HARVEST_CHILD');
    expect(sent!.cwdEntries).toEqual([]);
    expect(path.basename(sent!.cwd)).toMatch(/^cairn-harvest-/);
    // Its directory is gone once it has answered.
    expect(fs.existsSync(sent!.cwd)).toBe(false);
  });

  it('reads a Codex-style plain answer with prose around it', async () => {
    const candidates = await extractorFor(commandSettings(commandFor('codex')), env).extract(segment);
    expect(candidates.map((c) => c.evidence[0]!.messageId)).toEqual(['u1', 'u2']);
  });

  it('asks once per chunk, in order, telling onChunk, and concatenates the candidates', async () => {
    const long = Array.from({ length: 6 }, (_, i) => message(`p${i}`, `Point ${i}: we always write tests first. ${'Context. '.repeat(60)}`));
    const seen: Array<[number, number]> = [];
    const candidates = await extractorFor(commandSettings(commandFor('claude')), env, { chunkChars: 1_500 }).extract(long, { onChunk: (i, n) => seen.push([i, n]) });
    expect(seen).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(records()).toHaveLength(3);
    expect(candidates.map((c) => c.evidence[0]!.messageId)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it('brings its candidates through the host checks into a real inbox (harvestTranscript)', async () => {
    const home = path.join(dir, 'home');
    const inbox = new InboxStore(home);
    const transcript: Transcript = { agent: 'claude', sessionId: 'sess-1', cwd: null, messages: segment, compactions: [], skipped: {} };
    const summary = await harvestTranscript({ home, transcript, extractor: extractorFor(commandSettings(commandFor('claude')), env), inbox, workspaceId: null, projectId: null, memoryLines: [] });
    // u1 holds a secret: the scanners flag the message, so what it is evidence of is refused.
    expect(summary.rejected.flagged).toBe(1);
    expect(inbox.candidates('pending').map((i) => [i.candidate.text, i.source.extractor, i.candidate.evidence[0]!.speaker])).toEqual([['Never push to main directly.', 'command', 'person']]);
  });

  it('fails with the exit status and the first lines of stderr', async () => {
    const failing = runHarvestCommand(commandFor('fail'), 'prompt', { env });
    await expect(failing).rejects.toThrow('The harvest command failed with exit status 3. Its stderr began: Error: the model is overloaded, try again later / at request (internal)');
  });

  it('says when the command is not found', async () => {
    await expect(runHarvestCommand('cairn-no-such-model-cli --json', 'prompt', { env })).rejects.toThrow(/was not found \(exit status 127\).*not found/);
  });

  it('is stopped, with its whole process group, when it outlives the timeout', async () => {
    const clock = manualClock();
    const run = runHarvestCommand(commandFor('hang'), 'prompt', { env, startTimer: clock.startTimer });
    const [running] = await untilRecorded();
    expect(alive(running!.pid)).toBe(true);
    clock.advance(DEFAULT_COMMAND_TIMEOUT_MS - 1);
    expect(records()).toHaveLength(1);
    clock.advance(1);
    await expect(run).rejects.toThrow('The harvest command did not finish within 10 minutes and was stopped.');
    expect(alive(running!.pid)).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it("is stopped, with its whole process group, at a person's Cancel; a call already cancelled runs nothing", async () => {
    const clock = manualClock();
    const cancel = new AbortController();
    const run = runHarvestCommand(commandFor('hang'), 'prompt', { env, startTimer: clock.startTimer, signal: cancel.signal });
    const [running] = await untilRecorded();
    cancel.abort();
    await expect(run).rejects.toThrow(expect.objectContaining({ name: 'CancelledError', message: 'Cancelled: the model command was stopped before it answered.' }) as Error);
    expect(alive(running!.pid)).toBe(false);
    expect(clock.pending()).toBe(0);
    await expect(runHarvestCommand(commandFor('claude'), 'prompt', { env, signal: cancel.signal })).rejects.toThrow('Cancelled');
    expect(records()).toHaveLength(1);
  });

  it('is killed when it ignores SIGTERM', async () => {
    const clock = manualClock();
    const run = runHarvestCommand(commandFor('stubborn'), 'prompt', { env, startTimer: clock.startTimer, timeoutMs: 1_000 });
    const [running] = await untilRecorded();
    let settled = false;
    void run.catch(() => {}).finally(() => (settled = true));
    clock.advance(1_000);
    // SIGTERM sent and ignored: it runs on until the grace period is over.
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(alive(running!.pid)).toBe(true);
    clock.advance(5_000);
    await expect(run).rejects.toThrow('did not finish within 1 second');
    expect(alive(running!.pid)).toBe(false);
  });

  it('fails clearly when the answer holds no JSON, when it prints nothing, and when it prints too much', async () => {
    await expect(extractorFor(commandSettings(commandFor('garbage')), env).extract(segment)).rejects.toThrow(`The model's answer holds no JSON object {"candidates":[...]}; it began: "Sorry, I can't help with that."`);
    await expect(runHarvestCommand(commandFor('silent'), 'prompt', { env })).rejects.toThrow('The harvest command printed nothing on stdout; it should print the model\'s answer there. Its stderr began: warming up');
    await expect(runHarvestCommand(commandFor('flood'), 'prompt', { env })).rejects.toThrow('printed more than 4 MiB on stdout and was stopped');
  });

  it('names the failing chunk of a long segment', async () => {
    const long = Array.from({ length: 4 }, (_, i) => message(`p${i}`, `Point ${i}. ${'Context. '.repeat(100)}`));
    await expect(extractorFor(commandSettings(commandFor('fail')), env, { chunkChars: 1_000 }).extract(long)).rejects.toThrow(/^Chunk 1 of 4: The harvest command failed with exit status 3/);
  });
});

describe('extractorFor', () => {
  const unset = { harvestCommand: '', harvestHttp: null };

  it('builds the backend the settings choose', async () => {
    expect(extractorFor({ ...unset, harvestExtractor: 'rules' }, env).name).toBe('rules');
    expect(await extractorFor({ ...unset, harvestExtractor: 'rules' }, env).extract([message('u', 'From now on, write commit messages in the imperative.')])).toMatchObject([{ text: 'Write commit messages in the imperative.' }]);
    const command = extractorFor({ ...unset, harvestExtractor: 'command', harvestCommand: commandFor('claude') }, env);
    expect(command.name).toBe('command');
    expect(await command.extract([message('u', 'We never commit secrets.')])).toMatchObject([{ text: 'We never commit secrets.' }]);
    expect(extractorFor({ ...unset, harvestExtractor: 'http', harvestHttp: { api: 'openai', url: 'http://127.0.0.1:9/v1', model: 'm', keyEnv: 'K' } }, env).name).toBe('http');
  });

  it('says which setting to fill in when the chosen backend is not configured', () => {
    expect(() => extractorFor({ ...unset, harvestExtractor: 'command', harvestCommand: '  ' }, env)).toThrow(/"command" but no command is set: set harvestCommand/);
    expect(() => extractorFor({ ...unset, harvestExtractor: 'http' }, env)).toThrow(/"http" but no model is set: set harvestHttp/);
  });
});
