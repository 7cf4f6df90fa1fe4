// @vitest-environment happy-dom
// The explorer's expectations against the real backend (renderPane: the router over a sandbox
// home, the real ContextBuilder and memory_search code): content search ranked as agents'
// memory_search ranks, with highlights and the keyboard; the sort control, remembered; the view of
// what agents receive with its budgets; the row menu by mouse and keyboard; the multi-selection with
// bulk pin and bulk delete (each delete in the history); drag and drop to move within a scope, and
// the refusal across scopes in the rename dialog's words.
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_INJECTION } from '../../../common/context/injection';
import { utf8Length } from '../../../common/context/render';
import { agentSearchPaths } from '../../../../tests/support/agent-search';
import { makeBackend, renderPane, rowNames, type UiBackend } from '../../../../tests/support/ui-backend';
import { kib } from '../context-preview/ContextPreview';
import { TREE_SORT_KEY } from './MemoryBrowser';

afterEach(cleanup);

const P = '/memories/project';
const G = '/memories/global';

async function seeded(): Promise<UiBackend> {
  const b = await makeBackend();
  await b.write(`${G}/prefs.md`, '---\ndescription: How I like things\n---\nTabs, never spaces.\n');
  await b.write(`${P}/build.md`, '---\ndescription: Building the project\n---\nRun make test before pushing.\nThe flaky webpack step needs a retry.\n');
  await b.write(`${P}/deploy.md`, '---\ndescription: Shipping it\n---\nwebpack builds the bundle; webpack config lives in tools/.\nDeploy with fly.\n');
  await b.write(`${P}/notes/ideas.md`, 'Nothing about bundlers here.\n');
  await b.write(`${P}/notes/old.md`, 'Old notes.\n');
  return b;
}

const item = (name: string) => screen.getByRole('treeitem', { name });

async function contentMode(user: ReturnType<typeof userEvent.setup>): Promise<HTMLElement> {
  await user.click(screen.getByRole('button', { name: 'Search content' }));
  return screen.getByRole('searchbox', { name: 'Search memory content' });
}

describe('content search', () => {
  it('finds words inside files, ranked exactly as memory_search ranks them, with the matches highlighted', async () => {
    const user = userEvent.setup();
    const b = await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    // The path and description filter does not see file content.
    await user.type(screen.getByRole('searchbox', { name: 'Filter memories' }), 'webpack');
    await waitFor(() => expect(screen.getAllByText('Nothing matches the filter.')).toHaveLength(3));

    const box = await contentMode(user);
    expect((box as HTMLInputElement).value).toBe('webpack');
    const list = await screen.findByRole('listbox', { name: 'Content matches (2)' });
    const shown = within(list).getAllByRole('option').map((o) => o.getAttribute('aria-label'));

    // What an agent's memory_search answers for the same words, in the same order.
    expect(shown).toEqual(await agentSearchPaths(b, 'webpack'));
    expect(shown).toEqual([`${P}/deploy.md`, `${P}/build.md`]);

    // The line shown is the file's matching line, its matching words marked.
    const deploy = within(list).getByRole('option', { name: `${P}/deploy.md` });
    expect(deploy.textContent).toContain('webpack builds the bundle; webpack config lives in tools/.');
    expect([...deploy.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['webpack', 'webpack']);
    const build = within(list).getByRole('option', { name: `${P}/build.md` });
    expect(build.querySelector('mark')?.textContent).toBe('webpack');
    expect(build.textContent).toContain('The flaky webpack step needs a retry.');
  });

  it('says when nothing matches, and moves with the arrows and opens with Enter', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    const box = await contentMode(user);
    await user.type(box, 'kubernetes');
    await screen.findByText(/No memory matches “kubernetes”/);

    await user.clear(box);
    await user.type(box, 'webpack bundle');
    await screen.findByRole('listbox', { name: /Content matches/ });
    await user.keyboard('{ArrowDown}');
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe(`${P}/deploy.md`));
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement?.getAttribute('aria-label')).toBe(`${P}/build.md`);
    await user.keyboard('{Enter}');
    await screen.findByRole('region', { name: `Editor: ${P}/build.md` });
    // Up from the first result goes back to the field.
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toBe(box);
  });
});

