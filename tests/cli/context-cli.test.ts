// `cairn pin`, `unpin`, `stats` and `context` as a person or an agent hook runs them.
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runCairn, runJsonl } from '../support/cli';

let sb: Sandbox;
let flags: string[];
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
  await runJsonl(flags, [
    { command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build, test and release\n---\nRun `make test` before pushing; CI takes 15 minutes.\n' },
    { command: 'create', path: '/memories/global/style.md', file_text: '---\ndescription: Code style the user wants\n---\nTabs, not spaces. Short commit messages.\n' },
    { command: 'create', path: '/memories/workspace/todo.md', file_text: 'Fix the flaky login test in auth/session.ts.\n' },
    { command: 'view', path: '/memories/project/build.md' },
  ]);
});
afterEach(async () => {
  await sb.cleanup();
});

describe('cairn pin / unpin', () => {
  it('pins a file, and the stats show it', async () => {
    expect(await runCairn(['pin', '/memories/global/style.md', ...flags])).toMatchObject({ status: 0, stdout: 'Pinned /memories/global/style.md\n' });
    const stats = JSON.parse((await runCairn(['stats', '--json', ...flags])).stdout) as { files: Array<{ path: string; pinned: boolean; accessCount: number }> };
    // The create was a use; the pin is not one.
    expect(stats.files.find((f) => f.path === '/memories/global/style.md')).toMatchObject({ pinned: true, accessCount: 1 });
    expect(await runCairn(['unpin', '/memories/global/style.md', ...flags])).toMatchObject({ status: 0, stdout: 'Unpinned /memories/global/style.md\n' });
  });

  it('exits 1 with an error for a missing file, 2 without a path', async () => {
    expect(await runCairn(['pin', '/memories/global/nope.md', ...flags])).toMatchObject({
      status: 1,
      stdout: 'Error: The path /memories/global/nope.md does not exist. Please provide a valid path.\n',
    });
    expect((await runCairn(['pin', ...flags])).status).toBe(2);
  });
});

