// `cairn consolidate --extractor command` as a person runs it: real `cairn` processes on a real
// disk, the model a real child process (src/main/consolidation/fixtures/fake-consolidation-model.mjs, a node script
// standing in for `claude -p`; no model runs here) configured as the harvest's (harvestCommand). It
// answers fixed changes: the proposal lists them with the refused one and its reason, `show --diff`
// shows the rewrite and the rename, apply writes them, `cairn undo` gives back the tree byte for
// byte. Each model proposal says what asking the model sent (a call and the characters of the
// prompt the model received). The files' ages are set on the disk, so no clock is raced.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { processRuns } from '../../src/main/runtime/local/process-alive';
import { CAIRN_BIN, makeSandbox, REPO_ROOT, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { fileTree, putAged } from '../support/file-tree';
import { mergeStoredSettings } from '../support/settings-file';

const FAKE_MODEL = path.join(REPO_ROOT, 'src', 'main', 'consolidation', 'fixtures', 'fake-consolidation-model.mjs');
const P = (name: string) => `/memories/project/${name}`;

let sb: Sandbox;
let flags: string[];
let record: string;
let answerFile: string;

const put = (name: string, text: string, ageDays: number): void => putAged(sb.roots.project, name, text, ageDays);

const tree = (): Record<string, string> => fileTree(sb.roots.project);

const settings = (extra: Record<string, unknown>): void => mergeStoredSettings(sb.home, extra);

const prompts = (): string[] => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { prompt: string }).prompt) : []);
const runs = () => prompts().length;

/** The line saying what asking the model sent: one call, the prompt it received (a command reports no tokens). */
const sentLine = (prompt: string) => `Sent to the model: 1 call, ${prompt.length.toLocaleString('en-US')} characters.\n`;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
  record = path.join(sb.dir, 'record.jsonl');
  answerFile = path.join(sb.dir, 'answer.txt');
  put('old.md', 'Notes on the Grunt build, replaced in 2024.\n', 200);
  put('deploy.md', 'Deploys go through the release script.\nThe release script tags the commit.\nDeploys go through the release script, always.\n', 100);
  put('misc.md', 'Release: run scripts/release, then announce in #releases.\n', 100);
  settings({ harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}'` });
  fs.writeFileSync(
    answerFile,
    JSON.stringify({
      changes: [
        { op: 'delete', path: P('old.md'), basedOn: `{{sha:${P('old.md')}}}`, reason: 'Describes a build replaced in 2024.' },
        { op: 'write', path: P('deploy.md'), basedOn: `{{sha:${P('deploy.md')}}}`, content: 'Deploys go through the release script, which tags the commit.\n', reason: 'Three lines saying one thing.' },
        { op: 'rename', path: P('misc.md'), to: P('release.md'), basedOn: `{{sha:${P('misc.md')}}}`, reason: 'It only holds the release steps.' },
        { op: 'rename', path: P('deploy.md'), to: P('../global/deploy.md'), basedOn: `{{sha:${P('deploy.md')}}}`, reason: 'x' },
      ],
    }),
  );
});
afterEach(async () => {
  await sb.cleanup();
});

