// @vitest-environment happy-dom
// Other agents' files in the memory pane: the real backend for memory (ui-backend.tsx)
// and a fake agentFiles API holding the files in this process (the server's routes are tested on
// their own; the Chromium suite tests/e2e/agent-files.test.ts drives both for real). The groups
// and their facts, the filter and content search, the editor's conflict-safe save on these files,
// Adopt's result in words with the way to the Inbox, and Compare's rows side by side.
import { createHash } from 'node:crypto';
import { EditorSelection } from '@codemirror/state';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdoptResult, Agent, AgentFile, AgentFileHit, CompareResult } from '../../../common/agent-files/schema';
import { editorText, editorView, makeBackend, renderPane, typeInEditor, type UiBackend } from '../../../../tests/support/ui-backend';

afterEach(cleanup);

interface FakeFile {
  content: string;
  agent: Agent;
  readBy: Agent[];
  place: 'global' | 'checkout';
  unreadable?: string;
  linkTo?: string;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const HOUR_AGO = new Date(Date.now() - 3 * 3600_000).toISOString();

/** The agentFiles routes over files held here; `calls` records what the UI sent. */
function fakeAgentFiles(initial: Record<string, FakeFile>, answers: { adopt?: AdoptResult; compare?: (ids: string[]) => CompareResult } = {}) {
  const files = new Map(Object.entries(initial));
  const calls = { adopt: [] as unknown[], compare: [] as string[][], write: [] as { id: string; expectedSha256: string | null }[] };
  const entry = (id: string): AgentFile => {
    const f = files.get(id)!;
    return { id, agent: f.agent, readBy: f.readBy, kind: 'instructions', place: f.place, path: id, size: Buffer.byteLength(f.content), mtime: HOUR_AGO, sha256: f.unreadable ? null : sha(f.content), unreadable: f.unreadable ?? null, linkTo: f.linkTo ?? null };
  };
  const api = {
    list: async () => ({ files: [...files.keys()].map(entry), checkout: { available: true, reason: null } }),
    read: async ({ id }: { id: string }) => {
      const f = files.get(id);
      if (!f) throw new Error(`${id} was not found.`);
      return { file: entry(id), content: f.content, sha256: sha(f.content) };
    },
    write: async ({ id, content, expectedSha256 }: { id: string; content: string; expectedSha256: string | null }) => {
      calls.write.push({ id, expectedSha256 });
      const f = files.get(id);
      if (f && sha(f.content) !== expectedSha256) return { status: 'conflict' as const, kind: 'changed' as const, message: `${id} changed on disk.` };
      files.set(id, { ...(f ?? { agent: 'claude', readBy: ['claude'], place: 'checkout' }), content });
      return { status: 'ok' as const, sha256: sha(content), warnings: [] };
    },
    search: async ({ query }: { query: string }) => {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const hits: AgentFileHit[] = [];
      for (const [id, f] of files) {
        f.content.split('\n').forEach((text, i) => {
          const matches = words.flatMap((w): [number, number][] => {
            const at = text.toLowerCase().indexOf(w);
            return at < 0 ? [] : [[at, at + w.length]];
          });
          if (matches.length > 0) hits.push({ id, agent: f.agent, line: i + 1, text, matches });
        });
      }
      return { hits };
    },
    adopt: async (input: unknown) => {
      calls.adopt.push(input);
      return answers.adopt ?? { status: 'ok' as const, added: [], duplicates: [], refused: [], message: '' };
    },
    compare: async ({ ids }: { ids: string[] }) => {
      calls.compare.push(ids);
      return answers.compare?.(ids) ?? { sides: [], rows: [], same: 0 };
    },
    history: async () => ({ versions: [] }),
  };
  return { files, calls, api };
}

const FILES: Record<string, FakeFile> = {
  '~/.claude/CLAUDE.md': { content: '# Me\nAlways answer in English.\n', agent: 'claude', readBy: ['claude'], place: 'global' },
  'CLAUDE.md': { content: '# Widgets\nUse pnpm, never npm.\nRun make test before pushing.\nTabs for indentation.\n', agent: 'claude', readBy: ['claude'], place: 'checkout' },
  'AGENTS.md': { content: '# Widgets\nUse npm for everything.\n', agent: 'codex', readBy: ['codex', 'cursor', 'gemini'], place: 'checkout' },
  '.cursor/rules/huge.mdc': { content: '', agent: 'cursor', readBy: ['cursor'], place: 'checkout', unreadable: 'larger than 100 KiB' },
};

async function renderWithAgentFiles(fake: ReturnType<typeof fakeAgentFiles>, given?: UiBackend) {
  const b = given ?? (await makeBackend());
  const client = new Proxy(b.client, { get: (target, key) => (key === 'agentFiles' ? fake.api : target[key as keyof typeof target]) });
  await renderPane({ ...b, client });
  return b;
}

const section = () => screen.getByRole('region', { name: "Other agents' files" });
const fileButton = (id: string) => within(section()).getByRole('button', { name: id });

describe("other agents' files", () => {
  it('shows a group per agent whose files exist, apart from memory, each file with its size, last change and readers; an unreadable one says why', async () => {
    await renderWithAgentFiles(fakeAgentFiles(FILES));
    await within(section()).findByRole('group', { name: 'Claude Code' });
    expect(within(section()).getByText('not injected by Cairn')).toBeTruthy();
    expect(within(section()).getAllByRole('group').map((g) => g.getAttribute('aria-label'))).toEqual(['Claude Code', 'Codex', 'Cursor']);
    const claude = within(section()).getByRole('group', { name: 'Claude Code' });
    expect(within(claude).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual(['~/.claude/CLAUDE.md', 'CLAUDE.md']);
    const agents = fileButton('AGENTS.md');
    expect(agents.textContent).toContain('34 B');
    expect(agents.textContent).toContain('3 h ago');
    expect(agents.textContent).toContain('read by Codex, Cursor and Gemini CLI');
    expect(within(fileButton('~/.claude/CLAUDE.md')).getByText('global')).toBeTruthy();
    // An unreadable file is listed with the reason, and cannot be opened.
    const huge = within(section()).getByLabelText('.cursor/rules/huge.mdc');
    expect(huge.tagName).not.toBe('BUTTON');
    expect(huge.textContent).toContain('Cannot be opened: larger than 100 KiB');
  });

  it('shows a symbolic link as a link, with where it leads; one Cairn does not follow cannot be opened', async () => {
    const why = 'it is a symbolic link to something that is not a file an agent reads at a place Cairn knows; Cairn does not follow it.';
    await renderWithAgentFiles(
      fakeAgentFiles({
        ...FILES,
        '~/.claude/CLAUDE.md': { content: '', agent: 'claude', readBy: ['claude'], place: 'global', unreadable: why, linkTo: '~/.ssh/id_rsa' },
        'CLAUDE.md': { ...FILES['CLAUDE.md']!, linkTo: 'AGENTS.md' },
      }),
    );
    const linked = await within(section()).findByLabelText('~/.claude/CLAUDE.md');
    expect(linked.tagName).not.toBe('BUTTON');
    expect(linked.textContent).toContain('link to ~/.ssh/id_rsa');
    expect(linked.textContent).toContain(`Cannot be opened: ${why}`);
    expect(fileButton('CLAUDE.md').textContent).toContain('link to AGENTS.md');
  });

  it('follows the filter: by path, and in content mode the hits of these files in their own group, the words marked', async () => {
    const user = userEvent.setup();
    await renderWithAgentFiles(fakeAgentFiles(FILES));
    await within(section()).findByRole('group', { name: 'Codex' });
    await user.type(screen.getByRole('searchbox', { name: 'Filter memories' }), 'agents');
    await waitFor(() => expect(within(section()).queryByRole('group', { name: 'Claude Code' })).toBeNull());
    expect(within(section()).getByRole('group', { name: 'Codex' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Search content' }));
    const box = screen.getByRole('searchbox', { name: 'Search memory content' });
    await user.clear(box);
    await user.type(box, 'npm');
    const hits = await within(section()).findByRole('list', { name: "Matches in other agents' files (2)" });
    const items = within(hits).getAllByRole('button');
    expect(items.map((h) => h.getAttribute('aria-label'))).toEqual(['CLAUDE.md, line 2', 'AGENTS.md, line 2']);
    expect([...items[1]!.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['npm']);
    // A hit opens its file.
    await user.click(items[1]!);
    await screen.findByRole('region', { name: 'Editor: AGENTS.md' });
  });

  it('opens a file in the memory editor: saved with the sha it was read at; changed on disk meanwhile, the conflict banner, Compare, then Reload', async () => {
    const user = userEvent.setup();
    const fake = fakeAgentFiles(FILES);
    await renderWithAgentFiles(fake);
    await user.click(await within(section()).findByRole('button', { name: 'CLAUDE.md' }));
    const editor = await screen.findByRole('region', { name: 'Editor: CLAUDE.md' });
    await waitFor(() => expect(editorText()).toContain('Use pnpm, never npm.'));
    expect(within(editor).getByText(/Not Cairn memory: Claude Code reads this file itself/)).toBeTruthy();
    expect(within(editor).getByText('in this checkout')).toBeTruthy();

    // A save carries the sha256 the text was read at.
    typeInEditor('# Widgets\nUse pnpm.\n');
    await user.click(within(editor).getByRole('button', { name: 'Save' }));
    await within(editor).findByText('Saved.');
    expect(fake.calls.write.at(-1)).toEqual({ id: 'CLAUDE.md', expectedSha256: sha(FILES['CLAUDE.md']!.content) });
    expect(fake.files.get('CLAUDE.md')!.content).toBe('# Widgets\nUse pnpm.\n');

    // Someone changes it on disk while it is edited here: saving shows the banner; nothing is clobbered.
    typeInEditor('# Widgets\nUse pnpm. Mine.\n');
    fake.files.set('CLAUDE.md', { ...fake.files.get('CLAUDE.md')!, content: '# Widgets\nTheirs.\n' });
    await user.click(within(editor).getByRole('button', { name: 'Save' }));
    const banner = await within(editor).findByRole('alert');
    expect(banner.textContent).toContain('This file was changed by someone else since you opened it. Your edits are not saved yet.');
    expect(fake.files.get('CLAUDE.md')!.content).toBe('# Widgets\nTheirs.\n');
    await user.click(within(banner).getByRole('button', { name: 'Compare' }));
    await within(editor).findByText('On disk now');
    await user.click(within(banner).getByRole('button', { name: 'Reload (discard mine)' }));
    await waitFor(() => expect(editorText()).toBe('# Widgets\nTheirs.\n'));
    expect(within(editor).queryByRole('alert')).toBeNull();
  });

  it('a clean editor follows a change on disk once the files are looked at again; a dirty one is told', async () => {
    const user = userEvent.setup();
    const fake = fakeAgentFiles(FILES);
    await renderWithAgentFiles(fake);
    await user.click(await within(section()).findByRole('button', { name: 'AGENTS.md' }));
    const editor = await screen.findByRole('region', { name: 'Editor: AGENTS.md' });
    await waitFor(() => expect(editorText()).toContain('Use npm for everything.'));
    fake.files.set('AGENTS.md', { ...fake.files.get('AGENTS.md')!, content: '# Widgets\nUse bun.\n' });
    await user.click(within(section()).getByRole('button', { name: "Refresh other agents' files" }));
    await within(editor).findByText('Updated: the file changed on disk.');
    expect(editorText()).toBe('# Widgets\nUse bun.\n');

    typeInEditor('# Widgets\nUse bun. Mine.\n');
    fake.files.set('AGENTS.md', { ...fake.files.get('AGENTS.md')!, content: '# Widgets\nUse deno.\n' });
    await user.click(within(section()).getByRole('button', { name: "Refresh other agents' files" }));
    await within(editor).findByText('Changed on disk while you edit; saving will ask what to keep.');
    expect(editorText()).toBe('# Widgets\nUse bun. Mine.\n');
  });

  it('adopts the selected lines into a scope and says what happened, with the way to the Inbox', async () => {
    const user = userEvent.setup();
    const fake = fakeAgentFiles(FILES, {
      adopt: {
        status: 'ok',
        added: ['i1', 'i2', 'i3'],
        duplicates: [
          { text: 'a', reason: 'already-in-memory' },
          { text: 'b', reason: 'already-in-memory' },
        ],
        refused: [{ line: 12, reason: 'a secret' }],
        message: 'ok',
      },
    });
    await renderWithAgentFiles(fake);
    await user.click(await within(section()).findByRole('button', { name: 'CLAUDE.md' }));
    const editor = await screen.findByRole('region', { name: 'Editor: CLAUDE.md' });
    await waitFor(() => expect(editorText()).toContain('Run make test'));
    // Lines 2 and 3 selected, as a person drags over them.
    const view = editorView();
    view.dispatch({ selection: EditorSelection.single(view.state.doc.line(2).from, view.state.doc.line(3).to) });

    await user.click(within(editor).getByRole('button', { name: 'Adopt…' }));
    const dialog = screen.getByRole('dialog', { name: 'Adopt from CLAUDE.md' });
    expect(within(dialog).getByRole('radio', { name: 'The selected lines 2–3' })).toHaveProperty('checked', true);
    await user.click(within(dialog).getByRole('radio', { name: /^Workspace/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Propose to the Inbox' }));
    const done = await screen.findByRole('dialog', { name: 'Adopted from CLAUDE.md' });
    expect(within(done).getByRole('status').textContent).toBe('3 proposed to the Inbox, 2 already in memory, 1 refused: a secret on line 12.');
    expect(fake.calls.adopt).toEqual([{ workspaceId: expect.any(String), id: 'CLAUDE.md', scope: 'workspace', lines: [[2, 3]] }]);
    await user.click(within(done).getByRole('button', { name: 'Open the Inbox' }));
    await screen.findByRole('region', { name: 'Inbox' });
  });

  it("a row's menu (right click, or Shift+F10) adopts the whole file and starts a comparison with it", async () => {
    const user = userEvent.setup();
    const fake = fakeAgentFiles(FILES, { adopt: { status: 'ok', added: [], duplicates: [{ text: 'x', reason: 'already-in-inbox' }], refused: [], message: '' } });
    await renderWithAgentFiles(fake);
    const row = await within(section()).findByRole('button', { name: 'AGENTS.md' });
    await user.pointer({ keys: '[MouseRight]', target: row });
    const menu = screen.getByRole('menu', { name: 'Actions for AGENTS.md' });
    expect(within(menu).getAllByRole('menuitem').map((m) => m.textContent)).toEqual(['OpenEnter', 'Adopt the whole file…', 'Compare with…', 'Copy path']);
    await user.click(within(menu).getByRole('menuitem', { name: 'Adopt the whole file…' }));
    const dialog = screen.getByRole('dialog', { name: 'Adopt from AGENTS.md' });
    expect(within(dialog).getByRole('radio', { name: 'The whole file' })).toHaveProperty('checked', true);
    await user.click(within(dialog).getByRole('button', { name: 'Propose to the Inbox' }));
    const done = await screen.findByRole('dialog', { name: 'Adopted from AGENTS.md' });
    expect(within(done).getByRole('status').textContent).toBe('Nothing proposed to the Inbox, 1 already in the Inbox.');
    expect(within(done).queryByRole('button', { name: 'Open the Inbox' })).toBeNull();
    expect(fake.calls.adopt).toEqual([{ workspaceId: expect.any(String), id: 'AGENTS.md', scope: 'project' }]);
    await user.click(within(done).getByRole('button', { name: 'Close' }));

    row.focus();
    await user.keyboard('{Shift>}{F10}{/Shift}');
    await user.click(within(screen.getByRole('menu', { name: 'Actions for AGENTS.md' })).getByRole('menuitem', { name: 'Compare with…' }));
    const compare = screen.getByRole('dialog', { name: 'Compare files' });
    expect(within(compare).getByRole('checkbox', { name: /^AGENTS\.md/ })).toHaveProperty('checked', true);
    expect(within(compare).getByRole('button', { name: 'Compare 1 file' })).toHaveProperty('disabled', true);
  });

  it('narrows the Compare picker with a filter over paths and descriptions, keeping what is picked', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    for (let i = 0; i < 30; i++) await b.write(`/memories/project/notes/n-${String(i).padStart(2, '0')}.md`, `Note ${i}.\n`);
    await b.write('/memories/project/tooling.md', '---\ndescription: Package manager choice\n---\nUse yarn.\n');
    await renderWithAgentFiles(fakeAgentFiles(FILES), b);
    await within(section()).findByRole('group', { name: 'Codex' });
    await user.click(within(section()).getByRole('button', { name: 'Compare…' }));
    const dialog = screen.getByRole('dialog', { name: 'Compare files' });
    await within(dialog).findByRole('checkbox', { name: /^\/memories\/project\/notes\/n-29\.md/ });
    const boxes = () => within(dialog).getAllByRole('checkbox').map((c) => c.getAttribute('aria-label') ?? c.closest('label')!.querySelector('code')!.textContent);
    expect(boxes()).toHaveLength(3 + 31);
    await user.click(within(dialog).getByRole('checkbox', { name: /^CLAUDE\.md/ }));

    await user.type(within(dialog).getByRole('searchbox', { name: 'Filter files' }), 'package');
    expect(boxes()).toEqual(['CLAUDE.md', '/memories/project/tooling.md']);
    expect(within(dialog).getByText('1 of 31 match')).toBeTruthy();
    await user.clear(within(dialog).getByRole('searchbox', { name: 'Filter files' }));
    await user.type(within(dialog).getByRole('searchbox', { name: 'Filter files' }), 'n-2 notes');
    expect(boxes()).toEqual(['CLAUDE.md', ...Array.from({ length: 10 }, (_, i) => `/memories/project/notes/n-2${i}.md`)]);
    await user.click(within(dialog).getByRole('checkbox', { name: /^\/memories\/project\/notes\/n-21\.md/ }));
    expect(within(dialog).getByRole('button', { name: 'Compare 2 files' })).toHaveProperty('disabled', false);
  });

  it('compares files picked among agent files and memory, and shows the rows that differ side by side', async () => {
    const user = userEvent.setup();
    const b = await makeBackend();
    await b.write('/memories/project/tooling.md', 'Use yarn.\n');
    const fake = fakeAgentFiles(FILES, {
      compare: (ids) => ({
        sides: ids.map((id) => ({ id, label: id })),
        rows: [
          { kind: 'differs', cells: [{ line: 2, text: 'Use pnpm, never npm.' }, { line: 2, text: 'Use npm for everything.' }, { line: 1, text: 'Use yarn.' }] },
          { kind: 'only', cells: [{ line: 3, text: 'Run make test before pushing.' }, null, null] },
        ],
        same: 1,
      }),
    });
    await renderWithAgentFiles(fake, b);
    await within(section()).findByRole('group', { name: 'Codex' });
    await user.click(within(section()).getByRole('button', { name: 'Compare…' }));
    const dialog = screen.getByRole('dialog', { name: 'Compare files' });
    const compare = within(dialog).getByRole('button', { name: /^Compare \d/ });
    expect(compare).toHaveProperty('disabled', true);
    await user.click(within(dialog).getByRole('checkbox', { name: /^CLAUDE\.md/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /^AGENTS\.md/ }));
    await user.click(await within(dialog).findByRole('checkbox', { name: /^\/memories\/project\/tooling\.md/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Compare 3 files' }));
    const table = await screen.findByRole('table', { name: 'Lines the files state differently' });
    expect(fake.calls.compare).toEqual([['CLAUDE.md', 'AGENTS.md', '/memories/project/tooling.md']]);
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['What differs', 'CLAUDE.md', 'AGENTS.md', '/memories/project/tooling.md']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').map((c) => c.textContent))).toEqual([
      ['2Use pnpm, never npm.', '2Use npm for everything.', '1Use yarn.'],
      ['3Run make test before pushing.', 'not stated', 'not stated'],
    ]);
    expect(within(rows[0]!).getByRole('rowheader').textContent).toBe('stated differently');
    expect(screen.getByText('2 rows differ. 1 line is the same in every file.')).toBeTruthy();
  });
});