describe('sort', () => {
  it('orders files within each directory by uses, last used or last written, and remembers the choice', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    // A person's writes are no uses (they do not move the hot set); these are agents' uses at fixed times.
    const now = Date.now();
    await b.recordUses(`${P}/deploy.md`, 5, new Date(now - 3 * 86_400_000));
    await b.recordUses(`${P}/build.md`, 2, new Date(now + 60_000));
    await b.recordUses(`${P}/notes/ideas.md`, 1, new Date(now - 2_000));
    await b.recordUses(`${P}/notes/old.md`, 1, new Date(now - 1_000));
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    const project = () => rowNames().filter((n) => n.startsWith(`${P}/`));
    const sortBy = (label: string) => user.selectOptions(screen.getByRole('combobox', { name: 'Sort files by' }), label);
    const byName = [`${P}/notes`, `${P}/notes/ideas.md`, `${P}/notes/old.md`, `${P}/build.md`, `${P}/deploy.md`];
    expect(project()).toEqual(byName);

    // Directories keep their place; files within each directory, most first.
    await sortBy('Uses');
    await waitFor(() => expect(project()).toEqual([`${P}/notes`, `${P}/notes/ideas.md`, `${P}/notes/old.md`, `${P}/deploy.md`, `${P}/build.md`]));
    await sortBy('Last written');
    await waitFor(() => expect(project()).toEqual([`${P}/notes`, `${P}/notes/old.md`, `${P}/notes/ideas.md`, `${P}/deploy.md`, `${P}/build.md`]));
    await sortBy('Last used');
    await waitFor(() => expect(project()).toEqual([`${P}/notes`, `${P}/notes/old.md`, `${P}/notes/ideas.md`, `${P}/build.md`, `${P}/deploy.md`]));
    expect(localStorage.getItem(TREE_SORT_KEY)).toBe('used');

    // A new page (the same browser) starts with it.
    cleanup();
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    expect((screen.getByRole('combobox', { name: 'Sort files by' }) as HTMLSelectElement).value).toBe('used');
    expect(project()).toEqual([`${P}/notes`, `${P}/notes/old.md`, `${P}/notes/ideas.md`, `${P}/build.md`, `${P}/deploy.md`]);
    await sortBy('Name');
    await waitFor(() => expect(project()).toEqual(byName));
  });
});

describe('what agents receive', () => {
  it('shows the index and the hot set exactly as the context builder renders them, with their byte budgets', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await b.client.memory.setPinned({ workspaceId: b.workspaceId, path: `${P}/deploy.md`, pinned: true });
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    await user.click(screen.getByRole('button', { name: 'What agents receive' }));
    const dialog = await screen.findByRole('dialog', { name: 'What agents receive' });
    const index = await within(dialog).findByRole('region', { name: 'Memory index' });
    const hot = within(dialog).getByRole('region', { name: 'Hot set' });

    const snapshot = await b.host.builder.snapshot(b.session);
    const indexText = b.host.builder.index(snapshot);
    const hotText = await b.host.builder.hotSet(snapshot, b.session);
    expect(index.querySelector('pre')?.textContent).toBe(indexText);
    expect(hot.querySelector('pre')?.textContent).toBe(hotText);
    expect(indexText).toContain(`${P}/build.md: Building the project`);
    expect(hotText).toContain('webpack builds the bundle');
    within(index).getByText(`index: ${kib(utf8Length(indexText))} of 24 KiB`);
    within(hot).getByText(`hot set: ${kib(utf8Length(hotText))} of 48 KiB`);
  });

  it('says the hot set is off when its budget is 0 (Settings, Agent context), with an empty meter', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await b.client.memory.setPinned({ workspaceId: b.workspaceId, path: `${P}/deploy.md`, pinned: true });
    await b.client.settings.set({ injection: { ...DEFAULT_INJECTION, hotSetMaxBytes: 0 } });
    await renderPane(b);
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    await user.click(screen.getByRole('button', { name: 'What agents receive' }));
    const dialog = await screen.findByRole('dialog', { name: 'What agents receive' });
    const hot = await within(dialog).findByRole('region', { name: 'Hot set' });
    within(hot).getByText('hot set: off (its budget is 0 in Settings, Agent context)');
    expect(hot.querySelector('pre')?.textContent).toBe('');
    expect(within(hot).getByRole('meter').querySelector('span')?.getAttribute('style')).toContain('width: 0.0%');
  });
});

