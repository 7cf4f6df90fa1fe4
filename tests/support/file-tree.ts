/**
 * A scope root's files as tests look at them: written with an age (the consolidation tests' stale and fresh
 * files), and read back whole as one record, to compare trees byte for byte after an apply and an
 * undo. Reads the disk directly, never through Cairn. Also where Codex keeps a day's sessions
 * (codexDayDir), for the harvest's fixtures.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Writes `text` at `name` under `root` (parents made) with its mtime `ageDays` before `now`. */
export function putAged(root: string, name: string, text: string, ageDays: number, now = Date.now()): void {
  const file = path.join(root, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const t = (now - ageDays * DAY_MS) / 1000;
  fs.utimesSync(file, t, t);
}

export interface FileTreeOptions {
  /** How the bytes are read: `latin1` keeps every byte (the default), `utf8` reads text. */
  readonly encoding?: 'latin1' | 'utf8';
  /** Directories as `dir/`: '' too: `all`, only `empty` ones, or `none` (the default). */
  readonly dirs?: 'all' | 'empty' | 'none';
}

/** Every file below `root` by its path in the root, with its content; nothing when root is missing. */
export function fileTree(root: string, options: FileTreeOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(root)) return out;
  for (const name of (fs.readdirSync(root, { recursive: true }) as string[]).sort()) {
    const file = path.join(root, name);
    const st = fs.statSync(file);
    if (st.isFile()) out[name] = fs.readFileSync(file, options.encoding ?? 'latin1');
    else if (st.isDirectory() && (options.dirs === 'all' || (options.dirs === 'empty' && fs.readdirSync(file).length === 0))) out[`${name}/`] = '';
  }
  return out;
}

/**
 * Codex's folder of the sessions of the day `now` falls on (UTC): `<codexHome>/sessions/YYYY/MM/DD`.
 * Harvests look only at recent days' folders, so a fixture placed by a fixed date would stop being
 * found as the calendar moves on.
 */
export function codexDayDir(codexHome: string, now = Date.now()): string {
  const day = new Date(now);
  const pad = (n: number) => String(n).padStart(2, '0');
  return path.join(codexHome, 'sessions', String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1), pad(day.getUTCDate()));
}

/**
 * Waits until a change made now gets a ctime other than `st`'s: kernels before Linux 6.13 stamp
 * changes with a clock that ticks every 1 to 10 ms, so a change right after another can keep its
 * ctime (Cairn itself never trusts a version younger than VERSION_SETTLE_MS; tests that skip that
 * wait with a clock ahead must not make their edits inside one tick).
 */
export async function pastCtimeTick(st: { ctimeMs: number }): Promise<void> {
  const until = st.ctimeMs + 20;
  while (Date.now() < until) await new Promise((resolve) => setTimeout(resolve, Math.max(1, until - Date.now())));
}
