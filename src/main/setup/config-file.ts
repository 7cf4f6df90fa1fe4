/**
 * Reading and replacing an agent's configuration file: the new content is written to a temp file
 * in the same directory and renamed over the old one (never a half-written config), and a
 * symlinked config (dotfiles) is written through to its target rather than replaced by a plain
 * file. What the file held before is kept by the caller in Cairn's home (backups.ts), never beside
 * the file.
 *
 * A file inside a checkout (`within`) is the repository's, and a repository can commit symlinks:
 * there, a symlink (the file itself, or a directory on the way to it) is written through only when
 * it leads to a place inside the checkout and outside its .git directory. One that leads anywhere
 * else is refused before anything is written, naming the link and what to do; its target is never
 * written.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeAtomically } from '../runtime/local/atomic-write';

export class SetupError extends Error {
  override readonly name = 'SetupError';
}

export interface ConfigFile {
  /** The path as shown to the user. */
  readonly path: string;
  /** The file actually written (the symlink's target for a symlinked config). */
  readonly realPath: string;
  /** The content, or null when the file does not exist. */
  readonly text: string | null;
  readonly mode: number | null;
  /** Whether a symlink (the file, or a directory on the way) leads to realPath. */
  readonly throughLink: boolean;
  /** The checkout the file must stay inside, when it was read with one. */
  readonly within?: ReadOptions | undefined;
}

export interface ReadOptions {
  /** The checkout the file lies in: no symlink on the way may lead out of it, or into its .git. */
  readonly within: string;
  /** What to do instead of writing through such a link (named in the refusal). */
  readonly instead: string;
}

const isInside = (child: string, parent: string): boolean => child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/** The most symlinks one path may go through, as Linux counts (ELOOP past it). */
const MAX_LINKS = 40;

/**
 * Where `p` (absolute) leads, as the kernel would resolve it, also where its end is missing or a
 * link dangles: each existing component resolved (links followed), the missing rest appended.
 */
async function resolveLoosely(p: string, links = { left: MAX_LINKS }): Promise<string> {
  const parts = p.split(path.sep).filter((s) => s !== '' && s !== '.');
  let current = path.parse(p).root;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    const stat = await fs.lstat(next).catch(() => null);
    if (!stat) return path.resolve(next, ...parts.slice(i + 1));
    if (stat.isSymbolicLink()) {
      if (--links.left < 0) throw new SetupError(`${p} goes through too many symbolic links`);
      current = await resolveLoosely(path.resolve(current, await fs.readlink(next)), links);
    } else {
      current = next;
    }
  }
  return current;
}

/**
 * The file `file` inside the checkout `options.within` really is, checked: every symlink from the
 * checkout down to it (the file itself, or a directory on the way) must lead inside the checkout,
 * and not into its .git directory; otherwise a SetupError names the link, where it leads and what
 * to do. Nothing is written here.
 */
async function confinedPath(file: string, options: ReadOptions): Promise<{ realPath: string; throughLink: boolean }> {
  const root = options.within;
  const rootReal = await fs.realpath(root);
  const parts = path.relative(root, file).split(path.sep);
  let current = rootReal;
  let throughLink = false;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(current, parts[i]!);
    const stat = await fs.lstat(next).catch(() => null);
    if (!stat) return { realPath: path.join(next, ...parts.slice(i + 1)), throughLink };
    if (!stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    const link = path.join(root, ...parts.slice(0, i + 1));
    const target = await fs.readlink(next);
    const resolved = await resolveLoosely(path.resolve(current, target));
    const isFile = i === parts.length - 1;
    const refuse = (where: string) =>
      new SetupError(
        `${link}${isFile ? '' : `, a directory on the way to ${file},`} is a symbolic link to ${target}, which ${where}. ` +
          'A repository can commit a link that points anywhere, so Cairn does not write through one that leaves the ' +
          `checkout or enters its .git: nothing was changed. Replace ${link} with a real ${isFile ? 'file' : 'directory'} ` +
          `(or remove it) and run this again, or merge the configuration by hand (\`${options.instead}\` shows it).`,
      );
    if (!isInside(resolved, rootReal)) throw refuse(`leads out of the checkout ${root}`);
    if (path.relative(rootReal, resolved).split(path.sep).some((s) => s.toLowerCase() === '.git')) {
      throw refuse(`leads into the checkout's .git directory`);
    }
    current = resolved;
    throughLink = true;
  }
  return { realPath: current, throughLink };
}

