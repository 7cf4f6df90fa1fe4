// @vitest-environment happy-dom
// Workspaces in the app's sidebar against the real backend: each one's
// "⋯" menu, from the keyboard, opens the setup guide of that workspace (also once memory exists,
// and for a second project), renames it (display name only) and removes it (the checkout and its
// project memory stay); a folder that went away is explained in a person's words with a way to
// remove it; "Add workspace" refuses a relative folder before anything is sent.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCheckout } from '../../../../tests/support/sandbox';
import { editorText, makeBackend, renderWithBackend, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';
import { App } from '../../app/App';

afterEach(cleanup);

async function renderApp(b: UiBackend) {
  const user = userEvent.setup();
  await renderWithBackend(<App />, b);
  const sidebar = screen.getByRole('navigation', { name: 'Workspaces' });
  return { user, sidebar };
}

/** Opens a workspace's menu from the keyboard: Tab to its "⋯" button, then Enter. */
async function openMenu(user: ReturnType<typeof userEvent.setup>, name: string): Promise<HTMLElement> {
  const button = await screen.findByRole('button', { name: `${name}: actions` });
  button.focus();
  await user.keyboard('{Enter}');
  return screen.findByRole('menu', { name: `${name}: actions` });
}

describe('a workspace\'s menu', () => {
  it('is reachable from the keyboard: arrows move, Escape closes and gives the focus back', async () => {
    const b = await makeBackend();
    const { user } = await renderApp(b);
    const menu = await openMenu(user, 'Widgets');
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual(['Connect an agent…', 'Rename…', 'Remove…']);
    expect(document.activeElement).toBe(items[0]);
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(items[1]);
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toBe(items[2]);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Widgets: actions' }));
    // ArrowDown on the button opens it too; a right click on the workspace as well.
    await user.keyboard('{ArrowDown}');
    expect(await screen.findByRole('menu', { name: 'Widgets: actions' })).toBeTruthy();
    await user.keyboard('{Escape}');
    await user.pointer({ keys: '[MouseRight]', target: screen.getByRole('button', { name: /^Widgets/, current: 'page' }) });
    expect(await screen.findByRole('menu', { name: 'Widgets: actions' })).toBeTruthy();
  });

  it('"Connect an agent…" shows the setup lines of that workspace once memory exists, and of a second project', async () => {
    const b = await makeBackend();
    await b.agent({ command: 'create', path: '/memories/project/build.md', file_text: 'Run make.' });
    const other = await makeCheckout(path.join(b.sb.dir, 'gadgets'), 'git@example.com:acme/gadgets.git');
    const second = (await b.client.workspaces.add({ name: 'Gadgets', path: other })).id;
    const { user } = await renderApp(b);
    await screen.findByRole('treeitem', { name: '/memories/project/build.md' });
    // The first-run guide is gone: memory exists.
    expect(screen.queryByRole('region', { name: 'Connect an agent' })).toBeNull();

    for (const [name, id, checkout] of [['Widgets', b.workspaceId!, b.sb.checkout], ['Gadgets', second, other]] as const) {
      const menu = await openMenu(user, name);
      await user.click(within(menu).getByRole('menuitem', { name: 'Connect an agent…' }));
      const dialog = await screen.findByRole('dialog', { name: `Connect an agent to ${name}` });
      const guides = await b.client.setup.guide({ workspaceId: id });
      const tabs = await within(dialog).findAllByRole('tab');
      expect(tabs.map((t) => t.textContent)).toEqual(guides.map((g) => g.name));
      const panel = within(dialog).getByRole('tabpanel', { name: guides[0]!.name });
      expect(within(panel).getByText(guides[0]!.command, { selector: 'code' })).toBeTruthy();
      // The files it merges into are this workspace's checkout's.
      expect(guides[0]!.files.some((f) => f.path.startsWith(`${checkout}/`))).toBe(true);
      for (const f of guides[0]!.files) expect(within(panel).getByText(`Or merge it yourself into ${f.path}`)).toBeTruthy();
      await user.click(within(dialog).getByRole('button', { name: 'Close' }));
      expect(screen.queryByRole('dialog')).toBeNull();
      expect(document.activeElement).toBe(screen.getByRole('button', { name: `${name}: actions` }));
    }
  });

  it('"Rename…" changes the name shown and stored, and nothing else', async () => {
    const b = await makeBackend();
    await b.agent({ command: 'create', path: '/memories/workspace/w.md', file_text: 'w' });
    const { user, sidebar } = await renderApp(b);
    await user.click(within(await openMenu(user, 'Widgets')).getByRole('menuitem', { name: 'Rename…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename Widgets' });
    const field = within(dialog).getByRole('textbox', { name: 'Name' }) as HTMLInputElement;
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, 'Widgets'.length]);
    await user.keyboard('Widgets (main){Enter}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await within(sidebar).findByText('Widgets (main)')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Widgets (main)' })).toBeTruthy();
    expect(await b.client.workspaces.list()).toEqual([{ id: b.workspaceId, name: 'Widgets (main)', kind: 'local', path: b.sb.checkout, host: null }]);
    expect((await b.client.memory.list({ workspaceId: b.workspaceId })).files.map((f) => f.path)).toEqual(['/memories/workspace/w.md']);
  });

  it('"Remove…" says the checkout and its project memory are untouched, and removes only the registration', async () => {
    const b = await makeBackend();
    await b.agent({ command: 'create', path: '/memories/project/build.md', file_text: 'Run make.' });
    await b.agent({ command: 'create', path: '/memories/workspace/w.md', file_text: 'w' });
    const { user, sidebar } = await renderApp(b);
    await user.click(within(await openMenu(user, 'Widgets')).getByRole('menuitem', { name: 'Remove…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove Widgets?' });
    expect(dialog.textContent).toContain(`The checkout at ${b.sb.checkout} and its project memory (.cairn/memory in it) are untouched`);
    expect(await within(dialog).findByText(/Its workspace memory \(1 file, kept for this checkout in Cairn's own folder\) is deleted\./)).toBeTruthy();
    // Cancel is where the focus starts: Enter alone removes nothing.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(within(dialog).getByRole('button', { name: 'Remove workspace' }));
    await waitFor(() => expect(within(sidebar).queryByText('Widgets')).toBeNull());
    expect(await within(sidebar).findByText('None yet: add the folder of a project your agents work in.')).toBeTruthy();
    expect(await b.client.workspaces.list()).toEqual([]);
    expect(await fs.readFile(path.join(b.sb.roots.project, 'build.md'), 'utf8')).toBe('Run make.');
  });
});

describe('a workspace whose folder went away', () => {
  it('is explained in a person\'s words in the sidebar and the tree, with Remove… at hand', async () => {
    const b = await makeBackend();
    await fs.rm(b.sb.checkout, { recursive: true });
    const { user, sidebar } = await renderApp(b);
    const said = `The folder ${b.sb.checkout} no longer exists. Remove this workspace, or restore the folder.`;
    expect(await within(sidebar).findByText(said)).toBeTruthy();
    // The tree's project scope says the same, not the agents' "not inside a git repository".
    await screen.findByRole('treeitem', { name: 'PROJECT memory, 0 files' });
    expect(screen.getAllByRole('treeitem').map((r) => r.getAttribute('aria-label'))).toContain(said);
    expect(document.body.textContent).not.toMatch(/git repository/);
    await user.click(within(sidebar).getByRole('button', { name: 'Remove…' }));
    expect(await screen.findByRole('dialog', { name: 'Remove Widgets?' })).toBeTruthy();
  });
});

describe('the current workspace', () => {
  it('clicked again with unsaved edits, does nothing: no question, the edits stay', async () => {
    const b = await makeBackend();
    await b.agent({ command: 'create', path: '/memories/project/build.md', file_text: 'Run make.' });
    const { user, sidebar } = await renderApp(b);
    await user.click(await screen.findByRole('treeitem', { name: '/memories/project/build.md' }));
    await waitFor(() => expect(editorText()).toContain('Run make.'));
    typeInEditor('Run make twice.');
    await user.click(within(sidebar).getByRole('button', { name: /^Widgets/, current: 'page' }));
    expect(screen.queryByRole('dialog', { name: 'Discard unsaved changes?' })).toBeNull();
    expect(editorText()).toBe('Run make twice.');
  });
});

describe('"Add workspace"', () => {
  it('refuses a relative folder in the dialog, though it names a real folder from the server\'s directory', async () => {
    const b = await makeBackend({ workspace: false });
    const { user, sidebar } = await renderApp(b);
    await user.click(within(sidebar).getByRole('button', { name: 'Add workspace' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add workspace' });
    const relative = path.relative(process.cwd(), b.sb.checkout);
    await user.type(within(dialog).getByRole('textbox', { name: 'Folder (absolute path)' }), relative);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      `The folder must be an absolute path that starts with /, such as /home/you/src/project; "${relative}" is relative. Cairn does not guess what it is relative to.`,
    );
    expect(await b.client.workspaces.list()).toEqual([]);
    // The absolute path of the same folder is taken.
    const field = within(dialog).getByRole('textbox', { name: 'Folder (absolute path)' });
    await user.clear(field);
    await user.type(field, b.sb.checkout);
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((await b.client.workspaces.list()).map((w) => w.path)).toEqual([b.sb.checkout]);
  });
});
