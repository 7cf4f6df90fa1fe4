/**
 * SshRuntime: the Runtime on a host reached over SSH, through one persistent connection and the
 * remote helper (ssh-connection.ts, remote-helper.ts). Each Runtime operation is one request, so
 * one round trip on an open connection, with its containment check done in the same request on
 * the remote side. A whole-scope files-only listing (the context index) carries the first 4 KiB
 * of every file in the same answer, so the index of a scope costs one round trip: readHeads then
 * answers from those heads without asking again. A head this connection's helper already sent at
 * the file's current version (ListedEntry.version: device, inode, size, mtime, ctime, given only
 * once settled) is not sent again: the runtime keeps what it was sent, by version.
 *
 * Writes are serialized like LocalRuntime's: an in-process mutex per root, plus the cross-process
 * lock file `<root>.lock` on the remote host (the one a Cairn running there takes), kept
 * fresh while held and taken over when stale.
 *
 * Failures of the host (unreachable, lost connection, no answer in time) surface as RuntimeError
 * UNREACHABLE with the reason in `detail`; the SshError is kept in `lastError`.
 *
 * Besides the Runtime, it reads and saves other agents' files in the workspace's checkout
 * (checkoutFiles, checkoutFile, writeCheckoutFile; src/main/agent-files/remote-checkout.ts): the
 * checkout is no scope root, so these take the workspace's path and the helper checks its own
 * containment there; no lock is taken and the memory operations are untouched.
 *
 * File content travels in the helper's requests, not over SFTP: an SFTP write is open, write,
 * fsync, close and rename, five round trips or more, with the containment check in yet another
 * (SFTP has no realpath-checked open), where the helper does all of it in one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Mutex } from 'async-mutex';
import { INDEX_HEAD_BYTES, MAX_FILES_PER_SCOPE, VIEW_DEPTH } from '../../../common/memory/constants';
import { isListedName } from '../../../common/memory/paths';
import { LOCK_STALE_MS } from '../local/file-lock';
import { RuntimeError, unreadableFolder, unsafeRootDetail, type BeforeChange, type Capture, type CapturedFile, type EntryStat, type EntryType, type FileContent, type ListOptions, type ListedEntry, type Runtime, type RuntimeErrorCode, type ScopeRoot } from '../runtime';
import { SshError, type SshConnection } from './ssh-connection';

const CODES: ReadonlySet<string> = new Set<RuntimeErrorCode>(['ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'NOT_FILE', 'ESCAPE', 'TOO_LARGE', 'EINVAL', 'BUSY', 'UNREACHABLE', 'UNSAFE_ROOT', 'UNREADABLE', 'IO']);
const LOCK_WAIT_MS = 30_000;
/** How long a directory's prefetched stat and listing may serve the view that asked for them. */
const PREFETCH_MS = 2_000;

type OnError = (code: RuntimeErrorCode, extra: Buffer[]) => void;

interface HeldLock {
  readonly runtime: SshRuntime;
  readonly root: ScopeRoot;
  /** Whether the remote lock is held (a request carried it and it was free). */
  taken: boolean;
}

/** The lock section a call runs in, so its first request can carry the lock. */
const lockContext = new AsyncLocalStorage<HeldLock>();

export type CheckoutFacts =
  | { readonly kind: 'missing' | 'notdir' }
  | { readonly kind: 'dir'; readonly real: string; readonly gitRoot: string | null; readonly gitConfig: string; readonly rootCommits: readonly string[] };
const LOCK_TOUCH_MS = 1_000;

/** A pattern of other agents' files for the helper's `afiles` (src/main/agent-files/catalogue.ts). */
export interface CheckoutFilePattern {
  /** The folder's segments below the checkout. */
  readonly dir: readonly string[];
  readonly name: { readonly exact: string } | { readonly suffix: string; readonly recursive: boolean };
}

/**
 * What the helper found at a known file of a remote checkout: a state word (the client words the
 * reason, src/main/agent-files/remote-checkout.ts) with the size, mtime and mode, and the bytes
 * only for a file that passed the envelope there (`file`).
 */
