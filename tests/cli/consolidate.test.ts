// `cairn consolidate` as a person runs it: real processes on a real disk. The files' ages are
// set on the disk (mtimes 100+ days back) rather than waited for, so no clock is raced: the CLI's
// own clock only has to be later than those times.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, runJsonl } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { fileTree, putAged } from '../support/file-tree';

let sb: Sandbox;
let flags: string[];
const P = (name: string) => `/memories/project/${name}`;

const put = (name: string, text: string, ageDays: number): void => putAged(sb.roots.project, name, text, ageDays);

const tree = (): Record<string, string> => fileTree(sb.roots.project, { encoding: 'utf8' });

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
  const shared = 'Run the whole test suite with make test before you push any branch to the remote; the linter and the type checker run first, then unit tests, then integration.\n';
  put('old.md', 'A note about a build system we replaced long ago.\n', 200);
  put('stale.md', 'Another note nobody has read in months.\n', 150);
  put('build.md', shared, 100);
  put('ci/testing.md', `${shared}Integration suites need the sshd.\n`, 100);
});
afterEach(async () => {
  await sb.cleanup();
});

describe('cairn consolidate', () => {
  it('proposes, shows a diff, applies with exactly one conflict after an agent write, and cairn undo takes the consolidation back', async () => {
    const first = JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { status: string; summary: string; proposal: { id: string } };
    expect(first).toMatchObject({ status: 'proposed', summary: '2 deletions, 1 merge' });
    // The rules ask no model: no cost, in the JSON or the text.
    expect(first).not.toHaveProperty('cost');
    expect(first.proposal).not.toHaveProperty('cost');

    // A newer proposal replaces it; the text lists each change with its reason.
    const proposed = await runCairn(['consolidate', ...flags]);
    expect(proposed.status).toBe(0);
    const id = /^Proposal (\S+) for \/memories\/project: 2 deletions, 1 merge \(open;/.exec(proposed.stdout)?.[1];
    expect(id).toBeDefined();
    expect(proposed.stdout).toContain(`  1.  merge    ${P('build.md')}  (deletes ${P('ci/testing.md')})\n               testing.md says the same as build.md (`);
    expect(proposed.stdout).toMatch(/ {2}2\. {2}delete {3}\/memories\/project\/old\.md\n {15}never used by an agent; unchanged for 200 days; not pinned \(threshold: 60 days\)\n/);
    expect(proposed.stdout).toContain(`cairn consolidate apply ${id} [--only PATH...]`);
    expect(proposed.stdout).not.toContain('Sent to the model');
    const list = await runCairn(['consolidate', 'list', ...flags]);
    expect(list.stdout.split('\n').slice(1, 3).map((l) => l.split(/\s{2,}/))).toEqual([
      [id, expect.any(String), 'open', '2 deletions, 1 merge', '/memories/project'],
      [first.proposal.id, expect.any(String), 'replaced', '2 deletions, 1 merge', '/memories/project'],
    ]);
    const diff = await runCairn(['consolidate', 'show', id!, '--diff', ...flags]);
    expect(diff.stdout).toContain(`--- ${P('build.md')}\tnow\n+++ ${P('build.md')}\tproposed\n`);
    expect(diff.stdout).toContain('+Integration suites need the sshd.\n');
    expect(diff.stdout).toContain('-A note about a build system we replaced long ago.\n');

    // An agent edits stale.md meanwhile: that change alone is skipped.
    const agent = await runJsonl(flags, [{ command: 'str_replace', path: P('stale.md'), old_str: 'nobody', new_str: 'somebody' }]);
    expect(agent[0]!.ok).toBe(true);
    const before = tree();
    const applied = await runCairn(['consolidate', 'apply', id!, ...flags]);
    expect(applied.status).toBe(0);
    const batch = /undo it all with: cairn undo (\S+)\n/.exec(applied.stdout)?.[1];
    expect(applied.stdout).toContain(`Applied 2 of 3 changes of proposal ${id} to /memories/project as one change`);
    expect(applied.stdout).toContain(`  skipped  ${P('stale.md')} was changed since the proposal; this change was skipped.\n`);
    expect(tree()).toEqual({ 'build.md': `${before['build.md']}Integration suites need the sshd.\n`, 'stale.md': 'Another note somebody has read in months.\n' });
    expect(await runCairn(['consolidate', 'apply', id!, ...flags])).toMatchObject({ status: 1, stdout: expect.stringContaining(`was applied at`) });

    const undo = await runCairn(['undo', batch!, ...flags]);
    expect(undo.status).toBe(0);
    expect(tree()).toEqual(before);
  });

  it('applies only the changes named, discards, and refuses bad input clearly', async () => {
    const id = (JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { proposal: { id: string } }).proposal.id;
    const only = await runCairn(['consolidate', 'apply', id, '--only', 'old.md', P('stale.md'), ...flags]);
    expect(only.stdout).toContain(`Applied 2 of 2 changes`);
    expect(Object.keys(tree()).sort()).toEqual(['build.md', 'ci/testing.md']);

    const next = (JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { proposal: { id: string } }).proposal.id;
    expect(await runCairn(['consolidate', 'discard', next, ...flags])).toMatchObject({ status: 0, stdout: `Discarded proposal ${next}; nothing was written.\n` });
    expect(Object.keys(tree()).sort()).toEqual(['build.md', 'ci/testing.md']);

    const unknown = await runCairn(['consolidate', 'show', 'nope', ...flags]);
    expect(unknown).toMatchObject({ status: 1 });
    expect(unknown.stdout).toContain('There is no proposal "nope"');
    expect(unknown.stdout).not.toContain(sb.dir);
    expect(await runCairn(['consolidate', '--scope', 'nowhere', ...flags])).toMatchObject({ status: 2, stderr: 'cairn: --scope takes one of global, project, workspace\n' });
    expect(await runCairn(['consolidate', 'apply', ...flags])).toMatchObject({ status: 2 });
    expect((await runCairn(['consolidate', '--help'])).stdout).toContain('Usage: cairn consolidate [--scope S]');
    expect((await runCairn(['--help'])).stdout).toContain('  consolidate\n            consolidate a scope');
  });

  it('runs as `cairn sweep` too, its older name: the same proposal, listed and applied by `cairn consolidate`', async () => {
    const old = await runCairn(['sweep', '--json', ...flags]);
    expect(old.status).toBe(0);
    const id = (JSON.parse(old.stdout) as { summary: string; proposal: { id: string } }).proposal.id;
    expect(JSON.parse(old.stdout)).toMatchObject({ status: 'proposed', summary: '2 deletions, 1 merge' });
    const listed = await runCairn(['consolidate', 'list', ...flags]);
    expect(listed.stdout).toContain(id);
    expect(await runCairn(['sweep', 'apply', id, ...flags])).toMatchObject({ status: 0 });
    expect(Object.keys(tree()).sort()).toEqual(['build.md']);
    // Its help is the command's, under the current name; the overview names the older one once.
    expect((await runCairn(['sweep', '--help'])).stdout).toContain('Usage: cairn consolidate [--scope S]');
    const overview = (await runCairn(['--help'])).stdout;
    expect(overview.match(/sweep/g)).toEqual(['sweep']);
    expect(overview).toContain('(`cairn sweep`, its older name, runs it too)');
  });

  it('says "nothing to consolidate" for a scope where nothing changed since the last consolidation and nothing is unused', async () => {
    const id = (JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { proposal: { id: string } }).proposal.id;
    await runCairn(['consolidate', 'apply', id, ...flags]);
    const again = await runCairn(['consolidate', ...flags]);
    expect(again.stdout).toMatch(/^Nothing to consolidate in \/memories\/project: nothing changed since the last consolidation \(.+ UTC\) and no file is unused for 60 days\.\n/);
  });

  it('sees the edits made with a plain editor while no Cairn process ran, and consolidates again', async () => {
    const id = (JSON.parse((await runCairn(['consolidate', '--json', ...flags])).stdout) as { proposal: { id: string } }).proposal.id;
    await runCairn(['consolidate', 'apply', id, ...flags]);
    // No Cairn process runs now: a new file, and a line appended to another, by hand.
    put('deploy.md', 'Deploys go out from the release branch on Tuesdays.\n', 0);
    put('build.md', `${tree()['build.md']}Use the fake clock in tests.\n`, 0);
    const after = await runCairn(['consolidate', '--json', ...flags]);
    expect(after.status, after.stderr).toBe(0);
    const answer = JSON.parse(after.stdout) as { status: string; extractorCalled?: boolean; since: { total: number; changed: Array<{ path: string; actor: string }> } };
    const since = answer.since;
    expect(since.changed.map((c) => [c.path, c.actor]).sort()).toEqual([
      [P('build.md'), 'external'],
      [P('deploy.md'), 'external'],
    ]);
    // The extractor was asked (before, "nothing changed since" answered without asking it).
    expect(answer.status === 'proposed' || answer.extractorCalled === true).toBe(true);
  });
});
