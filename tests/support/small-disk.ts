/**
 * A small real disk for full-disk tests: a tmpfs mounted (as root, as in this project's containers
 * and CI) over a directory, then filled until a write fails with ENOSPC. Elsewhere canMount() is
 * false and such tests are skipped.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir]);
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Mounts a tmpfs of `size` (e.g. '512k') over `dir` (created), mode 0700 as a Cairn home must be;
 * returns the unmount.
 */
export function mountSmallDisk(dir: string, size: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  return () => execFileSync('umount', [dir]);
}

/**
 * Fills the disk holding `dir` with a file (`dir`/filler, grown again by a second call) until a
 * write fails; returns the file (remove it to make room).
 */
export function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'a');
  const block = Buffer.alloc(4096, 120);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  // The last partial block too: not one byte fits now.
  const fd2 = fs.openSync(filler, 'a');
  try {
    for (;;) fs.writeSync(fd2, Buffer.alloc(1));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd2);
  }
  return filler;
}
