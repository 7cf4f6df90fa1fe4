// @vitest-environment happy-dom
// The scope's "Last consolidated … · Undo" in the memory pane's tree, against the real
// backend: a consolidation applied (here through the API, as `cairn consolidate apply` in another window
// would) shows on its scope; Undo there takes the whole of it back, says so, and the line goes. A
// proposal waiting for review shows on its scope, and Review opens it. Consolidate… from the scope
// row's button opens the proposal view where the editor shows.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { makeBackend, renderPane } from '../../../../tests/support/ui-backend';

const P = '/memories/project';
const TESTS = 'Run make test before every push. The integration suite needs Docker running. Use make test-unit for a quick check.\n';

describe('the last consolidation on its scope', () => {
  it('shows "Last consolidated just now · Undo", and Undo brings every file back', async () => {
    const backend = await makeBackend();
    await backend.agent({ command: 'create', path: `${P}/tests.md`, file_text: TESTS });
    await backend.agent({ command: 'create', path: `${P}/tests-copy.md`, file_text: `${TESTS}Retries flaky.\n` });
    await backend.recordUses(`${P}/tests.md`, 3, new Date());
    const proposed = await backend.client.consolidation.propose({ workspaceId: backend.workspaceId, scope: 'project' });
    if (proposed.status !== 'proposed') throw new Error(`expected a proposal: ${JSON.stringify(proposed)}`);
    const applied = await backend.client.consolidation.apply({ workspaceId: backend.workspaceId, id: proposed.proposal.id });
    expect(applied.status).toBe('ok');
    const copy = path.join(backend.sb.roots.project, 'tests-copy.md');
    expect(fs.existsSync(copy)).toBe(false);

    await renderPane(backend);
    const line = await screen.findByRole('treeitem', { name: 'PROJECT memory was last consolidated just now' });
    const user = userEvent.setup();
    await user.click(within(line).getByRole('button', { name: 'Undo the consolidation of project memory' }));
    await screen.findByText('Undid the consolidation of project memory: 2 files are back as they were before it.');
    expect(fs.readFileSync(copy, 'utf8')).toBe(`${TESTS}Retries flaky.\n`);
    expect(fs.readFileSync(path.join(backend.sb.roots.project, 'tests.md'), 'utf8')).toBe(TESTS);
    await screen.findByRole('treeitem', { name: `${P}/tests-copy.md` });
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: /was last consolidated/ })).toBeNull());
  });

  it('shows a proposal waiting for review on its scope (made by cairn consolidate or an agent); Review opens it', async () => {
    const backend = await makeBackend();
    await backend.agent({ command: 'create', path: `${P}/tests.md`, file_text: TESTS });
    await backend.agent({ command: 'create', path: `${P}/tests-copy.md`, file_text: `${TESTS}Retries flaky.\n` });
    const proposed = await backend.client.consolidation.propose({ workspaceId: backend.workspaceId, scope: 'project' });
    expect(proposed.status).toBe('proposed');
    await renderPane(backend);
    const waiting = await screen.findByRole('treeitem', { name: 'PROJECT memory has a consolidation waiting for review: 1 merge, proposed just now' });
    const user = userEvent.setup();
    await user.click(within(waiting).getByRole('button', { name: 'Review the consolidation of project memory' }));
    const view = await screen.findByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText(/^This proposal was waiting for you/);
    // Discarded, it leaves the tree.
    await user.click(within(view).getByRole('button', { name: 'Discard' }));
    await within(view).findByText('Discarded the proposal; nothing was written.');
    await waitFor(() => expect(screen.queryByRole('treeitem', { name: /consolidation waiting for review/ })).toBeNull());
  });

  it('Consolidate… on the scope row opens the proposal view, and closing it gives the focus back to where it was', async () => {
    const backend = await makeBackend();
    await backend.agent({ command: 'create', path: `${P}/only.md`, file_text: 'Nothing like any other file.\n' });
    await renderPane(backend);
    const scope = await screen.findByRole('treeitem', { name: /^PROJECT memory, / });
    scope.focus();
    const user = userEvent.setup();
    await user.click(await within(scope).findByRole('button', { name: 'Consolidate project memory…' }));
    const view = await screen.findByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByRole('heading', { name: 'Nothing to consolidate' });
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Consolidate project memory' })).toBeNull());
    // Back on the button that opened it, in the scope's row.
    await waitFor(() => expect(document.activeElement?.closest('[data-row-id]')?.getAttribute('data-row-id')).toBe('scope:project'));
  });
});
