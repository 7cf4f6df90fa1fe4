// The one atomic write of Cairn's own files and the setting aside of a damaged one, on the real
// disk: what is there after a write, after a write that failed between writing and renaming, on a
// full disk (a real small tmpfs, as root), and which temp files of other writers a write sweeps.
// One test watches fsync by wrapping Node's own (it still runs): no real part reports the call.
import { execFileSync } from 'node:child_process';
import fsDefault, * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canMount, fillDisk, mountSmallDisk } from '../../../../tests/support/small-disk';
import { captureStderr } from '../../../../tests/support/stderr';
import { LEFTOVER_MS, readOwnFileParsed, setAsideDamaged, TEMP_PREFIX, writeOwnFile, writeOwnFileSync, writeOwnSymlinkSync } from './atomic-write';

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-own-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const names = (d = dir) => fs.readdirSync(d).sort();
const temps = (d = dir) => names(d).filter((n) => n.startsWith(TEMP_PREFIX) || n.endsWith('.tmp'));

/** Runs `fn` while Node's fsync calls are recorded (with what `file` held at each), then restores them. */
async function watchingFsync<T>(file: string, fn: () => T | Promise<T>): Promise<{ result: T; seen: string[] }> {
  const seen: string[] = [];
  const original = { fsync: fsDefault.fsync, fsyncSync: fsDefault.fsyncSync };
  const at = () => seen.push(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '(none)');
  fsDefault.fsyncSync = (fd) => (at(), original.fsyncSync(fd));
  fsDefault.fsync = ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => (at(), original.fsync(fd, cb))) as typeof fs.fsync;
  syncBuiltinESMExports();
  try {
    return { result: await fn(), seen };
  } finally {
    Object.assign(fsDefault, original);
    syncBuiltinESMExports();
  }
}

