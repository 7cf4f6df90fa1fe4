// @vitest-environment happy-dom
// New memory against the real backend: the dialog opens the editor on a file that is not on disk,
// marked new and not saved; closing it leaves nothing (no file, nothing in what agents receive);
// the first Save creates it as the person's change in the history; and neither the person's read
// nor the save counts as a use. A name already taken is refused in the dialog.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderPane, typeInEditor } from '../../../../tests/support/ui-backend';
import { memoryIdentity } from '../../../common/memory/identity';
import { NEW_MEMORY_TEMPLATE } from './NewMemoryDialog';

const FILE = '/memories/project/ops/deploy.md';

async function pane() {
  const user = userEvent.setup();
  const b = await makeBackend();
  await b.write('/memories/project/notes.md', '---\ndescription: Build notes\n---\nRun make.\n');
  const rendered = await renderPane(b);
  await screen.findByRole('treeitem', { name: '/memories/project/notes.md' });
  const onDisk = () => fs.existsSync(path.join(b.sb.roots.project, 'ops', 'deploy.md'));
  /** New memory, named `name`, in the project scope (the default). */
  const create = async (name: string) => {
    await user.click(screen.getByRole('button', { name: 'New memory' }));
    const dialog = await screen.findByRole('dialog', { name: 'New memory' });
    await user.type(within(dialog).getByLabelText('Name'), name);
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    return dialog;
  };
  return { b, user, dirtyRef: rendered.dirtyRef, onDisk, create };
}

const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });

describe('New memory', () => {
  it('opens an editor on a file not on disk yet, marked new; closing it leaves nothing', async () => {
    const { b, user, dirtyRef, onDisk, create } = await pane();
    await create('ops/deploy');
    await screen.findByRole('region', { name: `Editor: ${FILE}` });
    await waitFor(() => expect(editorText()).toBe(NEW_MEMORY_TEMPLATE));
    expect(within(editor()).getByText('New, not saved')).toBeTruthy();
    expect(within(editor()).getByRole('status').textContent).toMatch(/A new file: Save creates it/);
    expect((within(editor()).getByRole('button', { name: /^Save/ }) as HTMLButtonElement).disabled).toBe(false);
    expect(onDisk()).toBe(false);
    expect(screen.queryByRole('treeitem', { name: FILE })).toBeNull();
    // Agents receive nothing of it.
    expect((await b.client.context.preview({ workspaceId: b.workspaceId })).index.text).not.toContain('deploy.md');

    // Only the template in it: closing asks nothing, and leaves nothing behind.
    expect(dirtyRef.current).toBe(false);
    await user.click(within(editor()).getByRole('button', { name: 'Close file' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: `Editor: ${FILE}` })).toBeNull());
    expect(onDisk()).toBe(false);
    expect(fs.existsSync(path.join(b.sb.roots.project, 'ops'))).toBe(false);
    expect((await b.client.history.list({ workspaceId: b.workspaceId, path: FILE })).versions).toEqual([]);
  });

  it("creates the file at its first Save, as the person's change, and counts no use", async () => {
    const { b, user, onDisk, create } = await pane();
    await create('ops/deploy');
    await screen.findByRole('region', { name: `Editor: ${FILE}` });
    await waitFor(() => expect(editorText()).toBe(NEW_MEMORY_TEMPLATE));
    typeInEditor('---\ndescription: How to deploy\n---\nmake deploy\n');
    await user.click(within(editor()).getByRole('button', { name: /^Save/ }));
    await within(editor()).findByText(`Created ${FILE}.`);
    expect(fs.readFileSync(path.join(b.sb.roots.project, 'ops', 'deploy.md'), 'utf8')).toBe('---\ndescription: How to deploy\n---\nmake deploy\n');
    expect(onDisk()).toBe(true);
    expect(within(editor()).queryByText('New, not saved')).toBeNull();
    await screen.findByRole('treeitem', { name: FILE });
    const [version, ...older] = (await b.client.history.list({ workspaceId: b.workspaceId, path: FILE })).versions;
    expect(older).toEqual([]);
    expect(version).toMatchObject({ op: 'create', actor: 'person', cause: 'ui' });

    // The person's save, and reading it again, are no agent's use.
    await b.client.memory.read({ workspaceId: b.workspaceId, path: FILE });
    await b.host.usage.flush();
    const id = memoryIdentity('project', b.session, ['ops', 'deploy.md'])!;
    expect((await b.host.usage.read()).get(id)).toMatchObject({ accessCount: 0, lastAccessedAt: null, lastWriteBy: 'person' });
  });

  it('refuses a name the view already has, and one the path rules refuse, writing nothing', async () => {
    const { b, create } = await pane();
    const dialog = await create('notes');
    await within(dialog).findByText('/memories/project/notes.md already exists; open it to edit it, or choose another name.');
    await userEvent.clear(within(dialog).getByLabelText('Name'));
    await userEvent.type(within(dialog).getByLabelText('Name'), 'a/../b');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    await within(dialog).findByText(/^Path .*a\/\.\.\/b would escape \/memories directory$/);
    expect(within(dialog).queryByText(/already exists/)).toBeNull();
    expect(screen.queryByRole('region', { name: /^Editor:/ })).toBeNull();
    expect(fs.readdirSync(b.sb.roots.project)).toEqual(['notes.md']);
  });
});