export interface CheckoutFileState {
  readonly state: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly data: Uint8Array | null;
  /** Where a link on its way leads (relative to the checkout inside it, else the host's path); null when none is. */
  readonly linkTo: string | null;
}

/** A listed file of a remote checkout: which pattern found it, and its segments below the checkout. */
export interface CheckoutFileFound extends CheckoutFileState {
  readonly pattern: number;
  readonly rel: string[];
}

/** 'linked': the name or a folder on its way is a symbolic link, and nothing is written through one. */
export type CheckoutWriteOutcome = 'ok' | 'unreadable' | 'conflict' | 'meanwhile' | 'linked';

/** A file's state from the helper's fields at `at`; `withLink`: a sixth field says where a link on its way leads. */
function fileState(res: Buffer[], at: number, withLink: boolean): CheckoutFileState {
  const state = res[at]!.toString('utf8');
  const linkTo = withLink ? res[at + 5]?.toString('utf8') || null : null;
  return { state, size: Number(res[at + 1]!.toString()), mtimeMs: Number(res[at + 2]!.toString()), mode: Number(res[at + 3]!.toString()), data: state === 'file' ? new Uint8Array(res[at + 4]!) : null, linkTo };
}


/** What editFile may send as the bytes a change was based on: files up to this size, this many. */
const KNOWN_MAX_BYTES = 64 * 1024;
const KNOWN_MAX_FILES = 256;

/** The files a remove or rename sent back: [rel, '1', bytes | '0', ''] each; names the path rules refuse are dropped. */
function captured(res: Buffer[]): CapturedFile[] {
  const out: CapturedFile[] = [];
  for (let i = 0; i + 2 < res.length; i += 3) {
    const rel = res[i]!.toString('utf8').split('/');
    if (!rel.every((s) => isListedName(s))) continue;
    out.push({ rel, data: res[i + 1]!.toString() === '1' ? new Uint8Array(res[i + 2]!) : null });
  }
  return out;
}

export class SshRuntime implements Runtime {
  readonly label: string;
  /** Why the host could not be used, the last time it could not. */
  lastError: SshError | null = null;
  private readonly mutexes = new Map<string, Mutex>();
  /**
   * The bytes of files this runtime recently read or wrote (small ones, a bounded number), so an
   * edit can be sent with what it was based on (see editFile). Never trusted without that check.
   */
  private readonly known = new Map<string, Uint8Array>();
  /**
   * Heads that came with the last whole-scope listing of each root, for the readHeads that follows
   * it (the index's): taken once, and dropped by any change this runtime makes to the root.
   */
  private readonly heads = new Map<string, Map<string, Buffer>>();
  /**
   * Per root: the heads the helper sent with index listings, each with the file's version then:
   * what the helper answers '=' for (the file still has that version). Replaced by each such
   * listing, so files gone from the root are forgotten.
   */
  private readonly sent = new Map<string, Map<string, { readonly version: string; readonly head: Buffer }>>();
  /** What a read of a directory brought along (see readFile), for the stat and list that follow. */
  private prefetched: { key: string; rel: string; stat: EntryStat; list: ListedEntry[]; statTaken: boolean; until: number } | null = null;

  /** `workspace`: the workspace this runtime serves, named in errors (its id or name). */
  constructor(
    readonly connection: SshConnection,
    private readonly workspace?: string,
  ) {
    this.label = `ssh:${connection.where}`;
  }

