// The `cairn` CLI as scripts and agents use it: a real process per call (bin/cairn, built).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runCairn } from '../support/cli';

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

const view = (p: string) => JSON.stringify({ command: 'view', path: p });

describe('cairn tool', () => {
  it('runs a command given as the argument and exits 0', async () => {
    const created = await runCairn(['tool', ...flags, JSON.stringify({ command: 'create', path: '/memories/project/a.md', file_text: 'hello\n' })]);
    expect(created).toEqual({ status: 0, stdout: 'File created successfully at: /memories/project/a.md\n', stderr: '' });
    expect(await fs.readFile(path.join(sb.checkout, '.cairn', 'memory', 'a.md'), 'utf8')).toBe('hello\n');
  });

  it('leaves no replaced or deleted version behind once it exits', async () => {
    const memory = path.join(sb.checkout, '.cairn', 'memory');
    const run = (command: object) => runCairn(['tool', ...flags, JSON.stringify(command)]);
    await run({ command: 'create', path: '/memories/project/a.md', file_text: 'first\n' });
    await run({ command: 'create', path: '/memories/project/b.md', file_text: 'gone\n' });
    expect((await run({ command: 'str_replace', path: '/memories/project/a.md', old_str: 'first', new_str: 'second' })).status).toBe(0);
    expect((await run({ command: 'delete', path: '/memories/project/b.md' })).status).toBe(0);
    expect(await fs.readdir(memory)).toEqual(['a.md']);
    expect(await fs.readFile(path.join(memory, 'a.md'), 'utf8')).toBe('second\n');
    // Nothing beside the root either: no trash, no temp file, no lock left behind.
    expect(await fs.readdir(path.dirname(memory))).toEqual(['memory']);
  });

  it('reads the command from stdin', async () => {
    await runCairn(['tool', ...flags], { input: JSON.stringify({ command: 'create', path: '/memories/global/g.md', file_text: 'g' }) });
    const shown = await runCairn(['tool', ...flags], { input: view('/memories/global/g.md') });
    expect(shown.stdout).toBe("Here's the content of /memories/global/g.md with line numbers:\n     1\tg\n");
    expect(shown.status).toBe(0);
  });

  it('exits 1 with the error text on stdout when the command fails', async () => {
    const missing = await runCairn(['tool', ...flags, view('/memories/global/nope.md')]);
    expect(missing).toEqual({ status: 1, stdout: 'Error: The path /memories/global/nope.md does not exist. Please provide a valid path.\n', stderr: '' });
    const invalid = await runCairn(['tool', ...flags, JSON.stringify({ command: 'create', path: '/memories/global/x.md' })]);
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toBe('Error: Missing required parameter `file_text` for command `create`.\n');
  });

  it.each([
    ['bad JSON', ['{"command":'], /not valid JSON/],
    ['an unknown flag', ['--frobnicate', view('/memories')], /Unknown option '--frobnicate'/],
    ['a bad mode', ['--mode', 'god', view('/memories')], /--mode must be one of exec, plan, explore/],
    ['a bad actor', ['--actor', 'external', view('/memories')], /--actor must be one of agent, person; got "external"/],
    ['a bad workspace id', ['--workspace', '../x', view('/memories')], /--workspace must be/],
    ['two commands', [view('/memories'), view('/memories')], /give one JSON command/],
  ])('exits 2 on a usage error: %s', async (_name, args, message) => {
    const result = await runCairn(['tool', ...flags, ...args]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('reads a null field as absent (strict-mode providers send null for every unused field): the same output as leaving it out', async () => {
    const tool = (command: object) => runCairn(['tool', ...flags, JSON.stringify(command)]);
    const nulls = { path: null, view_range: null, file_text: null, old_str: null, new_str: null, insert_line: null, insert_text: null, old_path: null, new_path: null };
    await tool({ command: 'create', path: '/memories/project/a.md', file_text: 'one\ntwo\n' });
    await tool({ command: 'create', path: '/memories/project/b.md', file_text: 'one\ntwo\n' });

    // The command of the report, and the same with every unused field null.
    const plain = await tool({ command: 'view', path: '/memories' });
    expect(plain.status).toBe(0);
    expect(await tool({ command: 'view', path: '/memories', old_str: null })).toEqual(plain);
    expect(await tool({ ...nulls, command: 'view', path: '/memories' })).toEqual(plain);
    const lines = await tool({ command: 'view', path: '/memories/project/a.md', view_range: [2, 2] });
    expect(await tool({ ...nulls, command: 'view', path: '/memories/project/a.md', view_range: [2, 2] })).toEqual(lines);

    // A write: a.md with nulls, b.md without; they answer alike and end alike.
    const edited = await tool({ ...nulls, command: 'str_replace', path: '/memories/project/a.md', old_str: 'two', new_str: 'TWO' });
    const reference = await tool({ command: 'str_replace', path: '/memories/project/b.md', old_str: 'two', new_str: 'TWO' });
    expect(reference.status).toBe(0);
    expect(edited).toEqual({ ...reference, stdout: reference.stdout.replaceAll('b.md', 'a.md') });
    const memory = path.join(sb.checkout, '.cairn', 'memory');
    expect(await fs.readFile(path.join(memory, 'a.md'), 'utf8')).toBe('one\nTWO\n');

    // A required field given as null is missing, exactly as when left out.
    const missing = await tool({ command: 'create', path: '/memories/project/c.md' });
    expect(missing.status).toBe(1);
    expect(missing.stdout).toMatch(/Missing required parameter `file_text`/);
    expect(await tool({ ...nulls, command: 'create', path: '/memories/project/c.md' })).toEqual(missing);
  });

  it('exits 2 for an unknown command', async () => {
    const result = await runCairn(['frobnicate']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('honours --mode', async () => {
    const refused = await runCairn(['tool', ...flags, '--mode', 'explore', JSON.stringify({ command: 'create', path: '/memories/global/a.md', file_text: 'x' })]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/^Error: Memory is read-only in explore mode/);
    const plan = await runCairn(['tool', ...flags, '--mode', 'plan', JSON.stringify({ command: 'create', path: '/memories/project/a.md', file_text: 'x' })]);
    expect(plan.stdout).toMatch(/^Error: \/memories\/project is read-only in plan mode/);
  });

  it('anchors the project at the git root of --cwd and derives the workspace from the checkout', async () => {
    const sub = path.join(sb.checkout, 'src', 'deep');
    await fs.mkdir(sub, { recursive: true });
    const write = (cwd: string, rel: string) =>
      runCairn(['tool', '--home', sb.home, '--cwd', cwd, JSON.stringify({ command: 'create', path: `/memories/${rel}`, file_text: rel })]);
    expect((await write(sub, 'project/from-sub.md')).status).toBe(0);
    expect((await write(sub, 'workspace/from-sub.md')).status).toBe(0);
    await fs.access(path.join(sb.checkout, '.cairn', 'memory', 'from-sub.md'));
    // The same workspace whether the agent starts at the root or deeper.
    const fromRoot = await runCairn(['tool', ...flags, view('/memories/workspace')]);
    expect(fromRoot.stdout).toContain('/memories/workspace/from-sub.md');
    expect(await fs.readdir(path.join(sb.home, 'workspaces'))).toEqual([sb.session.workspaceId]);
  });

  it('uses --workspace as given', async () => {
    await runCairn(['tool', ...flags, '--workspace', 'my-ws', JSON.stringify({ command: 'create', path: '/memories/workspace/w.md', file_text: 'w' })]);
    await fs.access(path.join(sb.home, 'workspaces', 'my-ws', 'memory', 'w.md'));
  });

  it('defaults the project to the current directory and the home to $CAIRN_HOME', async () => {
    const result = await runCairn(['tool', JSON.stringify({ command: 'create', path: '/memories/global/env.md', file_text: 'e' })], {
      cwd: sb.checkout,
      env: { CAIRN_HOME: sb.home },
    });
    expect(result.status).toBe(0);
    await fs.access(path.join(sb.home, 'memory', 'global', 'env.md'));
  });

  it('outside a git repository the project scope is unavailable, and says so', async () => {
    const plain = path.join(sb.dir, 'plain');
    await fs.mkdir(plain);
    const result = await runCairn(['tool', '--home', sb.home, '--cwd', plain, JSON.stringify({ command: 'create', path: '/memories/project/a.md', file_text: 'x' })]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^Error: \/memories\/project is unavailable: the working directory is not inside a git repository/);
    expect(result.stdout).not.toContain(sb.dir);
  });
});

describe('cairn tool --jsonl', () => {
  it('runs every line in order, answers each with {ok, output, ms}, and goes on after bad lines', async () => {
    const input = [
      JSON.stringify({ command: 'create', path: '/memories/global/a.md', file_text: 'one' }),
      'this is not json',
      '',
      JSON.stringify({ command: 'str_replace', path: '/memories/global/a.md', old_str: 'one', new_str: 'two' }),
      JSON.stringify({ command: 'view', path: '/memories/global/missing.md' }),
      JSON.stringify({ command: 'view', path: '/memories/global/a.md' }),
    ].join('\n');
    const result = await runCairn(['tool', '--jsonl', ...flags], { input });
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { ok: boolean; output: string; ms?: number });
    expect(lines.map((l) => l.ok)).toEqual([true, false, true, false, true]);
    expect(lines[0]!.output).toBe('File created successfully at: /memories/global/a.md');
    expect(lines[1]!.output).toMatch(/^Error: The line is not valid JSON/);
    expect(lines[4]!.output).toBe("Here's the content of /memories/global/a.md with line numbers:\n     1\ttwo");
    for (const l of [lines[0]!, lines[2]!, lines[3]!, lines[4]!]) expect(typeof l.ms).toBe('number');
  });
});

describe('help', () => {
  it.each([
    [['--help'], /Usage: cairn \[--home DIR\] <command>/],
    [['tool', '--help'], /Usage: cairn tool \[options\] \[JSON\]/],
    [['serve', '--help'], /Usage: cairn serve/],
  ])('%j', async (args, text) => {
    const result = await runCairn(args);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(text);
  });
});
