// The security envelope on the real filesystem, table-driven: symlink escapes of every kind (file,
// directory, parent, root, dangling, swapped in mid-write), hostile names on disk, caps and UTF-8.
// Every output is also checked for host paths: none may reach a model.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE } from '../../src/common/memory/constants';
import { LocalRuntime } from '../../src/main/runtime/local/local-runtime';
import type { Runtime } from '../../src/main/runtime/runtime';
import type { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { resolveLocalSession } from '../../src/main/workspaces/session';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { testRuntime } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

let sb: Sandbox;
let outside: string;

// The whole envelope runs twice: on the local disk, and on the same roots reached over SSH (a real
// sshd on loopback), where the same checks run on the remote side.
const RUNTIMES = sshdAvailable() ? (['local', 'ssh'] as const) : (['local'] as const);

describe.each(RUNTIMES)('the envelope over the %s runtime', (kind) => {
let sshd: Sshd | null = null;
let runtime: SshRuntime | undefined;
beforeAll(async () => {
  if (kind !== 'ssh') return;
  sshd = await startSshd();
  runtime = testRuntime(sshd);
});
afterAll(async () => {
  runtime?.connection.close();
  await sshd?.stop();
});

beforeEach(async () => {
  sb = await makeSandbox({ runtime });
  outside = path.join(sb.dir, 'outside');
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
  await sb.run({ command: 'create', path: '/memories/global/keep.md', file_text: 'keep\n' });
});
afterEach(async () => {
  await sb.cleanup();
});

async function run(input: unknown): Promise<{ ok: boolean; output: string }> {
  const result = await sb.run(input);
  expect(result.output).not.toContain(sb.dir);
  expect(result.output).not.toContain(sb.home);
  return result;
}

function globalRuntime(): Runtime {
  const binding = sb.session.scopes.global;
  if (!binding.available) throw new Error('the global scope is unavailable');
  return binding.runtime;
}

async function outsideUntouched(): Promise<void> {
  expect((await fs.readdir(outside)).sort()).toEqual(['secret.txt']);
  expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
}

describe('symlink escapes', () => {
  type Case = [string, () => Promise<void>, unknown, RegExp];
  const g = () => sb.roots.global;
  const cases: Case[] = [
    ['view through a file symlink', () => fs.symlink(path.join(outside, 'secret.txt'), path.join(g(), 'leak.md')), { command: 'view', path: '/memories/global/leak.md' }, /would escape/],
    ['str_replace through a file symlink', () => fs.symlink(path.join(outside, 'secret.txt'), path.join(g(), 'leak.md')), { command: 'str_replace', path: '/memories/global/leak.md', old_str: 'TOP', new_str: 'NOT' }, /would escape/],
    ['insert through a file symlink', () => fs.symlink(path.join(outside, 'secret.txt'), path.join(g(), 'leak.md')), { command: 'insert', path: '/memories/global/leak.md', insert_line: 0, insert_text: 'x' }, /would escape/],
    ['create over a dangling symlink', () => fs.symlink(path.join(outside, 'new.txt'), path.join(g(), 'dangling.md')), { command: 'create', path: '/memories/global/dangling.md', file_text: 'x' }, /already exists/],
    ['view a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'view', path: '/memories/global/dir' }, /would escape/],
    ['view a file inside a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'view', path: '/memories/global/dir/secret.txt' }, /would escape/],
    ['create inside a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'create', path: '/memories/global/dir/new.md', file_text: 'x' }, /would escape/],
    ['create deep inside a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'create', path: '/memories/global/dir/a/b/new.md', file_text: 'x' }, /would escape/],
    ['rename into a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'rename', old_path: '/memories/global/keep.md', new_path: '/memories/global/dir/keep.md' }, /would escape/],
    ['rename out of a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'rename', old_path: '/memories/global/dir/secret.txt', new_path: '/memories/global/got.md' }, /would escape/],
    ['delete inside a directory symlink', () => fs.symlink(outside, path.join(g(), 'dir')), { command: 'delete', path: '/memories/global/dir/secret.txt' }, /would escape/],
    ['str_replace inside a parent symlink', async () => {
      await fs.mkdir(path.join(g(), 'a'));
      await fs.symlink(outside, path.join(g(), 'a', 'b'));
    }, { command: 'str_replace', path: '/memories/global/a/b/secret.txt', old_str: 'TOP', new_str: 'NOT' }, /would escape/],
  ];

  it.each(cases)('%s is refused', async (_name, setup, input, expected) => {
    await setup();
    const result = await run(input);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(expected);
    await outsideUntouched();
  });

  it('a directory listing skips entries that escape', async () => {
    await fs.symlink(outside, path.join(g(), 'dir'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(g(), 'leak.md'));
    const view = await run({ command: 'view', path: '/memories/global' });
    expect(view.output).not.toContain('leak.md');
    expect(view.output).not.toContain('/memories/global/dir');
    expect(view.output).toContain('keep.md');
  });

  it('deleting a symlink removes the link, never its target', async () => {
    await fs.symlink(outside, path.join(g(), 'dir'));
    expect((await run({ command: 'delete', path: '/memories/global/dir' })).ok).toBe(true);
    await outsideUntouched();
  });

  it('a write to a symlink that stays inside replaces the link, not the file it points to', async () => {
    await fs.symlink(path.join(g(), 'keep.md'), path.join(g(), 'alias.md'));
    expect((await run({ command: 'view', path: '/memories/global/alias.md' })).output).toContain('keep');
    expect((await run({ command: 'str_replace', path: '/memories/global/alias.md', old_str: 'keep', new_str: 'changed' })).ok).toBe(true);
    expect(await fs.readFile(path.join(g(), 'keep.md'), 'utf8')).toBe('keep\n');
    expect((await fs.lstat(path.join(g(), 'alias.md'))).isSymbolicLink()).toBe(false);
  });

  it('a scope root that is a symlink out of its home is refused', async () => {
    const ws = sb.roots.workspace;
    await fs.mkdir(path.dirname(ws), { recursive: true });
    await fs.symlink(outside, ws);
    for (const input of [
      { command: 'view', path: '/memories/workspace' },
      { command: 'create', path: '/memories/workspace/x.md', file_text: 'x' },
    ]) {
      const result = await run(input);
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(/\/memories\/workspace is unavailable: its directory `workspaces\/[^`]+\/memory` is a symbolic link/);
    }
    await outsideUntouched();
  });

  it("a checkout's .cairn symlinked out of the checkout cannot redirect project memory", async () => {
    await fs.symlink(outside, path.join(sb.checkout, '.cairn'));
    const result = await run({ command: 'create', path: '/memories/project/x.md', file_text: 'x' });
    expect(result).toMatchObject({ ok: false });
    expect(result.output).toMatch(/\/memories\/project is unavailable: its directory `\.cairn` is a symbolic link/);
    await outsideUntouched();
  });

  it('a directory swapped for a symlink while writes run never lets a write land outside', async () => {
    // A real race: a second process atomically re-points notes/ between a directory inside the
    // root and outside/, as fast as it can, while this process writes into notes/.
    const inside = path.join(g(), 'real');
    await fs.mkdir(inside);
    const notes = path.join(g(), 'notes');
    await fs.symlink(inside, notes);
    const flipper = spawn(process.execPath, [
      '-e',
      // It flips until it is killed (or orphaned, should this process die), never for a fixed time:
      // the writes below may take longer than any guess on a slow, loaded machine.
      `const fs = require('fs');
       const [notes, inside, outside, parent] = process.argv.slice(1);
       process.stdout.write('flipping\\n');
       for (let i = 0; String(process.ppid) === parent; i++) {
         const tmp = notes + '.flip' + (i % 2);
         try { fs.symlinkSync(i % 2 ? outside : inside, tmp); fs.renameSync(tmp, notes); } catch {}
       }`,
      notes,
      inside,
      outside,
      String(process.pid),
    ]);
    const exited = new Promise((resolve) => flipper.on('exit', resolve));
    await new Promise((resolve) => flipper.stdout.once('data', resolve));
    let ok = 0;
    let refused = 0;
    // Write until both outcomes have been seen many times (bounded), so the race really ran.
    for (let i = 0; i < 3000 && (ok < 20 || refused < 20); i++) {
      const result = await run({ command: 'create', path: `/memories/global/notes/n${i}.md`, file_text: `note ${i}\n` });
      if (result.ok) ok++;
      else {
        refused++;
        expect(result.output).toMatch(/^Error: /);
      }
    }
    flipper.kill('SIGTERM');
    await exited;
    await outsideUntouched();
    expect(ok).toBeGreaterThanOrEqual(20);
    expect(refused).toBeGreaterThanOrEqual(20);
  });
});

// The hook exists in LocalRuntime only (over SSH the check and the write happen in one remote
// request, and the real race above covers it), so this block is registered for the local runtime only.
if (kind === 'local') describe('a directory swapped between check and use (fault injected)', () => {
  // The window between the containment check and the write is microseconds wide; a hook in
  // LocalRuntime swaps the checked directory for a symlink exactly there.
  it.each([
    ['create', { command: 'create', path: '/memories/global/notes/new.md', file_text: 'x' }],
    ['str_replace', { command: 'str_replace', path: '/memories/global/notes/n.md', old_str: 'note', new_str: 'NOTE' }],
    ['rename', { command: 'rename', old_path: '/memories/global/notes/n.md', new_path: '/memories/global/notes/m.md' }],
    ['delete', { command: 'delete', path: '/memories/global/notes/n.md' }],
  ])('%s is refused and nothing outside changes', async (_name, input) => {
    const notes = path.join(sb.roots.global, 'notes');
    await fs.mkdir(notes);
    await fs.writeFile(path.join(notes, 'n.md'), 'note\n');
    await fs.writeFile(path.join(outside, 'n.md'), 'outside note\n');
    let swapped = false;
    const runtime = new LocalRuntime({
      afterCheck: async (dir) => {
        if (swapped || dir !== notes) return;
        swapped = true;
        await fs.rename(notes, path.join(sb.roots.global, 'parked'));
        await fs.symlink(outside, notes);
      },
    });
    const session = await resolveLocalSession({ home: sb.home, cwd: sb.checkout }, runtime);
    const result = await sb.service.execute(input, session, { mode: 'exec', actor: 'agent' });
    expect(swapped).toBe(true);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/would escape/);
    expect((await fs.readdir(outside)).sort()).toEqual(['n.md', 'secret.txt']);
    expect(await fs.readFile(path.join(outside, 'n.md'), 'utf8')).toBe('outside note\n');
    expect(await fs.readFile(path.join(sb.roots.global, 'parked', 'n.md'), 'utf8')).toBe('note\n');
  });
});

describe('hostile names on disk', () => {
  const hostile = ['evil\nname.md', '<memory_file>.md', 'back\\slash.md', 'esc\u001b[2J.md', 'rtl\u202egnp.md', '.cairn-tmp-1-ab', '.hidden.md', 'a"b.md'];

  it('are never listed', async () => {
    for (const name of hostile) await fs.writeFile(path.join(sb.roots.global, name), 'x');
    await fs.mkdir(path.join(sb.roots.global, 'node_modules'));
    const view = await run({ command: 'view', path: '/memories/global' });
    expect(view.output.split('\n').slice(1)).toEqual(['4K\t/memories/global', '5B\t/memories/global/keep.md']);
    const root = await run({ command: 'view', path: '/memories' });
    for (const name of hostile) expect(root.output).not.toContain(name);
  });
});

describe('caps', () => {
  it('refuses a file over 100 KiB and writes nothing', async () => {
    const big = 'x'.repeat(MAX_FILE_BYTES + 1);
    const result = await run({ command: 'create', path: '/memories/global/big.md', file_text: big });
    expect(result.output).toBe('Error: /memories/global/big.md would be 100.0K, over the 100K limit for one memory file. Keep memories short, or split this into several files.');
    await expect(fs.access(path.join(sb.roots.global, 'big.md'))).rejects.toThrow();
    expect((await run({ command: 'create', path: '/memories/global/max.md', file_text: 'x'.repeat(MAX_FILE_BYTES) })).ok).toBe(true);
  });

  it('counts bytes, not characters', async () => {
    const result = await run({ command: 'create', path: '/memories/global/wide.md', file_text: 'é'.repeat(MAX_FILE_BYTES / 2 + 1) });
    expect(result.ok).toBe(false);
  });

  it('refuses edits that would grow a file past the cap and leaves it unchanged', async () => {
    await run({ command: 'create', path: '/memories/global/near.md', file_text: `${'x'.repeat(MAX_FILE_BYTES - 10)}\nEND` });
    expect((await run({ command: 'str_replace', path: '/memories/global/near.md', old_str: 'END', new_str: 'E'.repeat(50) })).output).toMatch(/over the 100K limit/);
    expect((await run({ command: 'insert', path: '/memories/global/near.md', insert_line: 0, insert_text: 'y'.repeat(50) })).output).toMatch(/over the 100K limit/);
    expect((await fs.readFile(path.join(sb.roots.global, 'near.md'), 'utf8')).endsWith('\nEND')).toBe(true);
  });

  it('does not read a stored file over the cap', async () => {
    await fs.writeFile(path.join(sb.roots.global, 'huge.md'), 'y'.repeat(MAX_FILE_BYTES * 2));
    expect((await run({ command: 'view', path: '/memories/global/huge.md' })).output).toBe(
      'Error: /memories/global/huge.md is 200K, over the 100K limit for one memory file, so it is not read. Ask the user to split or shorten it.',
    );
  });

  it(`refuses the ${MAX_FILES_PER_SCOPE + 1}th file of a scope, and listings stop at the cap`, async () => {
    const dir = path.join(sb.roots.global, 'many');
    await fs.mkdir(dir);
    // keep.md is file 1; add 999 more.
    await Promise.all(Array.from({ length: MAX_FILES_PER_SCOPE - 1 }, (_, i) => fs.writeFile(path.join(dir, `f${String(i).padStart(4, '0')}.md`), 'x')));
    const full = await run({ command: 'create', path: '/memories/global/one-more.md', file_text: 'x' });
    expect(full.output).toBe(
      'Error: The global scope already holds 1000 files, the most it can hold. Merge or delete memories in /memories/global before creating another.',
    );
    // Nothing is left of the refused file, not even its temp file.
    expect((await fs.readdir(sb.roots.global)).sort()).toEqual(['keep.md', 'many']);
    // A path already taken says so, full or not.
    expect((await run({ command: 'create', path: '/memories/global/many/f0000.md', file_text: 'y' })).output).toMatch(/already exists/);
    // Made outside Cairn: the directory now holds 1001 files, the scope 1002.
    await fs.writeFile(path.join(dir, 'f9998.md'), 'x');
    await fs.writeFile(path.join(dir, 'f9999.md'), 'x');
    const view = await run({ command: 'view', path: '/memories/global/many' });
    const rows = view.output.split('\n');
    expect(rows.at(-1)).toBe('(listing stopped at 1000 entries)');
    expect(rows).toHaveLength(1 + 1 + MAX_FILES_PER_SCOPE + 1);
    expect(rows[2]).toBe('1B\t/memories/global/many/f0000.md');
    expect(view.output).not.toContain('f9999.md');
    // Other scopes are unaffected, and deleting frees a place.
    expect((await run({ command: 'create', path: '/memories/workspace/ok.md', file_text: 'x' })).ok).toBe(true);
    await run({ command: 'delete', path: '/memories/global/keep.md' });
    await fs.rm(path.join(dir, 'f9998.md'));
    await fs.rm(path.join(dir, 'f9999.md'));
    expect((await run({ command: 'create', path: '/memories/global/one-more.md', file_text: 'x' })).ok).toBe(true);
  });
  it('counts hidden names and node_modules toward the cap, so neither they nor a rename to a dot name let a scope grow past it', async () => {
    // keep.md is file 1; 999 more, hidden or under node_modules, which views never show.
    await fs.mkdir(path.join(sb.roots.global, 'node_modules'));
    await Promise.all(
      Array.from({ length: MAX_FILES_PER_SCOPE - 1 }, (_, i) =>
        fs.writeFile(path.join(sb.roots.global, i % 2 ? `.h${i}.md` : path.join('node_modules', `m${i}.js`)), 'x'),
      ),
    );
    for (const p of ['/memories/global/.more.md', '/memories/global/node_modules/more.js', '/memories/global/more.md']) {
      expect((await run({ command: 'create', path: p, file_text: 'x' })).output).toMatch(/already holds 1000 files/);
    }
    // A rename to a hidden name frees no place.
    expect((await run({ command: 'rename', old_path: '/memories/global/keep.md', new_path: '/memories/global/.keep.md' })).ok).toBe(true);
    expect((await run({ command: 'create', path: '/memories/global/more.md', file_text: 'x' })).output).toMatch(/already holds 1000 files/);
  });

  it('a create refused for a full scope leaves no directory behind', async () => {
    await Promise.all(Array.from({ length: MAX_FILES_PER_SCOPE - 1 }, (_, i) => fs.writeFile(path.join(sb.roots.global, `f${i}.md`), 'x')));
    const full = await run({ command: 'create', path: '/memories/global/new/deep/x.md', file_text: 'x' });
    expect(full.output).toMatch(/already holds 1000 files/);
    await expect(fs.stat(path.join(sb.roots.global, 'new'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('links that are not symbolic', () => {
  it('a hard link to a file outside the root is never read, viewed or indexed', async () => {
    await fs.link(path.join(outside, 'secret.txt'), path.join(sb.roots.global, 'hard.md'));
    const view = await run({ command: 'view', path: '/memories/global/hard.md' });
    expect(view.ok).toBe(false);
    expect(view.output).toMatch(/hard link/);
    expect(view.output).not.toContain('TOP SECRET');
    const edit = await run({ command: 'str_replace', path: '/memories/global/hard.md', old_str: 'TOP', new_str: 'NOT' });
    expect(edit.ok).toBe(false);
    const heads = await globalRuntime().readHeads({ path: sb.roots.global, anchor: sb.home }, [['hard.md'], ['keep.md']], 100);
    expect(heads.map((h) => (h ? Buffer.from(h.data).toString() : null))).toEqual([null, 'keep\n']);
    await outsideUntouched();
  });

  it('a symlink loop inside the root lists its files once', async () => {
    const d = path.join(sb.roots.global, 'd');
    await fs.mkdir(d);
    await fs.writeFile(path.join(d, 'note.md'), 'x');
    await fs.symlink('../d', path.join(d, 'self'));
    const listed = await globalRuntime().list({ path: sb.roots.global, anchor: sb.home }, [], { depth: 1000, limit: 5000, filesOnly: true });
    expect(listed!.map((e) => e.rel.join('/'))).toEqual(['d/note.md', 'keep.md']);
    const view = await run({ command: 'view', path: '/memories/global' });
    expect(view.output.match(/note\.md/g)).toHaveLength(1);
  });
});

describe('UTF-8 only', () => {
  it('refuses to read or edit a file that is not UTF-8, leaving it as it was', async () => {
    const bytes = Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0a]);
    await fs.writeFile(path.join(sb.roots.global, 'bin.md'), bytes);
    expect((await run({ command: 'view', path: '/memories/global/bin.md' })).output).toBe(
      'Error: /memories/global/bin.md is not UTF-8 text; memory files must be UTF-8 text.',
    );
    expect((await run({ command: 'str_replace', path: '/memories/global/bin.md', old_str: 'hi', new_str: 'x' })).ok).toBe(false);
    expect(await fs.readFile(path.join(sb.roots.global, 'bin.md'))).toEqual(bytes);
  });

  it.each([
    ['a NUL character', 'a\u0000b'],
    ['an unpaired surrogate', 'a\ud800b'],
  ])('refuses content with %s', async (_name, text) => {
    const result = await run({ command: 'create', path: '/memories/global/t.md', file_text: text });
    expect(result.output).toMatch(/is not text/);
  });

  it('keeps a byte-order mark and multi-byte text intact', async () => {
    await fs.writeFile(path.join(sb.roots.global, 'bom.md'), '\ufeffcafé ☕\n');
    await run({ command: 'insert', path: '/memories/global/bom.md', insert_line: 1, insert_text: 'thé' });
    expect(await fs.readFile(path.join(sb.roots.global, 'bom.md'), 'utf8')).toBe('\ufeffcafé ☕\nthé\n');
  });
});
});
