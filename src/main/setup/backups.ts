/**
 * Cairn's copies of the agents' files `cairn setup` changes, kept in `<home>/backups/` (0700, each
 * file 0600: a config may hold a token), never beside the file, where a checkout would commit them.
 * Names say which file and when: the file's absolute path with `/` as `%`, the time, and why:
 *   `%home%me%widgets%.mcp.json.20250102T030405Z.before-setup`   the file before setup changed it
 *   `%home%me%widgets%.mcp.json.20250102T030405Z.setup.json`      what setup did (below)
 *   `%home%me%widgets%.mcp.json.20250102T030405Z.before-remove`   the file before --remove changed it
 * A setup record names the file, the backup of what it was (none: setup created it, and then the
 * directories it made for it), and the hash of what setup wrote. `--remove` follows the records back
 * from the file as it is now: when nothing else touched it since, it gets the exact bytes it had
 * before setup, and a file setup created goes with the directories setup made for it.
 *
 * Records are read only from a home that is the person's own and not writable by others, so no
 * one else can choose what a removal writes back.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeAtomically } from '../runtime/local/atomic-write';
import { homeOwnershipProblem, ownershipProblem } from '../runtime/local/ownership';
import { SetupError } from './config-file';

export interface SetupRecord {
  /** The file as the agent reads it. */
  readonly file: string;
  /** Where its content was written (a symlink's target). */
  readonly writtenTo: string;
  /** The name (in the same folder) of the backup of the file before setup, or null when there was none. */
  readonly before: string | null;
  readonly beforeSha256: string | null;
  readonly afterSha256: string;
  /** The directories setup made for the file, outermost first. */
  readonly createdDirs: string[];
  readonly time: string;
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The longest flattened path kept whole in a name (a name has at most 255 bytes). */
const MAX_FLAT = 180;

/** The file's absolute path as part of a name: `/` as `%`; a long one as its hash and its end. */
function flatten(file: string): string {
  const flat = path.resolve(file).split(path.sep).join('%');
  if (Buffer.byteLength(flat) <= MAX_FLAT) return flat;
  return `${sha256(file).slice(0, 12)}-${flat.slice(-(MAX_FLAT - 13))}`;
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

const RECORD = '.setup.json';

export class Backups {
  readonly dir: string;

  constructor(readonly home: string) {
    this.dir = path.join(home, 'backups');
  }

  /** The folder, made 0700 (with the home) when missing; a home that is not the person's own is refused. */
  private async ready(): Promise<void> {
    const problem = homeOwnershipProblem(this.home);
    if (problem) throw new SetupError(`${problem} (setup keeps its backups there; nothing was changed)`);
    try {
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const st = await fs.lstat(this.dir);
      if (!st.isDirectory()) throw new SetupError(`${this.dir} is not a directory: setup keeps its backups there. Move it away and run this again; nothing was changed.`);
      if ((st.mode & 0o077) !== 0) await fs.chmod(this.dir, 0o700);
    } catch (err) {
      if (err instanceof SetupError) throw err;
      throw new SetupError(`cannot keep a backup in ${this.dir}: ${(err as Error).message}; nothing was changed`);
    }
  }

  /** A name stem for a change to `file` now, not used by any earlier one. */
  async stem(file: string, now: Date): Promise<string> {
    await this.ready();
    const base = `${flatten(file)}.${timestamp(now)}`;
    const names = new Set(await fs.readdir(this.dir));
    for (let n = 0; ; n++) {
      const stem = n === 0 ? base : `${base}-${n}`;
      if (![...names].some((name) => name.startsWith(`${stem}.`))) return stem;
    }
  }

  private async write(name: string, text: string): Promise<string> {
    try {
      await writeAtomically(this.dir, name, Buffer.from(text, 'utf8'), { exclusive: true });
    } catch (err) {
      throw new SetupError(`cannot keep a backup in ${this.dir}: ${(err as Error).message}; nothing was changed`);
    }
    return path.join(this.dir, name);
  }

  /** Keeps `text`, what the file held before a change; returns the backup's path. */
  keep(stem: string, text: string, why: 'before-setup' | 'before-remove'): Promise<string> {
    return this.write(`${stem}.${why}`, text);
  }

  async record(stem: string, record: SetupRecord): Promise<void> {
    await this.write(`${stem}${RECORD}`, `${JSON.stringify(record, null, 2)}\n`);
  }

  /** Whether records may be read here: the home and the folder are the person's own, written by nobody else. */
  private async trusted(): Promise<boolean> {
    if (homeOwnershipProblem(this.home) !== null) return false;
    const st = await fs.lstat(this.dir).catch(() => null);
    return st !== null && st.isDirectory() && ownershipProblem(st, { private: true }) === null;
  }

  /** The setup records of `file`, newest first. */
  async recordsOf(file: string): Promise<Array<SetupRecord & { readonly name: string }>> {
    if (!(await this.trusted())) return [];
    const prefix = `${flatten(file)}.`;
    const names = (await fs.readdir(this.dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix) && n.endsWith(RECORD));
    const order = (n: string) => {
      const [stamp = '', seq = '0'] = n.slice(prefix.length, -RECORD.length).split('-');
      return `${stamp}-${seq.padStart(6, '0')}`;
    };
    names.sort((a, b) => (order(a) < order(b) ? 1 : -1));
    const out: Array<SetupRecord & { name: string }> = [];
    for (const name of names.slice(0, 100)) {
      try {
        const record = JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as SetupRecord;
        if (record.file === path.resolve(file) && typeof record.afterSha256 === 'string') out.push({ ...record, name });
      } catch {
        // A record that does not read is no guide: the removal works from the file itself.
      }
    }
    return out;
  }

  /** A backup's text, when it is still what the record says. */
  async read(name: string, sha: string | null): Promise<string | null> {
    if (name.includes('/') || name.includes(path.sep)) return null;
    const text = await fs.readFile(path.join(this.dir, name), 'utf8').catch(() => null);
    return text !== null && sha256(text) === sha ? text : null;
  }
}
