// Consolidation in real Chromium against `cairn serve` with a temp home: a project scope
// seeded with stale files and near-duplicates (written to the disk with old mtimes, and a usage
// sidecar with old last uses, before the server starts: its clock is real, so "old" is far past 60
// days). From the UI: Consolidate… on the scope, the proposal (summary, reasons, usage), a diff,
// one change unchecked from the keyboard, the rest applied; the tree changes, the disk too, and the
// scope says "Last consolidated just now · Undo"; Undo brings back a byte-identical tree. Then a
// second Consolidate… of the same scope finds nothing. A model's consolidation (the command
// backend running a stand-in model: no model runs) shows its progress with Cancel (the model
// process is stopped, nothing is stored), then a rewrite and a rename with their diffs, applied and
// undone byte for byte. Screenshots land under test-results/ (consolidation-*.png: the proposal views and
// the progress at 1400 and 800 px, light and dark; the outcome; the tree's line; nothing to do).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_USAGE, type UsageStats } from '../../src/common/memory/usage';
import { processRuns } from '../../src/main/runtime/local/process-alive';
import { type Browser, endSuite } from '../support/browser';
import { fileTree, putAged } from '../support/file-tree';
import { openPage, row, shot, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import { type Served, rpc } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';
const G = '/memories/global';
/** A stand-in for a model CLI (no model runs): prints a fixed answer, or hangs until stopped. */
const FAKE_MODEL = path.resolve('src/main/consolidation/fixtures/fake-consolidation-model.mjs');
const DAY = 24 * 60 * 60 * 1000;

let sb: Sandbox;
let served: Served;
let browser: Browser;

const TESTING = '---\ndescription: How to run the tests\n---\nRun `make test` before every push.\nThe integration suite needs Docker running.\nUse `make test-unit` for a quick check.\n';
const TESTING_COPY = `${TESTING}CI retries flaky tests once.\n`;

const LONG = 'Deploys go through the release script.\nThe release script tags the commit.\nThe release script tags the commit, then pushes the tag.\n';
const MISC = 'Release: run scripts/release, then announce in #releases.\n';

/** The scopes as seeded: name (in the project scope unless `scope`), text, age in days (mtime), usage. */
const SEED: ReadonlyArray<{ name: string; text: string; ageDays: number; usage?: Partial<UsageStats>; scope?: 'global' }> = [
  { name: 'testing.md', text: TESTING, ageDays: 120, usage: { accessCount: 9, lastAccessedAt: iso(5) } },
  { name: 'notes/testing-copy.md', text: TESTING_COPY, ageDays: 200, usage: { accessCount: 1, lastAccessedAt: iso(190) } },
  { name: 'old-notes.md', text: '---\ndescription: Notes from the 2024 migration\n---\nThe old cluster was shut down in March.\n', ageDays: 400 },
  { name: 'deploy-old.md', text: '---\ndescription: Deploying to the old VM\n---\nssh into vm-3 and run deploy.sh\n', ageDays: 300, usage: { accessCount: 2, lastAccessedAt: iso(250) } },
  { name: 'release.md', text: '---\ndescription: Release checklist\n---\nTag, push, announce.\n', ageDays: 365, usage: { pinned: true } },
  { name: 'fresh.md', text: '---\ndescription: Written this week\n---\nThe API moved to v2.\n', ageDays: 2 },
  // For the model's proposal (a rewrite and a rename), in the global scope.
  { scope: 'global', name: 'long.md', text: LONG, ageDays: 100, usage: { accessCount: 2, lastAccessedAt: iso(5) } },
  { scope: 'global', name: 'misc.md', text: MISC, ageDays: 200, usage: { accessCount: 1, lastAccessedAt: iso(150) } },
];

function iso(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * DAY).toISOString();
}

