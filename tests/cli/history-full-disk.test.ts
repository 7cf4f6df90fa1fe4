// The version history never has a gap: a change is recorded before the memory file is replaced,
// and a change the history cannot take is refused with memory left as it was. Real processes (the
// built `cairn`), a real small tmpfs mounted as Cairn's home (so memory and history share one full
// disk, as on the person's machine), filled until the memory write fits and the history does not;
// and the history's log made a directory. Mounting needs root (CI runs as root); elsewhere the
// tmpfs cases are skipped.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runCairn } from '../support/cli';
import { canMount } from '../support/small-disk';

const PAGE = 4096;
const NOTE = '/memories/global/notes.md';
// About 3 KiB: one page on disk, inline in its history line (which is then about 8 KB).
const CONTENT = `# Notes\n\n${'The build runs in fifteen minutes; run make test before pushing.\n'.repeat(48)}`;

let sb: Sandbox;
let flags: string[];
let mounted: string | null = null;
let fillers: string[] = [];

const tool = (command: Record<string, unknown>) => runCairn(['tool', ...flags, JSON.stringify(command)]);
const note = (rel = 'notes.md') => path.join(sb.home, 'memory', 'global', rel);
const versions = async () => (JSON.parse((await runCairn(['history', '--json', ...flags])).stdout) as { versions: Array<{ id: string; op: string; path: string }> }).versions;

/** Fills the home's disk: page-sized files until it is full, then frees `pages` of them. */
function fill(pages: number): void {
  const page = Buffer.alloc(PAGE, 0x61);
  for (let k = fillers.length; ; k++) {
    const p = path.join(sb.home, `filler-${k}`);
    try {
      fs.writeFileSync(p, page);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      fs.rmSync(p, { force: true });
      break;
    }
    fillers.push(p);
  }
  for (let k = 0; k < pages; k++) fs.rmSync(fillers.pop()!);
}

function unfill(): void {
  for (const p of fillers) fs.rmSync(p, { force: true });
  fillers = [];
}

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  flags = ['--home', sb.home, '--cwd', sb.checkout];
  fillers = [];
});
afterEach(async () => {
  if (mounted) execFileSync('umount', [mounted]);
  mounted = null;
  await sb.cleanup();
});

describe.runIf(canMount())('a full disk: the history cannot take the change', () => {
  beforeEach(async () => {
    // The whole home on a small tmpfs (mode 0700: Cairn refuses a home others can write to).
    fs.rmSync(sb.home, { recursive: true, force: true });
    fs.mkdirSync(sb.home, { mode: 0o700 });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', sb.home]);
    mounted = sb.home;
    expect(await tool({ command: 'create', path: NOTE, file_text: CONTENT })).toMatchObject({ status: 0 });
  });

  it('str_replace and create: the new content fits, its version does not; refused, memory byte for byte as it was', async () => {
    const before = fs.readFileSync(note());
    // One free page: the new file's temp takes it, so the history's line cannot be appended.
    fill(1);
    const edit = await tool({ command: 'str_replace', path: NOTE, old_str: '# Notes', new_str: '# Notes (twenty)' });
    expect(edit.status).toBe(1);
    expect(edit.stdout).toBe(
      `Error: Could not str replace ${NOTE}: the version history could not record the change (the disk is full), so nothing was changed. Free some disk space, then try again.\n`,
    );
    expect(edit.stdout + edit.stderr).not.toContain(sb.home);
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
    // No temp file of the refused write is left beside it.
    expect(fs.readdirSync(path.dirname(note()))).toEqual(['notes.md']);

    const create = await tool({ command: 'create', path: '/memories/global/new.md', file_text: CONTENT });
    expect(create).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: Could not create \/memories\/global\/new\.md: the version history could not record the change \(the disk is full\), so nothing was changed\./) });
    expect(fs.existsSync(note('new.md'))).toBe(false);

    // Space again: the same edit is made, recorded, and its earlier content can be restored.
    unfill();
    expect(await tool({ command: 'str_replace', path: NOTE, old_str: '# Notes', new_str: '# Notes (twenty)' })).toMatchObject({ status: 0 });
    const [update, created] = await versions();
    expect([update!.op, created!.op]).toEqual(['update', 'create']);
    expect(await runCairn(['restore', NOTE, '--to', created!.id, ...flags])).toMatchObject({ status: 0 });
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
  });

  it('delete and rename: with no room for their versions, refused; the file stays where it was', async () => {
    const before = fs.readFileSync(note());
    fill(0);
    const del = await tool({ command: 'delete', path: NOTE });
    expect(del).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: Could not delete \/memories\/global\/notes\.md: the version history could not record the change \(the disk is full\), so nothing was changed\./) });
    const ren = await tool({ command: 'rename', old_path: NOTE, new_path: '/memories/global/moved.md' });
    expect(ren).toMatchObject({ status: 1, stdout: expect.stringMatching(/^Error: Could not rename \/memories\/global\/notes\.md: the version history could not record the change \(the disk is full\)/) });
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
    expect(fs.existsSync(note('moved.md'))).toBe(false);

    unfill();
    expect(await tool({ command: 'delete', path: NOTE })).toMatchObject({ status: 0 });
    const [deleted] = await versions();
    expect(deleted!.op).toBe('delete');
    expect(await runCairn(['restore', NOTE, '--to', deleted!.id, ...flags])).toMatchObject({ status: 0 });
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
  });
});

describe('the history log is a directory', () => {
  it('every write is refused with what to repair, memory unchanged; with the log back, the version is there', async () => {
    expect(await tool({ command: 'create', path: NOTE, file_text: CONTENT })).toMatchObject({ status: 0 });
    const [created] = await versions();
    const before = fs.readFileSync(note());
    const log = path.join(sb.home, 'history', 'log.jsonl');
    const saved = `${log}.saved`;
    fs.renameSync(log, saved);
    fs.mkdirSync(log);
    const refused = (command: string, p: string) =>
      `Error: Could not ${command} ${p}: the version history could not record the change (a file or folder is in the way of its files), so nothing was changed. Repair the folder \`history\` in Cairn's home (a folder of yours, its \`log.jsonl\` a file), then try again.\n`;
    expect(await tool({ command: 'str_replace', path: NOTE, old_str: '# Notes', new_str: '# Notes (twenty)' })).toMatchObject({ status: 1, stdout: refused('str replace', NOTE) });
    expect(await tool({ command: 'insert', path: NOTE, insert_line: 0, insert_text: 'top' })).toMatchObject({ status: 1, stdout: refused('insert', NOTE) });
    expect(await tool({ command: 'create', path: '/memories/global/new.md', file_text: 'x\n' })).toMatchObject({ status: 1, stdout: refused('create', '/memories/global/new.md') });
    expect(await tool({ command: 'delete', path: NOTE })).toMatchObject({ status: 1, stdout: refused('delete', NOTE) });
    expect(await tool({ command: 'rename', old_path: NOTE, new_path: '/memories/global/moved.md' })).toMatchObject({ status: 1, stdout: refused('rename', NOTE) });
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
    expect(fs.readdirSync(path.dirname(note()))).toEqual(['notes.md']);

    // The log back: the version is there and the file can be restored from it.
    fs.rmdirSync(log);
    fs.renameSync(saved, log);
    expect(await tool({ command: 'str_replace', path: NOTE, old_str: '# Notes', new_str: '# Notes (twenty)' })).toMatchObject({ status: 0 });
    expect(await runCairn(['restore', NOTE, '--to', created!.id, ...flags])).toMatchObject({ status: 0 });
    expect(fs.readFileSync(note()).equals(before)).toBe(true);
  });
});
