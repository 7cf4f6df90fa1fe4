// @vitest-environment happy-dom
// The scope tree against the real backend: order, chevrons, expand and collapse, recursive counts,
// the roles and names assistive technology reads, the keyboard, the filter and virtualization; and
// the small ones: the focus after a delete, ArrowDown from the filter, Collapse all / Expand
// all, and a 1000-file tree that does not start fully open.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderPane, rowNames, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const P = '/memories/project';

async function seeded(): Promise<UiBackend> {
  const b = await makeBackend();
  await b.write('/memories/global/prefs.md', '---\ndescription: How I like things\n---\nTabs.');
  await b.write(`${P}/zeta.md`, 'z');
  await b.write(`${P}/Alpha.md`, 'a');
  await b.write(`${P}/notes/build.md`, 'make');
  await b.write(`${P}/notes/deep/ci.md`, 'ci');
  await b.write(`${P}/api/auth.md`, '---\ndescription: Tokens expire hourly\n---\n');
  return b;
}

function item(name: string): HTMLElement {
  return screen.getByRole('treeitem', { name });
}

/** The count a row shows (a scope's files, a directory's files at any depth). */
function countOf(row: HTMLElement): string | null {
  return row.querySelector('.count')?.textContent ?? null;
}

/** Focus follows a keyboard move once the row is rendered (an effect after the render). */
async function focused(name: string): Promise<void> {
  await waitFor(() => expect(document.activeElement?.getAttribute('aria-label')).toBe(name));
}

function chevron(row: HTMLElement): 'down' | 'right' | null {
  if (row.querySelector('svg.lucide-chevron-down')) return 'down';
  if (row.querySelector('svg.lucide-chevron-right')) return 'right';
  return null;
}