/** Where a config file outside any checkout leads: a symlink (dotfiles) is followed, even dangling. */
async function followedPath(file: string): Promise<{ realPath: string; throughLink: boolean }> {
  const throughLink = (await fs.lstat(file).catch(() => null))?.isSymbolicLink() ?? false;
  try {
    return { realPath: await fs.realpath(file), throughLink };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // A dangling symlink: write where it points.
    const link = await fs.readlink(file).catch(() => null);
    return { realPath: link === null ? file : path.resolve(path.dirname(file), link), throughLink };
  }
}

/**
 * Reads a config file, following a symlink to the file it leads to. With `within`, the file lies
 * in a checkout, and a link that leads out of it or into its .git is refused (confinedPath).
 */
export async function readConfigFile(file: string, within?: ReadOptions): Promise<ConfigFile> {
  let realPath: string;
  let throughLink: boolean;
  try {
    ({ realPath, throughLink } = within ? await confinedPath(file, within) : await followedPath(file));
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw new SetupError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const stat = await fs.stat(realPath);
    if (!stat.isFile()) throw new SetupError(`${file} is not a regular file`);
    return { path: file, realPath, text: await fs.readFile(realPath, 'utf8'), mode: stat.mode & 0o7777, throughLink, within };
  } catch (err) {
    if (err instanceof SetupError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path: file, realPath, text: null, mode: null, throughLink, within };
    throw new SetupError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** The directories missing on the way to `file`'s, outermost first: those a write of it makes. */
export async function missingDirs(file: ConfigFile): Promise<string[]> {
  const out: string[] = [];
  for (let dir = path.dirname(file.realPath); ; dir = path.dirname(dir)) {
    if ((await fs.lstat(dir).catch(() => null)) !== null || path.dirname(dir) === dir) break;
    out.unshift(dir);
  }
  return out;
}

/**
 * Replaces `file` (as read by readConfigFile) with `text`: temp file, fsync, rename. Refuses when
 * the file changed since it was read.
 */
export async function replaceConfigFile(file: ConfigFile, text: string): Promise<void> {
  const dir = path.dirname(file.realPath);
  try {
    // In a checkout, where the file leads is checked again just before it is written.
    if (file.within && (await confinedPath(file.path, file.within)).realPath !== file.realPath) {
      throw new SetupError(`${file.path} changed while Cairn was updating it; nothing was written, run the command again`);
    }
    await fs.mkdir(dir, { recursive: true });
    const current = await fs.readFile(file.realPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (current !== file.text) throw new SetupError(`${file.path} changed while Cairn was updating it; nothing was written, run the command again`);
    // A new file is the person's as any file they make (0644 less their umask); one replaced keeps its mode.
    await writeAtomically(dir, path.basename(file.realPath), Buffer.from(text, 'utf8'), {
      exclusive: false,
      sweepTemps: false,
      mode: file.mode ?? 0o644 & ~process.umask(),
    });
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw new SetupError(`cannot write ${file.path}: ${(err as Error).message}`);
  }
}

/**
 * Deletes `file` (as read by readConfigFile): what `cairn setup --remove` does to a file setup
 * created. The same checks as replaceConfigFile (where a link in a checkout leads, the content
 * unchanged since it was read).
 */
export async function deleteConfigFile(file: ConfigFile): Promise<void> {
  try {
    if (file.within && (await confinedPath(file.path, file.within)).realPath !== file.realPath) {
      throw new SetupError(`${file.path} changed while Cairn was updating it; nothing was written, run the command again`);
    }
    const current = await fs.readFile(file.realPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (current === null || current !== file.text) throw new SetupError(`${file.path} changed while Cairn was updating it; nothing was written, run the command again`);
    await fs.rm(file.realPath);
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw new SetupError(`cannot remove ${file.path}: ${(err as Error).message}`);
  }
}
