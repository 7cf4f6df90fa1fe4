// A folder Cairn cannot read is never shown as an empty one. Each case is a folder made unreadable
// (chmod 000) by its owner, a real Unix user running the built CLI (root reads through any mode, so
// the suite runs as another user, made with useradd; tests/support/unix-users.ts):
// - the inbox's folder of items: `cairn inbox list` says it cannot read the inbox, naming no path,
//   and never "(the inbox is empty)"; made readable again, the same items are listed, nothing lost;
// - a memory folder: a view of it says Cairn cannot read it, the view of its parent says so on its
//   row, the agents' index names it, a write into it fails (permission denied) and writes nothing;
//   a whole scope root unreadable is an unavailable scope, with the reason;
// - the remote helper (SSH roots), run as that user through the same bootstrap an SSH host runs:
//   the same shape for the same folder (an entry with the OS code, UNREADABLE for the folder
//   itself, a capture for the history refused);
// - an agent's sessions folder: `cairn harvest` says it cannot read it (EACCES), never "no session".
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HELPER_BOOTSTRAP, HELPER_SOURCE } from '../../src/main/runtime/ssh/remote-helper';
import { cairnAs, letOthersReachCli, shellAs, unixUser, unixUsersAvailable, type UnixUser } from '../support/unix-users';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p)) ?? '/usr/bin/setpriv';

