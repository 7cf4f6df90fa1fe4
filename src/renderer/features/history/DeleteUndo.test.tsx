// @vitest-environment happy-dom
// Undo after a delete made in the tree, against the real backend: a toast (role status, buttons in
// the tab order) for 10 seconds on a fake clock, never gone while the person is on it; Undo (or
// Ctrl+Z outside text fields) brings back the file, or a directory's every file, through
// history.undo; an undo that conflicts is an alert and writes nothing.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeBackend, renderPane, type UiBackend } from '../../../../tests/support/ui-backend';
import { UNDO_TOAST_MS } from './DeleteUndo';

afterEach(() => {
  vi.useRealTimers();
  cleanup();
});

const P = '/memories/project';
const NOTE = '---\ndescription: Keep me\n---\nprecious\n';

const onDisk = (b: UiBackend, rel: string) => fs.readFile(path.join(b.sb.roots.project, rel), 'utf8');
const exists = (b: UiBackend, rel: string) =>
  fs.access(path.join(b.sb.roots.project, rel)).then(
    () => true,
    () => false,
  );

/** The toast showing `text`, and the live region it is. */
async function toastWith(text: string | RegExp): Promise<HTMLElement> {
  const el = await screen.findByText(text);
  return el.closest<HTMLElement>('.toast')!;
}

/** A pane with `files` written by an agent; `p` deleted from its row as a person would. */
async function deleted(p: string, files: Record<string, string> = { [p]: NOTE }, options: { fake?: boolean } = {}) {
  const user = userEvent.setup(options.fake ? { advanceTimers: (ms) => vi.advanceTimersByTime(ms) } : {});
  const b = await makeBackend();
  for (const [file, text] of Object.entries(files)) await b.agent({ command: 'create', path: file, file_text: text });
  await renderPane(b);
  // The clock is fake from here on (it still moves with real time, so the backend works); the
  // toast's 10 seconds are then run forward, never waited for.
  if (options.fake) vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const row = await screen.findByRole('treeitem', { name: p });
  row.focus();
  await user.keyboard('{Delete}');
  const dialog = await screen.findByRole('dialog', { name: `Delete ${p}?` });
  await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(screen.queryByRole('treeitem', { name: p })).toBeNull());
  return { b, user };
}

