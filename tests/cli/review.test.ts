// Review mode through the real CLI, each command its own process as a person and an
// agent run them: `cairn inbox review --scope project --on` in one process holds the next agent
// write made by another (`cairn tool`); `cairn inbox list` shows it as a change, `show` as a
// unified diff; approve writes it as the person (undoable with cairn undo --last), reject drops
// it; --off lets writes through again. Bad input gets a usage error.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  await sb.run({ command: 'create', path: '/memories/project/notes.md', file_text: 'Build with make.\nTest with make test.\n' });
});
afterEach(() => sb.cleanup());

const cairn = async (...args: string[]) => {
  const r = await runCairn([...args, '--home', sb.home, '--cwd', sb.checkout]);
  return { ...r, out: r.stdout };
};
const agent = (command: unknown) => cairn('tool', JSON.stringify(command));
const notes = () => fs.readFile(path.join(sb.roots.project, 'notes.md'), 'utf8');
const pendingIds = async () => (JSON.parse((await cairn('inbox', 'list', '--json')).out) as { items: Array<{ id: string; kind: string }> }).items.filter((i) => i.kind === 'change').map((i) => i.id);

describe('cairn inbox review', () => {
  it('is off by default, and shows each scope of the checkout', async () => {
    const r = await cairn('inbox', 'review');
    expect(r.status).toBe(0);
    expect(r.out).toBe('/memories/global  review off\n/memories/project  review off\n/memories/workspace  review off\n');
  });

  it("holds an agent's write made in another process, shows it as a diff, and approves it as the person", async () => {
    expect((await cairn('inbox', 'review', '--scope', 'project', '--on')).out).toBe("/memories/project  review on: agents' writes wait in the inbox for your review\n");
    const answer = await agent({ command: 'str_replace', path: '/memories/project/notes.md', old_str: 'make test', new_str: 'pnpm test' });
    expect(answer.status).toBe(0);
    expect(answer.out).toMatch(/^This change to \/memories\/project\/notes\.md awaits a person's review in Cairn's inbox \(item [0-9a-z-]+\); memory is unchanged until it is approved\./);
    expect(await notes()).toBe('Build with make.\nTest with make test.\n');

    const [id] = await pendingIds();
    const list = await cairn('inbox', 'list');
    expect(list.out.split('\n')[1]).toMatch(new RegExp(`^${id}  \\S+ \\S+  change  /memories/project/notes\\.md  Edit /memories/project/notes\\.md \\(str_replace\\)$`));
    const show = await cairn('inbox', 'show', id!);
    expect(show.out).toContain(`${id}  pending  change  str_replace\n`);
    expect(show.out).toContain('--- /memories/project/notes.md\tnow\n+++ /memories/project/notes.md\tproposed\n');
    expect(show.out).toContain('\n Build with make.\n-Test with make test.\n+Test with pnpm test.\n');

    const approved = await cairn('inbox', 'approve', id!);
    expect(approved.out).toBe(`Approved ${id}: Edit /memories/project/notes.md (str_replace), applied as you. cairn undo --last takes it back.\n`);
    expect(await notes()).toBe('Build with make.\nTest with pnpm test.\n');
    const history = await cairn('history', '/memories/project/notes.md', '--json');
    expect((JSON.parse(history.out) as { versions: Array<{ actor: string; cause: string }> }).versions[0]).toMatchObject({ actor: 'person', cause: `review:${id}` });
    expect((await cairn('undo', '--last')).status).toBe(0);
    expect(await notes()).toBe('Build with make.\nTest with make test.\n');
  });

  it('rejects a held delete (memory unchanged), and lets writes through once turned off', async () => {
    await cairn('inbox', 'review', '--scope', 'project', '--on');
    expect((await agent({ command: 'delete', path: '/memories/project/notes.md' })).out).toMatch(/^This deletion of \/memories\/project\/notes\.md awaits/);
    const [id] = await pendingIds();
    expect((await cairn('inbox', 'show', id!)).out).toContain('--- /memories/project/notes.md\tnow\n+++ /dev/null\tproposed\n');
    expect((await cairn('inbox', 'reject', id!)).out).toBe(`Rejected ${id}: the agent's change is dropped (Delete /memories/project/notes.md); memory is unchanged.\n`);
    expect(await pendingIds()).toEqual([]);
    expect(await notes()).toBe('Build with make.\nTest with make test.\n');

    expect((await cairn('inbox', 'review', '--scope', 'project', '--off')).out).toBe('/memories/project  review off\n');
    expect((await agent({ command: 'delete', path: '/memories/project/notes.md' })).out).toBe('Successfully deleted /memories/project/notes.md\n');
  });

  it('says what is wrong with bad input', async () => {
    expect(await cairn('inbox', 'review', '--scope', 'everything', '--on')).toMatchObject({ status: 2, stderr: expect.stringContaining('--scope is one of global, project, workspace') });
    expect(await cairn('inbox', 'review', '--on')).toMatchObject({ status: 2, stderr: expect.stringContaining('--on and --off need --scope') });
    expect(await cairn('inbox', 'review', '--scope', 'global', '--on', '--off')).toMatchObject({ status: 2, stderr: expect.stringContaining('give --on or --off, not both') });
    const plain = path.join(sb.dir, 'plain');
    await fs.mkdir(plain);
    const noProject = await runCairn(['inbox', 'review', '--scope', 'project', '--on', '--home', sb.home, '--cwd', plain]);
    expect(noProject).toMatchObject({ status: 1, stdout: 'Error: There is no project memory here (not in a git checkout), so it cannot be put under review.\n' });
  });
});