describe('the row menu', () => {
  it('opens on a right click with open, rename, pin, copy virtual path and delete, each doing what it says', async () => {
    const user = userEvent.setup();
    const b = await renderPane(await seeded());
    const row = await screen.findByRole('treeitem', { name: `${P}/build.md` });
    fireEvent.contextMenu(row, { clientX: 40, clientY: 60 });
    const menu = screen.getByRole('menu', { name: `Actions for ${P}/build.md` });
    expect(within(menu).getAllByRole('menuitem').map((m) => m.textContent)).toEqual(['OpenEnter', 'Rename or move…F2', 'Pin', 'Copy virtual path', 'Delete…Del']);
    expect(document.activeElement?.textContent).toBe('OpenEnter');

    await user.click(within(menu).getByRole('menuitem', { name: 'Copy virtual path' }));
    expect(await navigator.clipboard.readText()).toBe(`${P}/build.md`);
    expect(screen.queryByRole('menu')).toBeNull();

    fireEvent.contextMenu(item(`${P}/build.md`), { clientX: 40, clientY: 60 });
    await user.click(screen.getByRole('menuitem', { name: 'Pin' }));
    await waitFor(async () => expect((await b.client.memory.list({ workspaceId: b.workspaceId })).files.find((f) => f.path === `${P}/build.md`)?.pinned).toBe(true));
    fireEvent.contextMenu(item(`${P}/build.md`), { clientX: 40, clientY: 60 });
    expect(screen.getByRole('menuitem', { name: 'Unpin' })).toBeTruthy();
    await user.keyboard('{Escape}');

    fireEvent.contextMenu(item(`${P}/build.md`), { clientX: 40, clientY: 60 });
    await user.click(screen.getByRole('menuitem', { name: /^Rename or move/ }));
    await screen.findByRole('dialog', { name: `Rename ${P}/build.md` });
    await user.keyboard('{Escape}');

    fireEvent.contextMenu(item(`${P}/build.md`), { clientX: 40, clientY: 60 });
    await user.click(screen.getByRole('menuitem', { name: /^Open/ }));
    await screen.findByRole('region', { name: `Editor: ${P}/build.md` });
  });

  it('opens from the keyboard (Shift+F10, the ContextMenu key) on the focused row, and Escape gives the focus back', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    const row = await screen.findByRole('treeitem', { name: `${P}/deploy.md` });
    row.focus();
    await user.keyboard('{Shift>}{F10}{/Shift}');
    const menu = screen.getByRole('menu', { name: `Actions for ${P}/deploy.md` });
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(document.activeElement?.textContent).toBe('Pin');
    await user.keyboard('{Escape}');
    expect(menu.isConnected).toBe(false);
    await waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe(`${P}/deploy.md`));

    await user.keyboard('{ContextMenu}');
    await user.keyboard('{End}{Enter}');
    await screen.findByRole('dialog', { name: `Delete ${P}/deploy.md?` });
  });
});

