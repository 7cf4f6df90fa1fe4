// `cairn export > memory.tar` and `cairn import --from cairn memory.tar`: the archive holds the scope
// roots' memory files only, deterministically; a round trip into the same home reports every file
// as already present and adds nothing; into another home each file is a held change to approve;
// hostile archives (traversal, links, huge or non-UTF-8 entries, names twice) are refused whole,
// each entry named, nothing added.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeItem } from '../../src/main/inbox/inbox-store';
import { runCairn } from '../support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { spawn } from 'node:child_process';

let sb: Sandbox;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(() => sb.cleanup());

const cairn = (args: string[], home = sb.home) => runCairn(['--home', home, ...args], { cwd: sb.checkout, env: { CAIRN_HOME: '' } });

/** Runs `cairn export` and returns stdout's bytes (a tar), stderr and the status. */
function exportTar(args: string[] = [], home = sb.home): Promise<{ status: number | null; tar: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CAIRN_BIN, ['--home', home, 'export', ...args], { cwd: sb.checkout, env: { ...process.env, CAIRN_HOME: '' } });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, tar: Buffer.concat(out), stderr }));
  });
}

async function entries(data: Buffer): Promise<Array<{ name: string; mode: number; mtime: number; type: string; body: string }>> {
  const extract = tar.extract();
  const out: Array<{ name: string; mode: number; mtime: number; type: string; body: string }> = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      out.push({ name: entry.header.name, mode: entry.header.mode, mtime: entry.header.mtime.getTime(), type: entry.header.type, body: Buffer.concat(chunks).toString('utf8') });
    }
  })();
  Readable.from([data]).pipe(extract);
  await done;
  return out;
}

/** A tar made of these entries, as written (tar-stream writes what it is given). */
async function makeTar(list: Array<{ header: Partial<tar.Header> & { name: string }; body?: Buffer | string }>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve) => {
    pack.on('data', (c: unknown) => void chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
  });
  for (const e of list) await new Promise<void>((resolve, reject) => pack.entry(e.header, e.body ?? '', (err) => (err ? reject(err) : resolve())));
  pack.finalize();
  return done;
}

async function seed(): Promise<void> {
  for (const [p, text] of [
    ['/memories/global/preferences.md', '- Short answers.\n'],
    ['/memories/project/build.md', '---\ndescription: How to build\n---\nRun make test.\n'],
    ['/memories/project/lang/go.md', 'Wrap errors with %w.\n'],
    ['/memories/workspace/scratch.md', 'Port 5173 is taken here.\n'],
  ]) {
    const r = await sb.run({ command: 'create', path: p, file_text: text });
    expect(r.ok, r.output).toBe(true);
  }
}

const pendingChanges = async (home = sb.home): Promise<ChangeItem[]> =>
  ((JSON.parse((await cairn(['inbox', 'list', '--json'], home)).stdout) as { items: ChangeItem[] }).items.filter((i) => i.kind === 'change')).reverse();

describe('cairn export', () => {
  it('writes every scope root\u2019s files as a sorted tar with fixed modes and times, the same bytes every time, without pins or usage', async () => {
    await seed();
    expect((await cairn(['pin', '/memories/project/build.md'])).status).toBe(0);
    const first = await exportTar();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toBe('Exported 4 memory files (global, project, workspace); pins, usage and history are not exported.\n');
    const listed = await entries(first.tar);
    expect(listed.map((e) => [e.name, e.type, e.mode, e.mtime])).toEqual([
      ['global/preferences.md', 'file', 0o644, 0],
      ['project/build.md', 'file', 0o644, 0],
      ['project/lang/go.md', 'file', 0o644, 0],
      ['workspace/scratch.md', 'file', 0o644, 0],
    ]);
    expect(listed[1]!.body).toBe('---\ndescription: How to build\n---\nRun make test.\n');
    // Reading memory (a use) and time passing change nothing in the archive.
    await sb.run({ command: 'view', path: '/memories/project/build.md' });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await exportTar()).tar.equals(first.tar)).toBe(true);
    const project = await exportTar(['--scope', 'project']);
    expect((await entries(project.tar)).map((e) => e.name)).toEqual(['project/build.md', 'project/lang/go.md']);
  });

  it('refuses a scope not available here (nothing on stdout) and a stray argument', async () => {
    const plain = await makeSandbox({ git: false });
    try {
      const r = await new Promise<{ status: number | null; out: number; err: string }>((resolve) => {
        const child = spawn(CAIRN_BIN, ['--home', plain.home, 'export', '--scope', 'project'], { cwd: plain.checkout, env: { ...process.env, CAIRN_HOME: '' } });
        let out = 0;
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.length));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (status) => resolve({ status, out, err }));
      });
      expect(r.status).toBe(1);
      expect(r.out).toBe(0);
      expect(r.err).toMatch(/^cairn export: \/memories\/project is not available here/);
    } finally {
      await plain.cleanup();
    }
    expect((await cairn(['export', 'memory.tar'])).status).toBe(2);
  });
});

