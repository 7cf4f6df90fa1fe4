// @vitest-environment happy-dom
// The editor against the real backend: it loads the file, marks unsaved edits, saves with the
// button and Ctrl+S; an agent's write between open and save is a conflict the person settles
// (Reload, Overwrite after a confirmation, Compare) with nothing lost until then; what the
// scanners flag is shown before saving, and the person may still save.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, editorView, makeBackend, renderPane, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

const FILE = '/memories/project/notes.md';
const ORIGINAL = '---\ndescription: Build notes\n---\nRun make.\n';

async function onDisk(b: UiBackend): Promise<string> {
  return fs.readFile(path.join(b.sb.roots.project, 'notes.md'), 'utf8');
}

/** A workspace with FILE, its pane rendered and FILE opened by a click, as a person would. */
async function opened(): Promise<{ b: UiBackend; user: ReturnType<typeof userEvent.setup>; dirtyRef: { current: boolean } }> {
  const user = userEvent.setup();
  const b = await makeBackend();
  await fs.mkdir(b.sb.roots.project, { recursive: true });
  await fs.writeFile(path.join(b.sb.roots.project, 'notes.md'), ORIGINAL);
  const { dirtyRef } = await renderPane(b);
  await user.click(await screen.findByRole('treeitem', { name: FILE }));
  await screen.findByRole('region', { name: `Editor: ${FILE}` });
  await waitFor(() => expect(editorText()).toBe(ORIGINAL));
  return { b, user, dirtyRef };
}

const editor = () => screen.getByRole('region', { name: `Editor: ${FILE}` });
const dirtyMarker = () => within(editor()).queryByLabelText('Unsaved changes');
const saveButton = () => within(editor()).getByRole('button', { name: /^Save/ });

describe('the editor', () => {
  it('loads the file, frontmatter included, with its stats, and is clean', async () => {
    await opened();
    expect(editorView().contentDOM.getAttribute('aria-label')).toBe(`Content of ${FILE}`);
    expect(editor().querySelector('.cm-content')?.textContent).toContain('description: Build notes');
    expect(within(editor()).getByRole('heading', { name: 'notes.md' })).toBeTruthy();
    expect(dirtyMarker()).toBeNull();
    expect((saveButton() as HTMLButtonElement).disabled).toBe(true);
    expect(within(editor()).getByText('Pinned').nextElementSibling?.textContent).toBe('no');
  });

  it('marks unsaved edits, and Save writes them to the file', async () => {
    const { b, user, dirtyRef } = await opened();
    typeInEditor('---\ndescription: Build notes\n---\nRun make test.\n');
    expect(dirtyMarker()).toBeTruthy();
    expect(dirtyRef.current).toBe(true);
    expect(await onDisk(b)).toBe(ORIGINAL);
    await user.click(saveButton());
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe('---\ndescription: Build notes\n---\nRun make test.\n');
    expect(dirtyMarker()).toBeNull();
    expect(dirtyRef.current).toBe(false);
    // Typing back what is saved is clean again.
    typeInEditor('changed');
    expect(dirtyMarker()).toBeTruthy();
    typeInEditor('---\ndescription: Build notes\n---\nRun make test.\n');
    expect(dirtyMarker()).toBeNull();
  });

  it('Ctrl+S saves from inside the editor', async () => {
    const { b } = await opened();
    typeInEditor('Saved with the keyboard.\n');
    editorView().focus();
    fireEvent.keyDown(editorView().contentDOM, { key: 's', code: 'KeyS', ctrlKey: true });
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe('Saved with the keyboard.\n');
    expect(dirtyMarker()).toBeNull();
  });

  it('a clean editor follows an agent\'s change on disk', async () => {
    const { b } = await opened();
    await b.agent({ command: 'str_replace', path: FILE, old_str: 'Run make.', new_str: 'Run make -j4.' });
    await waitFor(() => expect(editorText()).toContain('Run make -j4.'));
    await within(editor()).findByText('Updated by an agent.');
    expect(dirtyMarker()).toBeNull();
  });
});

describe('the preview', () => {
  it('renders the Markdown of the draft without its raw HTML, frontmatter as data, and Edit returns to the draft', async () => {
    const { user } = await opened();
    const draft = '---\ndescription: Build notes\n---\n# Building\n\nRun **make**.\n\n<img src="x" onerror="alert(1)">\n<script>alert(2)</script>\n';
    typeInEditor(draft);
    await user.click(within(editor()).getByRole('button', { name: /Preview/ }));
    const preview = within(editor()).getByLabelText('Rendered preview');
    expect(within(preview).getByRole('heading', { name: 'Building' })).toBeTruthy();
    expect(within(preview).getByText('make').tagName).toBe('STRONG');
    expect(preview.querySelector('pre.frontmatter')?.textContent).toBe('description: Build notes');
    expect(preview.querySelector('img, script')).toBeNull();
    expect(preview.innerHTML).not.toMatch(/onerror/);
    expect(dirtyMarker()).toBeTruthy();
    await user.click(within(editor()).getByRole('button', { name: /Edit/ }));
    await waitFor(() => expect(editorText()).toBe(draft));
  });
});

