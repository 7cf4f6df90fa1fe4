// Workspaces, setup help and the preview in real Chromium against `cairn serve` with a temp home
//: a note's table and task list rendered as GitHub renders them;
// "Connect an agent…" from each workspace's menu at 1400 and 800 px, with memory already there and
// for a second project; Rename… and Remove… from the keyboard; a workspace whose folder was deleted
// explained in a person's words; a relative folder refused by "Add workspace". Each state is saved
// at 1400 and 800 px wide, light and dark, under test-results/ (workspaces-*.png) for a person to look at.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, endSuite } from '../support/browser';
import { runJsonl } from '../support/cli';
import { editorOf, openPage, row, shots } from '../support/page';
import { makeCheckout, type Sandbox } from '../support/sandbox';
import { rpc, type Served } from '../support/serve';
import { openWorkspaceSuite } from '../support/workspace-suite';

const P = '/memories/project';
const MATRIX = [
  '---',
  'description: Build matrix',
  '---',
  '# Targets',
  '',
  '| Target | Command | Notes |',
  '| ------ | ------- | ----- |',
  '| linux  | `make`  | ~~ninja~~ is gone |',
  '| mac    | `make -j8` | see https://example.com/mac |',
  '',
  '- [x] pin the toolchain',
  '- [ ] cache the build',
  '',
].join('\n');

let sb: Sandbox;
let served: Served;
let browser: Browser;
let gadgets: string;

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Workspaces' });

async function open(): Promise<Page> {
  const page = await openPage(browser.context, served.address, { live: false });
  await sidebar(page).getByRole('button', { name: 'widgets: actions' }).waitFor();
  return page;
}

/** Opens a workspace's menu from the keyboard (focus its "⋯" button, Enter). */
async function openMenu(page: Page, name: string) {
  const menu = page.getByRole('menu', { name: `${name}: actions` });
  // A resize just made (setViewportSize) closes an open menu when the page handles its event: let
  // the page render two frames first, so that close cannot land after this open.
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  // Enter on the button of an open menu closes it: open it only when it is not open already.
  if (!(await menu.isVisible())) {
    await sidebar(page).getByRole('button', { name: `${name}: actions` }).focus();
    await page.keyboard.press('Enter');
  }
  await menu.waitFor();
  return menu;
}

/** Whether all of an element's box is inside the viewport. */
const onScreen = (page: Page, locator: ReturnType<Page['locator']>) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight;
  });

beforeAll(async () => {
  ({ sb, served, browser } = await openWorkspaceSuite(async (box) => {
    sb = box;
    await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'create', path: `${P}/build-matrix.md`, file_text: MATRIX }]);
    gadgets = await makeCheckout(path.join(sb.dir, 'gadgets'), 'git@example.com:acme/gadgets.git');
  }));
  await rpc(served, 'workspaces/add', { name: 'gadgets', path: gadgets });
});
afterAll(() => endSuite({ browsers: [browser], served, sb }));