describe.each([
  ['writeOwnFileSync', (file: string, data: string, o?: { exclusive?: boolean }) => writeOwnFileSync(file, data, o)],
  ['writeOwnFile', (file: string, data: string, o?: { exclusive?: boolean }) => writeOwnFile(file, data, o)],
])('%s', (_name, write) => {
  it('writes the file whole, 0600, in a directory it creates 0700, syncing before the rename, leaving no temp file', async () => {
    const file = path.join(dir, 'sub', 'state.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, 'old\n');
    const { seen } = await watchingFsync(file, () => write(file, 'new\n'));
    // The data reached the disk while the name still held the old content: synced, then renamed.
    expect(seen).toEqual(['old\n']);
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(temps(path.dirname(file))).toEqual([]);
    const fresh = path.join(dir, 'made', 'deeper', 'x.json');
    await write(fresh, 'x');
    expect(fs.statSync(path.dirname(fresh)).mode & 0o777).toBe(0o700);
  });

  it('removes its temp file when the rename fails after the data was written and synced', async () => {
    const file = path.join(dir, 'config.json');
    fs.mkdirSync(path.join(file, 'inside'), { recursive: true }); // a directory at the name: rename fails
    const { result } = await watchingFsync(file, async () => {
      try {
        await write(file, '{"a":1}\n');
        return null;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code;
      }
    });
    expect(['EISDIR', 'ENOTEMPTY', 'EEXIST']).toContain(result);
    expect(names()).toEqual(['config.json']);
    expect(names(file)).toEqual(['inside']);
  });

  it('exclusive: creates once; a second creator gets EEXIST and the first content stays, no temp left', async () => {
    const file = path.join(dir, 'token');
    await write(file, 'first\n', { exclusive: true });
    await expect(Promise.resolve().then(() => write(file, 'second\n', { exclusive: true }))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(file, 'utf8')).toBe('first\n');
    expect(names()).toEqual(['token']);
  });

  it("sweeps temp files of writers that are gone, once a minute old; never a running writer's or a recent one", async () => {
    const dead = `${TEMP_PREFIX}99999999-aaaa`; // no pid is this high (pid_max is at most 2^22)
    const deadRecent = `${TEMP_PREFIX}99999998-bbbb`;
    const alive = `${TEMP_PREFIX}${process.pid}-cccc`;
    // The names older Cairns gave the temp files of the file written, and of another file.
    const legacy = ['seen.json.99999997.tmp', 'seen.json.3f9a1c2e.tmp', 'seen.json.99999996-ab12cd34.tmp'];
    const legacyAlive = `seen.json.${process.pid}.tmp`;
    const another = 'config.json.99999995.tmp';
    const all = [dead, deadRecent, alive, ...legacy, legacyAlive, another];
    for (const n of all) fs.writeFileSync(path.join(dir, n), 'half');
    const past = (Date.now() - LEFTOVER_MS - 60_000) / 1000;
    for (const n of all) if (n !== deadRecent) fs.utimesSync(path.join(dir, n), past, past);
    await write(path.join(dir, 'seen.json'), '{}');
    expect(names()).toEqual([alive, deadRecent, legacyAlive, another, 'seen.json'].sort());
  });
});

describe('writeOwnSymlinkSync', () => {
  it('points the link at the new target in one rename, leaving no temp link', () => {
    const link = path.join(dir, 'run', 'context.sock');
    writeOwnSymlinkSync(link, 'context-1-aa.sock');
    expect(fs.readlinkSync(link)).toBe('context-1-aa.sock');
    expect(fs.statSync(path.dirname(link)).mode & 0o777).toBe(0o700);
    writeOwnSymlinkSync(link, 'context-2-bb.sock');
    expect(fs.readlinkSync(link)).toBe('context-2-bb.sock');
    expect(names(path.dirname(link))).toEqual(['context.sock']);
  });

  it('removes its temp link when the rename fails', () => {
    const link = path.join(dir, 'context.sock');
    fs.mkdirSync(path.join(link, 'inside'), { recursive: true }); // a directory at the name: rename fails
    expect(() => writeOwnSymlinkSync(link, 'context-1-aa.sock')).toThrow();
    expect(names()).toEqual(['context.sock']);
  });

  it("sweeps temp links of writers that are gone, and older Cairns' `<link>.<random>.tmp`; never a recent one", () => {
    const dead = `${TEMP_PREFIX}99999999-aaaa`;
    const legacy = 'context.sock.3f9a1c2e.tmp';
    const recent = `${TEMP_PREFIX}99999998-bbbb`;
    for (const n of [dead, legacy, recent]) fs.symlinkSync('context-9-old.sock', path.join(dir, n));
    const past = (Date.now() - LEFTOVER_MS - 60_000) / 1000;
    for (const n of [dead, legacy]) fs.lutimesSync(path.join(dir, n), past, past);
    writeOwnSymlinkSync(path.join(dir, 'context.sock'), 'context-1-aa.sock');
    expect(names()).toEqual(['context.sock', recent].sort());
  });
});

describe.runIf(canMount())('on a full disk (a real tmpfs)', () => {
  let unmount: (() => void) | null = null;
  afterEach(() => {
    unmount?.();
    unmount = null;
  });

  it.each([
    ['writeOwnFileSync', (file: string, data: string) => writeOwnFileSync(file, data)],
    ['writeOwnFile', (file: string, data: string) => writeOwnFile(file, data)],
  ])('%s fails with ENOSPC, the old file intact and no temp file left', async (_name, write) => {
    const disk = path.join(dir, 'disk');
    unmount = mountSmallDisk(disk, '64k');
    const file = path.join(disk, 'memory-meta.json');
    fs.writeFileSync(file, '{"version":1,"files":{}}\n');
    fillDisk(disk);
    await expect(Promise.resolve().then(() => write(file, `{"version":1,"files":{"x":${'1'.repeat(8000)}}}\n`))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"version":1,"files":{}}\n');
    expect(names(disk)).toEqual(['filler', 'memory-meta.json']);
  });
});

describe('setAsideDamaged and readOwnFileParsed', () => {
  const parseJson = (text: string) => JSON.parse(text) as unknown;

  it('moves a file that does not parse to <name>.damaged-<time>, says which and why on stderr, and reads it as none', () => {
    const file = path.join(dir, 'seen.json');
    fs.writeFileSync(file, '{"files": {');
    const said = captureStderr();
    let read: unknown;
    try {
      read = readOwnFileParsed(file, parseJson);
    } finally {
      said.restore();
    }
    expect(read).toBeNull();
    const [aside, ...more] = names();
    expect(more).toEqual([]);
    expect(aside).toMatch(/^seen\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(fs.readFileSync(path.join(dir, aside!), 'utf8')).toBe('{"files": {');
    expect(said.text()).toContain(`cairn: ${file} could not be read (`);
    expect(said.text()).toContain(`moved aside to ${path.join(dir, aside!)}`);
  });

  it('never takes the name of an earlier damaged file', () => {
    const file = path.join(dir, 'h.json');
    const said = captureStderr();
    try {
      for (const text of ['one', 'two', 'three']) {
        fs.writeFileSync(file, text);
        expect(readOwnFileParsed(file, parseJson)).toBeNull();
      }
    } finally {
      said.restore();
    }
    const asides = names();
    expect(asides).toHaveLength(3);
    expect(asides.map((n) => fs.readFileSync(path.join(dir, n), 'utf8')).sort()).toEqual(['one', 'three', 'two']);
  });

  it('reads a missing file as none, and a good one as what it holds, moving nothing', () => {
    expect(readOwnFileParsed(path.join(dir, 'none.json'), parseJson)).toBeNull();
    fs.writeFileSync(path.join(dir, 'ok.json'), '{"a":1}');
    expect(readOwnFileParsed(path.join(dir, 'ok.json'), parseJson)).toEqual({ a: 1 });
    expect(names()).toEqual(['ok.json']);
  });

  it('leaves a file that replaced the damaged one since it was read', () => {
    const file = path.join(dir, 'jobs.json');
    fs.writeFileSync(file, 'torn');
    const damaged = fs.statSync(file, { bigint: true });
    fs.writeFileSync(`${file}.next`, '{"ok":true}');
    fs.renameSync(`${file}.next`, file);
    expect(setAsideDamaged(file, 'torn', damaged)).toBeNull();
    expect(names()).toEqual(['jobs.json']);
  });

  // A directory whose entries cannot be renamed, even by root: the directory bound read-only over itself.
  it.runIf(canMount())('never throws: a file that cannot be moved is reported and left', () => {
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    fs.writeFileSync(path.join(ro, 'seen.json'), 'torn');
    execFileSync('mount', ['--bind', '-o', 'ro', ro, ro]);
    const said = captureStderr();
    try {
      expect(setAsideDamaged(path.join(ro, 'seen.json'), 'torn')).toBeNull();
    } finally {
      said.restore();
      execFileSync('umount', [ro]);
    }
    expect(said.text()).toContain('could not be moved aside (EROFS)');
    expect(names(ro)).toEqual(['seen.json']);
  });
});
