// The rule of files from outside on the real filesystem: real links (to a file of the same kind,
// out of the allowed folder, into .git, to nowhere, through a linked folder), a real FIFO, /dev/zero,
// a listening unix socket, a second hard link, a file over the cap and one whose stat says 0 bytes.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { follow, openRegular, OUTSIDE_WHY, readRegularSync, shownPath, type LinkRule } from './outside-file';

let dir: string;
let base: string;
let rule: LinkRule;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-outside-')));
  base = path.join(dir, 'base');
  fs.mkdirSync(path.join(base, '.git'), { recursive: true });
  fs.writeFileSync(path.join(base, 'AGENTS.md'), 'agents\n');
  rule = { within: [{ real: base, where: 'the checkout' }], sameKind: (real) => real.endsWith('.md'), kindName: 'a Markdown file' };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('follow', () => {
  it('takes a name with no link as it is, and a link to a file of the same kind inside, saying where it leads', () => {
    expect(follow(base, ['AGENTS.md'], rule)).toMatchObject({ status: 'ok', real: path.join(base, 'AGENTS.md'), linkTo: null });
    fs.symlinkSync('AGENTS.md', path.join(base, 'CLAUDE.md'));
    expect(follow(base, ['CLAUDE.md'], rule)).toMatchObject({ status: 'ok', real: path.join(base, 'AGENTS.md'), linkTo: path.join(base, 'AGENTS.md') });
    expect(follow(base, ['missing.md'], rule)).toEqual({ status: 'absent' });
  });

  it('refuses a link out of the folder, into .git, to another kind of file, or to nowhere, saying where it leads', () => {
    const outside = path.join(dir, 'id_rsa');
    fs.writeFileSync(outside, 'key\n');
    fs.writeFileSync(path.join(base, '.git', 'config'), '[core]\n');
    fs.writeFileSync(path.join(base, 'netrc'), 'machine x\n');
    fs.symlinkSync(outside, path.join(base, 'a.md'));
    fs.symlinkSync('.git/config', path.join(base, 'b.md'));
    fs.symlinkSync('netrc', path.join(base, 'c.md'));
    fs.symlinkSync('nowhere.md', path.join(base, 'd.md'));
    expect(follow(base, ['a.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.outside('the checkout'), linkTo: outside });
    expect(follow(base, ['b.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.git, linkTo: path.join(base, '.git', 'config') });
    expect(follow(base, ['c.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.kind('a Markdown file'), linkTo: path.join(base, 'netrc') });
    expect(follow(base, ['d.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.dangling, linkTo: path.join(base, 'nowhere.md') });
  });

  it('judges a folder on the way that is a link by where the file really is', () => {
    fs.symlinkSync('.git', path.join(base, '.claude'));
    fs.writeFileSync(path.join(base, '.git', 'CLAUDE.md'), 'x\n');
    expect(follow(base, ['.claude', 'CLAUDE.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.git, linkTo: path.join(base, '.git', 'CLAUDE.md') });
    expect(follow(base, ['.git', 'CLAUDE.md'], rule)).toMatchObject({ status: 'refused', why: OUTSIDE_WHY.inGit });
  });

  it('shows a path below a place with its prefix, else as it is', () => {
    const places = [{ real: base, prefix: '' }, { real: dir, prefix: '~/' }];
    expect(shownPath(path.join(base, '.git', 'config'), places)).toBe('.git/config');
    expect(shownPath(path.join(dir, '.ssh', 'id_rsa'), places)).toBe('~/.ssh/id_rsa');
    expect(shownPath('/etc/passwd', places)).toBe('/etc/passwd');
  });
});

describe('reading only regular files', () => {
  const limits = { maxBytes: 1024 };

  it('refuses a FIFO, /dev/zero and a unix socket at once, without blocking', async () => {
    const fifo = path.join(base, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    expect(readRegularSync(fifo, limits)).toEqual({ refused: OUTSIDE_WHY.special });
    expect(await openRegular(fifo, limits)).toEqual({ refused: OUTSIDE_WHY.special });
    expect(readRegularSync('/dev/zero', limits)).toEqual({ refused: OUTSIDE_WHY.special });
    expect(await openRegular('/dev/zero', limits)).toEqual({ refused: OUTSIDE_WHY.special });
    const sock = path.join(base, 'sock.md');
    const server = net.createServer((c) => c.end());
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      expect(readRegularSync(sock, limits)).toEqual({ refused: OUTSIDE_WHY.special });
      expect(await openRegular(sock, limits)).toEqual({ refused: OUTSIDE_WHY.special });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a folder, a second hard link, a file over the cap and a final link; reads a file whose stat says 0 bytes whole', async () => {
    expect(readRegularSync(path.join(base, '.git'), limits)).toEqual({ refused: OUTSIDE_WHY.folder });
    fs.linkSync(path.join(base, 'AGENTS.md'), path.join(base, 'twice.md'));
    expect(readRegularSync(path.join(base, 'twice.md'), limits)).toEqual({ refused: OUTSIDE_WHY.links });
    fs.writeFileSync(path.join(base, 'big.md'), 'x'.repeat(2000));
    expect(await openRegular(path.join(base, 'big.md'), limits)).toEqual({ refused: OUTSIDE_WHY.large(2000, 1024) });
    fs.symlinkSync('big.md', path.join(base, 'link.md'));
    expect(readRegularSync(path.join(base, 'link.md'), limits)).toEqual({ refused: OUTSIDE_WHY.loop });
    if (fs.existsSync('/proc/self/status')) {
      const read = readRegularSync(fs.realpathSync('/proc/self/status'), { maxBytes: 1024 * 1024 });
      expect('bytes' in read ? read.bytes.toString() : read.refused).toMatch(/^Name:/);
    }
  });
});
