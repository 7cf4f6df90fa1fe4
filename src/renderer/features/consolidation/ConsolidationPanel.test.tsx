// @vitest-environment happy-dom
// The consolidation view against the real backend: two pairs of near-duplicate files
// (written by an agent, so the rules propose merging each), proposed as the view opens; the
// summary, every change checked; unchecking one (a click, or Space from the keyboard after the
// arrows) and Apply sends only the other's path (`only`), and the outcome says what was applied
// and what was left out, and on disk only that merge happened; Undo takes it back. A proposal
// already waiting is shown, not replaced, until Propose again. Discard drops the proposal and
// writes nothing. A file an agent changed after the proposal is flagged in its diff and its change
// skipped as a conflict, in words. Cancel aborts the proposal's call (the route, asked with that
// signal, stores nothing) and says so; a scope with nothing to do says so, and why; Escape closes
// the view. A model's proposal (the setting consolidationExtractor: a command standing in for one) says what
// asking it sent; the rules' says nothing about cost.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../../../tests/support/sandbox';
import { makeBackend, renderWithBackend, type UiBackend } from '../../../../tests/support/ui-backend';
import { ConsolidationPanel } from './ConsolidationPanel';

const P = '/memories/project';
const FAKE_MODEL = path.join(REPO_ROOT, 'src', 'main', 'consolidation', 'fixtures', 'fake-consolidation-model.mjs');
const TESTS = 'Run make test before every push. The integration suite needs Docker running. Use make test-unit for a quick check.\n';
const DEPLOY = 'Deploy with make release from the main branch after the changelog is updated and the version is tagged.\n';

type Consolidation = UiBackend['client']['consolidation'];

/** The backend with some of its consolidation routes replaced (to watch what the view sends, or to hold a call). */
function withConsolidation(b: UiBackend, routes: Partial<Consolidation>): UiBackend {
  const consolidation = new Proxy(b.client.consolidation, { get: (target, key) => (routes as Record<PropertyKey, unknown>)[key] ?? (target as Record<PropertyKey, unknown>)[key] });
  const client = new Proxy(b.client, { get: (target, key) => (key === 'consolidation' ? consolidation : (target as Record<PropertyKey, unknown>)[key]) });
  return { ...b, client };
}

async function seedDuplicates(b: UiBackend): Promise<void> {
  await b.agent({ command: 'create', path: `${P}/tests.md`, file_text: TESTS });
  await b.agent({ command: 'create', path: `${P}/tests-copy.md`, file_text: `${TESTS}Retries flaky.\n` });
  await b.agent({ command: 'create', path: `${P}/deploy.md`, file_text: DEPLOY });
  await b.agent({ command: 'create', path: `${P}/deploy-copy.md`, file_text: `${DEPLOY}Announce releases.\n` });
  // The kept file of each pair is the more used one.
  await b.recordUses(`${P}/tests.md`, 3, new Date());
  await b.recordUses(`${P}/deploy.md`, 2, new Date());
}

const onDisk = (b: UiBackend, name: string) => fs.readFileSync(path.join(b.sb.roots.project, name), 'utf8');
const exists = (b: UiBackend, name: string) => fs.existsSync(path.join(b.sb.roots.project, name));

