// @vitest-environment happy-dom
// A newcomer's first window against the real backend: with no workspace the app opens on a
// welcome that takes the first project's folder; once added, the window shows that workspace with
// the setup command for that very checkout (never a placeholder path), copyable.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderWithBackend } from '../../../../tests/support/ui-backend';
import { App } from '../../app/App';

afterEach(cleanup);

describe('the welcome view', () => {
  it('adds the first workspace and shows the exact setup command for its checkout', async () => {
    const user = userEvent.setup();
    const b = await makeBackend({ workspace: false });
    await renderWithBackend(<App />, b);
    const welcome = await screen.findByRole('region', { name: 'Welcome to Cairn' });
    expect(screen.queryByRole('heading', { name: 'Global memory' })).toBeNull();

    await user.type(within(welcome).getByRole('textbox', { name: 'Project folder (absolute path)' }), `${b.sb.checkout}/`);
    await user.click(within(welcome).getByRole('button', { name: 'Add this project' }));

    await waitFor(async () => expect((await b.client.workspaces.list()).map((w) => w.path)).toEqual([b.sb.checkout]));
    const [added] = await b.client.workspaces.list();
    const [first] = await b.client.setup.guide({ workspaceId: added!.id });
    expect(first!.command).toContain(b.sb.checkout);
    expect(first!.command).not.toContain('/path/to/your/project');
    const region = await screen.findByRole('region', { name: 'Connect an agent' });
    const code = await within(region).findByText(first!.command, { selector: 'code' });
    expect(code.textContent).toBe(first!.command);
    expect(screen.queryByRole('region', { name: 'Welcome to Cairn' })).toBeNull();
    expect(screen.getByRole('button', { name: new RegExp(`^${added!.name}`), current: 'page' })).toBeTruthy();
    await user.click(within(region).getByRole('button', { name: `Copy the ${first!.name} setup command` }));
    expect(await navigator.clipboard.readText()).toBe(first!.command);
  });

  it('refuses a relative folder with the reason, and lets the person go on with global memory alone', async () => {
    const user = userEvent.setup();
    const b = await makeBackend({ workspace: false });
    await renderWithBackend(<App />, b);
    const welcome = await screen.findByRole('region', { name: 'Welcome to Cairn' });
    await user.type(within(welcome).getByRole('textbox', { name: 'Project folder (absolute path)' }), 'src/project');
    await user.click(within(welcome).getByRole('button', { name: 'Add this project' }));
    expect((await within(welcome).findByRole('alert')).textContent).toMatch(/must be an absolute path/);
    expect(await b.client.workspaces.list()).toEqual([]);

    await user.click(within(welcome).getByRole('button', { name: 'Only global memory for now' }));
    expect(await screen.findByRole('heading', { name: 'Global memory' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Welcome to Cairn' })).toBeNull();
  });
});
