// Settings, Agent context in real Chromium against `cairn serve` with the fixed home of
// tests/support/context-home.ts: a person sets what every prompt gets for all workspaces and
// overrides it for one, and Claude Code's hook (a real `cairn context` process) follows at the
// next prompt. The form is saved under test-results/ (injection-settings-*.png) for a person to
// look at, at 1400 and 800 px, light and dark.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn } from '../support/cli';
import { RELEASE_PROMPT, writeContextHome } from '../support/context-home';
import { openPage, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

let sb: Sandbox;
let served: Served;
let browser: Browser;

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(writeContextHome));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

/** The files Claude Code's UserPromptSubmit hook adds for `prompt`, by path. */
async function hookPaths(prompt: string): Promise<string[]> {
  const result = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, cwd: sb.checkout }) });
  expect(result.status).toBe(0);
  if (result.stdout === '') return [];
  const context = (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  return [...context.matchAll(/<memory_file path="([^"]+)">/g)].map((m) => m[1]!);
}

async function openAgentContext(): Promise<Page> {
  const page = await openPage(browser.context, served.address, { live: false });
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('tab', { name: 'Agent context' }).click();
  await page.getByRole('form', { name: 'Agent context for all workspaces' }).waitFor();
  return page;
}

describe('Settings, Agent context in Chromium', () => {
  it('the global settings and a workspace override, followed by the prompt hook at the next prompt', async () => {
    expect(await hookPaths(RELEASE_PROMPT)).toEqual(['/memories/project/build.md']);
    const page = await openAgentContext();

    const all = page.getByRole('form', { name: 'Agent context for all workspaces' });
    await all.getByRole('combobox', { name: 'With each prompt' }).selectOption('off');
    await all.getByRole('button', { name: 'Save' }).click();
    await all.getByRole('status').getByText('Saved.', { exact: false }).waitFor();
    expect(await hookPaths(RELEASE_PROMPT)).toEqual([]);

    const mine = page.getByRole('form', { name: 'Agent context for widgets' });
    await mine.getByRole('checkbox', { name: 'With each prompt: use global' }).uncheck();
    await mine.getByRole('combobox', { name: 'With each prompt' }).selectOption('recent_only');
    await mine.getByRole('checkbox', { name: 'Files per prompt, at most: use global' }).uncheck();
    await mine.getByRole('spinbutton', { name: 'Files per prompt, at most' }).fill('2');
    await mine.getByRole('button', { name: 'Save' }).click();
    await mine.getByRole('status').getByText('Saved.', { exact: false }).waitFor();
    // The two most recently used or changed clean files, whatever the prompt.
    expect(await hookPaths(RELEASE_PROMPT)).toEqual(['/memories/global/tools/editor.md', '/memories/workspace/todo.md']);

    const panel = page.getByRole('tabpanel', { name: 'Agent context' });
    await shots(page, 'injection-settings', { ready: () => panel.evaluate((el) => el.scrollTo(0, 0)) });

    // A value out of range is named, and cannot be saved.
    const bytes = all.getByRole('spinbutton', { name: 'Bytes per prompt, at most' });
    await bytes.fill('100');
    await all.getByText('A whole number from 512 to 65536 bytes.').waitFor();
    expect(await all.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await shots(page, 'injection-settings-invalid', { ready: () => mine.scrollIntoViewIfNeeded() });
    await page.close();
  });
});
