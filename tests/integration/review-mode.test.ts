// Review mode on a real home and checkout: an agent's writes to a scope under review
// change nothing on disk and become inbox items with the file before and after; the answer says so;
// validation answers as for a real write; a person's writes are never held; approval applies the
// change as the person (undoable), refuses a file that moved on; rejection drops it; the setting
// is read per write, so a change made through another registry (another process's) holds at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJsonl } from '../support/cli';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { openHome, type HomeServices } from '../../src/main/host/home-services';
import { sha256 } from '../../src/main/memory/change-outbox';
import { WorkspaceRegistry } from '../../src/main/workspaces/registry';
import { approveItem, rejectItem } from '../../src/main/inbox/inbox-review';
import type { ChangeItem } from '../../src/main/inbox/inbox-store';
import { reviewKey } from '../../src/main/inbox/review-mode';
import { MAX_INBOX_PENDING } from '../../src/common/memory/constants';

let sb: Sandbox;
let home: HomeServices;

const agent = (input: Record<string, unknown>, mode: 'exec' | 'plan' | 'explore' = 'exec') => home.service.execute(input, sb.session, { mode, actor: 'agent' });
const person = (input: Record<string, unknown>) => home.service.execute(input, sb.session, { mode: 'exec', actor: 'person' });
const projectFile = (name: string) => path.join(sb.roots.project, name);
const changes = () => home.inbox.list('pending').filter((i): i is ChangeItem => i.kind === 'change');

/** Every file under the three roots, with its text: what "nothing changed on disk" compares. */
function disk(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = fs.readFileSync(path.join(dir, e.name), 'utf8');
    }
  };
  for (const [scope, root] of Object.entries(sb.roots)) walk(root, `${scope}:`);
  return out;
}

async function review(on: boolean, scope: 'global' | 'project' | 'workspace' = 'project') {
  await home.registry.setSettings({ reviewScopes: on ? [reviewKey(scope, sb.session)!] : [] });
}

beforeEach(async () => {
  sb = await makeSandbox();
  home = openHome(sb.home);
  expect((await agent({ command: 'create', path: '/memories/project/notes.md', file_text: 'Build with make.\nTest with make test.\n' })).ok).toBe(true);
  expect((await agent({ command: 'create', path: '/memories/project/old/keep.md', file_text: 'keep\n' })).ok).toBe(true);
});
afterEach(async () => {
  await home.close();
  await sb.cleanup();
});

describe('review mode off (the default)', () => {
  it('lets agents write as before and puts nothing in the inbox', async () => {
    expect(home.registry.settings().reviewScopes).toEqual([]);
    const r = await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    expect(r.output).toMatch(/The memory file has been edited/);
    expect(fs.readFileSync(projectFile('notes.md'), 'utf8')).toBe('Build with make.\nTest with pnpm test.\n');
    expect(home.inbox.list()).toEqual([]);
  });
});

