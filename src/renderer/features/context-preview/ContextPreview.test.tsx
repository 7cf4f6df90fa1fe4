// @vitest-environment happy-dom
// "What agents receive" against the real backend: per scope, how many of its files the index lists,
// said above the parts (a large global scope fills the index's budget before any project file);
// and a prompt tried here shows the relevant memories the prompt hook would inject for it.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_INJECTION } from '../../../common/context/injection';
import { makeBackend, renderWithBackend, type UiBackend } from '../../../../tests/support/ui-backend';
import { ContextPreview, kib } from './ContextPreview';

afterEach(cleanup);

async function writeFile(root: string, name: string, description: string, body: string): Promise<void> {
  await fs.mkdir(root, { recursive: true });
  await fs.writeFile(path.join(root, name), `---\ndescription: ${description}\n---\n${body}\n`);
}

async function open(b: UiBackend) {
  await renderWithBackend(<ContextPreview workspaceId={b.workspaceId} listVersion={0} onClose={() => undefined} />, b);
  return screen.findByRole('dialog', { name: 'What agents receive' });
}

describe('what agents receive', () => {
  it('says per scope how many of its files the index lists, before the index itself', async () => {
    const b = await makeBackend();
    const long = 'a note about conventions kept for every project, long enough that a few hundred of them fill the budget'.repeat(2);
    for (let i = 0; i < 300; i++) await writeFile(b.sb.roots.global, `g-${String(i).padStart(3, '0')}.md`, `${long} ${i}`, 'text');
    for (let i = 0; i < 3; i++) await writeFile(b.sb.roots.project, `p-${i}.md`, `project note ${i}`, 'text');
    const dialog = await open(b);
    const index = await within(dialog).findByRole('region', { name: 'Memory index' });
    const lines = index.querySelector('pre')!.textContent!.split('\n');
    const listedGlobal = lines.filter((l) => l.startsWith('/memories/global/g-')).length;
    expect(listedGlobal).toBeGreaterThan(0);
    expect(listedGlobal).toBeLessThan(300);
    expect(lines.some((l) => l.startsWith('/memories/project/'))).toBe(false);
    const summary = within(dialog).getByText('In the index:').parentElement!;
    expect(summary.textContent).toBe(`In the index: global: ${listedGlobal} of 300 files listed; project: 0 of 3 files listed; workspace: no files.`);
    // Said before the index's text, not only at its end.
    expect(summary.compareDocumentPosition(index) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('says every file is listed when the index holds them all', async () => {
    const b = await makeBackend();
    await writeFile(b.sb.roots.project, 'build.md', 'Building the project', 'make');
    const dialog = await open(b);
    const summary = (await within(dialog).findByText('In the index:')).parentElement!;
    expect(summary.textContent).toBe('In the index: global: no files; project: its 1 file listed; workspace: no files.');
  });

  it('shows the relevant memories a tried prompt would bring, as the prompt hook renders them', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    await writeFile(b.sb.roots.project, 'deploy.md', 'Deploying to staging', 'Run make deploy-staging after the tests pass.');
    await writeFile(b.sb.roots.project, 'style.md', 'Code style', 'Tabs, not spaces.');
    const dialog = await open(b);
    const tryIt = await within(dialog).findByRole('region', { name: 'Try a prompt' });
    await user.type(within(tryIt).getByRole('textbox', { name: 'Try a prompt' }), 'how do we deploy to staging');
    await user.click(within(tryIt).getByRole('button', { name: 'Show what it brings' }));
    const relevant = await within(tryIt).findByRole('region', { name: 'Relevant memories' });
    const text = relevant.querySelector('pre')!.textContent!;
    const snapshot = await b.host.builder.snapshot(b.session);
    expect(text).toBe(b.host.builder.relevant(snapshot, 'how do we deploy to staging', Date.now(), DEFAULT_INJECTION));
    expect(text).toContain('/memories/project/deploy.md');
    expect(text).not.toContain('/memories/project/style.md');
    within(relevant).getByText(`for "how do we deploy to staging": ${kib(new TextEncoder().encode(text).length)} of ${kib(DEFAULT_INJECTION.relevantMaxBytes)}`);
  });
});