describe('cairn import --from cairn', () => {
  it('a round trip into the same home reports every file as already present and adds nothing', async () => {
    await seed();
    const file = path.join(sb.dir, 'memory.tar');
    await fs.writeFile(file, (await exportTar()).tar);
    const back = await cairn(['import', '--from', 'cairn', file]);
    expect(back.status, back.stderr).toBe(0);
    expect(back.stdout).toBe('memory.tar: 4 memory files.\nEvery file is already present, with the same bytes; nothing was added to the inbox.\n');
    expect(await pendingChanges()).toEqual([]);
  });

  it('into another home: absent files are held changes that create them, a differing one a change that replaces it; approving applies them', async () => {
    await seed();
    const file = path.join(sb.dir, 'memory.tar');
    await fs.writeFile(file, (await exportTar()).tar);
    const other = path.join(sb.dir, 'other-home');
    // The other home already has one of the files, with other words; the checkout (whose project
    // memory both homes see) has lost one.
    await fs.mkdir(path.join(other, 'memory', 'global'), { recursive: true });
    await fs.writeFile(path.join(other, 'memory', 'global', 'preferences.md'), '- Long answers.\n');
    await fs.rm(path.join(sb.roots.project, 'lang', 'go.md'));
    const result = await cairn(['import', '--from', 'cairn', file], other);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^memory\.tar: 4 memory files\.\nHeld for your review: 2 to create, 1 to replace\./);
    expect(result.stdout).toContain('Already present, with the same bytes: 1.');
    expect(result.stdout).toContain('Memory is unchanged until you approve');
    const held = await pendingChanges(other);
    expect(held.map((i) => [i.change.command, i.change.path, i.change.before])).toEqual([
      ['str_replace', '/memories/global/preferences.md', '- Long answers.\n'],
      ['create', '/memories/project/lang/go.md', null],
      ['create', '/memories/workspace/scratch.md', null],
    ]);
    // Memory is unchanged until approved.
    expect(await fs.readFile(path.join(other, 'memory', 'global', 'preferences.md'), 'utf8')).toBe('- Long answers.\n');
    await expect(fs.access(path.join(sb.roots.project, 'lang', 'go.md'))).rejects.toThrow();
    const show = await cairn(['inbox', 'show', held[0]!.id], other);
    expect(show.stdout).toContain('-- Long answers.\n+- Short answers.\n');
    for (const item of held.slice(0, 2)) {
      const approved = await cairn(['inbox', 'approve', item.id], other);
      expect(approved.status, approved.stdout).toBe(0);
    }
    expect(await fs.readFile(path.join(other, 'memory', 'global', 'preferences.md'), 'utf8')).toBe('- Short answers.\n');
    expect(await fs.readFile(path.join(sb.roots.project, 'lang', 'go.md'), 'utf8')).toBe('Wrap errors with %w.\n');
    // Importing again: what was approved is present, what waits is said to wait.
    const again = await cairn(['import', '--from', 'cairn', file], other);
    expect(again.stdout).toContain('Already present, with the same bytes: 3.\nAlready waiting in the inbox: 1.');
    expect((await pendingChanges(other)).length).toBe(1);
  });

  it('reads the archive from stdin with -, and --scope takes only that scope\u2019s files', async () => {
    await seed();
    const data = (await exportTar()).tar;
    const other = path.join(sb.dir, 'other-home');
    const result = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn(CAIRN_BIN, ['--home', other, 'import', '--from', 'cairn', '-', '--scope', 'global'], { cwd: sb.checkout, env: { ...process.env, CAIRN_HOME: '' } });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', (status) => resolve({ status, stdout }));
      child.stdin.end(data);
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^the archive on stdin: 1 memory file\.\nHeld for your review: 1 to create, 0 to replace\./);
  });

  it('refuses a hostile archive whole, naming each bad entry, and adds nothing', async () => {
    const huge = Buffer.alloc(100 * 1024 + 1, 'a');
    const file = path.join(sb.dir, 'hostile.tar');
    await fs.writeFile(
      file,
      await makeTar([
        { header: { name: 'project/fine.md' }, body: 'fine\n' },
        { header: { name: 'project/../../escape.md' }, body: 'x' },
        { header: { name: '/etc/passwd.md' }, body: 'x' },
        { header: { name: 'global/link.md', type: 'symlink', linkname: '/etc/passwd' } },
        { header: { name: 'global/hard.md', type: 'link', linkname: 'project/fine.md' } },
        { header: { name: 'global/huge.md' }, body: huge },
        { header: { name: 'global/latin1.md' }, body: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) },
        { header: { name: 'project/fine.md' }, body: 'again\n' },
        { header: { name: 'secrets/keys.md' }, body: 'x' },
        { header: { name: 'project/.git/config' }, body: 'x' },
        { header: { name: 'global/fifo', type: 'fifo' } },
      ]),
    );
    const result = await cairn(['import', '--from', 'cairn', file]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'cairn import: hostile.tar is refused; nothing was imported:',
      '  "project/../../escape.md": its name climbs out of the archive (..): path traversal',
      '  "/etc/passwd.md": its name is absolute; an archive of memory names files below global/, project/ or workspace/',
      '  "global/link.md": it is a symbolic link; an archive of memory holds plain files only',
      '  "global/hard.md": it is a hard link; an archive of memory holds plain files only',
      '  "global/huge.md": it is 102401 bytes, more than the 102400 a memory file may hold',
      '  "global/latin1.md": it is not valid UTF-8 text',
      '  "project/fine.md": the archive holds this name twice',
      '  "secrets/keys.md": its name does not start with a scope (global/, project/, workspace/)',
      expect.stringMatching(/^ {2}"project\/\.git\/config": its name breaks the path rules: .*\.git/),
      '  "global/fifo": it is a fifo, not a plain file',
      '',
    ]);
    expect(await pendingChanges()).toEqual([]);
    await expect(fs.readdir(path.join(sb.home, 'inbox'))).rejects.toThrow();
  });

  it('refuses what is not a tar, and a file whose text the scanners flag (by rule, without its text)', async () => {
    const junk = path.join(sb.dir, 'junk.tar');
    await fs.writeFile(junk, 'this is not a tar archive at all, just some text that goes on for a while'.repeat(20));
    const notTar = await cairn(['import', '--from', 'cairn', junk]);
    expect(notTar.status).toBe(1);
    expect(notTar.stderr).toMatch(/^cairn import: junk\.tar is refused; nothing was imported:\n {2}\(the archive\): /);

    const token = `ghp_${'R8x2Lq9ZpV4mN7tK1wY6sD3fH0jB5cXeUaGi'}`;
    const flagged = path.join(sb.dir, 'flagged.tar');
    await fs.writeFile(flagged, await makeTar([{ header: { name: 'global/ok.md' }, body: 'ok\n' }, { header: { name: 'global/token.md' }, body: `The token is ${token}\n` }]));
    const result = await cairn(['import', '--from', 'cairn', flagged]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Held for your review: 1 to create, 0 to replace.');
    expect(result.stdout).toContain('Refused: 1.\n  /memories/global/token.md: the scanners find a secret (github-token) on its line 1\n');
    expect(result.stdout).not.toContain(token);
  });
});