const view = (page: Page): Locator => page.getByRole('region', { name: 'Consolidate project memory' });
const scopeRow = (page: Page): Locator => page.getByRole('treeitem', { name: /^PROJECT memory, / });
const change = (page: Page, name: string): Locator => view(page).getByRole('checkbox', { name, exact: true });
/** A change's row in the proposal, by its checkbox's name. */
const itemIn = (v: Locator, name: string): Locator => v.getByRole('listitem').filter({ has: v.page().getByRole('checkbox', { name, exact: true }) });
const item = (page: Page, name: string): Locator => itemIn(view(page), name);

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    const files: Record<string, UsageStats> = {};
    for (const f of SEED) {
      putAged(f.scope === 'global' ? sb.roots.global : sb.roots.project, f.name, f.text, f.ageDays);
      if (f.usage) files[f.scope === 'global' ? `global:${f.name}` : `project:${sb.session.projectId}:${f.name}`] = { ...EMPTY_USAGE, ...f.usage };
    }
    fs.mkdirSync(sb.home, { recursive: true });
    fs.writeFileSync(path.join(sb.home, 'memory-meta.json'), JSON.stringify({ version: 1, files }));
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('consolidation in Chromium', () => {
  it('proposes from the scope menu, shows a diff, applies all but an unchecked change, and Undo restores a byte-identical tree', async () => {
    const before = fileTree(sb.roots.project);
    const page = await openPage(browser.context, served.address, { row: `${P}/testing.md` });

    // Consolidate… from the scope row's menu (Shift+F10 on the focused row).
    await scopeRow(page).focus();
    await page.keyboard.press('Shift+F10');
    await page.getByRole('menu', { name: 'Actions for project memory' }).getByRole('menuitem', { name: 'Consolidate…' }).click();

    // The proposal: its summary, each change with its reason and each file's usage.
    const v = view(page);
    await v.getByText('2 deletions, 1 merge', { exact: true }).waitFor();
    expect(await v.getByRole('checkbox').count()).toBe(4); // "All" and one per change
    await expect(change(page, `Merge ${P}/testing.md`).isChecked()).resolves.toBe(true);
    await expect(change(page, `Delete ${P}/old-notes.md`).isChecked()).resolves.toBe(true);
    await expect(change(page, `Delete ${P}/deploy-old.md`).isChecked()).resolves.toBe(true);
    // Pinned and fresh files are never proposed (they are listed only among the files the history
    // had not seen: written to disk before any Cairn process watched).
    await expect(v.getByRole('checkbox', { name: /release\.md|fresh\.md/ }).count()).resolves.toBe(0);
    const merge = item(page, `Merge ${P}/testing.md`);
    await merge.getByText(/testing-copy\.md says the same as testing\.md/).waitFor();
    await merge.getByText('Used 9×, last 5 d ago', { exact: false }).waitFor();
    const deploy = item(page, `Delete ${P}/deploy-old.md`);
    await deploy.getByText(/not used for 250 days/).waitFor();
    await v.getByText(/^This scope was never consolidated; \d+ files changed in its history\.$/).waitFor();
    // The tree says a proposal is waiting (it stays there if the view is closed unapplied).
    await page.getByRole('treeitem', { name: 'PROJECT memory has a consolidation waiting for review: 2 deletions, 1 merge, proposed just now' }).waitFor();
    // The focus is on the first change.
    await expect(change(page, `Merge ${P}/testing.md`).evaluate((el) => el === document.activeElement)).resolves.toBe(true);

    // The merge's diff: the kept file gains the line it lacked; the merged-away file goes whole.
    await page.keyboard.press('Enter');
    const kept = v.getByRole('group', { name: `${P}/testing.md: Now beside After` });
    await kept.locator('.dl.add').first().waitFor();
    await expect(kept.locator('.dl.add .dl-text').allTextContents()).resolves.toEqual(['Added: CI retries flaky tests once.']);
    const gone = v.getByRole('group', { name: `${P}/notes/testing-copy.md: Now beside After: deleted` });
    await gone.locator('.dl.del').first().waitFor();
    await expect(gone.locator('.dl.del').count()).resolves.toBe(TESTING_COPY.split('\n').length - 1);
    await expect(gone.locator('.dl.add').count()).resolves.toBe(0);
    await shots(page, 'consolidation-proposal', { ready: () => kept.waitFor() });

    // Keyboard: down to the deploy-old.md change, Space unchecks it.
    await change(page, `Merge ${P}/testing.md`).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect(change(page, `Delete ${P}/deploy-old.md`).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Space');
    await expect(change(page, `Delete ${P}/deploy-old.md`).isChecked()).resolves.toBe(false);
    await v.getByRole('button', { name: 'Apply 2 selected' }).click();

    // What was applied; the tree follows, and so does the disk.
    await v.getByRole('status').getByText('Applied 2 changes as one change you can undo.').waitFor();
    await v.getByRole('listitem').filter({ hasText: `Delete ${P}/old-notes.md` }).waitFor();
    await v.getByRole('listitem').filter({ hasText: `Merge ${P}/testing.md` }).waitFor();
    await v.getByRole('heading', { name: 'Left as they are (not selected)' }).waitFor();
    await v.getByRole('listitem').filter({ hasText: `Delete ${P}/deploy-old.md` }).waitFor();
    await shot(page, 'consolidation-applied');
    await row(page, `${P}/old-notes.md`).waitFor({ state: 'detached' });
    await row(page, `${P}/notes/testing-copy.md`).waitFor({ state: 'detached' });
    await row(page, `${P}/deploy-old.md`).waitFor();
    expect(fs.existsSync(path.join(sb.roots.project, 'old-notes.md'))).toBe(false);
    expect(fs.existsSync(path.join(sb.roots.project, 'notes/testing-copy.md'))).toBe(false);
    expect(fs.readFileSync(path.join(sb.roots.project, 'deploy-old.md'), 'utf8')).toBe(SEED[3]!.text);
    expect(fs.readFileSync(path.join(sb.roots.project, 'testing.md'), 'utf8')).toBe(TESTING_COPY);

    // Close (Escape): back to the tree, which says when the scope was consolidated.
    await page.keyboard.press('Escape');
    await v.waitFor({ state: 'detached' });
    // The focus is back on the scope's row.
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-row-id') === 'scope:project');
    const line = page.getByRole('treeitem', { name: 'PROJECT memory was last consolidated just now' });
    await line.waitFor();
    await shot(page, 'consolidation-tree-line');

    // Undo takes the whole consolidation back, and says so.
    await line.hover();
    await line.getByRole('button', { name: 'Undo the consolidation of project memory' }).click();
    await page.getByRole('status').getByText('Undid the consolidation of project memory: 3 files are back as they were before it.').waitFor();
    await row(page, `${P}/old-notes.md`).waitFor();
    await row(page, `${P}/notes/testing-copy.md`).waitFor();
    await line.waitFor({ state: 'detached' });
    expect(fileTree(sb.roots.project)).toEqual(before);
    await page.close();
  });

  it('Consolidate… from the scope row button finds nothing when nothing qualifies, and says why', async () => {
    // Every file that could qualify, pinned (whether or not the test above ran): a pinned file is
    // never deleted nor merged away, and the rest are fresh.
    for (const name of ['old-notes.md', 'deploy-old.md', 'testing.md', 'notes/testing-copy.md']) await rpc(served, 'memory/setPinned', { workspaceId: await workspaceId(), path: `${P}/${name}`, pinned: true });
    const page = await openPage(browser.context, served.address, { row: `${P}/testing.md` });
    await scopeRow(page).hover();
    await scopeRow(page).getByRole('button', { name: 'Consolidate project memory…' }).click();
    const v = view(page);
    await v.getByRole('heading', { name: 'Nothing to consolidate' }).waitFor();
    await v.getByText(/No file in project memory has gone unused for 60 days/).waitFor();
    await shot(page, 'consolidation-nothing');
    await v.getByRole('button', { name: 'Close', exact: true }).click();
    await v.waitFor({ state: 'detached' });
    await page.close();
  });
});

describe('a model\'s consolidation in Chromium (a stand-in model through the command backend)', () => {
  it('shows progress with Cancel (the model is stopped, nothing is stored), then a rewrite and a rename with their diffs, applied and undone', async () => {
    const record = path.join(sb.dir, 'model-record.jsonl');
    const answerFile = path.join(sb.dir, 'model-answer.txt');
    const command = (mode = '') => `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}' ${mode}`;
    const changes = [
      { op: 'write', path: `${G}/long.md`, basedOn: `{{sha:${G}/long.md}}`, content: 'Deploys go through the release script, which tags the commit and pushes the tag.\n', reason: 'Three lines saying one thing.' },
      { op: 'rename', path: `${G}/misc.md`, to: `${G}/release.md`, basedOn: `{{sha:${G}/misc.md}}`, reason: 'It only holds the release steps.' },
    ];
    fs.writeFileSync(answerFile, `Here is my proposal:\n\`\`\`json\n${JSON.stringify({ changes })}\n\`\`\`\n`);
    await rpc(served, 'settings/set', { consolidationExtractor: 'command', harvestCommand: command('hang') });
    const before = fileTree(sb.roots.global);
    const page = await openPage(browser.context, served.address, { row: `${G}/long.md` });
    const globalRow = page.getByRole('treeitem', { name: /^GLOBAL memory, / });
    await globalRow.hover();
    await globalRow.getByRole('button', { name: 'Consolidate global memory…' }).click();
    const v = page.getByRole('region', { name: 'Consolidate global memory' });

    // The model is asked and holds: the view says what it is doing; Cancel stops it.
    await v.getByRole('status').getByText('Looking at 2 files of global memory…').waitFor();
    await v.getByText(/Asking the model \(command\)/).waitFor();
    await expect.poll(() => fs.existsSync(`${record}.started`), { timeout: 30_000 }).toBe(true);
    const pid = Number(fs.readFileSync(`${record}.started`, 'utf8'));
    await shots(page, 'consolidation-progress', { ready: () => v.getByRole('button', { name: 'Cancel' }).waitFor() });
    await v.getByRole('button', { name: 'Cancel' }).click();
    await v.getByText('Cancelled: nothing was proposed and nothing was written.').waitFor();
    await expect.poll(() => processRuns(pid), { timeout: 30_000 }).toBe(false);
    const stored = (await rpc(served, 'consolidation/list', { workspaceId: await workspaceId() })) as { proposals: Array<{ scope: string }> };
    expect(stored.proposals.filter((p) => p.scope === 'global')).toEqual([]);

    // Asked again, the model answers: a rewrite and a rename, each with its diff.
    await rpc(served, 'settings/set', { harvestCommand: command() });
    await v.getByRole('button', { name: 'Propose again' }).click();
    await v.getByText('1 rewrite, 1 rename', { exact: true }).waitFor();
    await v.getByText(/by a model \(command\), checked by Cairn/).waitFor();
    await itemIn(v, `Rewrite ${G}/long.md`).getByText('Three lines saying one thing.').waitFor();
    const rename = itemIn(v, `Rename ${G}/misc.md`);
    await rename.getByText(`${G}/release.md`).waitFor();
    await rename.getByText('the new name (created)').waitFor();
    await rename.getByRole('button', { name: `Show the diff of ${G}/misc.md` }).click();
    await rename.getByText('The text moves to the new name unchanged.').waitFor();
    await itemIn(v, `Rewrite ${G}/long.md`).getByRole('button', { name: `Show the diff of ${G}/long.md` }).click();
    const rewrite = v.getByRole('group', { name: `${G}/long.md: Now beside After` });
    await rewrite.locator('.dl.add').first().waitFor();
    await expect(rewrite.locator('.dl.del .dl-text').allTextContents()).resolves.toEqual(LONG.trimEnd().split('\n').map((l) => `Removed: ${l}`));
    await shots(page, 'consolidation-model-proposal', { ready: () => rewrite.waitFor() });

    await v.getByRole('button', { name: 'Apply 2 selected' }).click();
    await v.getByRole('status').getByText('Applied 2 changes as one change you can undo.').waitFor();
    await row(page, `${G}/release.md`).waitFor();
    await row(page, `${G}/misc.md`).waitFor({ state: 'detached' });
    expect(fs.readFileSync(path.join(sb.roots.global, 'release.md'), 'utf8')).toBe(MISC);
    expect(fs.readFileSync(path.join(sb.roots.global, 'long.md'), 'utf8')).toBe(changes[0]!.content);

    // Undo from the outcome: the global tree is byte for byte what it was.
    await v.getByRole('button', { name: 'Undo this consolidation' }).click();
    await v.getByRole('status').getByText('Undid the consolidation of global memory: 3 files are back as they were before it.').waitFor();
    await row(page, `${G}/misc.md`).waitFor();
    expect(fileTree(sb.roots.global)).toEqual(before);
    await rpc(served, 'settings/set', { consolidationExtractor: 'rules' });
    await page.close();
  });
});

async function workspaceId(): Promise<string> {
  const list = (await rpc(served, 'workspaces/list', {})) as Array<{ id: string }>;
  return list[0]!.id;
}