describe('workspaces, setup help and the preview in Chromium', () => {
  it('the preview renders a table and a task list as GitHub does', async () => {
    const page = await open();
    await row(page, `${P}/build-matrix.md`).click();
    const editor = editorOf(page, `${P}/build-matrix.md`);
    await editor.getByRole('button', { name: /Preview/ }).click();
    const preview = editor.getByLabel('Rendered preview');
    const table = preview.getByRole('table');
    await table.waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Target', 'Command', 'Notes']);
    expect(await preview.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).checked))).toEqual([true, false]);
    expect(await preview.locator('del').textContent()).toBe('ninja');
    await preview.getByRole('link', { name: 'https://example.com/mac' }).waitFor();
    await shots(page, 'workspaces-preview-gfm', { ready: () => table.waitFor() });
    await page.close();
  });

  it('"Connect an agent…" is in every workspace\'s menu, at 800 px, with memory there and for a second project', async () => {
    const page = await open();
    await row(page, `${P}/build-matrix.md`).waitFor();
    await shots(page, 'workspaces-menu-open', { ready: () => openMenu(page, 'widgets') });
    await page.keyboard.press('Escape');
    for (const [name, checkout] of [['widgets', sb.checkout], ['gadgets', gadgets]] as const) {
      for (const width of [1400, 800]) {
        await page.setViewportSize({ width, height: 800 });
        const menu = await openMenu(page, name);
        expect(await onScreen(page, menu)).toBe(true);
        // The first item has the focus: Enter opens it.
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog', { name: `Connect an agent to ${name}` });
        const command = dialog.getByRole('tabpanel').locator('.code-line code').first();
        await command.waitFor();
        expect(await command.textContent()).toMatch(/setup/);
        expect(await onScreen(page, command)).toBe(true);
        await dialog.getByText(new RegExp(`Or merge it yourself into ${checkout.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`)).first().waitFor();
        if (width === 800 && name === 'widgets') await shots(page, 'workspaces-connect-agent', { ready: () => command.waitFor() });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
    }
    await page.close();
  });

  it('Rename… changes the name shown; Remove… says what stays and removes the workspace', async () => {
    const page = await open();
    await (await openMenu(page, 'gadgets')).getByRole('menuitem', { name: 'Rename…' }).press('Enter');
    const rename = page.getByRole('dialog', { name: 'Rename gadgets' });
    await shots(page, 'workspaces-rename', { ready: () => rename.waitFor() });
    await page.keyboard.type('Gadgets (main)');
    await page.keyboard.press('Enter');
    await sidebar(page).getByText('Gadgets (main)', { exact: true }).waitFor();

    const menu = await openMenu(page, 'Gadgets (main)');
    await page.keyboard.press('End');
    await menu.getByRole('menuitem', { name: 'Remove…' }).press('Enter');
    const remove = page.getByRole('dialog', { name: 'Remove Gadgets (main)?' });
    await remove.getByText(`The checkout at ${gadgets} and its project memory`, { exact: false }).waitFor();
    await shots(page, 'workspaces-remove', { ready: () => remove.waitFor() });
    await remove.getByRole('button', { name: 'Remove workspace' }).click();
    await sidebar(page).getByText('Gadgets (main)', { exact: true }).waitFor({ state: 'detached' });
    await fs.access(gadgets);
    expect(((await rpc(served, 'workspaces/list', undefined)) as { name: string }[]).map((w) => w.name)).toEqual(['widgets']);
    await page.close();
  });

  it('a workspace whose folder was deleted is explained in a person\'s words', async () => {
    const gone = await makeCheckout(path.join(sb.dir, 'gone'), 'git@example.com:acme/gone.git');
    const added = (await rpc(served, 'workspaces/add', { name: 'old-project', path: gone })) as { id: string };
    await fs.rm(gone, { recursive: true });
    const page = await open();
    await sidebar(page).getByRole('button', { name: /^old-project/ }).first().click();
    const said = `The folder ${gone} no longer exists. Remove this workspace, or restore the folder.`;
    await sidebar(page).getByText(said).waitFor();
    await page.getByRole('treeitem', { name: said }).waitFor();
    expect(await page.locator('body').textContent()).not.toMatch(/git repository/);
    await shots(page, 'workspaces-folder-gone', { ready: () => sidebar(page).getByText(said).waitFor() });
    await sidebar(page).getByRole('button', { name: 'Remove…' }).click();
    await page.getByRole('dialog', { name: 'Remove old-project?' }).getByRole('button', { name: 'Remove workspace' }).click();
    await sidebar(page).getByText(said).waitFor({ state: 'detached' });
    expect(((await rpc(served, 'workspaces/list', undefined)) as { id: string }[]).map((w) => w.id)).not.toContain(added.id);
    await page.close();
  });

  it('"Add workspace" refuses a relative folder, saying why', async () => {
    const page = await open();
    await sidebar(page).getByRole('button', { name: 'Add workspace' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add workspace' });
    await dialog.getByRole('textbox', { name: 'Folder (absolute path)' }).fill('src/widgets');
    await dialog.getByRole('button', { name: 'Add' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The folder must be an absolute path that starts with /, such as /home/you/src/project; "src/widgets" is relative. Cairn does not guess what it is relative to.');
    await shots(page, 'workspaces-add-relative', { ready: () => alert.waitFor() });
    // The server refuses it too, without resolving it against its own directory.
    await expect(rpc(served, 'workspaces/add', { name: 'x', path: 'src/widgets' })).rejects.toThrow(/is relative/);
    await page.close();
  });

  it('a settings file broken by hand is named, with its line and column, and left as it is', async () => {
    const file = path.join(sb.home, 'config.json');
    const good = await fs.readFile(file, 'utf8');
    const broken = good.replace(/\}\s*$/, ',}\n');
    await fs.writeFile(file, broken);
    try {
      const page = await openPage(browser.context, served.address, { live: false });
      const alert = sidebar(page).getByRole('alert');
      await alert.waitFor();
      const shown = (await alert.textContent()) ?? '';
      expect(shown).toContain(`Could not load workspaces: Cairn's settings file ${file} does not parse: line `);
      expect(shown).toMatch(/line \d+, column \d+: .*fix it by hand/);
      await shots(page, 'workspaces-settings-broken', { ready: () => alert.waitFor() });
      // Changing a setting is refused, and the file stays as the person left it.
      await expect(rpc(served, 'settings/set', { theme: 'dark' })).rejects.toThrow(/does not parse/);
      expect(await fs.readFile(file, 'utf8')).toBe(broken);
      await page.close();
    } finally {
      await fs.writeFile(file, good);
    }
  });
});
