// Other agents' files in real Chromium against `cairn serve`: the files laid out as the
// agents lay them out, in a fake user home (the server's HOME) and the sandbox's checkout; the
// section under the scope tree with a group per agent; CLAUDE.md opened, edited, changed on disk
// meanwhile, saved into the conflict banner, compared and overwritten; its history; a clean open
// file following the disk; content search
// over these files; lines adopted into the Inbox and seen there; two agents' files compared side by
// side. Each state is saved at 1400 and 800 px, light and dark, under test-results/
// (agent-files-*.png) for a person to look at.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectDirName } from '../../src/main/harvest/claude-transcript';
import { type Browser, endSuite } from '../support/browser';
import { contentOf, editorOf, inbox, openPage, shots } from '../support/page';
import type { Sandbox } from '../support/sandbox';
import type { Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

let sb: Sandbox;
let served: Served;
let browser: Browser;
/** The fake user home the server sees as HOME, where the agents keep their global files. */
let userHome: string;

const CLAUDE_MD = '# Widgets\n\nUse pnpm, never npm.\nRun make test before pushing.\nKeep commits small and focused.\n';
const AGENTS_MD = '# Widgets\n\nUse npm for everything.\nRun make test before pushing.\nPrefer tabs for indentation.\n';

async function put(base: string, rel: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(path.join(base, rel)), { recursive: true });
  await fs.writeFile(path.join(base, rel), text);
}