describe('the consolidation view', () => {
  it('shows the summary with every change checked, applies only the checked ones, and undoes them', async () => {
    const backend = await makeBackend();
    await seedDuplicates(backend);
    const applied: unknown[] = [];
    const spied = withConsolidation(backend, {
      apply: ((input, options) => {
        applied.push(input);
        return backend.client.consolidation.apply(input, options);
      }) as Consolidation['apply'],
    });
    const onClose = vi.fn();
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={4} onClose={onClose} />, spied);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });

    await within(view).findByText('2 merges');
    const tests = within(view).getByRole('checkbox', { name: `Merge ${P}/tests.md` });
    const deploy = within(view).getByRole('checkbox', { name: `Merge ${P}/deploy.md` });
    expect((tests as HTMLInputElement).checked).toBe(true);
    expect((deploy as HTMLInputElement).checked).toBe(true);
    within(view).getByText(/tests-copy\.md says the same as tests\.md/);
    within(view).getByText('This scope was never consolidated; 4 files changed in its history.');
    // The rules asked no model.
    expect(within(view).queryByText(/Sent to the model/)).toBeNull();
    expect((within(view).getByRole('button', { name: 'Apply 2 selected' }) as HTMLButtonElement).disabled).toBe(false);
    // The focus starts on the first change.
    await waitFor(() => expect(document.activeElement).toBe(within(view).getAllByRole('checkbox', { name: /^Merge / })[0]));

    // A click unchecks, a second checks again; the arrows move and Space unchecks from the keyboard.
    const user = userEvent.setup();
    await user.click(deploy);
    expect((deploy as HTMLInputElement).checked).toBe(false);
    within(view).getByRole('button', { name: 'Apply 1 selected' });
    await user.click(deploy);
    expect((deploy as HTMLInputElement).checked).toBe(true);
    const first = within(view).getAllByRole('checkbox', { name: /^Merge / })[0]!;
    const second = within(view).getAllByRole('checkbox', { name: /^Merge / })[1]!;
    first.focus();
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(second);
    await user.keyboard(' ');
    expect((second as HTMLInputElement).checked).toBe(false);
    const keptName = second === deploy ? 'tests' : 'deploy';
    const leftName = keptName === 'tests' ? 'deploy' : 'tests';

    // Enter shows the focused change's diff: the copy's text going, the kept file gaining its line.
    first.focus();
    await user.keyboard('{Enter}');
    const diff = await within(view).findByRole('group', { name: `${P}/${keptName}.md: Now beside After` });
    await within(diff).findByText(keptName === 'tests' ? 'Retries flaky.' : 'Announce releases.');

    await user.click(within(view).getByRole('button', { name: 'Apply 1 selected' }));
    await within(view).findByText('Applied 1 change as one change you can undo.');
    expect(applied).toEqual([expect.objectContaining({ only: [`${P}/${keptName}.md`] })]);
    within(view).getByRole('heading', { name: 'Left as they are (not selected)' });
    expect(exists(backend, `${keptName}-copy.md`)).toBe(false);
    expect(onDisk(backend, `${keptName}.md`)).toBe(keptName === 'tests' ? `${TESTS}Retries flaky.\n` : `${DEPLOY}Announce releases.\n`);
    expect(exists(backend, `${leftName}-copy.md`)).toBe(true);

    await user.click(within(view).getByRole('button', { name: 'Undo this consolidation' }));
    await within(view).findByText('Undid the consolidation of project memory: 2 files are back as they were before it.');
    expect(onDisk(backend, `${keptName}.md`)).toBe(keptName === 'tests' ? TESTS : DEPLOY);
    expect(exists(backend, `${keptName}-copy.md`)).toBe(true);

    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('says when a file changed since the proposal, and applying skips that change as a conflict, in words', async () => {
    const backend = await makeBackend();
    await seedDuplicates(backend);
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={4} onClose={() => {}} />, backend);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText('2 merges');
    // An agent writes to a file of one change after the proposal.
    await backend.agent({ command: 'str_replace', path: `${P}/deploy-copy.md`, old_str: 'Announce releases.', new_str: 'Announce releases in #eng.' });
    const user = userEvent.setup();
    await user.click(within(view).getByRole('button', { name: `Show the diff of ${P}/deploy.md` }));
    await within(view).findByText(`${P}/deploy-copy.md was changed since the proposal`, { exact: false });
    await user.click(within(view).getByRole('button', { name: 'Apply 2 selected' }));
    await within(view).findByText('Applied 1 change as one change you can undo. 1 change was skipped (a conflict: the file changed since the proposal).');
    within(view).getByRole('heading', { name: 'Skipped: a conflict' });
    within(view).getByText(`Skipped ${P}/deploy.md: ${P}/deploy-copy.md was changed since the proposal, so this change was not applied.`);
    // The agent's text stands; the other merge happened.
    expect(onDisk(backend, 'deploy-copy.md')).toBe(`${DEPLOY}Announce releases in #eng.\n`);
    expect(exists(backend, 'tests-copy.md')).toBe(false);
  });

  it('shows a proposal already waiting (cairn consolidate, an agent) instead of replacing it; Propose again makes a new one', async () => {
    const backend = await makeBackend();
    await seedDuplicates(backend);
    const waiting = await backend.client.consolidation.propose({ workspaceId: backend.workspaceId, scope: 'project' });
    if (waiting.status !== 'proposed') throw new Error('expected a proposal');
    let proposed = 0;
    const counted = withConsolidation(backend, {
      propose: ((input, options) => {
        proposed++;
        return backend.client.consolidation.propose(input, options);
      }) as Consolidation['propose'],
    });
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={4} onClose={() => {}} />, counted);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText(/^This proposal was waiting for you \(made just now by the rules/);
    within(view).getByText('2 merges');
    expect(proposed).toBe(0);
    await userEvent.setup().click(within(view).getByRole('button', { name: 'Propose again' }));
    await waitFor(() => expect(within(view).queryByText(/was waiting for you/)).toBeNull());
    await within(view).findByText('2 merges');
    expect(proposed).toBe(1);
    const { proposals } = await backend.client.consolidation.list({ workspaceId: backend.workspaceId });
    expect(proposals.find((p) => p.id === waiting.proposal.id)?.state).toBe('replaced');
  });

  it("says what asking the model sent, with its proposal and when it proposed nothing", async () => {
    const backend = await makeBackend();
    await seedDuplicates(backend);
    const record = path.join(backend.sb.dir, 'record.jsonl');
    const answerFile = path.join(backend.sb.dir, 'answer.txt');
    fs.writeFileSync(answerFile, JSON.stringify({ changes: [{ op: 'write', path: `${P}/deploy.md`, basedOn: `{{sha:${P}/deploy.md}}`, content: 'Deploy with make release.\n', reason: 'Shorter.' }] }));
    await backend.client.settings.set({ consolidationExtractor: 'command', harvestCommand: `'${process.execPath}' '${FAKE_MODEL}' '${record}' '${answerFile}'` });
    // The prompts the model received, in order.
    const prompts = () => fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt);
    const sent = (prompt: string) => `Sent to the model: 1 call, ${prompt.length.toLocaleString('en-US')} characters.`;
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={4} onClose={() => {}} />, backend);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText('1 rewrite');
    within(view).getByText(sent(prompts()[0]!));

    // Asked again, the model proposes nothing: that call is said too.
    fs.writeFileSync(answerFile, '{"changes":[]}');
    await userEvent.setup().click(within(view).getByRole('button', { name: 'Propose again' }));
    await within(view).findByRole('heading', { name: 'Nothing to consolidate' });
    expect(prompts()).toHaveLength(2);
    within(view).getByText(sent(prompts()[1]!));
  });

  it('Discard drops the proposal and writes nothing', async () => {
    const backend = await makeBackend();
    await seedDuplicates(backend);
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={4} onClose={() => {}} />, backend);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText('2 merges');
    await userEvent.setup().click(within(view).getByRole('button', { name: 'Discard' }));
    await within(view).findByText('Discarded the proposal; nothing was written.');
    const { proposals } = await backend.client.consolidation.list({ workspaceId: backend.workspaceId });
    expect(proposals.map((p) => p.state)).toEqual(['discarded']);
    expect(exists(backend, 'tests-copy.md') && exists(backend, 'deploy-copy.md')).toBe(true);
    expect(onDisk(backend, 'tests.md')).toBe(TESTS);
  });

  it('Cancel aborts the proposal call and says nothing was written', async () => {
    const backend = await makeBackend();
    // Files a proposal would be about: without the cancel, one would be stored.
    await seedDuplicates(backend);
    let seen: AbortSignal | undefined;
    let forwarded: Promise<unknown> | undefined;
    const held = withConsolidation(backend, {
      // Held until aborted, as a long proposal is; then the real route is asked with the view's (aborted) signal.
      propose: ((input: Parameters<Consolidation['propose']>[0], options?: { signal?: AbortSignal }) => {
        seen = options?.signal;
        return new Promise((resolve) => options?.signal?.addEventListener('abort', () => resolve((forwarded = backend.client.consolidation.propose(input, options)))));
      }) as Consolidation['propose'],
    });
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={412} onClose={() => {}} />, held);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByText('Looking at 412 files of project memory…');
    // The model is being asked (the view looked for an open proposal first, and found none).
    await waitFor(() => expect(seen).toBeDefined());
    const user = userEvent.setup();
    await user.click(within(view).getByRole('button', { name: 'Cancel' }));
    expect(seen?.aborted).toBe(true);
    await within(view).findByText('Cancelled: nothing was proposed and nothing was written.');
    // The route, asked with that signal, stored nothing.
    await forwarded?.catch(() => undefined);
    expect(forwarded).toBeDefined();
    expect((await backend.client.consolidation.list({ workspaceId: backend.workspaceId })).proposals).toEqual([]);
  });

  it('says "Nothing to consolidate" and why, when no file qualifies', async () => {
    const backend = await makeBackend();
    await backend.agent({ command: 'create', path: `${P}/only.md`, file_text: 'Written just now, used by nobody yet, and like no other file.\n' });
    await renderWithBackend((b) => <ConsolidationPanel workspaceId={b.workspaceId} scope="project" fileCount={1} onClose={() => {}} />, backend);
    const view = screen.getByRole('region', { name: 'Consolidate project memory' });
    await within(view).findByRole('heading', { name: 'Nothing to consolidate' });
    within(view).getByText(/No file in project memory has gone unused for 60 days, and none repeats another/);
    expect(within(view).queryByRole('button', { name: /^Apply/ })).toBeNull();
  });
});
