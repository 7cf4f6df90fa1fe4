// @vitest-environment happy-dom
// Rename (F2) against the real backend: the field holds the full virtual path
// with the base name selected; a full path or a path inside the scope is accepted; the dialog says
// where the file will land before it is renamed, and why it cannot (another scope, a bad name, an
// existing one) before anything is sent. Typing another scope's full path never creates
// /memories/global/memories/project/... again.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderPane, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const RUST = '/memories/global/languages/rust.md';

async function exists(b: UiBackend, rel: string): Promise<boolean> {
  return fs.access(path.join(b.sb.roots.global, rel)).then(
    () => true,
    () => false,
  );
}

/** A pane with RUST and one more global file; RUST's row focused and F2 pressed. */
async function renaming() {
  const user = userEvent.setup();
  const b = await makeBackend();
  await b.write(RUST, 'cargo test\n');
  await b.write('/memories/global/languages/go.md', 'go test\n');
  await renderPane(b);
  (await screen.findByRole('treeitem', { name: RUST })).focus();
  await user.keyboard('{F2}');
  const dialog = await screen.findByRole('dialog', { name: `Rename ${RUST}` });
  const field = within(dialog).getByRole('textbox', { name: 'New path' }) as HTMLInputElement;
  const renameButton = within(dialog).getByRole('button', { name: 'Rename' }) as HTMLButtonElement;
  const where = () => dialog.querySelector('.rename-where')!.textContent;
  return { b, user, dialog, field, renameButton, where };
}

describe('the rename dialog', () => {
  it('opens on the full path with the base name selected (without .md), and typing replaces just the name', async () => {
    const { b, user, field, renameButton, where } = await renaming();
    expect(field.value).toBe(RUST);
    expect(document.activeElement).toBe(field);
    expect([field.selectionStart, field.selectionEnd]).toEqual([RUST.indexOf('rust.md'), RUST.indexOf('.md')]);
    expect(renameButton.disabled).toBe(true);
    await user.keyboard('kotlin');
    expect(field.value).toBe('/memories/global/languages/kotlin.md');
    expect(where()).toBe('Will be: /memories/global/languages/kotlin.md');
    await user.click(renameButton);
    await screen.findByRole('treeitem', { name: '/memories/global/languages/kotlin.md' });
    expect(await fs.readFile(path.join(b.sb.roots.global, 'languages', 'kotlin.md'), 'utf8')).toBe('cargo test\n');
    expect(await exists(b, 'languages/rust.md')).toBe(false);
  });

  it('refuses a full path in another scope before sending anything, and says how to move it there', async () => {
    const { b, user, field, renameButton, where } = await renaming();
    await user.clear(field);
    await user.type(field, '/memories/project/shell.md');
    expect(where()).toBe(
      'A memory moves within its scope: /memories/global/languages/rust.md stays in global memory. To move it to project memory, ' +
        'create it there (New memory, /memories/project/…) with its text, then delete this one.',
    );
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(renameButton.disabled).toBe(true);
    // Enter does not submit it either.
    await user.keyboard('{Enter}');
    expect(screen.getByRole('dialog', { name: `Rename ${RUST}` })).toBeTruthy();
    // The same path without its first slash is read the same way, not as a directory "memories".
    await user.clear(field);
    await user.type(field, 'memories/project/shell.md');
    expect(where()).toMatch(/^A memory moves within its scope/);
    expect(await exists(b, 'memories')).toBe(false);
    expect(await exists(b, 'languages/rust.md')).toBe(true);
  });

  it('accepts a full path in the same scope and a path inside the scope, showing where each lands', async () => {
    const { b, user, field, renameButton, where } = await renaming();
    await user.clear(field);
    await user.type(field, 'archive/rust.md');
    expect(where()).toBe('Will be: /memories/global/archive/rust.md');
    await user.clear(field);
    await user.type(field, '/memories/global/tools/rust.md');
    expect(where()).toBe('Will be: /memories/global/tools/rust.md');
    expect(renameButton.disabled).toBe(false);
    await user.click(renameButton);
    await screen.findByRole('treeitem', { name: '/memories/global/tools/rust.md' });
    expect(await exists(b, 'tools/rust.md')).toBe(true);
  });

  it('explains a name the path rules refuse, or one that exists, before submitting', async () => {
    const { user, field, renameButton, where } = await renaming();
    await user.clear(field);
    await user.type(field, 'languages/a<b>.md');
    // The path rules' own words (common/memory/paths.ts).
    expect(where()).toBe('Path /memories/global/languages/a<b>.md contains the character `<`, which memory paths may not contain.');
    expect(renameButton.disabled).toBe(true);
    await user.clear(field);
    await user.type(field, 'languages/../x.md');
    expect(where()).toMatch(/would escape \/memories directory/);
    await user.clear(field);
    await user.type(field, 'languages/go.md');
    expect(where()).toBe('/memories/global/languages/go.md already exists; Cairn never overwrites. Choose another name.');
    expect(renameButton.disabled).toBe(true);
    await user.clear(field);
    await user.type(field, '/memories/global');
    expect(where()).toMatch(/is a scope itself/);
    await user.clear(field);
    await waitFor(() => expect(where()).toBe('Type the new name or path.'));
    expect(renameButton.disabled).toBe(true);
  });
});