describe('the scope tree', () => {
  it('shows every scope, directories first then files, alphabetically, each file named by its full virtual path', async () => {
    await renderPane(await seeded());
    const tree = await screen.findByRole('tree', { name: 'Memory files (6)' });
    await within(tree).findByRole('treeitem', { name: `${P}/zeta.md` });
    expect(rowNames()).toEqual([
      'GLOBAL memory, 1 file',
      '/memories/global/prefs.md',
      'PROJECT memory, 5 files',
      `${P}/api`,
      `${P}/api/auth.md`,
      `${P}/notes`,
      `${P}/notes/deep`,
      `${P}/notes/deep/ci.md`,
      `${P}/notes/build.md`,
      `${P}/Alpha.md`,
      `${P}/zeta.md`,
      'WORKSPACE memory, 0 files',
      'No memories yet.',
    ]);
    // Rows show the base name; the accessible name carries the path.
    expect(within(item(`${P}/notes/deep/ci.md`)).getByText('ci.md')).toBeTruthy();
    expect(item(`${P}/notes/deep/ci.md`).getAttribute('aria-level')).toBe('4');
    expect(item(`${P}/notes`).getAttribute('aria-level')).toBe('2');
  });

  it('counts files recursively on every directory and scope', async () => {
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/notes` });
    expect(countOf(item(`${P}/notes`))).toBe('2');
    expect(countOf(item(`${P}/notes/deep`))).toBe('1');
    expect(countOf(item(`${P}/api`))).toBe('1');
    expect(countOf(item('PROJECT memory, 5 files'))).toBe('5');
    expect(countOf(item('WORKSPACE memory, 0 files'))).toBe('0');
  });

  it('collapses and expands directories and scopes with a click, turning the chevron', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    const notes = await screen.findByRole('treeitem', { name: `${P}/notes` });
    expect(notes.getAttribute('aria-expanded')).toBe('true');
    expect(chevron(notes)).toBe('down');

    await user.click(notes);
    expect(item(`${P}/notes`).getAttribute('aria-expanded')).toBe('false');
    expect(chevron(item(`${P}/notes`))).toBe('right');
    expect(screen.queryByRole('treeitem', { name: `${P}/notes/build.md` })).toBeNull();
    expect(screen.queryByRole('treeitem', { name: `${P}/notes/deep/ci.md` })).toBeNull();
    // A collapsed directory still says how many files it holds; its siblings stay.
    expect(countOf(item(`${P}/notes`))).toBe('2');
    expect(item(`${P}/Alpha.md`)).toBeTruthy();

    await user.click(item(`${P}/notes`));
    expect(item(`${P}/notes/deep/ci.md`)).toBeTruthy();
    expect(chevron(item(`${P}/notes`))).toBe('down');

    await user.click(item('PROJECT memory, 5 files'));
    expect(item('PROJECT memory, 5 files').getAttribute('aria-expanded')).toBe('false');
    expect(rowNames()).toEqual(['GLOBAL memory, 1 file', '/memories/global/prefs.md', 'PROJECT memory, 5 files', 'WORKSPACE memory, 0 files', 'No memories yet.']);
  });

  it('moves with the arrow keys, collapses and expands with Left and Right, and opens with Enter', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    const first = await screen.findByRole('treeitem', { name: 'GLOBAL memory, 1 file' });
    // Roving tabindex: the tree is one Tab stop.
    expect(first.tabIndex).toBe(0);
    expect(item(`${P}/zeta.md`).tabIndex).toBe(-1);
    await user.click(screen.getByRole('searchbox', { name: 'Filter memories' }));
    await user.tab();
    expect(document.activeElement).toBe(first);

    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    await focused(`${P}/api`);
    await user.keyboard('{ArrowUp}');
    await focused('PROJECT memory, 5 files');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    await focused(`${P}/notes`);
    expect(item(`${P}/notes`).tabIndex).toBe(0);

    // Left collapses an open directory; Right opens it again, then steps into it.
    await user.keyboard('{ArrowLeft}');
    expect(item(`${P}/notes`).getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('treeitem', { name: `${P}/notes/build.md` })).toBeNull();
    await user.keyboard('{ArrowRight}');
    expect(item(`${P}/notes`).getAttribute('aria-expanded')).toBe('true');
    await focused(`${P}/notes`);
    await user.keyboard('{ArrowRight}');
    await focused(`${P}/notes/deep`);
    await user.keyboard('{ArrowDown}');
    await focused(`${P}/notes/deep/ci.md`);
    // Left on a file goes to its directory.
    await user.keyboard('{ArrowLeft}');
    await focused(`${P}/notes/deep`);

    // Enter on a directory toggles it; on a file, opens it in the editor.
    await user.keyboard('{Enter}');
    expect(item(`${P}/notes/deep`).getAttribute('aria-expanded')).toBe('false');
    await user.keyboard('{Enter}{ArrowDown}');
    await focused(`${P}/notes/deep/ci.md`);
    expect(screen.queryByRole('region', { name: `Editor: ${P}/notes/deep/ci.md` })).toBeNull();
    await user.keyboard('{Enter}');
    await screen.findByRole('region', { name: `Editor: ${P}/notes/deep/ci.md` });
    expect(item(`${P}/notes/deep/ci.md`).getAttribute('aria-selected')).toBe('true');

    // Home and End reach the ends.
    item(`${P}/notes/deep/ci.md`).focus();
    await user.keyboard('{End}');
    await focused('No memories yet.');
    await user.keyboard('{Home}');
    await focused('GLOBAL memory, 1 file');
  });

  it('asks before deleting the focused file or directory when Delete is pressed, and never on a scope', async () => {
    const user = userEvent.setup();
    const b = await seeded();
    await renderPane(b);
    (await screen.findByRole('treeitem', { name: 'PROJECT memory, 5 files' })).focus();
    await user.keyboard('{Delete}');
    expect(screen.queryByRole('dialog')).toBeNull();

    item(`${P}/zeta.md`).focus();
    await user.keyboard('{Delete}');
    const dialog = await screen.findByRole('dialog', { name: `Delete ${P}/zeta.md?` });
    // Asked, not done.
    await fs.access(path.join(b.sb.roots.project, 'zeta.md'));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();

    item(`${P}/notes`).focus();
    await user.keyboard('{Delete}');
    expect(await screen.findByRole('dialog', { name: `Delete ${P}/notes?` })).toBeTruthy();
  });

  it('an unavailable scope says why instead of showing files', async () => {
    const b = await makeBackend({ git: false });
    await b.write('/memories/workspace/w.md', 'w');
    await renderPane(b);
    const project = await screen.findByRole('treeitem', { name: 'PROJECT memory, 0 files' });
    expect(countOf(project)).toBe('—');
    const why = (await b.client.memory.list({ workspaceId: b.workspaceId })).scopes.find((s) => s.scope === 'project')!.reason!;
    expect(why).toMatch(/not inside a git repository/);
    const names = rowNames();
    expect(names[names.indexOf('PROJECT memory, 0 files') + 1]).toBe(why);
    expect(rowNames()).toContain('/memories/workspace/w.md');
  });

  it('a project whose memory directory a repository made a symbolic link says why, and the other scopes stay', async () => {
    const b = await makeBackend();
    await b.write('/memories/workspace/w.md', 'w');
    await fs.mkdir(path.join(b.sb.checkout, '.cairn'));
    await fs.symlink('../.git', path.join(b.sb.checkout, '.cairn', 'memory'));
    await renderPane(b);
    const project = await screen.findByRole('treeitem', { name: 'PROJECT memory, 0 files' });
    expect(countOf(project)).toBe('—');
    const names = rowNames();
    expect(names[names.indexOf('PROJECT memory, 0 files') + 1]).toMatch(/^its directory `\.cairn\/memory` is a symbolic link\./);
    expect(names).toContain('/memories/workspace/w.md');
  });

  it('narrows to matches by path and description as the person types, and / focuses the filter', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/zeta.md` });
    await user.keyboard('/');
    const filter = screen.getByRole('searchbox', { name: 'Filter memories' });
    expect(document.activeElement).toBe(filter);
    await user.keyboard('expire');
    expect(rowNames()).toEqual([
      'GLOBAL memory, 0 files',
      'Nothing matches the filter.',
      'PROJECT memory, 1 file',
      `${P}/api`,
      `${P}/api/auth.md`,
      'WORKSPACE memory, 0 files',
      'Nothing matches the filter.',
    ]);
    await user.clear(filter);
    await user.type(filter, 'notes ci');
    expect(rowNames().filter((n) => n.endsWith('.md'))).toEqual([`${P}/notes/deep/ci.md`]);
    await user.keyboard('{Escape}');
    expect((filter as HTMLInputElement).value).toBe('');
    expect(rowNames()).toContain(`${P}/zeta.md`);
  });

  it('renders only the rows in view of a large tree, and reaches the last one by keyboard', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    // 300 files written straight to the scope root (as if left by earlier sessions).
    const dir = path.join(b.sb.roots.global, 'bulk');
    await fs.mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: 300 }, (_, i) => fs.writeFile(path.join(dir, `f${String(i).padStart(4, '0')}.md`), `file ${i}`)));
    await renderPane(b);
    await screen.findByRole('tree', { name: 'Memory files (300)' }, { timeout: 10_000 });
    // Over 200 files, directories start closed.
    const bulk = await screen.findByRole('treeitem', { name: '/memories/global/bulk' });
    expect(bulk.getAttribute('aria-expanded')).toBe('false');
    await user.click(bulk);
    const first = await screen.findByRole('treeitem', { name: '/memories/global/bulk/f0000.md' });
    expect(countOf(item('/memories/global/bulk'))).toBe('300');
    const rendered = screen.getAllByRole('treeitem').length;
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(60);
    expect(screen.queryByRole('treeitem', { name: '/memories/global/bulk/f0299.md' })).toBeNull();

    first.focus();
    await user.keyboard('{End}');
    // The last row is the WORKSPACE note; one up is the last file, rendered and focused.
    await focused('No memories yet.');
    await user.keyboard('{ArrowUp}{ArrowUp}{ArrowUp}{ArrowUp}');
    await focused('/memories/global/bulk/f0299.md');
    expect(screen.getAllByRole('treeitem').length).toBeLessThan(60);
    // Home scrolls back up and focuses the first row.
    await user.keyboard('{Home}');
    await focused('GLOBAL memory, 300 files');
    await user.keyboard('{ArrowDown}{ArrowDown}');
    await focused('/memories/global/bulk/f0000.md');
  });
});