describe('cairn stats', () => {
  it('prints a table of every file with pins and uses', async () => {
    const result = await runCairn(['stats', ...flags]);
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PIN\s+USES\s+LAST USED \(UTC\)\s+LAST WRITTEN \(UTC\)\s+PATH$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).at(-1))).toEqual(['/memories/global/style.md', '/memories/project/build.md', '/memories/workspace/todo.md']);
    expect(lines.find((l) => l.endsWith('/memories/project/build.md'))).toMatch(/^\s+2\s/);
  });

  it('stops quietly, status 0, when its reader goes away early (`cairn stats | head -1`)', async () => {
    // Two thousand rows (about 150 KB, more than twice what a pipe holds), so the table is still
    // being written when the reader has gone.
    const fs = await import('node:fs/promises');
    for (const dir of [path.join(sb.checkout, '.cairn', 'memory', 'bulk'), path.join(sb.home, 'memory', 'global', 'bulk')]) {
      await fs.mkdir(dir, { recursive: true });
      await Promise.all(Array.from({ length: 990 }, (_, i) => fs.writeFile(path.join(dir, `n${i}.md`), 'x\n')));
    }
    const { spawn } = await import('node:child_process');
    const { CAIRN_BIN } = await import('../support/sandbox');
    const result = await new Promise<{ status: number | null; stderr: string; first: string }>((resolve, reject) => {
      const child = spawn(CAIRN_BIN, ['stats', ...flags]);
      let stderr = '';
      let first = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.once('data', (d: Buffer) => {
        first = d.toString().split('\n')[0]!;
        child.stdout.destroy();
      });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stderr, first }));
    });
    expect(result.first).toMatch(/^PIN\s+USES/);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('cairn context', () => {
  it('prints the index and the hot set', async () => {
    const result = await runCairn(['context', ...flags]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('<memory_index>\n');
    expect(result.stdout).toContain('/memories/project/build.md: How to build, test and release\n');
    expect(result.stdout).toContain('<hot_memories>');
    expect(result.stdout).toContain('<memory_file path="/memories/project/build.md">');
    expect(result.stdout).not.toContain('<relevant_memories>');
  });

  it('adds the memories relevant to a prompt', async () => {
    const result = await runCairn(['context', ...flags, '--prompt', 'the login test is flaky again']);
    const relevant = result.stdout.slice(result.stdout.indexOf('<relevant_memories>'));
    expect(relevant).toMatch(/^<relevant_memories>\n.*\n<memory_file path="\/memories\/workspace\/todo.md">\nFix the flaky login test/);
  });

  it('reads a hook input that arrives late on a non-blocking pipe, and answers the same', async () => {
    // The hook reads its stdin through the descriptor; a parent may hand it a pipe in non-blocking
    // mode, where a read finds nothing yet. A FIFO opened O_NONBLOCK is such a pipe (the mode is
    // the open file's, so the child shares it). Node makes a child's fds 0 to 2 blocking, so the
    // FIFO is passed as fd 3 and a shell makes it the hook's stdin. The input is written only once
    // the child has had time to try a read, in two parts. (On a machine so loaded that the child
    // reads only after both parts, the test still holds, without exercising the fallback.)
    const { execFileSync, spawn } = await import('node:child_process');
    const fsSync = await import('node:fs');
    const { CAIRN_BIN } = await import('../support/sandbox');
    const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'how do I release?', cwd: sb.checkout });
    const expected = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input });
    expect(expected.stdout).toContain('/memories/project/build.md');
    const fifo = path.join(sb.dir, 'hook-input');
    execFileSync('mkfifo', [fifo]);
    const readEnd = fsSync.openSync(fifo, fsSync.constants.O_RDONLY | fsSync.constants.O_NONBLOCK);
    const writeEnd = fsSync.openSync(fifo, fsSync.constants.O_WRONLY);
    const child = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 0<&3 3<&-', CAIRN_BIN, 'context', '--format', 'claude-hook', '--home', sb.home], { stdio: ['ignore', 'pipe', 'pipe', readEnd] });
    fsSync.closeSync(readEnd);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    fsSync.writeSync(writeEnd, input.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    fsSync.writeSync(writeEnd, input.slice(20));
    fsSync.closeSync(writeEnd);
    expect(await closed).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(expected.stdout);
  });

  it('reads the prompt from stdin', async () => {
    const result = await runCairn(['context', ...flags, '--prompt-stdin', '--format', 'json'], { input: 'what code style should I use?' });
    const json = JSON.parse(result.stdout) as { relevant: string; index: string; hotSet: string; files: unknown[] };
    expect(json.relevant).toContain('<memory_file path="/memories/global/style.md">');
    expect(json.files).toHaveLength(3);
  });

  it('answers Claude Code hooks: index and hot set at session start, relevant memories on each prompt', async () => {
    const start = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
      input: JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: 's1', cwd: sb.checkout }),
    });
    const startJson = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(startJson.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(startJson.hookSpecificOutput.additionalContext).toMatch(/^<memory_index>[\s\S]*<\/memory_index>\n\n<hot_memories>[\s\S]*<\/hot_memories>$/);
    // The same state gives the same bytes: the prompt cache holds across sessions that start alike.
    const again = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
      input: JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact', cwd: sb.checkout }),
    });
    expect(again.stdout).toBe(start.stdout);

    const prompt = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'how do I release?', cwd: path.join(sb.checkout) }),
    });
    const promptJson = JSON.parse(prompt.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(promptJson.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(promptJson.hookSpecificOutput.additionalContext).toMatch(/^<relevant_memories>[\s\S]*\/memories\/project\/build.md/);

    const nothing = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'the and of', cwd: sb.checkout }),
    });
    expect(nothing).toMatchObject({ status: 0, stdout: '' });

    // Inside Cairn's own extraction run (the harvest's `claude -p`), the hooks add nothing.
    const inside = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'how do I release?', cwd: sb.checkout }),
      env: { CAIRN_HARVEST_CHILD: '1' },
    });
    expect(inside).toMatchObject({ status: 0, stdout: '' });
  });

  it.each([
    [['--format', 'xml'], /--format must be one of text, json, claude-hook/],
    [['--prompt', 'x', '--prompt-stdin'], /not both/],
  ])('rejects %j with exit 2', async (args, message) => {
    const result = await runCairn(['context', ...flags, ...args]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
