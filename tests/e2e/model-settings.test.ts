// Settings, Models in real Chromium against `cairn serve` with a temp home: a person chooses a
// command to propose consolidations, with a command left empty named before anything is saved,
// and a real `cairn consolidate` (no --extractor) then asks that command: a stand-in for `claude -p`
// (src/main/consolidation/fixtures/fake-consolidation-model.mjs, a node script that records its prompt and answers
// "no change"). The tab is saved under test-results/ (model-settings-*.png) for a person to look
// at, at 1400 and 800 px, light and dark, as saved and with its errors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { openPage, shots } from '../support/page';
import { REPO_ROOT, type Sandbox } from '../support/sandbox';
import { rpc, type Served, userHomeOf } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const FAKE_MODEL = path.join(REPO_ROOT, 'src/main/consolidation/fixtures/fake-consolidation-model.mjs');

let sb: Sandbox;
let served: Served;
let browser: Browser;
let record: string;
let command: string;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    fs.mkdirSync(sb.roots.global, { recursive: true });
    fs.writeFileSync(path.join(sb.roots.global, 'editor.md'), '---\ndescription: Editor settings\n---\nIndent with two spaces.\n');
    record = path.join(sb.dir, 'model-calls.jsonl');
    const answer = path.join(sb.dir, 'answer.json');
    fs.writeFileSync(answer, JSON.stringify({ changes: [] }));
    command = `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answer}'`;
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

async function openModels(): Promise<Page> {
  const page = await openPage(browser.context, served.address, { live: false });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('tab', { name: 'Models' }).click();
  await page.getByRole('form', { name: 'Models for the harvest and consolidation' }).waitFor();
  return page;
}

/** The stand-in model's calls so far: the prompt each got. */
function modelCalls(): string[] {
  if (!fs.existsSync(record)) return [];
  return fs
    .readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
}

describe('Settings, Models in Chromium', () => {
  it('a command chosen for consolidation in the page is what `cairn consolidate` asks, with no --extractor', async () => {
    const page = await openModels();
    const form = page.getByRole('form', { name: 'Models for the harvest and consolidation' });
    const consolidation = form.getByRole('radiogroup', { name: 'Consolidation proposes with' });
    await consolidation.getByRole('radio', { name: 'A command' }).check();

    // No command yet: named under the field, and Save cannot be pressed.
    await form.getByText('Set the command consolidation runs, or choose another backend above.').waitFor();
    const save = form.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);

    await form.getByRole('textbox', { name: 'Command' }).fill(command);
    await save.click();
    await form.getByRole('status').getByText('Saved.', { exact: false }).waitFor();
    expect(await rpc(served, 'settings/get', {})).toMatchObject({ harvestExtractor: 'rules', consolidationExtractor: 'command', harvestCommand: command, harvestHttp: null });

    // A real `cairn consolidate`, with the setting alone: the command is asked, given the scope's file.
    expect(modelCalls()).toEqual([]);
    const run = await runCairn(['consolidate', '--scope', 'global', '--home', sb.home, '--cwd', sb.checkout], { env: { HOME: userHomeOf(sb.home) } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('the command extractor proposed no change');
    expect(run.status).toBe(0);
    const calls = modelCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain('editor.md');

    const panel = page.getByRole('tabpanel', { name: 'Models' });
    await shots(page, 'model-settings', { ready: () => panel.evaluate((el) => el.scrollTo(0, 0)) });

    // A model over HTTP for the harvest, half filled in: each field's error under it, nothing saved.
    await form.getByRole('radiogroup', { name: 'Harvest proposes with' }).getByRole('radio', { name: 'A model over HTTP' }).check();
    await form.getByRole('textbox', { name: 'Base URL' }).fill('api.anthropic.com');
    await form.getByRole('textbox', { name: /environment variable/ }).fill('sk-ant-api03-secret');
    await form.getByText('A web address starting with https:// or http://, such as https://api.anthropic.com.').waitFor();
    await form.getByText('Needed: the harvest asks this model.').waitFor();
    await form.getByText(/^The name of an environment variable, such as ANTHROPIC_API_KEY/).waitFor();
    expect(await save.isDisabled()).toBe(true);
    await shots(page, 'model-settings-invalid', { ready: () => panel.evaluate((el) => el.scrollTo(0, el.scrollHeight)) });
    await form.getByRole('button', { name: 'Discard' }).click();
    expect(await form.getByRole('radiogroup', { name: 'Harvest proposes with' }).getByRole('radio', { name: 'Rules (offline)' }).isChecked()).toBe(true);
    expect(await rpc(served, 'settings/get', {})).toMatchObject({ harvestExtractor: 'rules', consolidationExtractor: 'command', harvestHttp: null });
    await page.close();
  });
});
