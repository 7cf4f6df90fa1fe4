// @vitest-environment happy-dom
// Settings, Agent context, against the real backend: the global injection settings and one
// workspace's overrides are saved through the API (what `cairn context` and `cairn mcp` read:
// tests/cli/context-settings.test.ts), a value out of range is named and cannot be saved, and the
// preview of what agents receive follows the hot set's budget.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INJECTION } from '../../../common/context/injection';
import { makeBackend, renderWithBackend } from '../../../../tests/support/ui-backend';
import { SettingsView } from './SettingsView';

async function open() {
  const user = userEvent.setup();
  const b = await makeBackend();
  await renderWithBackend(<SettingsView dark={false} dirtyRef={{ current: false }} />, b);
  await user.click(await screen.findByRole('tab', { name: 'Agent context' }));
  const globalForm = await screen.findByRole('form', { name: 'Agent context for all workspaces' });
  return { user, b, globalForm };
}

describe('Settings: Agent context', () => {
  it('shows the defaults, saves the global settings, and refuses a value out of range', async () => {
    const { user, b, globalForm } = await open();
    const g = within(globalForm);
    expect((g.getByRole('combobox', { name: 'With each prompt' }) as HTMLSelectElement).value).toBe('relevant');
    expect((g.getByRole('spinbutton', { name: 'Files per prompt, at most' }) as HTMLInputElement).value).toBe('10');
    expect((g.getByRole('spinbutton', { name: 'Bytes per prompt, at most' }) as HTMLInputElement).value).toBe('2048');
    expect(g.getByText('2 KiB')).toBeTruthy();
    expect((g.getByRole('spinbutton', { name: 'Hot set at session start, bytes' }) as HTMLInputElement).value).toBe('49152');
    const save = g.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    await user.selectOptions(g.getByRole('combobox', { name: 'With each prompt' }), 'recent_only');
    // The no-match fallback only means something with matching.
    expect((g.getByRole('checkbox', { name: /When no file matches/ }) as HTMLInputElement).disabled).toBe(true);
    const files = g.getByRole('spinbutton', { name: 'Files per prompt, at most' });
    await user.clear(files);
    await user.type(files, '99');
    expect(g.getByText('A whole number from 1 to 50 files.')).toBeTruthy();
    expect(save.disabled).toBe(true);
    await user.clear(files);
    await user.type(files, '3');
    const hot = g.getByRole('spinbutton', { name: 'Hot set at session start, bytes' });
    await user.clear(hot);
    await user.type(hot, '8192');
    expect(g.getByText('8 KiB')).toBeTruthy();
    await user.click(save);
    await g.findByText('Saved. Agents get this from their next prompt or session.');
    expect((await b.client.settings.get()).injection).toEqual({ ...DEFAULT_INJECTION, relevant: 'recent_only', relevantMaxFiles: 3, hotSetMaxBytes: 8192 });
    // What agents receive, as the app previews it, keeps to the new budget.
    expect((await b.client.context.preview({ workspaceId: b.workspaceId })).hot.budget).toBe(8192);

    // Back to the defaults.
    await user.click(g.getByRole('button', { name: 'Defaults' }));
    await user.click(save);
    await waitFor(async () => expect((await b.client.settings.get()).injection).toEqual(DEFAULT_INJECTION));
  });

  it("a workspace overrides some fields, uses the global ones for the rest, and can go back to global", async () => {
    const { user, b } = await open();
    const form = await screen.findByRole('form', { name: 'Agent context for Widgets' });
    const w = within(form);
    const mode = w.getByRole('combobox', { name: 'With each prompt' }) as HTMLSelectElement;
    // Every field uses the global value until told otherwise.
    expect(mode.disabled).toBe(true);
    expect((w.getByRole('checkbox', { name: 'With each prompt: use global' }) as HTMLInputElement).checked).toBe(true);

    await user.click(w.getByRole('checkbox', { name: 'With each prompt: use global' }));
    expect(mode.disabled).toBe(false);
    await user.selectOptions(mode, 'off');
    await user.click(w.getByRole('checkbox', { name: 'Hot set at session start, bytes: use global' }));
    const hot = w.getByRole('spinbutton', { name: 'Hot set at session start, bytes' });
    await user.clear(hot);
    await user.type(hot, '0');
    expect(w.getByText('no hot set')).toBeTruthy();
    await user.click(w.getByRole('button', { name: 'Save' }));
    await w.findByText('Saved. Agents get this from their next prompt or session.');
    const id = b.workspaceId!;
    expect((await b.client.settings.get()).injectionByWorkspace).toEqual({ [id]: { relevant: 'off', hotSetMaxBytes: 0 } });
    expect((await b.client.settings.get()).injection).toEqual(DEFAULT_INJECTION);
    expect(screen.getByRole('option', { name: 'Widgets (own settings)' })).toBeTruthy();
    expect((await b.client.context.preview({ workspaceId: id })).hot).toMatchObject({ text: '', budget: 0 });

    // A change to the global settings shows in the fields this workspace takes from them.
    const globalForm = screen.getByRole('form', { name: 'Agent context for all workspaces' });
    const files = within(globalForm).getByRole('spinbutton', { name: 'Files per prompt, at most' });
    await user.clear(files);
    await user.type(files, '4');
    await user.click(within(globalForm).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect((w.getByRole('spinbutton', { name: 'Files per prompt, at most' }) as HTMLInputElement).value).toBe('4'));

    await user.click(w.getByRole('button', { name: 'Use global for all' }));
    await user.click(w.getByRole('button', { name: 'Save' }));
    await waitFor(async () => expect((await b.client.settings.get()).injectionByWorkspace).toEqual({}));
    expect(screen.getByRole('option', { name: 'Widgets' })).toBeTruthy();
  });
});