const section = (page: Page) => page.getByRole('region', { name: "Other agents' files" });
const fileRow = (page: Page, id: string) => section(page).getByRole('button', { name: id, exact: true });
const open = () => openPage(browser.context, served.address, { row: '/memories/project/build.md' });

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(
    async (box) => {
      sb = box;
      userHome = path.join(sb.dir, 'user');
      // Global files, where each agent's documentation puts them.
      await put(userHome, '.claude/CLAUDE.md', '# Me\n\nAnswer briefly.\nUse British spelling.\n');
      await put(userHome, path.join('.claude', 'projects', claudeProjectDirName(sb.checkout), 'memory', 'MEMORY.md'), '# Memory\n\n- The CI runner is slow on Mondays.\n');
      await put(userHome, '.codex/AGENTS.md', '# Codex, everywhere\n\nAsk before running migrations.\n');
      await put(userHome, '.gemini/GEMINI.md', '# Gemini\n\nExplain your plan first.\n');
      // The checkout's files.
      await put(sb.checkout, 'CLAUDE.md', CLAUDE_MD);
      await put(sb.checkout, 'AGENTS.md', AGENTS_MD);
      await put(sb.checkout, '.cursor/rules/style.mdc', '---\ndescription: Style\nalwaysApply: true\n---\nPrefer tabs for indentation.\n');
      await put(sb.checkout, '.github/copilot-instructions.md', 'Write tests with vitest.\n');
      // A file its agent reads that is no text: listed, with why it cannot be opened.
      await fs.mkdir(path.join(sb.checkout, '.github', 'instructions'), { recursive: true });
      await fs.writeFile(path.join(sb.checkout, '.github', 'instructions', 'legacy.instructions.md'), Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
      await sb.run({ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nRun make test before pushing.\n' });
    },
    () => ({ env: { HOME: userHome } }),
  ));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe("other agents' files in Chromium", () => {
  it('shows a group per agent whose files exist, global and the checkout’s, apart from memory', async () => {
    const page = await open();
    await section(page).getByRole('group', { name: 'Claude Code' }).waitFor();
    await section(page).getByText('not injected by Cairn').waitFor();
    const groups = await section(page).getByRole('group').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(groups).toEqual(['Claude Code', 'Codex', 'Cursor', 'GitHub Copilot', 'Gemini CLI']);
    const claude = section(page).getByRole('group', { name: 'Claude Code' });
    const ids = await claude.getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(ids).toEqual(['~/.claude/CLAUDE.md', expect.stringMatching(/^~\/\.claude\/projects\/.+\/memory\/MEMORY\.md$/), 'CLAUDE.md']);
    const agents = fileRow(page, 'AGENTS.md');
    await expect(agents.textContent()).resolves.toMatch(/\d+ B/);
    await expect(agents.textContent()).resolves.toContain('read by Codex');
    await expect(agents.textContent()).resolves.toMatch(/just now|\d+ min ago/);
    const legacy = section(page).getByLabel('.github/instructions/legacy.instructions.md', { exact: true });
    await expect(legacy.textContent()).resolves.toMatch(/^.*Cannot be opened: .+/);
    await expect(section(page).getByRole('button', { name: '.github/instructions/legacy.instructions.md' }).count()).resolves.toBe(0);
    await shots(page, 'agent-files-groups', { ready: () => section(page).getByRole('group', { name: 'Gemini CLI' }).waitFor() });
    // The end of the section (it scrolls on its own): the unreadable file and its reason.
    await shots(page, 'agent-files-groups-end', { ready: () => legacy.scrollIntoViewIfNeeded() });
    await page.close();
  });

  it('opens CLAUDE.md in the editor; changed on disk while edited, saving shows the conflict banner; Compare, then Overwrite keeps mine', async () => {
    const page = await open();
    await fileRow(page, 'CLAUDE.md').click();
    const editor = editorOf(page, 'CLAUDE.md');
    await editor.getByText(/Not Cairn memory: Claude Code reads this file itself/).waitFor();
    await contentOf(page, 'CLAUDE.md').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Mine: review every diff.');
    await editor.getByLabel('Unsaved changes').waitFor();
    // Someone edits the file on disk meanwhile (another agent, an editor).
    const theirs = CLAUDE_MD.replace('Use pnpm, never npm.', 'Use pnpm 9, never npm.');
    await fs.writeFile(path.join(sb.checkout, 'CLAUDE.md'), theirs);
    await page.keyboard.press('Control+s');
    const banner = editor.getByRole('alert');
    await banner.getByText(/This file was changed .* since you opened it\. Your edits are not saved yet\./).waitFor();
    expect(await fs.readFile(path.join(sb.checkout, 'CLAUDE.md'), 'utf8')).toBe(theirs);
    await banner.getByRole('button', { name: 'Compare' }).click();
    await editor.getByText('On disk now').waitFor();
    await shots(page, 'agent-files-conflict', { ready: () => editor.getByText('On disk now').waitFor() });
    await banner.getByRole('button', { name: 'Overwrite (keep mine)' }).click();
    await page.getByRole('dialog', { name: 'Overwrite CLAUDE.md?' }).getByRole('button', { name: 'Overwrite' }).click();
    await editor.getByText('Saved.').waitFor();
    expect(await fs.readFile(path.join(sb.checkout, 'CLAUDE.md'), 'utf8')).toBe(`${CLAUDE_MD}Mine: review every diff.`);

    // The save is in the file's history.
    await editor.getByRole('button', { name: 'History' }).click();
    const versions = editor.getByRole('listbox', { name: 'Versions of CLAUDE.md, newest first' });
    await versions.getByRole('option').first().waitFor();
    await expect(versions.getByRole('option').first().getAttribute('aria-label')).resolves.toMatch(/You/);
    await shots(page, 'agent-files-history', { ready: () => versions.waitFor() });
    await page.close();
  });

  it('an open file with no unsaved edits follows a change on disk by itself', async () => {
    const page = await open();
    await fileRow(page, '~/.gemini/GEMINI.md').click();
    const editor = editorOf(page, '~/.gemini/GEMINI.md');
    await contentOf(page, '~/.gemini/GEMINI.md').getByText('Explain your plan first.').waitFor();
    await fs.writeFile(path.join(userHome, '.gemini', 'GEMINI.md'), '# Gemini\n\nExplain your plan, then wait.\n');
    await editor.getByText('Updated: the file changed on disk.').waitFor();
    await contentOf(page, '~/.gemini/GEMINI.md').getByText('Explain your plan, then wait.').waitFor();
    await page.close();
  });

  it('the filter’s content search finds words in these files, in their own group, the words marked', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'Search content' }).click();
    await page.getByRole('searchbox', { name: 'Search memory content' }).fill('tabs indentation');
    const hits = section(page).getByRole('list', { name: /^Matches in other agents' files/ });
    await hits.waitFor();
    const names = await hits.getByRole('button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^AGENTS\.md, line 5$/), expect.stringMatching(/^\.cursor\/rules\/style\.mdc, line 5$/)]));
    await expect(hits.locator('mark').first().textContent()).resolves.toMatch(/tabs|indentation/i);
    await shots(page, 'agent-files-search', { ready: () => hits.waitFor() });
    await page.close();
  });

  it('adopts the selected lines of AGENTS.md into the project scope, says what happened, and the proposals wait in the Inbox', async () => {
    const page = await open();
    await fileRow(page, 'AGENTS.md').click();
    const editor = editorOf(page, 'AGENTS.md');
    const content = contentOf(page, 'AGENTS.md');
    await content.getByText('Use npm for everything.').waitFor();
    // Lines 3 to 5 selected from the keyboard.
    await content.getByText('Use npm for everything.').click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    await editor.getByRole('button', { name: 'Adopt…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adopt from AGENTS.md' });
    await expect(dialog.getByRole('radio', { name: 'The selected lines 3–5' }).isChecked()).resolves.toBe(true);
    await dialog.getByRole('radio', { name: /^Project/ }).check();
    await shots(page, 'agent-files-adopt', { ready: () => dialog.waitFor() });
    await dialog.getByRole('button', { name: 'Propose to the Inbox' }).click();
    const done = page.getByRole('dialog', { name: 'Adopted from AGENTS.md' });
    const said = done.getByRole('status');
    await said.waitFor();
    // "Run make test before pushing." is already in memory (build.md); the other two are proposed.
    await expect(said.textContent()).resolves.toBe('2 proposed to the Inbox, 1 already in memory.');
    await shots(page, 'agent-files-adopted', { ready: () => said.waitFor() });
    await done.getByRole('button', { name: 'Open the Inbox' }).click();
    await inbox(page).getByRole('listitem', { name: /: Use npm for everything\.$/ }).waitFor();
    await inbox(page).getByRole('listitem', { name: /: Prefer tabs for indentation\.$/ }).waitFor();
    await page.getByRole('button', { name: 'Inbox, 2 to review' }).waitFor();
    await page.close();
  });

  it('compares two agents’ files and a memory file: the rows they state differently, side by side', async () => {
    const page = await open();
    await section(page).getByRole('button', { name: 'Compare…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Compare files' });
    await dialog.getByRole('checkbox', { name: /^CLAUDE\.md/ }).check();
    await dialog.getByRole('checkbox', { name: /^AGENTS\.md/ }).check();
    await dialog.getByRole('checkbox', { name: /^\/memories\/project\/build\.md/ }).check();
    await shots(page, 'agent-files-compare-pick', { ready: () => dialog.waitFor() });
    await dialog.getByRole('button', { name: 'Compare 3 files' }).click();
    const table = page.getByRole('table', { name: 'Lines the files state differently' });
    await table.waitFor();
    const heads = await table.getByRole('columnheader').allTextContents();
    expect(heads.slice(1)).toHaveLength(3);
    await expect(table.textContent()).resolves.toContain('Use npm for everything.');
    await shots(page, 'agent-files-compare', { ready: () => table.waitFor() });
    await page.close();
  });
});
