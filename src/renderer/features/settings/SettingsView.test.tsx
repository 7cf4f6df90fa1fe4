// @vitest-environment happy-dom
// Settings against the real backend with no workspace registered (a first start, once the person
// chose Settings over the welcome's first project): its Memory tab is the global scope alone, live and editable; Appearance settings
// are applied and kept by the main process.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { editorText, makeBackend, renderWithBackend, rowNames, typeInEditor } from '../../../../tests/support/ui-backend';
import { App } from '../../app/App';
import { SettingsView } from './SettingsView';

afterEach(cleanup);

const G = '/memories/global';

describe('settings', () => {
  it('with no workspace at all, Settings shows the global memory alone, live and editable', async () => {
    const user = userEvent.setup();
    const b = await makeBackend({ workspace: false });
    await fs.mkdir(b.sb.roots.global, { recursive: true });
    await fs.writeFile(path.join(b.sb.roots.global, 'prefs.md'), '---\ndescription: How I like things\n---\nTabs, not spaces.\n');
    await renderWithBackend(<App />, b);
    await user.click(await screen.findByRole('button', { name: 'Only global memory for now' }));

    expect(await screen.findByText('None yet: add the folder of a project your agents work in.')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Memory' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('heading', { name: 'Global memory' })).toBeTruthy();
    const prefs = await screen.findByRole('treeitem', { name: `${G}/prefs.md` });
    expect(within(prefs).getByText('How I like things')).toBeTruthy();
    // The global scope alone: no project or workspace sections.
    expect(rowNames()).toEqual(['GLOBAL memory, 1 file', `${G}/prefs.md`]);

    // An agent in some checkout writes global memory: once the view is live, it shows up here, badged.
    await screen.findByText('Live', { exact: true });
    await b.agent({ command: 'create', path: `${G}/style.md`, file_text: 'Short commit subjects.\n' });
    const style = await screen.findByRole('treeitem', { name: `${G}/style.md` });
    await within(style).findByText('agent edited');

    // Open, edit and save a global file with no workspace.
    await user.click(prefs);
    await waitFor(() => expect(editorText()).toContain('Tabs, not spaces.'));
    typeInEditor('---\ndescription: How I like things\n---\nSpaces, after all.\n');
    await user.click(within(screen.getByRole('region', { name: `Editor: ${G}/prefs.md` })).getByRole('button', { name: /^Save/ }));
    await screen.findByText('Saved.');
    expect(await fs.readFile(path.join(b.sb.roots.global, 'prefs.md'), 'utf8')).toBe('---\ndescription: How I like things\n---\nSpaces, after all.\n');
  });

  it('Appearance: the theme and the preview default are applied and kept by the backend', async () => {
    const user = userEvent.setup();
    const b = await makeBackend({ workspace: false });
    await renderWithBackend(<App />, b);
    await user.click(await screen.findByRole('button', { name: 'Settings' }));
    await user.click(await screen.findByRole('tab', { name: 'Appearance' }));
    const panel = screen.getByRole('tabpanel', { name: 'Appearance' });
    await user.selectOptions(within(panel).getByRole('combobox', { name: 'Theme' }), 'dark');
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
    await waitFor(async () => expect((await b.client.settings.get()).theme).toBe('dark'));
    await user.selectOptions(within(panel).getByRole('combobox', { name: 'Theme' }), 'light');
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('light'));

    const preview = within(panel).getByRole('checkbox', { name: /Open files in the rendered preview/ });
    expect((preview as HTMLInputElement).checked).toBe(false);
    await user.click(preview);
    await waitFor(async () => expect((await b.client.settings.get()).previewByDefault).toBe(true));
    expect((preview as HTMLInputElement).checked).toBe(true);
  });

  it('the global memory tab alone, with an empty global scope, shows how to connect an agent', async () => {
    const b = await makeBackend({ workspace: false });
    await renderWithBackend(<SettingsView dark={false} dirtyRef={{ current: false }} />, b);
    const region = await screen.findByRole('region', { name: 'Connect an agent' });
    const guides = await b.client.setup.guide({ workspaceId: null });
    await waitFor(() => expect(within(region).getByText(guides[0]!.command, { selector: 'code' })).toBeTruthy());
    expect(rowNames()).toEqual(['GLOBAL memory, 0 files', 'No memories yet.']);
  });
});