/** One frame of the helper's wire: a 4-byte length, then fields each with a 4-byte length. */
function frame(fields: readonly string[]): Buffer {
  const payload = Buffer.concat(fields.map((f) => {
    const bytes = Buffer.from(f, 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(bytes.length);
    return Buffer.concat([head, bytes]);
  }));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

/**
 * The remote helper started as `user` through the bootstrap an SSH host runs, sent `requests`: its
 * answers in order (the greeting left out), each as its fields.
 */
async function helperAs(user: UnixUser, requests: ReadonlyArray<readonly string[]>): Promise<string[][]> {
  const child = spawn(SETPRIV, [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--init-groups', '--', '/bin/sh', '-c', HELPER_BOOTSTRAP], { cwd: '/', env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } });
  let out = Buffer.alloc(0);
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out = Buffer.concat([out, d])));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const source = Buffer.from(HELPER_SOURCE, 'utf8');
  child.stdin.end(Buffer.concat([Buffer.from(`${source.length}\n`), source, ...requests.map(frame)]));
  expect(await exited, err).toBe(0);
  const answers: string[][] = [];
  for (let at = 0; at < out.length; ) {
    const end = at + 4 + out.readUInt32BE(at);
    const fields: string[] = [];
    for (let off = at + 4; off < end; ) {
      const len = out.readUInt32BE(off);
      fields.push(out.subarray(off + 4, off + 4 + len).toString('utf8'));
      off += 4 + len;
    }
    answers.push(fields);
    at = end;
  }
  expect(answers[0]?.[0]).toBe('ready');
  return answers.slice(1);
}

/** A helper listing's entries as [rel, type, version-or-code]. */
const entriesOf = (answer: readonly string[]): string[][] => {
  expect(answer.slice(0, 2)).toEqual(['ok', 'some']);
  const out: string[][] = [];
  for (let i = 2; i + 6 < answer.length; i += 7) out.push([answer[i]!, answer[i + 1]!, answer[i + 1] === 'file' ? '' : answer[i + 4]!]);
  return out;
};

describe.runIf(unixUsersAvailable())('a folder that cannot be read', () => {
  let me: UnixUser;
  let restoreReach: () => void;
  let base: string;

  beforeAll(() => {
    me = unixUser('cairn-t-me');
    restoreReach = letOthersReachCli();
  });
  afterAll(() => restoreReach?.());
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-unreadable-')));
    fs.chmodSync(base, 0o1777);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('the inbox: an unreadable folder of items is said to be unreadable, never listed as an empty inbox', async () => {
    const home = path.join(base, 'home');
    await shellAs(me, `mkdir work && printf -- '- Use pnpm for everything.\\n' > work/notes.md`, base);
    const imported = await cairnAs(me, ['import', '--from', 'markdown', 'notes.md', '--home', home], { cwd: path.join(base, 'work'), home: base });
    expect(imported.stdout).toContain('Proposed 1 for your review in the inbox.');
    const listed = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(listed.stdout).toContain('Use pnpm for everything.');

    await shellAs(me, 'chmod 000 home/inbox/items', base);
    const unreadable = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(unreadable.stdout).not.toContain('(the inbox is empty)');
    expect(unreadable.stdout).toContain('Cairn cannot read its inbox (EACCES)');
    expect(unreadable.stdout + unreadable.stderr).not.toContain(base);
    expect(unreadable.status).toBe(1);
    // A harvest or an import into it fails the same way rather than counting the inbox empty.
    const again = await cairnAs(me, ['import', '--from', 'markdown', 'notes.md', '--home', home], { cwd: path.join(base, 'work'), home: base });
    expect(again.stdout).toContain('Cairn cannot read its inbox (EACCES)');
    expect(again.status).not.toBe(0);

    await shellAs(me, 'chmod 700 home/inbox/items', base);
    const readable = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(readable.status).toBe(0);
    expect(readable.stdout).toContain('Use pnpm for everything.');
  });
  it('memory: a folder it cannot read is said to be unreadable in a view, its parent view and the index, never empty', async () => {
    const home = path.join(base, 'home');
    await shellAs(me, 'mkdir work && cd work && git init -q .', base);
    const tool = (command: object) => cairnAs(me, ['tool', '--cwd', path.join(base, 'work'), '--home', home, JSON.stringify(command)], { home: base });
    expect((await tool({ command: 'create', path: '/memories/project/secret/plan.md', file_text: '---\ndescription: The release plan\n---\nShip it.\n' })).status).toBe(0);
    expect((await tool({ command: 'create', path: '/memories/project/open.md', file_text: 'Readable.\n' })).status).toBe(0);
    await shellAs(me, 'chmod 000 work/.cairn/memory/secret', base);

    const folder = await tool({ command: 'view', path: '/memories/project/secret' });
    expect(folder.stdout).toContain('Error: /memories/project/secret: Cairn cannot read this folder (permission denied), so what it holds is unknown; it is not empty.');
    const parent = await tool({ command: 'view', path: '/memories/project' });
    expect(parent.stdout).toContain('/memories/project/open.md');
    expect(parent.stdout).toMatch(/\t\/memories\/project\/secret\/ \(cannot read: permission denied\)$/m);
    // The agents' index names the folder rather than leave it out as if it held nothing.
    const context = await cairnAs(me, ['context', '--cwd', path.join(base, 'work'), '--home', home], { home: base });
    expect(context.stdout).toContain('(/memories/project/secret/ cannot be read: its files are not listed)');
    // A write into it fails with the OS's reason and leaves nothing behind.
    const write = await tool({ command: 'create', path: '/memories/project/secret/more.md', file_text: 'x' });
    expect(write.stdout).toContain('Error: Could not create /memories/project/secret/more.md: permission denied.');
    for (const r of [folder, parent, context, write]) expect(r.stdout + r.stderr).not.toContain(base);

    // The whole scope root unreadable: an unavailable scope, with the reason, the others in view.
    await shellAs(me, 'chmod 000 work/.cairn/memory', base);
    const all = await tool({ command: 'view', path: '/memories' });
    expect(all.stdout).toContain('/memories/project/ (unavailable: Cairn cannot read its folder (permission denied)');
    expect(all.stdout).toContain('/memories/global/');

    await shellAs(me, 'chmod 700 work/.cairn/memory work/.cairn/memory/secret', base);
    expect((await tool({ command: 'view', path: '/memories/project' })).stdout).toContain('/memories/project/secret/plan.md');
    await shellAs(me, 'test ! -e work/.cairn/memory/secret/more.md', base);
  });

  it('memory over SSH: the remote helper gives the same shape for a folder it cannot read', async () => {
    await shellAs(me, 'mkdir -p cp/.cairn/memory/secret cp/.cairn/memory/notes && echo a > cp/.cairn/memory/secret/a.md && echo b > cp/.cairn/memory/notes/b.md && chmod 000 cp/.cairn/memory/secret', base);
    const anchor = path.join(base, 'cp');
    const root = path.join(anchor, '.cairn', 'memory');
    const [view, index, plain, itself, read, capture, count] = await helperAs(me, [
      ['list', root, anchor, '', '2', '1001', '0', '0', '0'],
      ['list', root, anchor, '', '1000000', '1001', '1', '0', '1'],
      ['list', root, anchor, '', '1000000', '1001', '1', '0', '0'],
      ['list', root, anchor, 'secret', '2', '1001', '0', '0', '0'],
      ['read', root, anchor, 'secret', '102400', '2', '1001'],
      ['capture', root, anchor, 'secret', '102400', ''],
      ['count', root, anchor, '1000'],
    ]);
    expect(entriesOf(view!)).toEqual([['notes', 'directory', ''], ['notes/b.md', 'file', ''], ['secret', 'unreadable', 'EACCES']]);
    expect(entriesOf(index!)).toEqual([['notes/b.md', 'file', ''], ['secret', 'unreadable', 'EACCES']]);
    expect(entriesOf(plain!)).toEqual([['notes/b.md', 'file', '']]);
    expect(itself!.slice(0, 2)).toEqual(['UNREADABLE', 'EACCES']);
    expect(read!.slice(0, 2)).toEqual(['UNREADABLE', 'EACCES']);
    expect(capture!.slice(0, 2)).toEqual(['IO', 'EACCES']);
    expect(count).toEqual(['ok', '1']);
  });

  it('harvest: an agent sessions folder it cannot read is said to be unreadable, never "no session found"', async () => {
    const home = path.join(base, 'home');
    await shellAs(me, 'mkdir work && cd work && git init -q .', base);
    const harvest = () => cairnAs(me, ['harvest', '--cwd', path.join(base, 'work'), '--home', home], { home: base });
    const none = await harvest();
    expect(none.stdout).toContain('No session of Claude Code, Codex, Gemini CLI or Copilot CLI was found');
    await shellAs(me, 'mkdir -p .claude/projects && chmod 000 .claude/projects', base);
    const unreadable = await harvest();
    expect(unreadable.stdout + unreadable.stderr).toContain("Cairn cannot read Claude Code's sessions folder (EACCES)");
    expect(unreadable.stdout).not.toContain('No session');
    expect(unreadable.stdout + unreadable.stderr).not.toContain(base);
    expect(unreadable.status).not.toBe(0);
    await shellAs(me, 'chmod 700 .claude/projects && mkdir -p .codex/sessions && chmod 000 .codex/sessions', base);
    const codex = await harvest();
    expect(codex.stdout + codex.stderr).toContain("Cairn cannot read Codex's sessions folder (EACCES)");
    await shellAs(me, 'chmod 700 .codex/sessions', base);
    expect((await harvest()).stdout).toContain('No session of Claude Code');
  });
});
