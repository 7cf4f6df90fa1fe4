// @vitest-environment happy-dom
// The Inbox against the real backend: proposals put in the home's inbox the way a
// harvest does (the host's InboxStore), reviewed in the memory pane: the count beside the tree,
// each proposal's text, category, target, confidence, session, rationale and evidence; Approve
// (the line on disk, the confirmation with Open and Undo), Edit then approve (edited text, another
// file), Reject, Reject all from a session, a conflict and an error shown on the proposal, the
// keyboard, and the empty state.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { runCairn } from '../../../../tests/support/cli';
import { afterEach, describe, expect, it } from 'vitest';
import { makeBackend, renderPane, type UiBackend } from '../../../../tests/support/ui-backend';
import { ApiProvider, makeApi, makeQueryClient } from '../../api/api-context';
import { MemoryPane } from '../../app/MemoryPane';

afterEach(cleanup);

type Category = 'preference' | 'convention' | 'fact' | 'command' | 'lesson';

const candidate = (text: string, category: Category, extra: { quote?: string; confidence?: number; rationale?: string } = {}) => ({
  category,
  text,
  scope: category === 'preference' ? ('global' as const) : ('project' as const),
  evidence: [{ messageId: 'msg-0001-abcdef', quote: extra.quote ?? text }],
  confidence: extra.confidence ?? 0.8,
  rationale: extra.rationale ?? 'The person said it outright.',
});

function propose(b: UiBackend, candidates: ReturnType<typeof candidate>[], session = 'sess-1111-2222', agent: 'claude' | 'codex' = 'claude', workspaceId: string | null = b.workspaceId) {
  return b.host.inbox.add(candidates, { agent, sessionId: session, cwd: b.sb.checkout, workspaceId, projectId: null, extractor: 'rules' });
}

const onDisk = (b: UiBackend, scope: 'global' | 'project', name: string) => fs.readFile(path.join(b.sb.roots[scope], name), 'utf8');
const inbox = () => screen.getByRole('region', { name: 'Inbox' });
const proposal = (name: string) => within(inbox()).getByRole('listitem', { name });
const proposalNames = () => within(inbox()).queryAllByRole('listitem').map((el) => el.getAttribute('aria-label'));

async function openInbox(b: UiBackend) {
  const user = userEvent.setup();
  await renderPane(b);
  await user.click(await screen.findByRole('button', { name: /^Inbox/ }));
  await screen.findByRole('region', { name: 'Inbox' });
  return user;
}