describe('multi-select', () => {
  it('picks files with Ctrl+click, Shift+click and Shift+arrows, and bulk-pins them', async () => {
    const user = userEvent.setup();
    const b = await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    await user.click(item(`${P}/notes/ideas.md`));
    await user.keyboard('{Control>}');
    await user.click(item(`${P}/build.md`));
    await user.keyboard('{/Control}');
    const selected = () => screen.getAllByRole('treeitem').filter((r) => r.getAttribute('aria-selected') === 'true').map((r) => r.getAttribute('aria-label'));
    // The open file and the one Ctrl+clicked.
    expect(selected()).toEqual([`${P}/notes/ideas.md`, `${P}/build.md`]);
    expect(screen.getByRole('toolbar', { name: 'Selected files' }).textContent).toContain('2 selected');

    // Shift+click: every file from the last picked to this one.
    await user.keyboard('{Shift>}');
    await user.click(item(`${P}/notes/ideas.md`));
    await user.keyboard('{/Shift}');
    expect(selected()).toEqual([`${P}/notes/ideas.md`, `${P}/notes/old.md`, `${P}/build.md`]);

    // Shift+Down extends it from the active row.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('toolbar', { name: 'Selected files' })).toBeNull();
    // Only the open file is selected again.
    expect(selected()).toEqual([`${P}/notes/ideas.md`]);
    item(`${P}/build.md`).focus();
    await user.keyboard('{Shift>}{ArrowDown}{/Shift}');
    await waitFor(() => expect(selected()).toEqual([`${P}/build.md`, `${P}/deploy.md`]));

    await user.click(within(screen.getByRole('toolbar', { name: 'Selected files' })).getByRole('button', { name: 'Pin' }));
    await waitFor(async () => {
      const files = (await b.client.memory.list({ workspaceId: b.workspaceId })).files;
      expect(files.filter((f) => f.pinned).map((f) => f.path).sort()).toEqual([`${P}/build.md`, `${P}/deploy.md`]);
    });
    await screen.findByText('Pinned 2 files.');
  });

  it('deletes the selected files after one confirmation that lists them; each delete is in the history, restorable', async () => {
    const user = userEvent.setup();
    const b = await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    item(`${P}/notes/ideas.md`).focus();
    await user.keyboard('{Shift>}{ArrowDown}{ArrowDown}{/Shift}');
    await waitFor(() => expect(screen.getByRole('toolbar', { name: 'Selected files' }).textContent).toContain('3 selected'));
    // Delete on a selected row asks about all of them.
    await user.keyboard('{Delete}');
    const dialog = await screen.findByRole('dialog', { name: 'Delete 3 files?' });
    expect([...dialog.querySelectorAll('li')].map((li) => li.textContent)).toEqual([`${P}/notes/ideas.md`, `${P}/notes/old.md`, `${P}/build.md`]);
    await user.click(within(dialog).getByRole('button', { name: 'Delete 3 files' }));
    await screen.findByText('Deleted 3 files. Restore any of them from Recently deleted under its scope.');
    const files = (await b.client.memory.list({ workspaceId: b.workspaceId })).files.map((f) => f.path);
    expect(files.sort()).toEqual([`${G}/prefs.md`, `${P}/deploy.md`]);
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: `${P}/build.md` })).toBeNull());

    // Three deletes, each its own change: any one comes back alone.
    const { versions } = await b.client.history.deleted({ workspaceId: b.workspaceId, path: null, scope: null, limit: 50 });
    expect(versions.map((v) => v.path).sort()).toEqual([`${P}/build.md`, `${P}/notes/ideas.md`, `${P}/notes/old.md`]);
    expect(new Set(versions.map((v) => v.batch)).size).toBe(3);
    const old = versions.find((v) => v.path === `${P}/notes/old.md`)!;
    expect((await b.client.history.undo({ workspaceId: b.workspaceId, id: old.id })).status).toBe('ok');
    expect((await b.client.memory.list({ workspaceId: b.workspaceId })).files.map((f) => f.path).sort()).toEqual([`${G}/prefs.md`, `${P}/deploy.md`, `${P}/notes/old.md`]);
  });
});

/** Drags `from` onto `to` as a browser does: dragstart, dragover, drop, dragend, one DataTransfer throughout. */
function drag(from: HTMLElement, to: HTMLElement): void {
  const dataTransfer = new DataTransfer();
  fireEvent.dragStart(from, { dataTransfer });
  fireEvent.dragEnter(to, { dataTransfer });
  fireEvent.dragOver(to, { dataTransfer });
  fireEvent.drop(to, { dataTransfer });
  fireEvent.dragEnd(from, { dataTransfer });
}

describe('drag and drop', () => {
  it('moves a file onto a directory of its scope, through rename', async () => {
    const b = await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    drag(item(`${P}/build.md`), item(`${P}/notes`));
    await screen.findByRole('treeitem', { name: `${P}/notes/build.md` });
    await screen.findByText(`Moved ${P}/build.md to ${P}/notes/build.md.`);
    const files = (await b.client.memory.list({ workspaceId: b.workspaceId })).files.map((f) => f.path);
    expect(files).toContain(`${P}/notes/build.md`);
    expect(files).not.toContain(`${P}/build.md`);
    // Back up to the scope's root.
    drag(item(`${P}/notes/build.md`), item('PROJECT memory, 4 files'));
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
  });

  it('refuses a move to another scope in the rename dialog\'s words, and an existing name, moving nothing', async () => {
    const b = await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/build.md` });
    drag(item(`${P}/build.md`), item('GLOBAL memory, 1 file'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(`A memory moves within its scope: ${P}/build.md stays in project memory. To move it to global memory, create it there`);

    await b.write(`${P}/notes/deploy.md`, 'another');
    await screen.findByRole('treeitem', { name: `${P}/notes/deploy.md` });
    drag(item(`${P}/deploy.md`), item(`${P}/notes`));
    await screen.findByText(`${P}/notes/deploy.md already exists; Cairn never overwrites. Choose another name.`);
    const files = (await b.client.memory.list({ workspaceId: b.workspaceId })).files.map((f) => f.path).sort();
    expect(files).toEqual([`${G}/prefs.md`, `${P}/build.md`, `${P}/deploy.md`, `${P}/notes/deploy.md`, `${P}/notes/ideas.md`, `${P}/notes/old.md`]);
  });
});
