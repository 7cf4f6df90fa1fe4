// The curation UI in real Chromium against `cairn serve` with a temp home: the page connects with the
// token from the address (then drops it), shows the scope tree, shows agents' writes from other
// processes and outside edits live as badges, catches a conflicting save without losing anything,
// keeps pins across reloads, asks before deleting, and shows global memory with no workspace.
// Every test saves a screenshot under test-results/ so a person can look at what the UI showed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runCairn, runJsonl, stopProcess } from '../support/cli';
import { contentOf, editorOf, openPage, row, shot, typeAtEnd } from '../support/page';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { type Served, rpc, serve } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';


let sb: Sandbox;
let served: Served;
let browser: Browser;

const agent = (...commands: object[]) => runJsonl(['--home', sb.home, '--cwd', sb.checkout], commands);
/** A tab with the tree loaded and the change stream live (agents' and outside edits show up from then on). */
const open = () => openPage(browser.context, served.address, { width: 1280, height: 760, row: '/memories/project/build.md' });

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await agent(
      { command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and test\n---\nmake test\n' },
      { command: 'create', path: '/memories/project/decisions/storage.md', file_text: '---\ndescription: Why SQLite\n---\nSQLite.\n' },
      { command: 'create', path: '/memories/project/decisions/api.md', file_text: '---\ndescription: REST over gRPC\n---\nREST.\n' },
      { command: 'create', path: '/memories/global/style.md', file_text: '---\ndescription: <b>Tabs</b>, short commits\n---\nTabs.\n' },
      { command: 'view', path: '/memories/global/style.md' },
    );
  }));
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('the curation UI in Chromium', () => {
  it('shows the scope tree written by agents, descriptions as text, and drops the token from the address', async () => {
    const page = await open();
    expect(page.url()).not.toContain('token');
    const tree = page.getByRole('tree');
    await expect(tree.getByRole('treeitem', { name: /^GLOBAL memory, 1 file/ }).isVisible()).resolves.toBe(true);
    await expect(row(page, '/memories/project/decisions').getAttribute('aria-expanded')).resolves.toBe('true');
    // Directories first, then files, alphabetical.
    const names = await tree.getByRole('treeitem').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names.indexOf('/memories/project/decisions')).toBeLessThan(names.indexOf('/memories/project/build.md'));
    expect(names.indexOf('/memories/project/decisions/api.md')).toBeLessThan(names.indexOf('/memories/project/decisions/storage.md'));
    // A description is text, never markup; usage shows.
    await expect(row(page, '/memories/global/style.md').getByText('<b>Tabs</b>, short commits').isVisible()).resolves.toBe(true);
    expect(await page.locator('.row b').count()).toBe(0);
    await expect(row(page, '/memories/global/style.md').getByText(/Used 2× · just now/).isVisible()).resolves.toBe(true);
    await shot(page, 'tree');
    await page.close();
  });

  it('badges a write by an agent in another process, live, and clears the badge when the file is opened', async () => {
    const page = await open();
    const result = await runCairn(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'create', path: '/memories/project/from-agent.md', file_text: '---\ndescription: Learned from CI\n---\nhello\n' })]);
    expect(result.status).toBe(0);
    const r = row(page, '/memories/project/from-agent.md');
    await r.getByText('agent edited').waitFor({ timeout: 15_000 }); // a passing wait ends at once; this is for a loaded machine
    await shot(page, 'agent-edited-badge');
    await r.click();
    await editorOf(page, '/memories/project/from-agent.md').getByText('hello').waitFor();
    await r.getByText('agent edited').waitFor({ state: 'detached' }); // opening it clears the badge, once the page has handled it
    await page.close();
  });

  it('badges an edit made outside Cairn, live', async () => {
    const page = await open();
    await fs.writeFile(path.join(sb.roots.project, 'edited-in-vim.md'), 'written by hand\n');
    await row(page, '/memories/project/edited-in-vim.md').getByText('edited outside Cairn').waitFor({ timeout: 15_000 });
    await shot(page, 'external-edit-badge');
    await page.close();
  });

  it('catches an agent edit between open and save: the banner says so, nothing is lost, and the person chooses', async () => {
    await agent({ command: 'create', path: '/memories/project/conflict.md', file_text: 'line one\n' });
    const page = await open();
    const editor = await typeAtEnd(page, '/memories/project/conflict.md', 'my draft line');
    // The agent writes while the person edits.
    await agent({ command: 'str_replace', path: '/memories/project/conflict.md', old_str: 'line one', new_str: 'agent line' });
    await page.keyboard.press('Control+s');
    const banner = editor.getByRole('alert');
    await banner.getByText('changed by an agent since you opened it').waitFor();
    // Nothing lost: the agent's version is on disk; mine is in the merge the editor shows (the
    // edits touch different lines, so it offers both together before anything is saved).
    expect(await fs.readFile(path.join(sb.roots.project, 'conflict.md'), 'utf8')).toBe('agent line\n');
    await expect(editor.textContent()).resolves.toContain('my draft line');
    await expect(editor.textContent()).resolves.toContain('agent line');
    await banner.getByRole('button', { name: 'Compare' }).click();
    await editor.getByText('On disk now').waitFor();
    await shot(page, 'conflict');
    // Overwrite asks first, then keeps mine.
    await banner.getByRole('button', { name: 'Overwrite (keep mine)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Overwrite conflict.md?' });
    await confirm.getByRole('button', { name: 'Overwrite' }).click();
    await editor.getByRole('status').getByText('Saved.').waitFor();
    expect(await fs.readFile(path.join(sb.roots.project, 'conflict.md'), 'utf8')).toBe('line one\nmy draft line');
    await page.close();
  });

  it('keeps a pin across a reload', async () => {
    const page = await open();
    const r = row(page, '/memories/project/build.md');
    await r.hover();
    await r.getByRole('button', { name: 'Pin', exact: true }).click();
    await r.getByLabel('Pinned').waitFor();
    await page.reload();
    await r.getByLabel('Pinned').waitFor();
    await r.hover();
    await expect(r.getByRole('button', { name: 'Unpin' }).count()).resolves.toBe(1);
    const stats = await runCairn(['stats', '--json', '--home', sb.home, '--cwd', sb.checkout]);
    expect(stats.stdout).toMatch(/"pinned":\s*true/);
    await shot(page, 'pinned');
    await page.close();
  });

  it('asks before deleting, naming the file, and for a directory how many files go with it', async () => {
    const page = await open();
    const dir = row(page, '/memories/project/decisions');
    await dir.hover();
    await dir.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete /memories/project/decisions?' });
    await dialog.getByText('the 2 files in it').waitFor();
    await shot(page, 'delete-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await fs.access(path.join(sb.roots.project, 'decisions', 'api.md'));
    // From the keyboard: focus the row, Delete, confirm.
    await row(page, '/memories/project/decisions/api.md').focus();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: 'Delete /memories/project/decisions/api.md?' }).getByRole('button', { name: 'Delete' }).click();
    await row(page, '/memories/project/decisions/api.md').waitFor({ state: 'detached' });
    await expect(fs.access(path.join(sb.roots.project, 'decisions', 'api.md'))).rejects.toThrow();
    await page.close();
  });

  it('renames (moves) a file with F2, and the open editor follows it', async () => {
    await agent({ command: 'create', path: '/memories/project/old-name.md', file_text: 'keep me\n' });
    const page = await open();
    await row(page, '/memories/project/old-name.md').click();
    await editorOf(page, '/memories/project/old-name.md').getByText('keep me').waitFor();
    await row(page, '/memories/project/old-name.md').focus();
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Rename /memories/project/old-name.md' });
    await dialog.getByLabel(/New path/).fill('archive/new-name.md');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await row(page, '/memories/project/archive/new-name.md').waitFor();
    await editorOf(page, '/memories/project/archive/new-name.md').getByText('keep me').waitFor();
    expect(await fs.readFile(path.join(sb.roots.project, 'archive', 'new-name.md'), 'utf8')).toBe('keep me\n');
    await expect(fs.access(path.join(sb.roots.project, 'old-name.md'))).rejects.toThrow();
    await page.close();
  });

  it('narrows the tree as you type in the filter, focused with /', async () => {
    const page = await open();
    await page.keyboard.press('/');
    await page.keyboard.type('sqlite');
    await row(page, '/memories/project/build.md').waitFor({ state: 'detached' });
    await expect(row(page, '/memories/project/decisions/storage.md').isVisible()).resolves.toBe(true);
    await page.close();
  });

  it('creates a memory from the UI, edits and saves it, with a warning first when it holds a secret', async () => {
    const page = await open();
    await page.getByRole('button', { name: 'New memory' }).click();
    const dialog = page.getByRole('dialog', { name: 'New memory' });
    await dialog.getByLabel('Name').fill('ops/deploy');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const editor = editorOf(page, '/memories/project/ops/deploy.md');
    const content = contentOf(page, '/memories/project/ops/deploy.md');
    await content.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('token ghp_m0xVQzJXtw3XVBOsrT5mH3DaWvTrmFLHBMUA');
    await editor.getByRole('button', { name: 'Save' }).click();
    const warning = page.getByRole('dialog', { name: 'Save a file the scanners flag?' });
    await warning.getByText(/GitHub token/i).waitFor();
    await shot(page, 'scanner-warning');
    await warning.getByRole('button', { name: 'Cancel' }).click();
    // A new memory is not on disk until its first save.
    await expect(fs.access(path.join(sb.roots.project, 'ops', 'deploy.md'))).rejects.toThrow();
    await editor.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog', { name: 'Save a file the scanners flag?' }).getByRole('button', { name: 'Save anyway' }).click();
    await editor.getByRole('status').getByText('Created /memories/project/ops/deploy.md.').waitFor();
    expect(await fs.readFile(path.join(sb.roots.project, 'ops', 'deploy.md'), 'utf8')).toContain('token ghp_');
    await row(page, '/memories/project/ops/deploy.md').getByText('flagged').waitFor();
    await page.close();
  });

  it('without the token, says how to get in', async () => {
    const page = await browser.context.newPage();
    // This browser kept the token from the tests above (as a person's does); a new one has none.
    await page.goto(served.origin);
    await page.evaluate(() => localStorage.removeItem('cairn.token'));
    await page.reload();
    await page.getByText('Open the address `cairn serve` printed').waitFor();
    await page.close();
  });
});

