/**
 * One consolidation per scope root at a time, across processes: a lease (runtime/local/file-lock.ts)
 * on `<home>/sweeps/leases/<digest of the owner>`, taken over when its holder's heartbeat stopped,
 * as the harvest's worker lease. Beside it, a holder file says who holds it and since when, so a
 * second one is told exactly that.
 *
 * Invariant: the holder file is written only by the lease's holder, after taking it (whole: a
 * reader never sees half of it), and removed before releasing it; a holder file without a lease is never believed (the refusal comes from the
 * lock alone, the file only words it).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryToolError } from '../../common/memory/errors';
import { writeOwnFileSync } from '../runtime/local/atomic-write';
import { leaseHeld, takeLease } from '../runtime/local/file-lock';

/** Who holds a scope's lease. */
export interface LeaseHolder {
  readonly pid: number;
  readonly host: string;
  /** What it is doing: 'propose', 'apply'. */
  readonly doing: string;
  /** When it took the lease (ISO, on its clock). */
  readonly since: string;
}

/** Another consolidation of the same scope holds the lease. */
export class ConsolidationBusyError extends MemoryToolError {
  constructor(
    readonly scopePath: string,
    readonly holder: LeaseHolder | null,
  ) {
    super(
      holder
        ? `A consolidation of ${scopePath} is already running (${holder.doing}, process ${holder.pid} on ${holder.host}, since ${holder.since}); try again when it has finished.`
        : `A consolidation of ${scopePath} is already running; try again when it has finished.`,
    );
  }
}

export class ConsolidationLeases {
  private readonly dir: string;

  constructor(
    consolidationsDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = path.join(consolidationsDir, 'leases');
  }

  private fileOf(owner: string): string {
    return path.join(this.dir, createHash('sha256').update(owner).digest('hex').slice(0, 24));
  }

  /** Who holds `owner`'s lease now, or null when nobody does. */
  holder(owner: string): LeaseHolder | null {
    const file = this.fileOf(owner);
    if (!leaseHeld(file)) return null;
    try {
      return JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as LeaseHolder;
    } catch {
      return null;
    }
  }

  /**
   * Runs `fn` holding `owner`'s lease; a ConsolidationBusyError naming the holder when another has it.
   * `scopePath` (`/memories/project`) is how the refusal names the scope.
   */
  async with<T>(owner: string, scopePath: string, doing: string, fn: () => Promise<T>): Promise<T> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(owner);
    // Lost to a takeover (this process stalled past its stale time), the apply itself is still
    // safe: every write is checked against its sha256 under the scope's write lock.
    const lease = await takeLease(file);
    if (!lease) throw new ConsolidationBusyError(scopePath, this.holder(owner));
    const holder: LeaseHolder = { pid: process.pid, host: os.hostname(), doing, since: new Date(this.now()).toISOString() };
    try {
      writeOwnFileSync(`${file}.json`, `${JSON.stringify(holder)}\n`);
      return await fn();
    } finally {
      fs.rmSync(`${file}.json`, { force: true });
      await lease.release();
    }
  }
}
