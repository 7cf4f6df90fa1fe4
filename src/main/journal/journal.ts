/**
 * The change journal: one JSON line per memory change, appended by every process that changes
 * memory, so that long-lived processes (the app, `cairn serve`) can show changes made by others.
 *
 * Layout: `<home>/journal/journal.jsonl` (directory 0700, files 0600), rotated by size to
 * `journal.1.jsonl` (newest) ... `journal.<keep>.jsonl` (oldest); older files are dropped.
 *
 * Writing: `append()` is one synchronous O_APPEND write of whole lines (no fsync): appends of
 * several processes never interleave inside a line, and a crash loses at most the line being
 * written. A torn tail left by a crash is closed with a newline by the next append, so it never
 * swallows the next line. Appending never throws: a failure is reported on stderr and the memory
 * command that caused it still succeeds. When the file has grown past `maxBytes`, the appender
 * rotates it under the cross-process lock `journal.jsonl.lock` (the size is checked again under the
 * lock, so concurrent appenders rotate once); `flush()` waits for a rotation in progress.
 *
 * Reading: `tail()` / `openTail()` (see tail.ts) deliver the lines other processes append from now
 * on, across rotations.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryChangeEvent } from '../../common/memory/events';
import { withLocalLock } from '../runtime/local/file-lock';
import { JournalTail, type JournalEvent, type JournalTailOptions } from './tail';

export type { JournalEvent } from './tail';

export const JOURNAL_DIR = 'journal';
export const JOURNAL_FILE = 'journal.jsonl';
const DEFAULT_JOURNAL_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_JOURNAL_KEEP = 3;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const NEWLINE = 0x0a;

export interface JournalOptions {
  /** Rotate once the file is larger than this (default 4 MiB). */
  readonly maxBytes?: number;
  /** Rotated files kept beside the current one (default 3; at least 1). */
  readonly keep?: number;
  /**
   * The pid written into this journal's lines and skipped by its tails (default process.pid).
   * Only tests set it, to play another process.
   */
  readonly pid?: number;
}

/** The path of rotated file `n` (1 is the newest). */
function rotatedName(n: number): string {
  return `journal.${n}.jsonl`;
}

/** One journal line, fields in a fixed order, ending in a newline. */
export function journalLine(event: MemoryChangeEvent, pid: number): string {
  const line: Record<string, unknown> = { scope: event.scope, path: event.path };
  if (event.oldPath !== undefined) line.oldPath = event.oldPath;
  Object.assign(line, {
    op: event.op,
    actor: event.actor,
    workspaceId: event.workspaceId,
    projectId: event.projectId,
    sha256: event.sha256,
    at: event.at,
    ...(event.historyId !== undefined ? { historyId: event.historyId } : {}),
    pid,
  });
  return `${JSON.stringify(line)}\n`;
}

export class Journal {
  readonly dir: string;
  readonly file: string;
  readonly maxBytes: number;
  readonly keep: number;
  readonly pid: number;
  private dirReady = false;
  private rotation: Promise<void> | null = null;

  constructor(home: string, options: JournalOptions = {}) {
    this.dir = path.join(home, JOURNAL_DIR);
    this.file = path.join(this.dir, JOURNAL_FILE);
    this.maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_JOURNAL_MAX_BYTES);
    this.keep = Math.max(1, Math.floor(options.keep ?? DEFAULT_JOURNAL_KEEP));
    this.pid = options.pid ?? process.pid;
  }

  /** Appends one line per event, in one write. Never throws; a failure is reported on stderr. */
  append(...events: MemoryChangeEvent[]): void {
    if (events.length === 0) return;
    let size: number;
    try {
      size = this.write(Buffer.from(events.map((event) => journalLine(event, this.pid)).join('')));
    } catch (err) {
      process.stderr.write(`cairn: could not append to the change journal: ${(err as NodeJS.ErrnoException)?.code ?? String(err)}\n`);
      return;
    }
    if (size > this.maxBytes && this.rotation === null) {
      this.rotation = this.rotate()
        .catch((err: unknown) => {
          process.stderr.write(`cairn: could not rotate the change journal: ${(err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err)}\n`);
        })
        .finally(() => {
          this.rotation = null;
        });
    }
  }

  /** Resolves when no rotation started by this instance is in progress. */
  async flush(): Promise<void> {
    while (this.rotation) await this.rotation;
  }

  /**
   * Delivers the events other processes append from now on (see JournalTail); returns the
   * function that stops it.
   */
  tail(listener: (event: JournalEvent) => void, options: Pick<JournalTailOptions, 'pollMs' | 'retireMs'> = {}): () => void {
    const t = this.openTail(listener, options);
    return () => t.close();
  }

  /** Like tail(), returning the JournalTail itself (for `check()`, which reads what is new now). */
  openTail(listener: (event: JournalEvent) => void, options: Pick<JournalTailOptions, 'pollMs' | 'retireMs'> = {}): JournalTail {
    return new JournalTail(this.dir, JOURNAL_FILE, listener, { ...options, selfPid: this.pid, rotatedName });
  }

  /** One O_APPEND write of `line`; returns the file's size after it. */
  private write(line: Buffer): number {
    if (!this.dirReady) {
      fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
      this.dirReady = true;
    }
    let fd: number;
    try {
      fd = fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // The directory went away (a home being reset): make it again, once.
      fs.mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
      fd = fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT, FILE_MODE);
    }
    try {
      let data = line;
      const before = fs.fstatSync(fd).size;
      if (before > 0) {
        // A torn last line (a crash mid-write, on a filesystem that allows it) is closed first.
        const last = Buffer.alloc(1);
        if (fs.readSync(fd, last, 0, 1, before - 1) === 1 && last[0] !== NEWLINE) data = Buffer.concat([Buffer.from('\n'), line]);
      }
      const written = fs.writeSync(fd, data);
      if (written !== data.length) throw Object.assign(new Error('short write'), { code: 'EIO' });
      return fs.fstatSync(fd).size;
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Shifts journal.jsonl -> journal.1.jsonl -> ... under the cross-process lock. */
  private async rotate(): Promise<void> {
    await withLocalLock(this.file, async () => {
      let size: number;
      try {
        size = fs.statSync(this.file).size;
      } catch {
        return; // rotated (and not yet appended to) by another process
      }
      if (size <= this.maxBytes) return;
      // Files beyond `keep` (left by a larger `keep` earlier) are dropped.
      for (const name of fs.readdirSync(this.dir)) {
        const m = /^journal\.(\d+)\.jsonl$/.exec(name);
        if (m && Number(m[1]) > this.keep) fs.rmSync(path.join(this.dir, name), { force: true });
      }
      for (let n = this.keep - 1; n >= 1; n--) {
        try {
          fs.renameSync(path.join(this.dir, rotatedName(n)), path.join(this.dir, rotatedName(n + 1)));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      fs.renameSync(this.file, path.join(this.dir, rotatedName(1)));
    });
  }
}