  /**
   * One request; remote errors become RuntimeErrors, host failures UNREACHABLE. Inside withLock,
   * the first request of the root's held section carries the lock with it (see withLock).
   */
  private async call(fields: ReadonlyArray<string | Uint8Array>, onError?: OnError): Promise<Buffer[]> {
    const held = lockContext.getStore();
    if (held && held.runtime === this && !held.taken && fields[1] === held.root.path) {
      try {
        const res = await this.send(['locked', held.root.path, held.root.anchor, String(LOCK_STALE_MS), ...fields], onError);
        held.taken = true;
        return res;
      } catch (err) {
        // The helper answered, so it holds the lock, unless it said BUSY (then nothing ran). With
        // no answer (UNREACHABLE) it is unknown: never unlock then, or another writer's lock could
        // be removed; a lock taken before the connection dropped goes stale and is taken over.
        // UNSAFE_ROOT: the root or the lock's path is not Cairn's, and what is there is not removed.
        if (err instanceof RuntimeError && err.code !== 'BUSY' && err.code !== 'UNREACHABLE' && err.code !== 'UNSAFE_ROOT') held.taken = true;
        throw err;
      }
    }
    return this.send(fields, onError);
  }

  private async send(fields: ReadonlyArray<string | Uint8Array>, onError?: OnError): Promise<Buffer[]> {
    let res: Buffer[];
    try {
      res = await this.connection.request(fields);
    } catch (err) {
      if (err instanceof SshError) {
        this.lastError = err;
        const why = err.message.charAt(0).toLowerCase() + err.message.slice(1).replace(/\.$/, '');
        throw new RuntimeError('UNREACHABLE', err.kind, undefined, `${this.workspace ? `the host of workspace ${this.workspace} cannot be used right now: ` : ''}${why}; the next command reconnects (a write in flight was made whole or not at all).`);
      }
      throw err;
    }
    this.lastError = null;
    const status = res[0]?.toString('utf8') ?? 'IO';
    if (status === 'ok') return res.slice(1);
    const code = (CODES.has(status) ? status : 'IO') as RuntimeErrorCode;
    const errno = res[1]?.toString('utf8') || undefined;
    const size = Number(res[2]?.toString('utf8') ?? 0) || undefined;
    onError?.(code, res.slice(3));
    // The helper names the root's component at fault (relative to the checkout); the reason is
    // worded here, once for both runtimes.
    if (code === 'UNSAFE_ROOT') throw new RuntimeError(code, errno, undefined, unsafeRootDetail(errno ?? '', res[3]?.toString('utf8') ?? '.', res[4]?.toString('utf8')));
    if (code === 'UNREADABLE') throw unreadableFolder(errno ?? 'EACCES');
    throw new RuntimeError(code, code === 'IO' ? (errno ?? 'EIO') : errno, size);
  }

  /** Checks the host now (connects if needed); resolves, or rejects with the SshError. */
  async probe(): Promise<void> {
    try {
      await this.connection.ensure();
      this.lastError = null;
    } catch (err) {
      if (err instanceof SshError) this.lastError = err;
      throw err;
    }
  }

  /**
   * What is at a remote checkout path: missing, not a folder, or a folder with its realpath and,
   * when it is inside a git repository, the git root, the repository's config text and root
   * commits (a project id comes from those).
   */
  async probeCheckout(remotePath: string): Promise<CheckoutFacts> {
    const res = await this.call(['probe', remotePath]);
    const kind = res[0]?.toString();
    if (kind === 'missing' || kind === 'notdir') return { kind };
    const text = (i: number) => res[i]?.toString('utf8') ?? '';
    return { kind: 'dir', real: text(1), gitRoot: text(2) || null, gitConfig: text(3), rootCommits: text(4).split('\n').filter(Boolean).sort() };
  }

  async stat(root: ScopeRoot, rel: readonly string[], follow: boolean): Promise<EntryStat | null> {
    const pre = this.prefetched;
    if (follow && pre && !pre.statTaken && pre.key === this.rootKey(root) && pre.rel === rel.join('/') && Date.now() < pre.until) {
      pre.statTaken = true;
      return pre.stat;
    }
    const res = await this.call(['stat', root.path, root.anchor, rel.join('/'), follow ? '1' : '0']);
    if (res[0]?.toString() !== 'some') return null;
    return { type: res[1]!.toString() as EntryType, size: Number(res[2]!.toString()), mtimeMs: Number(res[3]!.toString()) };
  }

