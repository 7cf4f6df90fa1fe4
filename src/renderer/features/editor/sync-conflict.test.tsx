// @vitest-environment happy-dom
// A memory file in a sync conflict, against the real backend: the sync kept this machine's text in
// memory and put the other machine's in the Inbox (proposed as the sync proposes it). Opening the
// file shows the conflict banner naming the remote and the commit; Compare puts this machine's text
// against the other machine's piece by piece, and nothing is written or decided until the person
// chooses; Save merged writes the merge and decides the Inbox item; deciding the item in the Inbox
// instead clears the banner and the editor shows the file as the decision left it.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, type UiBackend } from '../../../../tests/support/ui-backend';
import { mergeTwoWay } from './three-way-merge';

afterEach(cleanup);

const FILE = '/memories/global/notes.md';
const HERE = 'Use pnpm.\nRun the tests.\nShip on Fridays.\n';
const THERE = 'Use pnpm.\nRun the tests in CI.\nShip on Fridays.\nTag the release.\n';
const REMOTE = 'https://example.com/me/memory.git';
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

const onDisk = (b: UiBackend) => fs.readFile(path.join(b.sb.roots.global, 'notes.md'), 'utf8');
const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });
const banner = () => within(editor()).findByRole('alert', { name: 'Sync conflict' });

/** This machine's notes.md in memory and the other machine's waiting in the Inbox, as a sync leaves a conflict; the file opened. */
async function inConflict() {
  const user = userEvent.setup();
  const b = await makeBackend();
  await fs.mkdir(b.sb.roots.global, { recursive: true });
  await fs.writeFile(path.join(b.sb.roots.global, 'notes.md'), HERE);
  const item = b.host.inbox.addChange(
    { command: 'create', scope: 'global', path: FILE, newPath: null, before: HERE, beforeSha256: createHash('sha256').update(HERE).digest('hex'), after: THERE },
    { workspaceId: null, projectId: null, owner: 'global', cwd: null, from: { kind: 'sync', remote: REMOTE, commit: COMMIT, flag: null, conflict: true } },
  );
  await renderPane(b);
  await user.click(await screen.findByRole('treeitem', { name: FILE }));
  await waitFor(() => expect(editorText()).toBe(HERE));
  return { b, user, item };
}

const pending = (b: UiBackend) => b.host.inbox.list('pending').map((i) => i.id);

describe('a file in a sync conflict', () => {
  it('shows the banner with the remote and commit; Compare resolves piece by piece, and Save merged writes the merge and decides the Inbox item', async () => {
    const { b, user, item } = await inConflict();
    const alert = await banner();
    expect(alert.textContent).toContain(`changed on this machine and on another (synced from ${REMOTE}, commit 0123456)`);
    expect(alert.textContent).toContain('Both texts are kept until you choose');

    await user.click(within(alert).getByRole('button', { name: 'Compare' }));
    const pieces = within(editor()).getByRole('group', { name: "This machine's text and the other machine's, piece by piece" });
    const first = within(pieces).getByRole('region', { name: 'Conflict 1 of 2' });
    expect(within(first).getByLabelText('Lines of this machine').textContent).toBe('Run the tests.');
    expect(within(first).getByLabelText('Lines of the other machine').textContent).toBe('Run the tests in CI.');
    const saveMerged = within(alert).getByRole('button', { name: 'Save merged' });
    expect(saveMerged).toHaveProperty('disabled', true);

    await user.click(within(first).getByRole('button', { name: 'Take theirs' }));
    // Both sides are kept while a piece is still open: the file is this machine's, the item pending.
    expect(await onDisk(b)).toBe(HERE);
    expect(pending(b)).toEqual([item.id]);
    await user.click(within(within(pieces).getByRole('region', { name: 'Conflict 2 of 2' })).getByRole('button', { name: 'Take mine' }));
    await user.click(saveMerged);

    await within(editor()).findByText('Saved the merge of both machines.');
    expect(await onDisk(b)).toBe('Use pnpm.\nRun the tests in CI.\nShip on Fridays.\n');
    expect(pending(b)).toEqual([]);
    expect(b.host.inbox.get(item.id)?.status).toBe('rejected');
    await waitFor(() => expect(within(editor()).queryByRole('alert', { name: 'Sync conflict' })).toBeNull());
    expect(editorText()).toBe('Use pnpm.\nRun the tests in CI.\nShip on Fridays.\n');
  });

  it('approving the item in the Inbox clears the banner, and the editor shows the other machine\'s text', async () => {
    const { b, item } = await inConflict();
    await banner();
    const approved = await b.client.inbox.approve({ workspaceId: b.workspaceId, id: item.id });
    expect(approved.status).toBe('ok');
    await waitFor(() => expect(within(editor()).queryByRole('alert', { name: 'Sync conflict' })).toBeNull());
    await waitFor(() => expect(editorText()).toBe(THERE));
  });

  it('declining the item in the Inbox clears the banner and keeps this machine\'s text', async () => {
    const { b, item } = await inConflict();
    await banner();
    await b.client.inbox.reject({ workspaceId: b.workspaceId, id: item.id });
    await waitFor(() => expect(within(editor()).queryByRole('alert', { name: 'Sync conflict' })).toBeNull());
    expect(editorText()).toBe(HERE);
    expect(await onDisk(b)).toBe(HERE);
  });
});

describe('mergeTwoWay', () => {
  it('keeps the lines both hold and makes each difference a piece to choose', () => {
    const merge = mergeTwoWay(HERE, THERE);
    expect(merge.conflicts).toBe(2);
    expect(merge.pieces).toEqual([
      { kind: 'clean', lines: ['Use pnpm.'] },
      { kind: 'conflict', base: [], mine: ['Run the tests.'], theirs: ['Run the tests in CI.'] },
      { kind: 'clean', lines: ['Ship on Fridays.'] },
      { kind: 'conflict', base: [], mine: [], theirs: ['Tag the release.'] },
      { kind: 'clean', lines: [''] },
    ]);
    expect(mergeTwoWay(HERE, HERE).conflicts).toBe(0);
  });
});
