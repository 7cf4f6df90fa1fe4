// @vitest-environment happy-dom
// The empty state against the real backend: with no memory yet, what memory is and how to connect
// each agent, with the very lines `setup.guide` serves (those of `cairn setup`), copyable; it gives
// way to the tree as soon as an agent writes.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderPane } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

describe('first run', () => {
  it('explains memory and shows the setup command of every agent, as setup.guide gives them', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    const guides = await b.client.setup.guide({ workspaceId: b.workspaceId });
    expect(guides.length).toBeGreaterThanOrEqual(3);
    await renderPane(b);
    const region = await screen.findByRole('region', { name: 'Connect an agent' });
    expect(within(region).getByRole('heading', { name: 'No memories yet' })).toBeTruthy();
    expect(within(region).getByText(/Memory is what your coding agents keep between sessions/)).toBeTruthy();

    const tabs = await within(region).findAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(guides.map((g) => g.name));
    for (const guide of guides) {
      await user.click(within(region).getByRole('tab', { name: guide.name }));
      expect(within(region).getByRole('tab', { name: guide.name }).getAttribute('aria-selected')).toBe('true');
      const panel = within(region).getByRole('tabpanel', { name: guide.name });
      expect(within(panel).getByText(guide.command, { selector: 'code' })).toBeTruthy();
      expect(guide.command).toMatch(/setup/);
      // With a local checkout, the files it merges into, with the snippet.
      expect(guide.files.length).toBeGreaterThan(0);
      for (const f of guide.files) {
        expect(within(panel).getByText(`Or merge it yourself into ${f.path}`)).toBeTruthy();
        expect(within(panel).getByText((_, el) => el?.tagName === 'PRE' && el.textContent === f.snippet)).toBeTruthy();
      }
      if (guide.alternative) expect(within(panel).getByText(guide.alternative.line, { selector: 'code' })).toBeTruthy();
      expect(within(panel).getByRole('button', { name: `Copy the ${guide.name} setup command` })).toBeTruthy();
    }
  });

  it('the copy button puts the exact command on the clipboard', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    const [first] = await b.client.setup.guide({ workspaceId: b.workspaceId });
    await renderPane(b);
    await user.click(await screen.findByRole('button', { name: `Copy the ${first!.name} setup command` }));
    expect(await navigator.clipboard.readText()).toBe(first!.command);
  });

  it('gives way to the tree when an agent writes the first memory', async () => {
    const b = await makeBackend();
    await renderPane(b);
    await screen.findByRole('region', { name: 'Connect an agent' });
    await b.agent({ command: 'create', path: '/memories/project/first.md', file_text: 'hello' });
    await screen.findByRole('treeitem', { name: '/memories/project/first.md' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Connect an agent' })).toBeNull());
    expect(screen.getByText('Select a memory to read or edit it.')).toBeTruthy();
  });
});
