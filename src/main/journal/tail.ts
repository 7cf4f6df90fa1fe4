/**
 * JournalTail: follows the change journal and delivers the lines other processes append.
 *
 * - Starts at the current end of the file (or at the start of a file created later).
 * - Wakes on fs.watch events of the journal directory, and polls every `pollMs` (default 250 ms) in
 *   case an event is dropped or the directory cannot be watched.
 * - Rotation: when the path names another file (new inode) or is gone, the old file is read to its
 *   end through the descriptor still open on it, then any file rotated after it (found by inode
 *   among the rotated names), then the new one from 0. Old descriptors stay open for `retireMs`
 *   more, for writers that opened the file just before the rename. A file that shrinks
 *   (truncated) is read again from 0.
 * - A partial trailing line waits until its newline arrives; malformed lines are skipped.
 * - Lines with `pid === selfPid` (this process) are read and skipped: its own changes reach
 *   listeners in process (the host's ChangeFeed hears its MemoryService directly).
 * - `check()` reads whatever is new, synchronously (the external watcher calls it before deciding
 *   whether a change on disk was Cairn's). `close()` stops the watcher and the timer and closes
 *   every descriptor; nothing is delivered after it.
 */
import { storedActor } from '../../common/memory/constants';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { memoryChangeEventSchema, type MemoryChangeEvent } from '../../common/memory/events';

export type JournalEvent = MemoryChangeEvent & { pid: number };

const journalEventSchema = memoryChangeEventSchema.extend({ pid: z.number().int() });

export interface JournalTailOptions {
  /** Poll period of the fallback check, ms (default 250). */
  readonly pollMs?: number;
  /** How long a rotated-away file is still read, ms (default 2000). */
  readonly retireMs?: number;
  /** Lines with this pid are not delivered (default process.pid). */
  readonly selfPid?: number;
  /** The name of rotated file `n` (1 the newest), to read files rotated between two checks. */
  readonly rotatedName?: (n: number) => string;
}

interface OpenFile {
  fd: number;
  ino: number;
  pos: number;
  /** Bytes after the last newline, waiting for the rest of their line. */
  partial: Buffer;
}

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;
const DIR_MODE = 0o700;
const MAX_ROTATED_LOOKUP = 16;

export class JournalTail {
  private readonly file: string;
  private readonly selfPid: number;
  private readonly retireMs: number;
  private readonly rotatedName: ((n: number) => string) | undefined;
  private current: OpenFile | null = null;
  private retired: { file: OpenFile; until: number }[] = [];
  private watcher: fs.FSWatcher | null = null;
  private readonly timer: NodeJS.Timeout;
  private scheduled = false;
  private closed = false;
  private readonly buf = Buffer.allocUnsafe(CHUNK);

  constructor(
    private readonly dir: string,
    name: string,
    private readonly listener: (event: JournalEvent) => void,
    options: JournalTailOptions = {},
  ) {
    this.file = path.join(dir, name);
    this.selfPid = options.selfPid ?? process.pid;
    this.retireMs = options.retireMs ?? 2_000;
    this.rotatedName = options.rotatedName;
    try {
      fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    } catch {
      // Without the folder the tail reads nothing until it appears: the poll looks again.
    }
    // From the current end: only what is appended from now on.
    this.current = this.open(true);
    this.startWatcher();
    // Both keep the process alive while the tail runs: a tail left open shows, as a process that
    // does not exit.
    this.timer = setInterval(() => this.check(), options.pollMs ?? 250);
  }

