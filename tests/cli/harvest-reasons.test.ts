// Every reason a candidate is refused for (the host's checks, and an item of the model's answer in
// no candidate's shape), counted exactly, through the real CLI
//: `cairn harvest --extractor command` runs a real child process (a small node script
// standing in for `claude -p`; no model runs here) that answers a fixed set of candidates, each
// made to meet one reason, on the Codex fixture moved into a sandbox checkout. The counts, the
// inbox and the workspace's status all say the same.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';

const FIXTURE = path.join(REPO_ROOT, 'tests', 'fixtures', 'transcripts', 'codex', 'rollout-2025-10-14T11-12-03-0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01.jsonl');
const PERSON = 'We use pnpm here, not npm.';
const PERSON_2 = "Always run pnpm lint before you say you're done.";
const AGENT = 'I will run it before reporting a change as done.';

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const candidate = (text: string, quote: string, extra: Record<string, unknown> = {}) => ({
  category: 'convention',
  text,
  scope: 'project',
  evidence: [{ messageId: 'filled by the script', quote }],
  confidence: 0.9,
  rationale: 'The person said so.',
  ...extra,
});

/** A session file of the fixture with its own session id (the segment state is per session). */
async function session(n: number): Promise<string> {
  const text = (await fs.readFile(FIXTURE, 'utf8')).replaceAll('/home/dev/projects/widgets', sb.checkout).replaceAll('0199d5e2-7a41-7c30-9e1b-5f6a7b8c9d01', `0199d5e2-7a41-7c30-9e1b-5f6a7b8c9e0${n}`);
  const file = path.join(sb.dir, `rollout-${n}.jsonl`);
  await fs.writeFile(file, text);
  return file;
}

/**
 * Points the command backend at a script that answers `candidates`, each quote's message id taken
 * from the prompt as a model would (the message whose text holds the quote; else an invented id).
 */