describe('a large memory', () => {
  it('renders 3 x 1000 files virtualized: few rows in the page, every file reachable by scrolling and by keyboard', async () => {
    const big = await makeSandbox();
    const s = await serve(big.home);
    try {
      // The registry picks the workspace's id; its scope root is under the home.
      const { id } = (await rpc(s, 'workspaces/add', { name: 'big', path: big.checkout })) as { id: string };
      const roots = { global: big.roots.global, project: big.roots.project, workspace: path.join(big.home, 'workspaces', id, 'memory') };
      for (const [scope, root] of Object.entries(roots)) {
        for (let d = 0; d < 10; d++) {
          const dir = path.join(root, `topic-${String(d).padStart(2, '0')}`);
          await fs.mkdir(dir, { recursive: true });
          await Promise.all(
            Array.from({ length: 100 }, (_, i) => fs.writeFile(path.join(dir, `note-${String(i).padStart(3, '0')}.md`), `---\ndescription: ${scope} note ${d}/${i}\n---\nbody\n`)),
          );
        }
      }
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 760 });
      await page.goto(s.address);
      await page.getByRole('treeitem', { name: /^GLOBAL memory, 1000 files/ }).waitFor();
      // A tree this large starts with its directories closed: open them all.
      await page.getByRole('button', { name: 'Expand all' }).click();
      await page.getByRole('treeitem', { name: '/memories/global/topic-00/note-000.md' }).waitFor();
      expect(await page.getByRole('treeitem').count()).toBeLessThan(100);
      // End jumps to the last row, which is then in view.
      await page.getByRole('treeitem', { name: '/memories/global/topic-00/note-000.md' }).focus();
      await page.keyboard.press('End');
      const last = page.getByRole('treeitem', { name: '/memories/workspace/topic-09/note-099.md' });
      await last.waitFor();
      await expect(last.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await shot(page, 'large-tree');
      await page.close();
    } finally {
      await stopProcess(s.server);
      await big.cleanup();
    }
  });
});

describe('with no workspace at all', () => {
  it('welcomes the newcomer; global memory alone, in Settings, shows how to connect an agent when it is empty', async () => {
    const empty = await makeSandbox();
    const s = await serve(empty.home);
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 760 });
      await page.goto(s.address);
      await page.getByRole('heading', { name: 'Welcome to Cairn' }).waitFor();
      await page.getByRole('button', { name: 'Only global memory for now' }).click();
      await page.getByRole('heading', { name: 'Global memory' }).waitFor();
      await page.getByRole('heading', { name: 'No memories yet' }).waitFor();
      await page.getByRole('tabpanel', { name: 'Claude Code' }).getByText(/setup claude --cwd/).waitFor();
      await shot(page, 'first-run');
      await runJsonl(['--home', empty.home, '--cwd', empty.checkout], [{ command: 'create', path: '/memories/global/prefs.md', file_text: '---\ndescription: Prefers small PRs\n---\nsmall\n' }]);
      await page.getByRole('treeitem', { name: '/memories/global/prefs.md' }).waitFor({ timeout: 15_000 });
      await page.close();
    } finally {
      await stopProcess(s.server);
      await empty.cleanup();
    }
  });
});
