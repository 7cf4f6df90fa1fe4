/**
 * Reading and replacing an agent's configuration file: the previous content is kept in a backup
 * beside it (`<file>.bak-<timestamp>`), the new content is written to a temp file in the same
 * directory and renamed over the old one (never a half-written config), and a symlinked config
 * (dotfiles) is written through to its target rather than replaced by a plain file.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

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
}

export async function readConfigFile(file: string): Promise<ConfigFile> {
  let realPath = file;
  try {
    realPath = await fs.realpath(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new SetupError(`cannot read ${file}: ${(err as Error).message}`);
    // A dangling symlink: write where it points.
    const link = await fs.readlink(file).catch(() => null);
    if (link !== null) realPath = path.resolve(path.dirname(file), link);
  }
  try {
    const stat = await fs.stat(realPath);
    if (!stat.isFile()) throw new SetupError(`${file} is not a regular file`);
    return { path: file, realPath, text: await fs.readFile(realPath, 'utf8'), mode: stat.mode & 0o7777 };
  } catch (err) {
    if (err instanceof SetupError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path: file, realPath, text: null, mode: null };
    throw new SetupError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** Writes the previous content to a new `<file>.bak-<timestamp>` (never overwriting a backup). */
async function writeBackup(file: ConfigFile, now: Date): Promise<string> {
  const base = `${file.realPath}.bak-${timestamp(now)}`;
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    try {
      await fs.writeFile(candidate, file.text ?? '', { flag: 'wx', mode: file.mode ?? 0o644 });
      return candidate;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw err;
    }
  }
}

/**
 * Replaces `file` (as read by readConfigFile) with `text`: backup first, then temp file, fsync,
 * rename. Refuses when the file changed since it was read. Returns the backup's path, if any.
 */
export async function replaceConfigFile(file: ConfigFile, text: string, now = new Date()): Promise<string | null> {
  const dir = path.dirname(file.realPath);
  try {
    await fs.mkdir(dir, { recursive: true });
    const current = await fs.readFile(file.realPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (current !== file.text) throw new SetupError(`${file.path} changed while Cairn was updating it; nothing was written, run the command again`);
    const backup = file.text !== null ? await writeBackup(file, now) : null;
    const temp = path.join(dir, `.${path.basename(file.realPath)}.cairn-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    try {
      const handle = await fs.open(temp, 'wx', file.mode ?? 0o644);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (file.mode !== null) await fs.chmod(temp, file.mode);
      await fs.rename(temp, file.realPath);
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
    return backup;
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw new SetupError(`cannot write ${file.path}: ${(err as Error).message}`);
  }
}