describe('cairn consolidate with a model', () => {
  it('--extractor command: proposes the model\'s changes and lists the refused one, shows the diffs, applies, and cairn undo takes it all back', async () => {
    const proposed = await runCairn(['consolidate', '--extractor', 'command', ...flags]);
    expect(proposed.stderr).toBe('');
    expect(proposed.status).toBe(0);
    expect(runs()).toBe(1);
    const id = /^Proposal (\S+) for \/memories\/project: 1 deletion, 1 rewrite, 1 rename \(open;/.exec(proposed.stdout)?.[1];
    expect(id).toBeDefined();
    expect(proposed.stdout).toContain(`  1.  delete   ${P('old.md')}\n               Describes a build replaced in 2024.\n`);
    expect(proposed.stdout).toContain(`  3.  rename   ${P('misc.md')}  (to ${P('release.md')})\n               It only holds the release steps.\n`);
    expect(proposed.stdout).toContain("Refused 1 change of the extractor's answer:\n");
    expect(proposed.stdout).toContain(`  rename ${P('deploy.md')} to /memories/project/../global/deploy.md: ${P('deploy.md')} has another change in this answer; a file changes once\n`);
    expect(prompts()[0]!.length).toBeGreaterThan(1000);
    expect(proposed.stdout).toContain(sentLine(prompts()[0]!));
    // The proposal keeps it: `show` says it too.
    expect((await runCairn(['consolidate', 'show', id!, ...flags])).stdout).toContain(sentLine(prompts()[0]!));

    const diff = await runCairn(['consolidate', 'show', id!, '--diff', ...flags]);
    expect(diff.stdout).toContain(`--- ${P('deploy.md')}\tnow\n+++ ${P('deploy.md')}\tproposed\n`);
    expect(diff.stdout).toContain('+Deploys go through the release script, which tags the commit.\n');
    expect(diff.stdout).toContain(`rename from ${P('misc.md')}\nrename to ${P('release.md')}\n(the content moves as it is)\n`);

    const before = tree();
    const applied = await runCairn(['consolidate', 'apply', id!, ...flags]);
    expect(applied.stdout).toContain(`Applied 3 of 3 changes of proposal ${id} to /memories/project as one change`);
    expect(tree()).toEqual({ 'deploy.md': 'Deploys go through the release script, which tags the commit.\n', 'release.md': before['misc.md'] });
    const batch = /undo it all with: cairn undo (\S+)\n/.exec(applied.stdout)?.[1];
    expect(await runCairn(['undo', batch!, ...flags])).toMatchObject({ status: 0 });
    expect(tree()).toEqual(before);
  });

  it('the setting consolidationExtractor chooses the model; nothing changed since the last consolidation asks it nothing', async () => {
    settings({ consolidationExtractor: 'command' });
    const first = JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { status: string; summary: string; proposal: { id: string; extractor: string } };
    const cost = { calls: 1, chars: prompts()[0]!.length, inputTokens: null, outputTokens: null };
    expect(first).toMatchObject({ status: 'proposed', summary: '1 deletion, 1 rewrite, 1 rename', cost, proposal: { extractor: 'command', cost } });
    await runCairn(['consolidate', 'apply', first.proposal.id, ...flags]);
    expect(runs()).toBe(1);
    const again = await runCairn(['consolidate', ...flags]);
    expect(again.stdout).toMatch(/^Nothing to consolidate in \/memories\/project: nothing changed since the last consolidation/);
    expect(runs()).toBe(1);
  });

  it('Ctrl-C stops the model it is waiting for, and exits having written nothing', async () => {
    settings({ harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}' hang` });
    const before = tree();
    const child = spawn(CAIRN_BIN, ['consolidate', '--extractor', 'command', ...flags]);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    // The model runs once it has written its start file (an event waited for, not a delay).
    while (!fs.existsSync(`${record}.started`)) await new Promise((r) => setTimeout(r, 10));
    const pid = Number(fs.readFileSync(`${record}.started`, 'utf8'));
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(stderr).toBe('cairn consolidate: cancelled; nothing was proposed and nothing was written.\n');
    expect(processRuns(pid)).toBe(false);
    expect(tree()).toEqual(before);
    expect(JSON.parse((await runCairn(['consolidate', 'list', '--json', ...flags])).stdout)).toEqual({ proposals: [] });
  });

  it('says what to set when the model is not configured, and refuses an unknown extractor', async () => {
    settings({ harvestCommand: '' });
    const unset = await runCairn(['consolidate', '--extractor', 'command', ...flags]);
    expect(unset).toMatchObject({ status: 1 });
    expect(unset.stdout).toContain('The consolidation extractor is "command" but no command is set: set harvestCommand');
    expect(await runCairn(['consolidate', '--extractor', 'magic', ...flags])).toMatchObject({ status: 2, stderr: 'cairn: --extractor takes one of rules, command, http\n' });
    fs.writeFileSync(answerFile, 'no');
    settings({ harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}'` });
    const failing = await runCairn(['consolidate', '--extractor', 'command', ...flags]);
    expect(failing).toMatchObject({ status: 1 });
    expect(failing.stdout).toContain('The command extractor proposed nothing: The model\'s answer holds no JSON object {"changes":[...]}');
    expect(failing.stdout).not.toContain(sb.dir);
    // A model with nothing to propose says so (not the rules' reasons).
    fs.writeFileSync(answerFile, '{"changes":[]}');
    const none = await runCairn(['consolidate', '--extractor', 'command', ...flags]);
    expect(none).toMatchObject({ status: 0 });
    expect(none.stdout.startsWith(`Nothing to consolidate in /memories/project: the command extractor proposed no change.\n${sentLine(prompts().at(-1)!)}`)).toBe(true);
  });
});