describe('the tree, day to day', () => {
  /** Deletes the focused row from the keyboard, confirming, and waits for its row to go. */
  async function deleteFocused(user: ReturnType<typeof userEvent.setup>, name: string): Promise<void> {
    item(name).focus();
    await user.keyboard('{Delete}');
    await user.click(within(await screen.findByRole('dialog', { name: `Delete ${name}?` })).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('treeitem', { name })).toBeNull());
  }

  it('after a delete, the focus goes to the next row, else the one above (a directory left empty goes too)', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/zeta.md` });
    await deleteFocused(user, `${P}/Alpha.md`);
    await focused(`${P}/zeta.md`);
    await deleteFocused(user, `${P}/zeta.md`);
    await focused(`${P}/notes/build.md`);
    // ci.md is alone in deep/: deep/ disappears with it, and notes/ (above it) takes the focus.
    await deleteFocused(user, `${P}/notes/deep/ci.md`);
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: `${P}/notes/deep` })).toBeNull());
    await focused(`${P}/notes`);
    // The keyboard goes on from there.
    await user.keyboard('{ArrowDown}');
    await focused(`${P}/notes/build.md`);
  });

  it('ArrowDown in the filter moves into the results, and Enter opens the first', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/zeta.md` });
    await user.click(screen.getByRole('searchbox', { name: 'Filter memories' }));
    await user.keyboard('{ArrowDown}');
    await focused('/memories/global/prefs.md');
    await user.click(screen.getByRole('searchbox', { name: 'Filter memories' }));
    await user.keyboard('build{ArrowDown}');
    await focused(`${P}/notes/build.md`);
    await user.keyboard('{Enter}');
    await screen.findByRole('region', { name: `Editor: ${P}/notes/build.md` });
  });

  it('Collapse all closes every directory (scopes stay open); Expand all opens everything, a closed scope too', async () => {
    const user = userEvent.setup();
    await renderPane(await seeded());
    await screen.findByRole('treeitem', { name: `${P}/notes/deep/ci.md` });
    await user.click(screen.getByRole('button', { name: 'Collapse all' }));
    expect(rowNames()).toEqual([
      'GLOBAL memory, 1 file',
      '/memories/global/prefs.md',
      'PROJECT memory, 5 files',
      `${P}/api`,
      `${P}/notes`,
      `${P}/Alpha.md`,
      `${P}/zeta.md`,
      'WORKSPACE memory, 0 files',
      'No memories yet.',
    ]);
    // Opening one directory opens just that one.
    await user.click(item(`${P}/notes`));
    expect(item(`${P}/notes/deep`).getAttribute('aria-expanded')).toBe('false');
    expect(item(`${P}/notes/build.md`)).toBeTruthy();
    await user.click(item('GLOBAL memory, 1 file'));
    expect(screen.queryByRole('treeitem', { name: '/memories/global/prefs.md' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Expand all' }));
    expect(rowNames()).toContain('/memories/global/prefs.md');
    expect(rowNames()).toContain(`${P}/notes/deep/ci.md`);
    expect(rowNames()).toContain(`${P}/api/auth.md`);
  });

  it('a tree of 1000 files starts with its scopes open and its directories closed', async () => {
    const b = await makeBackend();
    await Promise.all(
      Array.from({ length: 10 }, async (_, d) => {
        const dir = path.join(b.sb.roots.global, `topic-${d}`, 'sub');
        await fs.mkdir(dir, { recursive: true });
        await Promise.all(Array.from({ length: 100 }, (_, i) => fs.writeFile(path.join(dir, `f${i}.md`), `file ${i}`)));
      }),
    );
    await b.write(`${P}/build.md`, 'make');
    await renderPane(b);
    await screen.findByRole('tree', { name: 'Memory files (1001)' }, { timeout: 10_000 });
    expect(rowNames()).toEqual([
      'GLOBAL memory, 1000 files',
      ...Array.from({ length: 10 }, (_, d) => `/memories/global/topic-${d}`),
      'PROJECT memory, 1 file',
      `${P}/build.md`,
      'WORKSPACE memory, 0 files',
      'No memories yet.',
    ]);
    expect(item('/memories/global/topic-0').getAttribute('aria-expanded')).toBe('false');
    expect(countOf(item('/memories/global/topic-0'))).toBe('100');
  });
});