  async readFile(root: ScopeRoot, rel: readonly string[], maxBytes: number): Promise<FileContent> {
    this.prefetched = null;
    const key = this.rootKey(root);
    const relText = rel.join('/');
    const res = await this.call(['read', root.path, root.anchor, relText, String(maxBytes), String(VIEW_DEPTH), String(MAX_FILES_PER_SCOPE + 1)], (code, extra) => {
      // A directory: its stat and view listing came along, for the stat and list that follow.
      if (code !== 'EISDIR' || extra[0]?.toString() !== 'some') return;
      const stat: EntryStat = { type: 'directory', size: Number(extra[2]!.toString()), mtimeMs: Number(extra[3]!.toString()) };
      const listed = this.parseListing(extra.slice(4), false, key);
      this.prefetched = { key, rel: relText, stat, list: listed.entries, statTaken: false, until: Date.now() + PREFETCH_MS };
    });
    const data = new Uint8Array(res[0]!);
    this.remember(root, rel, data);
    return { data, size: Number(res[1]!.toString()), mtimeMs: Number(res[2]!.toString()) };
  }

  async readHeads(root: ScopeRoot, rels: ReadonlyArray<readonly string[]>, bytes: number): Promise<Array<FileContent | null>> {
    const cached = bytes <= INDEX_HEAD_BYTES ? this.heads.get(this.rootKey(root)) : undefined;
    this.heads.delete(this.rootKey(root));
    const out: Array<FileContent | null> = rels.map((r) => {
      const data = cached?.get(r.join('/'));
      return data ? { data: new Uint8Array(data.subarray(0, bytes)), size: 0, mtimeMs: 0 } : null;
    });
    const missing = rels.flatMap((_r, i) => (out[i] === null ? [i] : []));
    if (missing.length === 0) return out;
    const res = await this.call(['heads', root.path, root.anchor, String(bytes), ...missing.map((i) => rels[i]!.join('/'))]);
    missing.forEach((i, n) => {
      if (res[n * 2]?.toString() === '1') out[i] = { data: new Uint8Array(res[n * 2 + 1]!), size: 0, mtimeMs: 0 };
    });
    return out;
  }