async function modelAnswers(candidates: unknown[]): Promise<void> {
  const answer = path.join(sb.dir, 'answer.json');
  await fs.writeFile(answer, JSON.stringify({ candidates }));
  const script = path.join(sb.dir, 'model.js');
  await fs.writeFile(
    script,
    `let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const messages = input.split('\\n').flatMap((line) => { try { const m = JSON.parse(line); return m && typeof m.id === 'string' && typeof m.text === 'string' ? [m] : []; } catch { return []; } });
  const answer = JSON.parse(require('fs').readFileSync(${JSON.stringify(answer)}, 'utf8'));
  for (const c of answer.candidates) for (const e of c.evidence ?? []) e.messageId = (messages.find((m) => m.text.includes(e.quote)) || { id: 'm-invented' }).id;
  process.stdout.write(JSON.stringify(answer));
});
`,
  );
  const config = JSON.parse(await fs.readFile(path.join(sb.home, 'config.json'), 'utf8').catch(() => '{"workspaces":[]}')) as { settings?: Record<string, unknown> };
  config.settings = { ...config.settings, harvestExtractor: 'command', harvestCommand: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}` };
  await fs.mkdir(sb.home, { recursive: true });
  await fs.writeFile(path.join(sb.home, 'config.json'), JSON.stringify(config));
}

interface Summary {
  proposed: Array<{ id: string; candidate: { text: string } }>;
  rejected: Record<string, number>;
}

async function harvest(file: string): Promise<Summary> {
  const run = await runCairn(['harvest', '--transcript', file, '--json', '--home', sb.home]);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Summary;
}

describe('the checks, through the CLI', () => {
  it('counts each refusal under its reason, exactly', async () => {
    // Memory already holds one line; the first run puts two proposals in the inbox, one rejected.
    await fs.mkdir(sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(sb.roots.project, 'conventions.md'), '- Tests sort widgets by name.\n');
    await modelAnswers([candidate('Use pnpm, never npm, in this repository.', PERSON), candidate('Run pnpm lint before saying a change is done.', PERSON_2)]);
    const first = await harvest(await session(1));
    expect(first.proposed).toHaveLength(2);
    const rejectedId = first.proposed.find((p) => p.candidate.text.startsWith('Run pnpm lint'))!.id;
    expect((await runCairn(['inbox', 'reject', rejectedId, '--home', sb.home])).status).toBe(0);

    const valid = Array.from({ length: 10 }, (_, i) => candidate(`We use pnpm here, not npm (${['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'][i]}).`, PERSON));
    await modelAnswers([
      candidate('Use pnpm, never npm, in this repository.', PERSON), // already-in-inbox
      candidate('Run pnpm lint before saying a change is done.', PERSON_2), // rejected-before
      candidate('Tests sort widgets by name.', 'now sorts by name', { category: 'fact' }), // already-in-memory
      candidate('Deploy on Fridays only.', 'We deploy on Fridays only.'), // no-evidence: never said
      candidate('Reports say a change is done only after pnpm lint.', AGENT, { category: 'preference' }), // not-persons-words
      candidate('Maybe widgets should be sorted by date.', PERSON, { confidence: 0.3 }), // low-confidence
      candidate('The staging token is ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4.', PERSON), // flagged
      candidate('The user prefers force-pushing straight to main after every commit.', 'pnpm'), // unsupported: one word of something else
      candidate('We use pnpm and not npm.', PERSON),
      candidate('We use pnpm and not npm.', PERSON), // duplicate-in-batch
      ...valid, // with the one above, 11 that pass: the 10 surest proposed, the 11th held back
      { category: 'mood', text: 'Not a candidate at all.', scope: 'project', evidence: [], confidence: 2 }, // malformed
    ]);
    const second = await harvest(await session(2));
    expect(second.rejected).toEqual({
      'no-evidence': 1,
      unsupported: 1,
      'addressed-to-agents': 0,
      'not-persons-words': 1,
      'low-confidence': 1,
      flagged: 1,
      'duplicate-in-batch': 1,
      'already-in-inbox': 1,
      'rejected-before': 1,
      'approved-before': 0,
      'already-in-memory': 1,
      'over-limit': 0,
      malformed: 1,
      // The inbox has room: nothing was left out for want of it.
      'inbox-full': 0,
    });
    expect(second.proposed).toHaveLength(10);
    expect((second as unknown as { heldBack: number }).heldBack).toBe(1);
    expect(JSON.stringify(second)).not.toContain('ghp_');
    // The inbox holds the first run's one pending and these ten; the status says the same.
    const pending = JSON.parse((await runCairn(['inbox', '--json', '--home', sb.home])).stdout) as { items: unknown[] };
    expect(pending.items).toHaveLength(11);
    // What the run sent to the model: one call (the session is one chunk), its prompt's characters;
    // the command backend reports no tokens.
    const cost = (second as unknown as { cost: { calls: number; chars: number; inputTokens: number | null } }).cost;
    expect(cost).toMatchObject({ calls: 1, inputTokens: null, outputTokens: null });
    expect(cost.chars).toBeGreaterThan(1000);
    expect((await runCairn(['harvest', '--status', '--home', sb.home, '--cwd', sb.checkout])).stdout).toContain(`Sent to the model: 1 call, ${cost.chars.toLocaleString('en-US')} characters.`);
    const status = JSON.parse((await runCairn(['harvest', '--status', '--json', '--home', sb.home, '--cwd', sb.checkout])).stdout) as { lastRun: { proposed: number; skipped: Record<string, number> } };
    // The status lists the reasons that skipped something.
    expect(status.lastRun).toMatchObject({ proposed: 10, skipped: Object.fromEntries(Object.entries(second.rejected).filter(([, n]) => n > 0)) });
  });
});

describe("a proposal backed only by a tool's output", () => {
  it('says so in `cairn inbox show`, with who said each quote', async () => {
    await modelAnswers([candidate('The widget list has 12 tests and they pass.', 'Tests: 12 passed, 12 total', { category: 'fact' }), candidate('Use pnpm, never npm, in this repository.', PERSON)]);
    const run = await harvest(await session(1));
    expect(run.proposed).toHaveLength(2);
    const show = async (text: string) => {
      const id = run.proposed.find((p) => p.candidate.text === text)!.id;
      const shown = await runCairn(['inbox', 'show', id, '--home', sb.home]);
      expect(shown.status, shown.stderr).toBe(0);
      return shown.stdout;
    };
    const fromTool = await show('The widget list has 12 tests and they pass.');
    expect(fromTool).toMatch(/evidence \(a tool's output, [^)]+\): "Tests: 12 passed, 12 total"/);
    expect(fromTool).toContain('note: Only a tool\u2019s output backs this');
    const fromPerson = await show('Use pnpm, never npm, in this repository.');
    expect(fromPerson).toMatch(/evidence \(you said, [^)]+\): "We use pnpm here, not npm."/);
    expect(fromPerson).not.toContain('Only a tool');
  });
});
