// `cairn history` as a person runs it: every change an agent or a person made is listed
// with who, the cause and the lines it added and removed; `show` gives a version's content or its
// diff; a change acknowledged before a SIGKILL is in the history. Real processes, real disk.
import { spawn } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runCairn, runJsonl } from '../support/cli';

let sb: Sandbox;
let flags: string[];
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
});
afterEach(async () => {
  await sb.cleanup();
});

interface Listed {
  versions: Array<{ id: string; path: string; oldPath?: string; op: string; actor: string; cause: string }>;
  incompleteSince: string | null;
}
const listed = async (...args: string[]) => JSON.parse((await runCairn(['history', ...args, '--json', ...flags])).stdout) as Listed;

describe('cairn history', () => {
  it('lists each change newest first, with who, why and the lines added and removed', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/project/build.md', file_text: 'Run make test.\n' },
      { command: 'str_replace', path: '/memories/project/build.md', old_str: 'make test.', new_str: 'make test\n(15 minutes).' },
      { command: 'rename', old_path: '/memories/project/build.md', new_path: '/memories/project/ci/build.md' },
      { command: 'create', path: '/memories/global/style.md', file_text: 'Tabs.\n' },
    ]);
    const result = await runCairn(['history', ...flags]);
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+WHEN \(UTC\)\s+WHO\s+CAUSE\s+CHANGE\s+PATH$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(2))).toEqual([
      ['agent', 'tool', 'create +1 -0', '/memories/global/style.md'],
      ['agent', 'tool', 'rename +0 -0', '/memories/project/ci/build.md (from /memories/project/build.md)'],
      ['agent', 'tool', 'update +2 -1', '/memories/project/build.md'],
      ['agent', 'tool', 'create +1 -0', '/memories/project/build.md'],
    ]);
    // One file's versions follow it back through its rename; a directory's are those below it.
    expect((await listed('/memories/project/ci/build.md')).versions.map((v) => v.op)).toEqual(['rename', 'update', 'create']);
    expect((await listed('/memories/project/build.md')).versions.map((v) => v.op)).toEqual(['rename', 'update', 'create']);
    expect((await listed('/memories/project/ci')).versions.map((v) => v.op)).toEqual(['rename']);
    expect((await listed('/memories/global')).versions.map((v) => v.path)).toEqual(['/memories/global/style.md']);
    // A scope's versions alone.
    expect((await listed('--scope', 'project')).versions.map((v) => v.op)).toEqual(['rename', 'update', 'create']);
    expect(await runCairn(['history', '--scope', 'nowhere', ...flags])).toMatchObject({ status: 2 });
  });

  it('shows what a version left, what a delete took away, and a change as a diff', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/global/a.md', file_text: 'one\ntwo\n' },
      { command: 'str_replace', path: '/memories/global/a.md', old_str: 'two', new_str: 'three' },
      { command: 'delete', path: '/memories/global/a.md' },
    ]);
    const [deleted, updated] = (await listed()).versions;
    expect((await runCairn(['history', 'show', updated!.id, ...flags])).stdout.split('\n').slice(1).join('\n')).toBe('one\nthree\n');
    expect((await runCairn(['history', 'show', deleted!.id, ...flags])).stdout.split('\n').slice(1).join('\n')).toBe('one\nthree\n');
    const diff = (await runCairn(['history', 'show', updated!.id, '--diff', ...flags])).stdout;
    expect(diff).toContain('--- /memories/global/a.md\tbefore\n+++ /memories/global/a.md\tafter\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n');
    expect(await runCairn(['history', 'show', 'nope', ...flags])).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: There is no version "nope"/) });
    expect((await runCairn(['history', 'show', ...flags])).status).toBe(2);
  });

  it('records who made a change through the tool, and lists only the scopes this checkout sees', async () => {
    await runCairn(['tool', '--actor', 'person', ...flags, '{"command":"create","path":"/memories/workspace/todo.md","file_text":"x\\n"}']);
    const other = await makeSandbox();
    try {
      await runCairn(['tool', '--home', sb.home, '--cwd', other.checkout, '{"command":"create","path":"/memories/workspace/theirs.md","file_text":"y\\n"}']);
      expect((await listed()).versions.map((v) => [v.path, v.actor, v.cause])).toEqual([['/memories/workspace/todo.md', 'person', 'tool']]);
    } finally {
      await other.cleanup();
    }
  });

  it('keeps every change answered before a SIGKILL', async () => {
    const child = spawn(CAIRN_BIN, ['tool', '--jsonl', ...flags]);
    const answers: string[] = [];
    const threeAnswered = new Promise<void>((resolve) => {
      let buffer = '';
      child.stdout.on('data', (d: Buffer) => {
        buffer += d.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        answers.push(...lines);
        if (answers.length >= 3) resolve();
      });
    });
    for (let i = 0; i < 3; i++) child.stdin.write(`${JSON.stringify({ command: 'create', path: `/memories/global/k${i}.md`, file_text: `k${i}\n` })}\n`);
    await threeAnswered;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const versions = (await listed()).versions;
    expect(versions.map((v) => v.path).sort()).toEqual(['/memories/global/k0.md', '/memories/global/k1.md', '/memories/global/k2.md']);
    for (const v of versions) expect((await runCairn(['history', 'show', v.id, ...flags])).stdout.split('\n')[1]).toBe(v.path.slice(-5, -3));
  });

  it('restores an earlier version as a new change, and brings a deleted file back', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/project/notes.md', file_text: 'the line that mattered\n' },
      { command: 'str_replace', path: '/memories/project/notes.md', old_str: 'the line that mattered', new_str: 'worse' },
    ]);
    const [edited, created] = (await listed('/memories/project/notes.md')).versions;
    const restored = await runCairn(['restore', '/memories/project/notes.md', '--to', created!.id, ...flags]);
    expect(restored).toMatchObject({ status: 0, stdout: `Restored /memories/project/notes.md to version ${created!.id} (replaced its content).\n` });
    const view = await runCairn(['tool', ...flags, '{"command":"view","path":"/memories/project/notes.md"}']);
    expect(view.stdout).toContain('the line that mattered');
    const after = (await listed('/memories/project/notes.md')).versions;
    expect(after[0]).toMatchObject({ op: 'update', actor: 'person', cause: `restore:${created!.id}` });
    // The restore is a version too: restoring over it brings the edit back.
    await runCairn(['restore', '/memories/project/notes.md', '--to', edited!.id, ...flags]);
    expect((await runCairn(['tool', ...flags, '{"command":"view","path":"/memories/project/notes.md"}'])).stdout).toContain('worse');

    // A deleted file: its delete version holds what it took away.
    await runJsonl(flags, [{ command: 'delete', path: '/memories/project/notes.md' }]);
    const [deleted] = (await listed('/memories/project/notes.md')).versions;
    expect(deleted!.op).toBe('delete');
    expect(await runCairn(['restore', '/memories/project/notes.md', '--to', deleted!.id, ...flags])).toMatchObject({ status: 0, stdout: expect.stringContaining('(created again)') });
    expect((await runCairn(['tool', ...flags, '{"command":"view","path":"/memories/project/notes.md"}'])).stdout).toContain('worse');
  });

  it('refuses a version of another file, an unknown id, and a missing --to, changing nothing', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/global/a.md', file_text: 'A\n' },
      { command: 'create', path: '/memories/global/b.md', file_text: 'B\n' },
    ]);
    const [b] = (await listed('/memories/global/b.md')).versions;
    expect(await runCairn(['restore', '/memories/global/a.md', '--to', b!.id, ...flags])).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: Version \S+ is not a version of \/memories\/global\/a.md/) });
    expect(await runCairn(['restore', '/memories/global/a.md', '--to', 'nope', ...flags])).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: There is no version "nope"/) });
    expect((await runCairn(['restore', '/memories/global/a.md', ...flags])).status).toBe(2);
    expect((await listed()).versions).toHaveLength(2);
  });

  it('undoes the last change, then the undo; refuses a change whose file changed since', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/global/a.md', file_text: 'one\n' },
      { command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' },
    ]);
    const view = async () => (await runCairn(['tool', ...flags, '{"command":"view","path":"/memories/global/a.md"}'])).stdout;
    expect(await runCairn(['undo', '--last', ...flags])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Undid update of \/memories\/global\/a.md \(agent, .+\): \/memories\/global\/a.md\n$/) });
    expect(await view()).toContain('one');
    expect((await listed()).versions[0]).toMatchObject({ actor: 'person', cause: expect.stringMatching(/^undo:/) });
    expect((await runCairn(['undo', '--last', ...flags])).status).toBe(0);
    expect(await view()).toContain('two');

    const [latest] = (await listed()).versions;
    await runJsonl(flags, [{ command: 'str_replace', path: '/memories/global/a.md', old_str: 'two', new_str: 'three' }]);
    expect(await runCairn(['undo', latest!.id, ...flags])).toMatchObject({ status: 1, stdout: 'Error: /memories/global/a.md was changed since that change; nothing was undone.\n' });
    expect(await view()).toContain('three');
    expect((await runCairn(['undo', ...flags])).status).toBe(2);
    expect((await runCairn(['undo', 'x', '--last', ...flags])).status).toBe(2);
  });

  it('lists recently deleted files with the version that brings each back', async () => {
    await runJsonl(flags, [
      { command: 'create', path: '/memories/global/gone.md', file_text: 'gone\n' },
      { command: 'create', path: '/memories/global/d/also.md', file_text: 'also\n' },
      { command: 'create', path: '/memories/global/kept.md', file_text: 'kept\n' },
      { command: 'rename', old_path: '/memories/global/kept.md', new_path: '/memories/global/moved.md' },
      { command: 'delete', path: '/memories/global/gone.md' },
      { command: 'delete', path: '/memories/global/d' },
    ]);
    const result = await runCairn(['history', '--deleted', ...flags]);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+DELETED \(UTC\)\s+WHO\s+PATH$/);
    expect(lines.slice(1, -1).map((l) => l.split(/\s{2,}/).at(-1))).toEqual(['/memories/global/d/also.md', '/memories/global/gone.md']);
    expect(lines.at(-1)).toBe('(bring one back with: cairn restore PATH --to ID)');
    const id = lines[2]!.split(/\s+/)[0]!;
    expect((await runCairn(['restore', '/memories/global/gone.md', '--to', id, ...flags])).status).toBe(0);
    const after = (await runCairn(['history', '--deleted', '/memories/global/d', ...flags])).stdout.trimEnd().split('\n');
    expect(after.slice(1, -1).map((l) => l.split(/\s{2,}/).at(-1))).toEqual(['/memories/global/d/also.md']);
    expect((await runCairn(['history', '--deleted', ...flags])).stdout).not.toContain('gone.md');
  });
});

