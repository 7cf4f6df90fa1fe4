/**
 * LocalTrash: frees what a local delete removes off the request's path. On ext4, freeing a file's
 * blocks once it has been fsynced costs 0.2 to 0.6 ms, most of a delete's time. So a deleted file
 * or tree is renamed (microseconds) into `<root>.trash` beside the scope root and removed there on
 * the thread pool once the command is done. (An edit's rename over the old version frees blocks
 * too; deferring that, by a hard link into the trash, measured no faster through MCP: the free
 * then ran during the next request.)
 *
 * Security: the trash is only reached through a descriptor-pinned path (`/proc/self/fd/N`), and
 * only when what is at `<root>.trash` is a real directory of this user whose real location is
 * exactly beside the root's real path: a symlink planted there (a cloned repository can hold one)
 * is never followed. Otherwise, and on any error, the caller removes in place as it would without
 * a trash. Entry names are unique (unique-name.ts), so a background removal only ever removes what
 * this process put there. A `.gitignore` of `*` keeps the trash out of git in a project checkout.
 *
 * A process that dies before its removals ran leaves entries behind; the next process to use the
 * trash removes those of processes that are gone. The trash also lends a scratch directory on the
 * root's filesystem (for probing how it stamps changes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DIR_MODE, FILE_MODE, PINNING, pinnedPath } from './local-disk';
import { uniqueName } from './unique-name';

const fsc = fs.constants;
const GITIGNORE = '.gitignore';

export function trashPathFor(rootReal: string): string {
  return `${rootReal}.trash`;
}

/** The trash beside one root, open and checked; `close()` when done with it. */
interface OpenTrash {
  /** The pinned path of the trash directory. */
  readonly dir: string;
  close(): void;
}

export class LocalTrash {
  /** Trash directories whose leftovers this process has looked for already. */
  private readonly swept = new Set<string>();

  /**
   * Moves the file, symlink or directory at `source` (a pinned path inside the root whose real path
   * is `rootReal`) into the trash and frees it in the background. False when it cannot (nothing
   * was moved): the caller removes it in place.
   */
  discard(rootReal: string, source: string): boolean {
    const trash = this.open(rootReal);
    if (!trash) return false;
    const name = uniqueName();
    try {
      fs.renameSync(source, path.join(trash.dir, name));
    } catch {
      trash.close();
      return false;
    }
    free(trash, name);
    return true;
  }

  /**
   * Runs `fn` with a new empty directory of its own in the trash (on the root's filesystem, outside
   * the root, so the root's listings see no change), removed afterwards; `fallback` when there is
   * no trash or it lies on another filesystem than the root.
   */
  withScratchDirectory<T>(rootReal: string, fallback: T, fn: (dir: string) => T): T {
    const trash = this.open(rootReal);
    if (!trash) return fallback;
    const dir = path.join(trash.dir, uniqueName());
    try {
      if (fs.statSync(trash.dir).dev !== fs.statSync(rootReal).dev) return fallback;
      fs.mkdirSync(dir, { mode: DIR_MODE });
      return fn(dir);
    } catch {
      return fallback;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      trash.close();
    }
  }

  private open(rootReal: string): OpenTrash | null {
    if (!PINNING) return null;
    const trashPath = trashPathFor(rootReal);
    let fd = openDirectory(trashPath);
    if (fd === null) {
      try {
        fs.mkdirSync(trashPath, { mode: DIR_MODE });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      fd = openDirectory(trashPath);
      if (fd === null) return null;
    }
    const dir = pinnedPath(fd);
    const close = () => fs.close(fd, () => {});
    try {
      // Where the directory we hold really is, and whose it is.
      if (fs.readlinkSync(dir) !== trashPath || fs.fstatSync(fd).uid !== process.getuid?.()) {
        fs.closeSync(fd);
        return null;
      }
      if (!this.swept.has(trashPath)) {
        this.swept.add(trashPath);
        sweep(dir);
      }
    } catch {
      fs.closeSync(fd);
      return null;
    }
    return { dir, close };
  }
}

/** Opens a directory without following a symlink at its last component; null if it cannot. */
function openDirectory(p: string): number | null {
  try {
    return fs.openSync(p, fsc.O_RDONLY | fsc.O_DIRECTORY | fsc.O_NOFOLLOW);
  } catch {
    return null;
  }
}

/** Removes one entry (a file, a symlink or a tree) on the thread pool, then lets go of the trash. */
function free(trash: OpenTrash, name: string): void {
  fs.rm(path.join(trash.dir, name), { recursive: true, force: true }, () => trash.close());
}

/**
 * Writes the `.gitignore` if missing, and removes the entries of processes that are gone (rare:
 * only a crash leaves any), synchronously while the trash is held open.
 */
function sweep(dir: string): void {
  try {
    const fd = fs.openSync(path.join(dir, GITIGNORE), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | fsc.O_NOFOLLOW, FILE_MODE);
    try {
      fs.writeSync(fd, '*\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
  for (const name of fs.readdirSync(dir)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    try {
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    } catch {}
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