describe('the Inbox', () => {
  it('shows what a person imported (cairn import) as a group named by its file, never hidden for want of a session, and rejects it whole', async () => {
    const b = await makeBackend();
    const rules = path.join(b.sb.checkout, '.cursorrules');
    await fs.writeFile(rules, '- Use pnpm, never npm.\n- Tests live beside the code they test.\n');
    const imported = await runCairn(['import', '--from', 'cursor', rules, '--home', b.sb.home, '--cwd', b.sb.checkout]);
    expect(imported.status, imported.stderr + imported.stdout).toBe(0);
    const user = await openInbox(b);
    const group = await within(inbox()).findByRole('region', { name: 'From the import of .cursorrules' });
    expect(group.textContent).toMatch(/^Imported from \.cursorrules · 2 proposals/);
    // Read from the file, not said by the person nor guessed: its line, and no confidence words.
    const pnpm = within(group).getAllByRole('listitem').find((li) => li.textContent?.includes('Use pnpm, never npm.'))!;
    const evidence = within(pnpm).getByRole('group', { name: 'Evidence' });
    expect(evidence.querySelector('figcaption')?.textContent).toBe('From the file .cursorrules, line 1');
    expect(group.textContent).not.toMatch(/You said|% sure|\(message/);
    await user.click(within(group).getByRole('button', { name: 'Reject all from this file' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject all 2 from this file?' });
    expect(dialog.textContent).toContain('Every proposal still in the inbox from the import of .cursorrules is rejected');
    await user.click(within(dialog).getByRole('button', { name: 'Reject all 2' }));
    await within(inbox()).findByText('Rejected 2 proposals from the import of .cursorrules. They will not be proposed again for 90 days.');
    expect(b.host.inbox.list('pending')).toEqual([]);
  });

  it('shows the count beside the tree, and each proposal with its text, category, target, confidence, session, rationale and evidence', async () => {
    const b = await makeBackend();
    propose(b, [candidate('We use tabs, not spaces.', 'convention', { quote: 'we use tabs, not spaces', confidence: 0.9, rationale: 'A convention the person stated.' })]);
    propose(b, [candidate('The user prefers short answers.', 'preference'), candidate('Run make check before pushing.', 'command')], 'sess-3333-4444', 'codex');
    // Another workspace's proposals are reviewed there.
    propose(b, [candidate('Not for this workspace.', 'fact')], 'sess-other', 'claude', 'some-other-workspace');
    await renderPane(b);
    const button = await screen.findByRole('button', { name: 'Inbox, 3 to review' });
    expect(button.getAttribute('aria-pressed')).toBe('false');
    await userEvent.setup().click(button);
    expect(button.getAttribute('aria-pressed')).toBe('true');
    await within(inbox()).findByText('3 proposals to review. Nothing is added to memory until you approve it.');
    // Grouped by session, the newest first.
    expect(proposalNames()).toEqual(['Command: Run make check before pushing.', 'Preference: The user prefers short answers.', 'Convention: We use tabs, not spaces.']);
    const codex = within(inbox()).getByRole('region', { name: 'From Codex session sess-333' });
    expect(codex.textContent).toMatch(/^Codex session sess-333 · 2 proposals · found by the rules extractor/);
    expect(within(codex).getByRole('button', { name: 'Reject all from this session' })).toBeTruthy();

    const tabs = proposal('Convention: We use tabs, not spaces.');
    expect(within(tabs).getByText('Convention')).toBeTruthy();
    expect(within(tabs).getByText('90% sure')).toBeTruthy();
    expect(within(tabs).getByText('/memories/project/conventions.md')).toBeTruthy();
    expect(within(tabs).getByText('(a new file)')).toBeTruthy();
    expect(within(tabs).getByText('A convention the person stated.')).toBeTruthy();
    const evidence = within(tabs).getByRole('group', { name: 'Evidence' });
    expect(within(evidence).getByText('we use tabs, not spaces').tagName).toBe('BLOCKQUOTE');
    expect(evidence.textContent).toContain('You said');
    expect(within(inbox()).queryByText('Not for this workspace.')).toBeNull();
    // A command's quote may be either side's: it does not claim the person said it.
    expect(within(proposal('Command: Run make check before pushing.')).getByRole('group', { name: 'Evidence' }).textContent).toContain('In the session');
  });

  it('approves a proposal: the line is in the file on disk, the proposal leaves, the confirmation opens the file and can undo it (the proposal comes back)', async () => {
    const b = await makeBackend();
    const [tabs] = propose(b, [candidate('We use tabs, not spaces.', 'convention')]);
    propose(b, [candidate('Lint before committing.', 'lesson')], 'sess-2');
    const user = await openInbox(b);
    await user.click(within(proposal('Convention: We use tabs, not spaces.')).getByRole('button', { name: 'Approve' }));
    const status = await within(inbox()).findByRole('status');
    await within(status).findByText('Added to /memories/project/conventions.md (a new file).');
    expect(await onDisk(b, 'project', 'conventions.md')).toContain('- We use tabs, not spaces.\n');
    // The list is asked again after the decision: waited for, not read at once.
    await waitFor(() => expect(proposalNames()).toEqual(['Lesson: Lint before committing.']));
    expect(await screen.findByRole('button', { name: 'Inbox, 1 to review' })).toBeTruthy();
    const items = (await b.client.inbox.list({ all: true })).items;
    expect(items.find((i) => i.id === tabs!.id)).toMatchObject({ status: 'approved', approvedTo: '/memories/project/conventions.md' });
    // The tree shows the new file.
    await screen.findByRole('treeitem', { name: '/memories/project/conventions.md' });

    // Undo takes it back out (the history's version caused by harvest:<id>), and the proposal is
    // back, to decide again.
    await user.click(await within(status).findByRole('button', { name: 'Undo' }));
    await within(inbox()).findByText('Took the approved text back out of /memories/project/conventions.md; the proposal is back to decide again.');
    await expect(onDisk(b, 'project', 'conventions.md')).rejects.toThrow();
    await waitFor(() => expect(proposalNames().sort()).toEqual(['Convention: We use tabs, not spaces.', 'Lesson: Lint before committing.']));

    // Reject it this time; approve the other, then open the file it went to.
    await user.click(within(proposal('Convention: We use tabs, not spaces.')).getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(proposalNames()).toEqual(['Lesson: Lint before committing.']));
    await user.click(within(proposal('Lesson: Lint before committing.')).getByRole('button', { name: 'Approve' }));
    await within(inbox()).findByText('Added to /memories/project/lessons.md (a new file).');
    await within(inbox()).findByText('Nothing to review');
    await user.click(within(inbox()).getByRole('button', { name: 'Open lessons.md' }));
    const editor = await screen.findByRole('region', { name: 'Editor: /memories/project/lessons.md' });
    expect(editor).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Inbox' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Inbox' }).getAttribute('aria-pressed')).toBe('false');
  });

  it('edits then approves: the edited text goes to a file the person chose or typed', async () => {
    const b = await makeBackend();
    await b.write('/memories/global/style.md', '---\ndescription: How I like answers\n---\n- Be brief.\n');
    propose(b, [candidate('The user prefers short answers.', 'preference')]);
    propose(b, [candidate('Deploys go through the staging branch.', 'fact')], 'sess-2');
    const user = await openInbox(b);

    let item = proposal('Preference: The user prefers short answers.');
    await user.click(within(item).getByRole('button', { name: 'Edit' }));
    const text = within(item).getByRole('textbox', { name: 'Text to add' });
    expect(document.activeElement).toBe(text);
    await user.clear(text);
    // Typed as a bullet: it is not made a bullet twice.
    await user.type(text, '- Short answers, no preamble.');
    const to = within(item).getByRole('combobox', { name: 'Add to file' });
    expect((to as HTMLInputElement).value).toBe('/memories/global/preferences.md');
    // The person's memory files are offered.
    const options = [...document.querySelectorAll(`#${CSS.escape(to.getAttribute('list')!)} option`)].map((o) => o.getAttribute('value'));
    expect(options).toContain('/memories/global/style.md');
    await user.clear(to);
    await user.type(to, '/memories/global/style.md');
    await user.click(within(item).getByRole('button', { name: 'Approve' }));
    await within(inbox()).findByText('Added to /memories/global/style.md.');
    expect(await onDisk(b, 'global', 'style.md')).toBe('---\ndescription: How I like answers\n---\n- Be brief.\n- Short answers, no preamble.\n');
    await expect(onDisk(b, 'global', 'preferences.md')).rejects.toThrow();

    // "Change" goes straight to the file; a new path is created; Enter in it approves.
    item = proposal('Fact: Deploys go through the staging branch.');
    await user.click(within(item).getByRole('button', { name: 'Change where \u201cDeploys go through the staging branch.\u201d goes' }));
    const to2 = within(item).getByRole('combobox', { name: 'Add to file' });
    expect(document.activeElement).toBe(to2);
    await user.clear(to2);
    await user.type(to2, '/memories/project/deploy/notes.md{Enter}');
    await within(inbox()).findByText('Added to /memories/project/deploy/notes.md (a new file).');
    expect(await onDisk(b, 'project', 'deploy/notes.md')).toContain('- Deploys go through the staging branch.\n');
  });

  it('a target that is no memory file is refused on the proposal, which stays', async () => {
    const b = await makeBackend();
    propose(b, [candidate('We use tabs, not spaces.', 'convention')]);
    const user = await openInbox(b);
    const item = proposal('Convention: We use tabs, not spaces.');
    await user.click(within(item).getByRole('button', { name: 'Edit' }));
    const to = within(item).getByRole('combobox', { name: 'Add to file' });
    await user.clear(to);
    await user.type(to, 'notes.md');
    await user.click(within(item).getByRole('button', { name: 'Approve' }));
    expect(within(item).getByRole('alert').textContent).toMatch(/^Not added: A memory file\u2019s path starts with \/memories\/global\//);
    // Escape leaves the edit, nothing written.
    fireEvent.keyDown(to, { key: 'Escape' });
    await waitFor(() => expect(within(item).queryByRole('combobox')).toBeNull());
    expect(proposalNames()).toEqual(['Convention: We use tabs, not spaces.']);
  });

  it('rejects one proposal: it leaves, and the inbox remembers it was rejected', async () => {
    const b = await makeBackend();
    const [british] = propose(b, [candidate('The user prefers British spelling.', 'preference')]);
    propose(b, [candidate('We use tabs, not spaces.', 'convention')], 'sess-2');
    const user = await openInbox(b);
    await user.click(within(proposal('Preference: The user prefers British spelling.')).getByRole('button', { name: 'Reject' }));
    await within(inbox()).findByText('Rejected: The user prefers British spelling. It will not be proposed again for 90 days.');
    await waitFor(() => expect(proposalNames()).toEqual(['Convention: We use tabs, not spaces.']));
    expect((await b.client.inbox.list({ all: true })).items.find((i) => i.id === british!.id)?.status).toBe('rejected');
    await expect(onDisk(b, 'global', 'preferences.md')).rejects.toThrow();
  });

  it('keeps what a long session held back out of the count, shows it on request, and approves one like any proposal', async () => {
    const b = await makeBackend();
    propose(b, [candidate('We use tabs, not spaces.', 'convention')], 'sess-long');
    b.host.inbox.hold([candidate('Service 1 listens on port 8001.', 'fact', { confidence: 0.62 }), candidate('Service 2 listens on port 8002.', 'fact', { confidence: 0.61 })], {
      agent: 'claude',
      sessionId: 'sess-long',
      cwd: b.sb.checkout,
      workspaceId: b.workspaceId,
      projectId: null,
      extractor: 'command',
    });
    const user = await openInbox(b);
    // Only what asks for a decision is counted and listed.
    await within(inbox()).findByText(/^1 proposal to review\./);
    expect(proposalNames()).toEqual(['Convention: We use tabs, not spaces.']);
    const held = await within(inbox()).findByRole('region', { name: 'Held back' });
    expect(held.textContent).toContain('2 more were held back (less confident than those proposed).');
    await user.click(within(held).getByRole('button', { name: 'Show 2' }));
    expect(proposalNames()).toEqual(['Convention: We use tabs, not spaces.', 'Fact: Service 1 listens on port 8001.', 'Fact: Service 2 listens on port 8002.']);
    await within(inbox()).findByText(/^1 proposal to review\./);
    await user.click(within(proposal('Fact: Service 2 listens on port 8002.')).getByRole('button', { name: 'Approve' }));
    await waitFor(async () => expect(await onDisk(b, 'project', 'facts.md')).toContain('- Service 2 listens on port 8002.'));
    await waitFor(() => expect(proposalNames()).toEqual(['Convention: We use tabs, not spaces.', 'Fact: Service 1 listens on port 8001.']));
    expect(within(inbox()).getByRole('region', { name: 'Held back' }).textContent).toContain('1 more was held back');
  });

  it('rejects all from one session after confirming, leaving other sessions alone', async () => {
    const b = await makeBackend();
    propose(b, [candidate('Keep it.', 'fact')], 'sess-keep');
    propose(b, [candidate('Drop one.', 'fact'), candidate('Drop two.', 'lesson'), candidate('Drop three.', 'command')], 'sess-drop', 'codex');
    const user = await openInbox(b);
    const session = within(inbox()).getByRole('region', { name: 'From Codex session sess-dro' });
    await user.click(within(session).getByRole('button', { name: 'Reject all from this session' }));
    const dialog = screen.getByRole('dialog', { name: 'Reject all 3 from this session?' });
    // Cancel changes nothing.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(proposalNames()).toHaveLength(4);
    await user.click(within(session).getByRole('button', { name: 'Reject all from this session' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Reject all 3 from this session?' })).getByRole('button', { name: 'Reject all 3' }));
    await within(inbox()).findByText('Rejected 3 proposals from Codex session sess-dro. They will not be proposed again for 90 days.');
    await waitFor(() => expect(proposalNames()).toEqual(['Fact: Keep it.']));
    const all = (await b.client.inbox.list({ all: true })).items;
    expect(all.map((i) => [i.text, i.status]).sort()).toEqual([
      ['Drop one.', 'rejected'],
      ['Drop three.', 'rejected'],
      ['Drop two.', 'rejected'],
      ['Keep it.', 'pending'],
    ]);
  });

  it('adds to the file as it is when an agent writes it meanwhile; shows a conflict only when it never stops changing, never dropping the proposal', async () => {
    const b = await makeBackend();
    await b.write('/memories/project/conventions.md', '- Use pnpm.\n');
    propose(b, [candidate('We use tabs, not spaces.', 'convention'), candidate('We keep a changelog.', 'convention')]);
    // An agent writes the file between the approval's read and its write, once: the approval reads
    // again and appends to the file as it is now.
    const service = b.host.service;
    const read = service.read.bind(service);
    let races = 1;
    let n = 0;
    service.read = async (p, s) => {
      const result = await read(p, s);
      if (races > 0 && p === '/memories/project/conventions.md') {
        races--;
        await b.agent({ command: 'insert', path: p, insert_line: 0, insert_text: `# agent ${n++}` });
      }
      return result;
    };
    const user = await openInbox(b);
    const tabs = proposal('Convention: We use tabs, not spaces.');
    await user.click(within(tabs).getByRole('button', { name: 'Approve' }));
    await within(inbox()).findByText('Added to /memories/project/conventions.md.');
    expect(await onDisk(b, 'project', 'conventions.md')).toBe('# agent 0\n- Use pnpm.\n- We use tabs, not spaces.\n');
    // A file that changes before every write: a conflict, shown on the proposal, which stays.
    races = Number.POSITIVE_INFINITY;
    const changelog = proposal('Convention: We keep a changelog.');
    await user.click(within(changelog).getByRole('button', { name: 'Approve' }));
    const conflict = await within(changelog).findByRole('alert');
    expect(conflict.textContent).toMatch(/^Conflict: .*The file kept changing while this was added; nothing was added\. Approve it again\.$/);
    expect(await onDisk(b, 'project', 'conventions.md')).not.toContain('changelog');
    expect(proposalNames()).toContain('Convention: We keep a changelog.');
    races = 0;
    await user.click(within(changelog).getByRole('button', { name: 'Approve' }));
    await expect.poll(() => onDisk(b, 'project', 'conventions.md')).toMatch(/- We use tabs, not spaces\.\n- We keep a changelog\.\n$/);
    await waitFor(() => expect(proposalNames()).not.toContain('Convention: We keep a changelog.'));
  });

  it('shows an error on the proposal and keeps it when the memory cannot take it (no project here)', async () => {
    // The error comes from the server while the proposal stays pending there, so no refetch can
    // take it away in between (a proposal decided elsewhere would race the list's own refresh).
    const b = await makeBackend({ git: false });
    propose(b, [candidate('Project rule that has nowhere to go.', 'convention')]);
    const user = await openInbox(b);
    const item = proposal('Convention: Project rule that has nowhere to go.');
    await user.click(within(item).getByRole('button', { name: 'Approve' }));
    expect((await within(item).findByRole('alert')).textContent).toMatch(/^Not added: .*\/memories\/project is unavailable/);
    await user.click(within(inbox()).getByRole('button', { name: 'Refresh' }));
    expect(proposalNames()).toContain('Convention: Project rule that has nowhere to go.');
  });

  it("turns harvest on and off for this workspace, the switch the agents' hooks read (off until then)", async () => {
    const b = await makeBackend();
    const user = await openInbox(b);
    const on = within(inbox()).getByRole('checkbox', { name: /Propose memories from this workspace/ });
    expect((on as HTMLInputElement).checked).toBe(false);
    await user.click(on);
    await waitFor(async () => expect((await b.client.settings.get()).harvestWorkspaces).toEqual([b.workspaceId]));
    // The CLI reads the same switch.
    expect((await runCairn(['harvest', '--status', '--home', b.sb.home, '--cwd', b.sb.checkout])).stdout).toMatch(/^Harvest is on for workspace /);
    await user.click(on);
    await waitFor(async () => expect((await b.client.settings.get()).harvestWorkspaces).toEqual([]));
  });

  it('works from the keyboard: arrows move, a approves, r rejects, e edits; letters typed in a field are text', async () => {
    const b = await makeBackend();
    propose(b, [candidate('Third.', 'fact')], 'sess-c');
    propose(b, [candidate('Second.', 'fact')], 'sess-b');
    propose(b, [candidate('First.', 'fact')], 'sess-a');
    const user = await openInbox(b);
    expect(proposalNames()).toEqual(['Fact: First.', 'Fact: Second.', 'Fact: Third.']);
    // One tab stop: the first proposal.
    expect(proposal('Fact: First.').tabIndex).toBe(0);
    expect(proposal('Fact: Second.').tabIndex).toBe(-1);
    proposal('Fact: First.').focus();
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(proposal('Fact: Second.'));
    await user.keyboard('{End}');
    expect(document.activeElement).toBe(proposal('Fact: Third.'));
    await user.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(proposal('Fact: Second.'));

    // e edits; typing "a" and "r" there is text; Ctrl+Enter approves the edit.
    await user.keyboard('e');
    const text = within(proposal('Fact: Second.')).getByRole('textbox', { name: 'Text to add' });
    expect(document.activeElement).toBe(text);
    await user.keyboard('{End} (a rare case)');
    expect((text as HTMLTextAreaElement).value).toBe('Second. (a rare case)');
    await user.keyboard('{Control>}{Enter}{/Control}');
    await within(inbox()).findByText('Added to /memories/project/facts.md (a new file).');
    expect(await onDisk(b, 'project', 'facts.md')).toContain('- Second. (a rare case)\n');
    // The focus went on to the next proposal; r rejects it.
    await waitFor(() => expect(document.activeElement).toBe(proposal('Fact: Third.')));
    await user.keyboard('r');
    await within(inbox()).findByText(/^Rejected: Third\. /);
    await waitFor(() => expect(document.activeElement).toBe(proposal('Fact: First.')));
    await user.keyboard('a');
    await within(inbox()).findByText('Added to /memories/project/facts.md.');
    expect(await onDisk(b, 'project', 'facts.md')).toBe(
      '---\ndescription: Facts worth knowing, from agents\u2019 sessions, approved in Cairn\n---\n\n- Second. (a rare case)\n- First.\n',
    );
    await within(inbox()).findByText('Nothing to review');
  });

  it('acts on the next key at once after an approval, while its Undo is still being looked up', async () => {
    const b = await makeBackend();
    propose(b, [candidate('Second.', 'fact')], 'sess-b');
    propose(b, [candidate('First.', 'fact')], 'sess-a');
    // The history's answer (which only adds Undo to the confirmation) is held until the test lets it
    // go: a slow host, which a real one gives only under load. Everything else is the real backend.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const client = new Proxy(b.client, {
      get: (target, key) =>
        key === 'history'
          ? new Proxy(target.history, { get: (h, k) => (k === 'list' ? async (...args: Parameters<typeof h.list>) => (await held, h.list(...args)) : h[k as keyof typeof h]) })
          : target[key as keyof typeof target],
    });
    render(
      <QueryClientProvider client={makeQueryClient()}>
        <ApiProvider api={makeApi(client)}>
          <MemoryPane workspaceId={b.workspaceId} title="Widgets" dark={false} previewByDefault={false} dirtyRef={{ current: false }} />
        </ApiProvider>
      </QueryClientProvider>,
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Inbox, 2 to review' }));
    (await within(inbox()).findByRole('listitem', { name: 'Fact: First.' })).focus();
    await user.keyboard('a');
    await within(inbox()).findByText('Added to /memories/project/facts.md (a new file).');
    await waitFor(() => expect(document.activeElement).toBe(proposal('Fact: Second.')));
    await user.keyboard('r');
    await within(inbox()).findByText(/^Rejected: Second\. /);
    await waitFor(() => expect(proposalNames()).toEqual([]));
    release();
  });

  it('says there is nothing to review and how proposals arrive', async () => {
    const b = await makeBackend();
    const user = await openInbox(b);
    expect(screen.getByRole('button', { name: 'Inbox' })).toBeTruthy();
    await within(inbox()).findByText('Nothing to review');
    expect(within(inbox()).getByText('cairn harvest --transcript FILE')).toBeTruthy();
    expect(within(inbox()).getByRole('button', { name: 'Copy the harvest command' })).toBeTruthy();
    // Proposals made later show up by themselves (the inbox's change stream), in the list and the count.
    propose(b, [candidate('Arrived later.', 'lesson')]);
    await within(inbox()).findByRole('listitem', { name: 'Lesson: Arrived later.' });
    await screen.findByRole('button', { name: 'Inbox, 1 to review' });
    await user.click(within(inbox()).getByRole('button', { name: 'Refresh' }));
    expect(within(inbox()).getByRole('listitem', { name: 'Lesson: Arrived later.' })).toBeTruthy();
    // Close goes back to the placeholder.
    await user.click(within(inbox()).getByRole('button', { name: 'Close the inbox' }));
    expect(screen.queryByRole('region', { name: 'Inbox' })).toBeNull();
  });
});