describe('an agent writing to a scope under review', () => {
  beforeEach(() => review(true));

  it('changes nothing on disk for any write command, and proposes each with the file before and after', async () => {
    const start = disk();
    const before = 'Build with make.\nTest with make test.\n';
    const answers = [
      await agent({ command: 'create', path: '/memories/project/new.md', file_text: 'A new memory.\n' }),
      await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' }),
      await agent({ command: 'insert', path: '/memories/project/notes.md', insert_line: 0, insert_text: '# Notes' }),
      await agent({ command: 'delete', path: '/memories/project/notes.md' }),
      await agent({ command: 'rename', old_path: '/memories/project/notes.md', new_path: '/memories/project/build/notes.md' }),
    ];
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(disk()).toEqual(start);
    const items = changes().reverse(); // oldest first, as made
    expect(items.map((i) => i.change)).toEqual([
      { command: 'create', scope: 'project', path: '/memories/project/new.md', newPath: null, before: null, beforeSha256: null, after: 'A new memory.\n' },
      { command: 'str_replace', scope: 'project', path: '/memories/project/notes.md', newPath: null, before, beforeSha256: sha256(Buffer.from(before)), after: 'Build with make.\nTest with pnpm test.\n' },
      { command: 'insert', scope: 'project', path: '/memories/project/notes.md', newPath: null, before, beforeSha256: sha256(Buffer.from(before)), after: `# Notes\n${before}` },
      { command: 'delete', scope: 'project', path: '/memories/project/notes.md', newPath: null, before, beforeSha256: sha256(Buffer.from(before)), after: null },
      { command: 'rename', scope: 'project', path: '/memories/project/notes.md', newPath: '/memories/project/build/notes.md', before, beforeSha256: sha256(Buffer.from(before)), after: before },
    ]);
    expect(answers[1]!.output).toBe(
      `This change to /memories/project/notes.md awaits a person's review in Cairn's inbox (item ${items[1]!.id}); memory is unchanged until it is approved. ` +
        '/memories/project is in review mode: views show memory as it is, without this change. Do not repeat it; go on with your task.',
    );
    expect(answers[0]!.output).toMatch(/^This new file \/memories\/project\/new\.md awaits a person's review/);
    expect(answers[3]!.output).toMatch(/^This deletion of \/memories\/project\/notes\.md awaits/);
    expect(answers[4]!.output).toMatch(/^This rename of \/memories\/project\/notes\.md to \/memories\/project\/build\/notes\.md awaits/);
    // The agent keeps seeing memory as it is.
    expect((await agent({ command: 'view', path: '/memories/project/notes.md' })).output).toContain('Test with make test.');
    // Other scopes are not under review.
    expect((await agent({ command: 'create', path: '/memories/global/free.md', file_text: 'x' })).output).toBe('File created successfully at: /memories/global/free.md');
  });

  it('validates a diverted command exactly as a real one: nothing is proposed for a failing command', async () => {
    const asked = [
      { command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make', new_str: 'x' },
      { command: 'str_replace', path: '/memories/project/missing.md', old_str: 'a', new_str: 'b' },
      { command: 'create', path: '/memories/project/notes.md', file_text: 'again' },
      { command: 'create', path: '/memories/project/key.md', file_text: 'token: ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4' },
      { command: 'insert', path: '/memories/project/notes.md', insert_line: 99, insert_text: 'x' },
      { command: 'rename', old_path: '/memories/project/notes.md', new_path: '/memories/project/old/keep.md' },
      { command: 'rename', old_path: '/memories/project/notes.md', new_path: '/memories/global/notes.md' },
      { command: 'create', path: '/memories/project/notes.md/inner.md', file_text: 'x' },
    ];
    const underReview = [];
    for (const input of asked) underReview.push((await agent(input)).output);
    expect(changes()).toEqual([]);
    // The same commands with review off answer the same (and fail the same).
    await review(false);
    const real = [];
    for (const input of asked) real.push((await agent(input)).output);
    expect(underReview).toEqual(real);
    expect(real.every((t) => t.startsWith('Error: '))).toBe(true);
    await review(true);
    // Policy before review: explore mode is read-only.
    expect((await agent({ command: 'create', path: '/memories/project/x.md', file_text: 'x' }, 'explore')).output).toMatch(/^Error: Memory is read-only in explore mode/);
    expect(changes()).toEqual([]);
  });

  it('refuses a delete or a rename of a directory, saying why, and proposes nothing', async () => {
    const start = disk();
    const r = await agent({ command: 'delete', path: '/memories/project/old' });
    expect(r.ok).toBe(false);
    expect(r.output).toBe(
      'Error: Nothing was proposed: /memories/project/old is not a plain file, and /memories/project is in review mode, where each change is shown to a person as one file\'s diff. Delete the files inside it one at a time instead.',
    );
    expect((await agent({ command: 'rename', old_path: '/memories/project/old', new_path: '/memories/project/older' })).output).toMatch(/Rename the files inside it one at a time/);
    expect(disk()).toEqual(start);
    expect(changes()).toEqual([]);
  });

  it("never holds a person's writes: a save, a delete or a rename in the app or the CLI change memory at once", async () => {
    const read = await home.service.read('/memories/project/notes.md', sb.session);
    expect(await home.service.save('/memories/project/notes.md', 'Edited by a person.\n', read.sha256, sb.session)).toMatchObject({ status: 'ok' });
    expect((await person({ command: 'rename', old_path: '/memories/project/notes.md', new_path: '/memories/project/n.md' })).ok).toBe(true);
    expect(fs.readFileSync(projectFile('n.md'), 'utf8')).toBe('Edited by a person.\n');
    expect(home.inbox.list()).toEqual([]);
  });

  it('sees the setting changed by another writer of config.json at the next write, without a restart', async () => {
    const other = new WorkspaceRegistry(sb.home, { local: home.runtime });
    await other.setSettings({ reviewScopes: [] });
    expect((await agent({ command: 'create', path: '/memories/project/a.md', file_text: 'a' })).output).toBe('File created successfully at: /memories/project/a.md');
    await other.setSettings({ reviewScopes: [reviewKey('project', sb.session)!] });
    expect((await agent({ command: 'create', path: '/memories/project/b.md', file_text: 'b' })).output).toMatch(/awaits a person's review/);
    expect(fs.existsSync(projectFile('b.md'))).toBe(false);
  });
});

describe("a person's decision on an agent's change", () => {
  beforeEach(() => review(true));

  it('approves an edit: written as the person with the cause review:<id>, and undone through the history', async () => {
    await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    const [item] = changes();
    const outcome = await approveItem(home.inbox, home.service, sb.session, item!.id);
    expect(outcome).toMatchObject({ status: 'approved', path: '/memories/project/notes.md' });
    expect(fs.readFileSync(projectFile('notes.md'), 'utf8')).toBe('Build with make.\nTest with pnpm test.\n');
    expect(home.inbox.get(item!.id)).toMatchObject({ status: 'approved', approvedTo: '/memories/project/notes.md' });
    const [version] = home.versions.list(sb.session, { path: '/memories/project/notes.md', limit: 1 }).versions;
    expect(version).toMatchObject({ actor: 'person', cause: `review:${item!.id}`, op: 'update' });
    expect((await home.versions.undo(version!.id, sb.session)).status).toBe('ok');
    expect(fs.readFileSync(projectFile('notes.md'), 'utf8')).toBe('Build with make.\nTest with make test.\n');
  });

  it('approves a create, a delete and a rename', async () => {
    await agent({ command: 'create', path: '/memories/project/new.md', file_text: 'New.\n' });
    await agent({ command: 'rename', old_path: '/memories/project/old/keep.md', new_path: '/memories/project/kept.md' });
    await agent({ command: 'delete', path: '/memories/project/notes.md' });
    for (const item of changes().reverse()) expect((await approveItem(home.inbox, home.service, sb.session, item.id)).status).toBe('approved');
    expect(fs.readFileSync(projectFile('new.md'), 'utf8')).toBe('New.\n');
    expect(fs.readFileSync(projectFile('kept.md'), 'utf8')).toBe('keep\n');
    expect(fs.existsSync(projectFile('old/keep.md'))).toBe(false);
    expect(fs.existsSync(projectFile('notes.md'))).toBe(false);
    const causes = home.versions.list(sb.session, { scope: 'project', limit: 3 }).versions.map((v) => [v.op, v.cause.split(':')[0], v.actor]);
    expect(causes).toEqual([
      ['delete', 'review', 'person'],
      ['rename', 'review', 'person'],
      ['create', 'review', 'person'],
    ]);
  });

  it('refuses to apply a change whose file moved on since, and overwrites nothing', async () => {
    await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    await agent({ command: 'delete', path: '/memories/project/notes.md' });
    await agent({ command: 'create', path: '/memories/project/notes2.md', file_text: 'two' });
    await agent({ command: 'rename', old_path: '/memories/project/old/keep.md', new_path: '/memories/project/taken.md' });
    const [rename, create, del, edit] = changes();
    // Meanwhile a person edits the file, creates the file the agent wanted, and takes the rename's name.
    const read = await home.service.read('/memories/project/notes.md', sb.session);
    await home.service.save('/memories/project/notes.md', 'The person rewrote this.\n', read.sha256, sb.session);
    await home.service.save('/memories/project/notes2.md', 'mine', null, sb.session);
    await home.service.save('/memories/project/taken.md', 'taken', null, sb.session);
    const start = disk();
    for (const item of [edit, del, create, rename]) {
      const outcome = await approveItem(home.inbox, home.service, sb.session, item!.id);
      expect(outcome.status, item!.change.command).toBe('conflict');
    }
    expect(await approveItem(home.inbox, home.service, sb.session, edit!.id)).toHaveProperty(
      'message',
      'the lines of /memories/project/notes.md this change edits were changed after the agent proposed this change, so it was not applied and nothing was overwritten. Reject it, or have the agent make it again on the file as it is now.',
    );
    expect(await approveItem(home.inbox, home.service, sb.session, rename!.id)).toHaveProperty('message', expect.stringMatching(/^\/memories\/project\/taken\.md was created after/));
    expect(disk()).toEqual(start);
    expect(changes()).toHaveLength(4);
  });

  it('rejects a change: dropped, memory unchanged, and not applied by a later approve', async () => {
    await agent({ command: 'delete', path: '/memories/project/notes.md' });
    const [item] = changes();
    expect(rejectItem(home.inbox, item!.id)).toMatchObject({ status: 'rejected' });
    expect(changes()).toEqual([]);
    await expect(approveItem(home.inbox, home.service, sb.session, item!.id)).rejects.toThrow(`Inbox item ${item!.id} was already rejected.`);
    expect(fs.existsSync(projectFile('notes.md'))).toBe(true);
    // A change is not a text to remember: nothing is added to the rejected texts.
    expect(home.inbox.rejectedTexts()).toEqual([]);
  });

  it("applies a change only to the scope it was proposed for, not another workspace's", async () => {
    await agent({ command: 'create', path: '/memories/workspace/w.md', file_text: 'w' });
    await review(true, 'workspace');
    await agent({ command: 'create', path: '/memories/workspace/w2.md', file_text: 'w2' });
    const [item] = changes();
    const elsewhere = { ...sb.session, workspaceId: 'another-workspace' };
    await expect(approveItem(home.inbox, home.service, elsewhere, item!.id)).rejects.toThrow(/another workspace than the one open here/);
    expect(home.inbox.get(item!.id)?.status).toBe('pending');
  });
});

describe('approvals while agents write the same file', () => {
  const source = { agent: 'claude' as const, sessionId: 's1', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' };
  const candidates = (n: number) =>
    home.inbox.add(
      Array.from({ length: n }, (_, i) => ({ category: 'convention' as const, text: `Convention number ${i} of this codebase holds.`, scope: 'project' as const, evidence: [{ messageId: 'm', quote: `Convention number ${i}` }], confidence: 0.9, rationale: 'r' })),
      source,
    );

  it("merges an agent's held edit into the file as it is now, unless its own lines were changed", async () => {
    await review(true);
    await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    const [item] = changes();
    await review(false);
    // Another agent appends a line meanwhile: the held edit's line is untouched.
    await agent({ command: 'insert', path: '/memories/project/notes.md', insert_line: 2, insert_text: 'Deploy on Fridays.' });
    expect(await approveItem(home.inbox, home.service, sb.session, item!.id)).toMatchObject({ status: 'approved' });
    expect(fs.readFileSync(projectFile('notes.md'), 'utf8')).toBe('Build with make.\nTest with pnpm test.\nDeploy on Fridays.\n');
  });

  it('appends each approved candidate to the file as it is when it is written, even when an agent wrote it between the read and the write', async () => {
    // The interleaving a busy agent produces by chance, made to happen every time: an agent's write
    // lands right before each of the approval's writes (a real agent, through the same service).
    let n = 0;
    const racing = new Proxy(home.service, {
      get(target, key, receiver) {
        if (key !== 'save') return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof target.save>) => {
          if (n++ % 2 === 0) await agent({ command: 'insert', path: '/memories/project/conventions.md', insert_line: 0, insert_text: `Agent line ${n}.` });
          return target.save(...args);
        };
      },
    });
    await agent({ command: 'create', path: '/memories/project/conventions.md', file_text: 'Start.\n' });
    const items = candidates(6);
    for (const item of items) expect(await approveItem(home.inbox, racing, sb.session, item.id)).toMatchObject({ status: 'approved' });
    const text = fs.readFileSync(projectFile('conventions.md'), 'utf8');
    for (let i = 0; i < 6; i++) expect(text).toContain(`- Convention number ${i} of this codebase holds.\n`);
    expect(text.match(/^Agent line \d+\.$/gm)).toHaveLength(6);
  });

  it('approves every candidate while a real agent process writes the file the whole time', async () => {
    await agent({ command: 'create', path: '/memories/project/conventions.md', file_text: 'Start.\n' });
    const items = candidates(20);
    const writer = runJsonl(
      ['--home', sb.home, '--cwd', sb.checkout],
      Array.from({ length: 40 }, (_, i) => ({ command: 'insert', path: '/memories/project/conventions.md', insert_line: 0, insert_text: `Agent line ${i}.` })),
    );
    const outcomes = [];
    for (const item of items) outcomes.push(await approveItem(home.inbox, home.service, sb.session, item.id));
    const written = await writer;
    expect(outcomes.map((o) => o.status)).toEqual(items.map(() => 'approved'));
    expect(written.every((w) => w.ok)).toBe(true);
    const text = fs.readFileSync(projectFile('conventions.md'), 'utf8');
    expect(text.match(/^- Convention number \d+ of this codebase holds\.$/gm)).toHaveLength(20);
    expect(text.match(/^Agent line \d+\.$/gm)).toHaveLength(40);
  });
});

describe('review mode with a full inbox', () => {
  it('refuses the agent\u2019s write with a text it can act on (no host path), and changes nothing', async () => {
    const filler = Array.from({ length: MAX_INBOX_PENDING }, (_, i) => ({ category: 'fact' as const, text: `Filler ${i}.`, scope: 'global' as const, evidence: [{ messageId: 'm', quote: 'q' }], confidence: 0.9, rationale: 'r' }));
    expect(home.inbox.add(filler, { agent: 'claude', sessionId: 's', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' })).toHaveLength(MAX_INBOX_PENDING);
    await review(true);
    const before = disk();
    const r = await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(new RegExp(`^Error: Cairn's inbox is full: ${MAX_INBOX_PENDING} items already wait for a person's review.*Ask the user to review the inbox`));
    expect(r.output).not.toContain(sb.dir);
    expect(disk()).toEqual(before);
    expect(changes()).toEqual([]);
  });
});

describe('the inbox store', () => {
  it('reads an item stored before kinds existed as a memory candidate', () => {
    const dir = path.join(sb.home, 'inbox', 'items');
    fs.mkdirSync(dir, { recursive: true });
    const id = '00000abcd-0001abcd';
    const old = { id, createdAt: '2026-01-01T00:00:00.000Z', status: 'pending', target: '/memories/global/facts.md', candidate: { category: 'fact', text: 'Old.', scope: 'global', evidence: [], confidence: 0.9, rationale: 'r' }, source: { agent: 'claude', sessionId: 's', cwd: null, workspaceId: null, projectId: null, extractor: 'rules' } };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(old));
    expect(home.inbox.get(id)).toMatchObject({ kind: 'memory', candidate: { text: 'Old.' } });
    expect(home.inbox.pendingTexts()).toEqual(['Old.']);
  });
});