describe('a conflict', () => {
  const MINE = '---\ndescription: Build notes\n---\nRun make, then make test.\n';
  const THEIRS = '---\ndescription: Build notes\n---\nRun ninja.\n';

  /** Opened, edited by the person, then changed by an agent, then Save: the banner is up. */
  async function conflicted() {
    const o = await opened();
    typeInEditor(MINE);
    await o.b.agent({ command: 'str_replace', path: FILE, old_str: 'Run make.', new_str: 'Run ninja.' });
    // The person is told while editing, and the draft stays.
    await within(editor()).findByText(/Changed by an agent while you edit/);
    expect(editorText()).toBe(MINE);
    await o.user.click(saveButton());
    const banner = await within(editor()).findByRole('alert');
    expect(banner.textContent).toMatch(/changed by an agent since you opened it/);
    expect(banner.textContent).toMatch(/Your edits are not saved yet/);
    // Nothing lost: the agent's version on disk, the person's in the editor.
    expect(await onDisk(o.b)).toBe(THEIRS);
    expect(editorText()).toBe(MINE);
    expect(dirtyMarker()).toBeTruthy();
    expect((saveButton() as HTMLButtonElement).disabled).toBe(true);
    return { ...o, banner };
  }

  it('Reload discards the person\'s edits for the agent\'s version', async () => {
    const { b, user, banner } = await conflicted();
    await user.click(within(banner).getByRole('button', { name: /Reload/ }));
    await waitFor(() => expect(editorText()).toBe(THEIRS));
    expect(within(editor()).queryByRole('alert')).toBeNull();
    expect(dirtyMarker()).toBeNull();
    expect(await onDisk(b)).toBe(THEIRS);
  });

  it('Overwrite asks first; cancelled, nothing changes; confirmed, the person\'s version is saved', async () => {
    const { b, user, banner } = await conflicted();
    await user.click(within(banner).getByRole('button', { name: /Overwrite/ }));
    let dialog = await screen.findByRole('dialog', { name: 'Overwrite notes.md?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await onDisk(b)).toBe(THEIRS);
    expect(editorText()).toBe(MINE);
    expect(within(editor()).getByRole('alert')).toBeTruthy();

    await user.click(within(within(editor()).getByRole('alert')).getByRole('button', { name: /Overwrite/ }));
    dialog = await screen.findByRole('dialog', { name: 'Overwrite notes.md?' });
    await user.click(within(dialog).getByRole('button', { name: 'Overwrite' }));
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe(MINE);
    expect(within(editor()).queryByRole('alert')).toBeNull();
    expect(dirtyMarker()).toBeNull();
    expect(editorText()).toBe(MINE);
  });

  it('Compare shows the person\'s version beside the one on disk, and hiding it keeps the draft', async () => {
    const { b, user, banner } = await conflicted();
    await user.click(within(banner).getByRole('button', { name: 'Compare' }));
    const diff = await within(editor()).findByLabelText('Your version beside the version on disk');
    expect(within(diff).getByText('Yours (not saved)')).toBeTruthy();
    expect(within(diff).getByText('On disk now')).toBeTruthy();
    const sides = [...diff.querySelectorAll('.cm-content')].map((el) => el.textContent);
    expect(sides).toHaveLength(2);
    expect(sides[0]).toContain('Run make, then make test.');
    expect(sides[1]).toContain('Run ninja.');
    await user.click(within(banner).getByRole('button', { name: 'Hide comparison' }));
    await waitFor(() => expect(editorText()).toBe(MINE));
    expect(await onDisk(b)).toBe(THEIRS);
  });

  it('a file deleted by an agent while edited says so, and Overwrite saves it again', async () => {
    const { b, user } = await opened();
    typeInEditor(MINE);
    await b.agent({ command: 'delete', path: FILE });
    await within(editor()).findByText(/Changed by an agent while you edit/);
    await user.click(saveButton());
    const banner = await within(editor()).findByRole('alert');
    expect(banner.textContent).toMatch(/deleted since you opened it/);
    expect(editorText()).toBe(MINE);
    await user.click(within(banner).getByRole('button', { name: /Overwrite/ }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Overwrite notes.md?' })).getByRole('button', { name: 'Overwrite' }));
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe(MINE);
  });
});

describe('the scanners before a save', () => {
  const SECRET = 'Deploy key: ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4\n';

  it('warn before saving flagged content; Cancel saves nothing; Save anyway saves', async () => {
    const { b, user } = await opened();
    typeInEditor(SECRET);
    await user.click(saveButton());
    let dialog = await screen.findByRole('dialog', { name: 'Save a file the scanners flag?' });
    expect(within(dialog).getByText(/Line 1 looks like .*github-token/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(await onDisk(b)).toBe(ORIGINAL);
    expect(dirtyMarker()).toBeTruthy();
    expect(editorText()).toBe(SECRET);

    await user.click(saveButton());
    dialog = await screen.findByRole('dialog', { name: 'Save a file the scanners flag?' });
    await user.click(within(dialog).getByRole('button', { name: 'Save anyway' }));
    await within(editor()).findByText('Saved.');
    expect(await onDisk(b)).toBe(SECRET);
    expect(dirtyMarker()).toBeNull();
  });

  it('content the scanners do not flag is saved without asking', async () => {
    const { b, user } = await opened();
    typeInEditor('Store the deploy key in $DEPLOY_KEY.\n');
    await user.click(saveButton());
    await within(editor()).findByText('Saved.');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await onDisk(b)).toBe('Store the deploy key in $DEPLOY_KEY.\n');
  });
});