  /** Reads and delivers everything complete that is new in the journal now. */
  check(): void {
    if (this.closed) return;
    const now = Date.now();
    this.retired = this.retired.filter((r) => {
      this.drain(r.file);
      if (now < r.until) return true;
      this.closeFile(r.file);
      return false;
    });
    if (!this.watcher) this.startWatcher();
    if (this.current) this.drain(this.current);
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(this.file);
    } catch {
      // Rotated away and not yet made again: handled as a rotation below.
    }
    if (this.current && (!st || st.ino !== this.current.ino)) {
      // Rotated: the old file has been read to its end above; keep it a little for late writers,
      // and read any file rotated in between (more than one rotation since the last check).
      const old = this.current;
      this.retired.push({ file: old, until: now + this.retireMs });
      this.current = null;
      for (const between of this.rotatedSince(old.ino)) {
        this.drain(between);
        this.retired.push({ file: between, until: now + this.retireMs });
      }
    } else if (this.current && st && st.size < this.current.pos) {
      this.current.pos = 0;
      this.current.partial = Buffer.alloc(0);
    }
    if (!this.current && st) this.current = this.open(false);
    if (this.current) this.drain(this.current);
  }

  /** Stops everything; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
    this.watcher = null;
    if (this.current) this.closeFile(this.current);
    this.current = null;
    for (const r of this.retired) this.closeFile(r.file);
    this.retired = [];
  }

  private startWatcher(): void {
    try {
      const w = fs.watch(this.dir, () => this.schedule());
      w.on('error', () => {
        // The directory went away or cannot be watched: the poll goes on, and retries the watch.
        w.close();
        if (this.watcher === w) this.watcher = null;
      });
      this.watcher = w;
    } catch {
      this.watcher = null;
    }
  }

  /** Coalesces a burst of fs events into one check on the next turn of the event loop. */
  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.check();
    });
  }

  /**
   * The rotated files newer than the one with inode `ino`, oldest first, opened at 0 (none when
   * that file is no longer among the rotated ones).
   */
  private rotatedSince(ino: number): OpenFile[] {
    if (!this.rotatedName) return [];
    const newer: string[] = [];
    for (let n = 1; n <= MAX_ROTATED_LOOKUP; n++) {
      const name = path.join(this.dir, this.rotatedName(n));
      let st: fs.Stats;
      try {
        st = fs.statSync(name);
      } catch {
        return []; // the chain of rotated files ends (or was removed): nothing more to read
      }
      if (st.ino === ino) break;
      newer.push(name);
      if (n === MAX_ROTATED_LOOKUP) return [];
    }
    const files: OpenFile[] = [];
    for (const name of newer.reverse()) {
      const f = this.open(false, name);
      if (f) files.push(f);
    }
    return files;
  }

  private open(atEnd: boolean, file = this.file): OpenFile | null {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return null; // not there yet (or not now): the next poll opens it
    }
    try {
      const st = fs.fstatSync(fd);
      return { fd, ino: st.ino, pos: atEnd ? st.size : 0, partial: Buffer.alloc(0) };
    } catch {
      fs.closeSync(fd);
      return null;
    }
  }

  private closeFile(f: OpenFile): void {
    try {
      fs.closeSync(f.fd);
    } catch {
      // Closed already: nothing more to release.
    }
  }

  /** Reads `f` from its position to its end, delivering each complete line. */
  private drain(f: OpenFile): void {
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(f.fd, this.buf, 0, CHUNK, f.pos);
      } catch {
        return; // read again from the same place at the next poll
      }
      if (n === 0) return;
      f.pos += n;
      let chunk = this.buf.subarray(0, n);
      if (f.partial.length > 0) chunk = Buffer.concat([f.partial, chunk]);
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        this.line(chunk.subarray(start, nl));
        start = nl + 1;
        if (this.closed) return;
      }
      // Copy: `chunk` may be the shared read buffer.
      f.partial = Buffer.from(chunk.subarray(start));
    }
  }

  private line(bytes: Buffer): void {
    if (bytes.length === 0) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      return; // a torn line (a writer killed mid-append) carries no event
    }
    // A line written before the person's actor was called `person` says `user`.
    if (typeof parsed === 'object' && parsed !== null && (parsed as { actor?: unknown }).actor === 'user') (parsed as { actor: unknown }).actor = storedActor('user');
    const result = journalEventSchema.safeParse(parsed);
    if (!result.success || result.data.pid === this.selfPid) return;
    try {
      this.listener(result.data);
    } catch (err) {
      process.stderr.write(`cairn: a change-journal listener failed: ${(err as Error)?.stack ?? String(err)}\n`);
    }
  }
}