  async writeFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, options: { exclusive: boolean; beforeChange?: BeforeChange }): Promise<void> {
    if (rel.length === 0) throw new RuntimeError('EISDIR');
    options.beforeChange?.([]);
    this.forgetContent(root, rel);
    await this.call(['write', root.path, root.anchor, rel.join('/'), options.exclusive ? '1' : '0', data]);
    this.remember(root, rel, data);
  }

  async editFile(root: ScopeRoot, rel: readonly string[], maxBytes: number, change: (data: Uint8Array) => Uint8Array, beforeChange?: BeforeChange): Promise<Uint8Array> {
    const write = { exclusive: false, ...(beforeChange ? { beforeChange } : {}) };
    if (rel.length === 0) throw new RuntimeError('EISDIR');
    const based = this.known.get(this.contentKey(root, rel));
    let next: Uint8Array | null = null;
    if (based) {
      try {
        next = change(based);
      } catch {
        next = null; // perhaps only because what we knew is stale: decide on the current bytes below
      }
    }
    if (based && next) {
      beforeChange?.([]);
      this.forgetContent(root, rel);
      const res = await this.call(['cwrite', root.path, root.anchor, rel.join('/'), String(maxBytes), based, next]);
      if (res[0]?.toString() === 'ok') {
        this.remember(root, rel, next);
        return next;
      }
      // Changed since: the answer carries the current bytes (no read needed).
      const current = new Uint8Array(res[1]!);
      this.remember(root, rel, current);
      const again = change(current);
      await this.writeFile(root, rel, again, write);
      return again;
    }
    const current = (await this.readFile(root, rel, maxBytes)).data;
    const again = change(current);
    await this.writeFile(root, rel, again, write);
    return again;
  }

  private contentKey(root: ScopeRoot, rel: readonly string[]): string {
    return `${this.rootKey(root)}\0${rel.join('/')}`;
  }

  private remember(root: ScopeRoot, rel: readonly string[], data: Uint8Array): void {
    const key = this.contentKey(root, rel);
    this.known.delete(key);
    if (data.byteLength > KNOWN_MAX_BYTES) return;
    this.known.set(key, data);
    if (this.known.size > KNOWN_MAX_FILES) this.known.delete(this.known.keys().next().value!);
  }

  /** Forgets what is known at or below `rel` (everything of the root when rel is empty). */
  private forgetContent(root: ScopeRoot, rel: readonly string[]): void {
    this.heads.delete(this.rootKey(root));
    const prefix = this.contentKey(root, rel);
    for (const key of [...this.known.keys()]) if (key === prefix || key.startsWith(rel.length === 0 ? prefix : `${prefix}/`)) this.known.delete(key);
  }

  async createFile(root: ScopeRoot, rel: readonly string[], data: Uint8Array, maxFiles: number, beforeChange?: BeforeChange): Promise<'created' | 'full'> {
    if (rel.length === 0) throw new RuntimeError('EISDIR');
    beforeChange?.([]);
    this.forgetContent(root, rel);
    const res = await this.call(['create', root.path, root.anchor, rel.join('/'), String(maxFiles), data]);
    if (res[0]?.toString() === 'full') return 'full';
    this.remember(root, rel, data);
    return 'created';
  }

  /**
   * Entries of a helper listing answer (['some'|'none', then 7 fields per entry; a directory it
   * could not read has the type 'unreadable' and its OS code for a version]), with the heads
   * it carried: sent ('1'), or kept here from an earlier answer at the same version ('=').
   */
  private parseListing(res: Buffer[], withHeads: boolean, rootKey: string): { found: boolean; entries: ListedEntry[]; heads: Map<string, Buffer> } {
    const entries: ListedEntry[] = [];
    const heads = new Map<string, Buffer>();
    if (res[0]?.toString() !== 'some') return { found: false, entries, heads };
    const before = this.sent.get(rootKey);
    const after = new Map<string, { version: string; head: Buffer }>();
    for (let i = 1; i + 6 < res.length; i += 7) {
      const relText = res[i]!.toString('utf8');
      const segments = relText.split('/');
      // Defense in depth: the helper applies the same rules; a name it let through is still skipped.
      if (!segments.every((s) => isListedName(s))) continue;
      const kind = res[i + 1]!.toString();
      const type = kind === 'directory' || kind === 'unreadable' ? 'directory' : 'file';
      const version = type === 'file' && res[i + 4]!.length > 0 ? res[i + 4]!.toString() : null;
      const size = Number(res[i + 2]!.toString());
      const mtimeMs = Number(res[i + 3]!.toString());
      // A directory the helper could not read carries the OS code where a file has its version.
      entries.push(kind === 'unreadable' ? { rel: segments, type, size, mtimeMs, version, unreadable: res[i + 4]!.toString() || 'EACCES' } : { rel: segments, type, size, mtimeMs, version });
      if (!withHeads || type !== 'file') continue;
      const has = res[i + 5]!.toString();
      const kept = before?.get(relText);
      const head = has === '1' ? Buffer.from(res[i + 6]!) : has === '=' && kept && kept.version === version ? kept.head : null;
      // A '=' for a head not kept here (another runtime on this connection asked): readHeads asks.
      if (head === null) continue;
      heads.set(relText, head);
      if (version !== null) after.set(relText, { version, head });
    }
    if (withHeads) this.sent.set(rootKey, after);
    return { found: true, entries, heads };
  }

  async list(root: ScopeRoot, rel: readonly string[], options: ListOptions): Promise<ListedEntry[] | null> {
    const rootKey = this.rootKey(root);
    const relText = rel.join('/');
    const pre = this.prefetched;
    if (pre && pre.key === rootKey && pre.rel === relText && options.depth === VIEW_DEPTH && options.limit === MAX_FILES_PER_SCOPE + 1 && !options.filesOnly && Date.now() < pre.until) {
      this.prefetched = null;
      return pre.list;
    }
    // A whole-scope files-only listing is the index's: bring the heads along (one round trip).
    const withHeads = options.filesOnly === true && rel.length === 0;
    const depth = Number.isFinite(options.depth) ? options.depth : 1_000_000;
    const res = await this.call(['list', root.path, root.anchor, relText, String(depth), String(options.limit), options.filesOnly ? '1' : '0', String(withHeads ? INDEX_HEAD_BYTES : 0), options.withUnreadable ? '1' : '0']);
    const listed = this.parseListing(res, withHeads, rootKey);
    if (!listed.found) return null;
    if (withHeads) this.heads.set(rootKey, listed.heads);
    return listed.entries;
  }

  async countFiles(root: ScopeRoot, limit: number): Promise<number> {
    const res = await this.call(['count', root.path, root.anchor, String(limit)]);
    return Number(res[0]!.toString());
  }

  async rename(root: ScopeRoot, from: readonly string[], to: readonly string[], capture?: Capture): Promise<CapturedFile[]> {
    this.forgetContent(root, from);
    this.forgetContent(root, to);
    if (capture?.beforeChange) {
      // The files are read first (the destination checked as the rename does), the hook called,
      // then the rename made: one more round trip, so that the history has them before the change.
      const moved = captured(await this.call(['capture', root.path, root.anchor, from.join('/'), String(capture.maxBytes), to.join('/')]));
      capture.beforeChange(moved);
      await this.call(['rename', root.path, root.anchor, from.join('/'), to.join('/'), '']);
      return moved;
    }
    return captured(await this.call(['rename', root.path, root.anchor, from.join('/'), to.join('/'), capture ? String(capture.maxBytes) : '']));
  }

  async remove(root: ScopeRoot, rel: readonly string[], capture?: Capture): Promise<CapturedFile[]> {
    if (rel.length === 0) throw new RuntimeError('ENOENT');
    this.forgetContent(root, rel);
    if (capture?.beforeChange) {
      // As rename: the files read, the hook called, then the remove made.
      const taken = captured(await this.call(['capture', root.path, root.anchor, rel.join('/'), String(capture.maxBytes), '']));
      capture.beforeChange(taken);
      try {
        await this.call(['remove', root.path, root.anchor, rel.join('/'), '']);
      } catch (err) {
        // A directory's remove stopped midway (the helper answered): the history keeps exactly the
        // files that are gone, as listed now.
        if (taken.length > 1 && err instanceof RuntimeError && err.code !== 'UNREACHABLE') {
          const left = await this.list(root, rel, { depth: 1000, limit: 1_000_000, filesOnly: true }).catch(() => undefined);
          if (left !== undefined) {
            const there = new Set((left ?? []).map((e) => [...rel, ...e.rel].join('/')));
            capture.beforeChange(
              taken.filter((f) => !there.has(f.rel.join('/'))),
              true,
            );
          } else capture.beforeChange(taken, true);
        }
        throw err;
      }
      return taken;
    }
    return captured(await this.call(['remove', root.path, root.anchor, rel.join('/'), capture ? String(capture.maxBytes) : '']));
  }

  async mkdir(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    await this.call(['mkdir', root.path, root.anchor, rel.join('/')]);
  }

  async removeEmptyDirs(root: ScopeRoot, rel: readonly string[]): Promise<void> {
    if (rel.length === 0) return;
    await this.call(['rmdirs', root.path, root.anchor, rel.join('/')]);
  }

  /**
   * Runs `fn` holding the root's lock. The lock is not asked for on its own: the first request
   * `fn` makes for this root carries it ('locked' in the helper), so a write costs no extra round
   * trip for locking. If the lock is busy, that request did nothing, and `fn` is run again after a
   * pause (it has made no change: its first request is the first thing that could). The unlock is
   * sent without waiting for its answer: requests are answered in order, so the next one runs
   * after it, and waiting would add a round trip to every write.
   */
  async withLock<T>(root: ScopeRoot, fn: () => Promise<T>): Promise<T> {
    const key = this.rootKey(root);
    let mutex = this.mutexes.get(key);
    if (!mutex) {
      mutex = new Mutex();
      this.mutexes.set(key, mutex);
    }
    return mutex.runExclusive(async () => {
      const deadline = Date.now() + LOCK_WAIT_MS;
      for (let attempt = 0; ; attempt++) {
        const held: HeldLock = { runtime: this, root, taken: false };
        let touch: NodeJS.Timeout | null = null;
        try {
          return await lockContext.run(held, async () => {
            const result = fn();
            // Kept fresh while held, so a slow write is not taken over as stale.
            touch = setInterval(() => {
              if (held.taken) void this.send(['touch', root.path]).catch(() => {});
            }, LOCK_TOUCH_MS);
            touch.unref();
            return await result;
          });
        } catch (err) {
          if (!(err instanceof RuntimeError) || err.code !== 'BUSY' || held.taken || Date.now() >= deadline) throw err;
        } finally {
          if (touch) clearInterval(touch);
          if (held.taken) void this.send(['unlock', root.path]).catch(() => {});
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 2) * (0.5 + Math.random())));
      }
    });
  }

  // ---- Other agents' files in the workspace's checkout ----
  // The checkout is no scope root: these take the workspace's remote path, and the helper
  // resolves and checks the checkout's own containment there (afiles, afile, afwrite).

  /** The known files of the checkout at `checkoutPath`, for these patterns, in one request. */
  async checkoutFiles(checkoutPath: string, patterns: readonly CheckoutFilePattern[], limits: { maxBytes: number; depth: number; perPattern: number }): Promise<CheckoutFileFound[]> {
    const fields: string[] = ['afiles', checkoutPath, String(limits.maxBytes), String(limits.depth), String(limits.perPattern)];
    for (const p of patterns) fields.push(p.dir.join('/'), 'exact' in p.name ? 'exact' : 'suffix', 'exact' in p.name ? p.name.exact : p.name.suffix, 'exact' in p.name || !p.name.recursive ? '0' : '1');
    const res = await this.call(fields);
    const out: CheckoutFileFound[] = [];
    for (let i = 0; i + 7 < res.length; i += 8) {
      out.push({ pattern: Number(res[i]!.toString()), rel: res[i + 1]!.toString('utf8').split('/'), ...fileState(res, i + 2, true) });
    }
    return out;
  }

  /** One known file of the checkout, or null when nothing is there. */
  async checkoutFile(checkoutPath: string, rel: readonly string[], maxBytes: number): Promise<CheckoutFileState | null> {
    const res = await this.call(['afile', checkoutPath, String(maxBytes), rel.join('/')]);
    return res[0]?.toString() === 'some' ? fileState(res, 1, true) : null;
  }

  /**
   * A conflict-safe save of one known file of the checkout (`expected`: the digest it must have,
   * null for none), in one request: the outcome, and the file before the save (after it changed
   * meanwhile, for 'meanwhile'). `mode`: of a new file.
   */
  async writeCheckoutFile(checkoutPath: string, rel: readonly string[], maxBytes: number, expected: string | null, mode: number, data: Uint8Array): Promise<{ outcome: CheckoutWriteOutcome; file: CheckoutFileState | null }> {
    const res = await this.call(['afwrite', checkoutPath, String(maxBytes), rel.join('/'), expected ?? '', String(mode), data]);
    const outcome = res[0]!.toString() as CheckoutWriteOutcome;
    return { outcome, file: res[1]?.toString() === 'some' ? fileState(res, 2, false) : null };
  }

  private rootKey(root: ScopeRoot): string {
    return `${root.anchor}\0${root.path}`;
  }
}