describe('Undo after a delete', () => {
  it('shows a toast (role status) naming the file, and Undo brings it back as it was', async () => {
    const { b, user } = await deleted(`${P}/keep.md`);
    const toast = await toastWith(`Deleted ${P}/keep.md.`);
    expect(toast.getAttribute('role')).toBe('status');
    expect(await exists(b, 'keep.md')).toBe(false);
    const undo = within(toast).getByRole('button', { name: 'Undo' });
    expect(undo.getAttribute('aria-keyshortcuts')).toContain('Control+Z');
    await user.click(undo);
    await toastWith(`Undid the delete of ${P}/keep.md.`);
    expect(await onDisk(b, 'keep.md')).toBe(NOTE);
    await screen.findByRole('treeitem', { name: `${P}/keep.md` });
    // The undo is itself in the history (and so could be undone in turn).
    const { versions } = await b.client.history.list({ workspaceId: b.workspaceId, path: `${P}/keep.md`, scope: null, limit: 5 });
    expect(versions[0]).toMatchObject({ op: 'create', actor: 'person', cause: expect.stringMatching(/^undo:/) });
  });

  it('is reached with Tab, and goes away after 10 seconds, not before (fake clock)', async () => {
    await deleted(`${P}/brief.md`, undefined, { fake: true });
    const toast = await toastWith(`Deleted ${P}/brief.md.`);
    // Its buttons are ordinary buttons in the tab order.
    for (const button of within(toast).getAllByRole('button')) expect(button.tabIndex).toBe(0);
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS / 2));
    expect(screen.queryByText(`Deleted ${P}/brief.md.`)).not.toBeNull();
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS / 2 + 500));
    expect(screen.queryByText(`Deleted ${P}/brief.md.`)).toBeNull();
  });

  it('stays while the focus is in it or the pointer on it, then takes the time it had left', async () => {
    await deleted(`${P}/linger.md`, undefined, { fake: true });
    const toast = await toastWith(`Deleted ${P}/linger.md.`);
    const undo = within(toast).getByRole('button', { name: 'Undo' });
    act(() => undo.focus());
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.queryByText(`Deleted ${P}/linger.md.`)).not.toBeNull();
    act(() => undo.blur());
    fireEvent.mouseEnter(toast);
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.queryByText(`Deleted ${P}/linger.md.`)).not.toBeNull();
    fireEvent.mouseLeave(toast);
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS + 500));
    expect(screen.queryByText(`Deleted ${P}/linger.md.`)).toBeNull();
  });

  it('Escape in the toast, or Dismiss, closes it and leaves the file deleted', async () => {
    const { b, user } = await deleted(`${P}/gone.md`);
    const toast = await toastWith(`Deleted ${P}/gone.md.`);
    within(toast).getByRole('button', { name: 'Undo' }).focus();
    await user.keyboard('{Escape}');
    expect(screen.queryByText(`Deleted ${P}/gone.md.`)).toBeNull();
    expect(await exists(b, 'gone.md')).toBe(false);
  });

  it('Ctrl+Z undoes a directory delete whole, but not while typing in the filter', async () => {
    const { b, user } = await deleted(`${P}/team`, { [`${P}/team/alice.md`]: 'alice\n', [`${P}/team/bob.md`]: 'bob\n' });
    const toast = await toastWith(`Deleted ${P}/team and the 2 files in it.`);
    const filter = screen.getByRole('searchbox', { name: 'Filter memories' });
    filter.focus();
    await user.keyboard('{Control>}z{/Control}');
    // Not taken: an undo starts at once (its button turns busy), and nothing came back.
    expect((within(toast).getByRole('button', { name: 'Undo' }) as HTMLButtonElement).disabled).toBe(false);
    expect(await exists(b, 'team/alice.md')).toBe(false);
    filter.blur();
    await user.keyboard('{Control>}z{/Control}');
    await toastWith(/^Undid the delete of 2 files/);
    expect(await onDisk(b, 'team/alice.md')).toBe('alice\n');
    expect(await onDisk(b, 'team/bob.md')).toBe('bob\n');
  });

  it('an undo that conflicts (an agent wrote the path again) is an alert, stays, and writes nothing', async () => {
    const { b, user } = await deleted(`${P}/contested.md`);
    const toast = await toastWith(`Deleted ${P}/contested.md.`);
    // Held open while the agent's process writes (a toast waits while it is hovered).
    await user.hover(toast);
    await b.agentProcess({ command: 'create', path: `${P}/contested.md`, file_text: 'the agent wrote this\n' });
    await user.click(within(toast).getByRole('button', { name: 'Undo' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(`Could not undo the delete: ${P}/contested.md exists again since that change; nothing was undone.`);
    // The focus was on Undo: it moves to the alert's button instead of being lost (once the alert's
    // effects have run, which may be after the alert is in the document).
    await waitFor(() => expect(document.activeElement).toBe(within(alert).getByRole('button', { name: 'Dismiss' })));
    expect(await onDisk(b, 'contested.md')).toBe('the agent wrote this\n');
    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("never undoes an older delete of the same path: only the one just made", async () => {
    const b = await makeBackend();
    await b.agent({ command: 'create', path: `${P}/again.md`, file_text: 'first life\n' });
    await b.client.memory.delete({ workspaceId: b.workspaceId, path: `${P}/again.md` });
    await b.agent({ command: 'create', path: `${P}/again.md`, file_text: 'second life\n' });
    const user = userEvent.setup();
    await renderPane(b);
    (await screen.findByRole('treeitem', { name: `${P}/again.md` })).focus();
    await user.keyboard('{Delete}');
    await user.click(within(await screen.findByRole('dialog', { name: `Delete ${P}/again.md?` })).getByRole('button', { name: 'Delete' }));
    await user.click(within(await toastWith(`Deleted ${P}/again.md.`)).getByRole('button', { name: 'Undo' }));
    await toastWith(`Undid the delete of ${P}/again.md.`);
    expect(await onDisk(b, 'again.md')).toBe('second life\n');
  });
});
