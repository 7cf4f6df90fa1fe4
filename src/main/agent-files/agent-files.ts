/**
 * Other agents' files, what the API and the CLI ask of them: list, read, conflict-safe
 * write (recorded in their own history), search, adopt into the inbox, compare. Owns nothing on disk
 * but `<home>/agent-files/` (the history of edits); the files themselves belong to their agents.
 * The pieces: the catalogue of known files (catalogue.ts), discovery and ids (discovery.ts), the
 * envelope of reads and writes (envelope.ts), the history (agent-file-history.ts), search
 * (search.ts), adopt (adopt.ts) and compare (compare.ts), both reading statements (statements.ts).
 * An SSH workspace's checkout is read and saved on its host by the remote helper, one request per
 * listing, read or save (remote-checkout.ts), under the same envelope; the home's files are this
 * machine's. When the host cannot be used, the checkout is unavailable with the reason.
 *
 * Invariant: none of these files is Cairn memory. Nothing here touches a memory root, the context
 * builder or the memory tool; memory is only read (compare, the adopt's dedupe). A save is the
 * memory editor's: written only if the file still has the digest the person's edit was based on
 * (checked again right before the rename), else a conflict (changed, deleted, exists); saves run
 * one at a time per home, across processes (a lock, `<home>/agent-files/saves.lock`).
 */
import { AGENT_NAMES, type AdoptResult, type AgentFile, type AgentFileHit, type AgentFileVersion, type CompareResult } from '../../common/agent-files/schema';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Scope } from '../../common/memory/constants';
import type { InboxStore } from '../inbox/inbox-store';
import type { MemoryService } from '../memory/memory-service';
import { scanContent } from '../memory/scanners/content-scanner';
import { withLocalLock } from '../runtime/local/file-lock';
import { RuntimeError } from '../runtime/runtime';
import type { WorkspaceRegistry } from '../workspaces/registry';
import { adoptFile } from './adopt';
import { AGENT_FILES_DIR, AgentFileHistory, historyKey } from './agent-file-history';
import { compareSides, type CompareSide } from './compare';
import { AgentFilesError, basesFor, discover, inspectAt, resolveId, type AnyBase, type Bases, type Located } from './discovery';
import { isRemote, NEW_FILE_MODE, remoteFailure, writeRemote, type RemoteBase } from './remote-checkout';
import { searchAgentFiles } from './search';
import { ChangedMeanwhile, inspect, LinkOnTheWay, MAX_AGENT_FILE_BYTES, sha256Hex, where, writeFileAt, type Base, type Inspected } from './envelope';

export interface AgentFilesOptions {
  /** Cairn's home: the history of edits lives under it. */
  readonly home: string;
  /** The user's home, where the agents keep their global files. */
  readonly userHome: string;
  readonly registry: WorkspaceRegistry;
  readonly inbox: InboxStore;
  readonly service: MemoryService;
  /** The clock (tests inject it). */
  readonly now?: () => number;
}

export type WriteOutcome =
  | { readonly status: 'ok'; readonly sha256: string; readonly warnings: readonly { kind: 'secret' | 'injection'; rule: string; line: number; message: string }[] }
  | { readonly status: 'conflict'; readonly kind: 'changed' | 'deleted' | 'exists'; readonly message: string };

export interface AdoptRequest {
  readonly id: string;
  readonly scope: Scope;
  readonly lines?: readonly (readonly [number, number])[] | undefined;
  readonly text?: string | undefined;
}

const encoder = new TextEncoder();

function fileOf(located: Pick<Located, 'id' | 'entry' | 'inspected'>): AgentFile {
  const { id, entry, inspected } = located;
  return {
    id,
    agent: entry.agent,
    readBy: [...entry.readBy],
    kind: entry.kind,
    place: entry.place,
    path: id,
    size: inspected.size,
    mtime: new Date(inspected.mtimeMs).toISOString(),
    sha256: inspected.sha256,
    unreadable: inspected.unreadable,
    linkTo: inspected.linkTo,
  };
}

export class AgentFiles {
  private readonly versions: AgentFileHistory;

  constructor(private readonly options: AgentFilesOptions) {
    this.versions = new AgentFileHistory(options.home, options.now);
  }

  private bases(workspaceId: string | null): Promise<Bases> {
    return basesFor(this.options.userHome, this.options.registry, workspaceId);
  }

  async list(workspaceId: string | null): Promise<{ files: AgentFile[]; checkout: { available: boolean; reason: string | null } }> {
    const bases = await this.bases(workspaceId);
    const { files, checkoutReason } = await discover(bases);
    return { files: files.map(fileOf), checkout: { available: checkoutReason === null, reason: checkoutReason } };
  }

  /** A readable file's text, or a refusal saying why not. */
  async read(workspaceId: string | null, id: string): Promise<{ file: AgentFile; content: string; sha256: string }> {
    const bases = await this.bases(workspaceId);
    const file = await this.located(bases, id);
    const { inspected } = file;
    this.versions.observe(historyKey(file.base.place, file.rel, bases.workspaceId), inspected.bytes, inspected.sha256);
    // A file with content is text with its digest (envelope.ts textOf).
    return { file: fileOf(file), content: inspected.content!, sha256: inspected.sha256! };
  }

  /** Texts of several files (those that can be read), for search, adopt and compare. */
  async readable(workspaceId: string | null): Promise<Located[]> {
    return (await discover(await this.bases(workspaceId))).files.filter((f) => f.inspected.content !== null);
  }

  async write(workspaceId: string | null, id: string, content: string, expectedSha256: string | null): Promise<WriteOutcome> {
    const bases = await this.bases(workspaceId);
    const { base, rel } = resolveId(bases, id);
    const data = encoder.encode(content);
    if (data.byteLength > MAX_AGENT_FILE_BYTES) throw new AgentFilesError(`${id} would be ${Math.ceil(data.byteLength / 1024)} KiB; Cairn saves files of at most ${MAX_AGENT_FILE_BYTES / 1024} KiB.`);
    if (content.includes('\u0000')) throw new AgentFilesError(`${id} would hold a NUL character; only text can be saved.`);
    // One save at a time per home, across processes: the atomic write sweeps temp files it finds
    // in the directory, which is safe only while no other Cairn writer can be midway there.
    const dir = path.join(this.options.home, AGENT_FILES_DIR);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      const save = () => (isRemote(base) ? this.writeRemoteNow(bases, id, base, rel, data, content, expectedSha256) : this.writeNow(bases, id, base, rel, data, content, expectedSha256));
      return await withLocalLock(path.join(dir, 'saves'), save, `${AGENT_FILES_DIR}/saves.lock`);
    } catch (err) {
      const remote = isRemote(base) ? remoteFailure(base, err) : null;
      if (remote !== null) throw new AgentFilesError(`${id} cannot be saved: ${remote}`);
      if (err instanceof RuntimeError) throw new AgentFilesError(`${id} cannot be saved: ${saveFailure(err, base)}`);
      throw err;
    }
  }

  private async writeNow(bases: Bases, id: string, base: Base, rel: readonly string[], data: Uint8Array, content: string, expected: string | null): Promise<WriteOutcome> {
    const current: Inspected | null = inspect(base, rel);
    const hkey = historyKey(base.place, rel, bases.workspaceId);
    if (current?.unreadable) throw new AgentFilesError(`${id} cannot be saved: ${current.unreadable}`);
    // Nothing is written through a link, not even one Cairn follows to read: its target is saved under its own name.
    if (current?.linkTo) throw new AgentFilesError(`${id} cannot be saved: it is a symbolic link to ${current.linkTo}, and Cairn never writes through a link. Open ${current.linkTo} to edit it.`);
    this.versions.observe(hkey, current?.bytes ?? null, current?.sha256 ?? null);
    const conflict = conflictOf(id, current?.sha256 ?? null, expected);
    if (conflict) return conflict;
    try {
      await writeFileAt(base, rel, data, expected, current?.mode ?? NEW_FILE_MODE);
    } catch (err) {
      if (err instanceof LinkOnTheWay) throw new AgentFilesError(`${id} cannot be saved: a folder on its way is a symbolic link, and Cairn never writes through a link.`);
      if (!(err instanceof ChangedMeanwhile)) throw err;
      const now = inspect(base, rel);
      if (now?.unreadable) throw new AgentFilesError(`${id} cannot be saved: ${now.unreadable}`);
      const conflicting = conflictOf(id, now?.sha256 ?? null, expected);
      if (conflicting) return conflicting;
      // Nothing Cairn can read is there, yet the name is taken: a link that leads nowhere.
      if (now === null) throw notAFile(id);
      return changedSince(id);
    }
    this.versions.recordSave(hkey, current?.bytes ?? null, data);
    const written = inspect(base, rel);
    return { status: 'ok', sha256: written?.sha256 ?? '', warnings: scanContent(content) };
  }

  /**
   * writeNow for a checkout on an SSH host: the look, the conflict check, the atomic write and its
   * last look are one request there (remote-checkout.ts); the history is kept here, the same way.
   */
  private async writeRemoteNow(bases: Bases, id: string, base: RemoteBase, rel: readonly string[], data: Uint8Array, content: string, expected: string | null): Promise<WriteOutcome> {
    const hkey = historyKey(base.place, rel, bases.workspaceId);
    const { outcome, file } = await writeRemote(base, rel, data, expected);
    // As locally: nothing is written through a link, checked on the host.
    if (outcome === 'linked') throw new AgentFilesError(`${id} cannot be saved: it, or a folder on its way, is a symbolic link on the host, and Cairn never writes through a link.`);
    if (outcome === 'unreadable') throw new AgentFilesError(`${id} cannot be saved: ${file?.unreadable ?? 'it cannot be read.'}`);
    if (outcome === 'meanwhile') {
      // Changed between the host's two looks: `file` is what is there now.
      if (file?.unreadable) throw new AgentFilesError(`${id} cannot be saved: ${file.unreadable}`);
      this.versions.observe(hkey, file?.bytes ?? null, file?.sha256 ?? null);
      const conflicting = conflictOf(id, file?.sha256 ?? null, expected);
      if (conflicting) return conflicting;
      if (file === null) throw notAFile(id);
      return changedSince(id);
    }
    this.versions.observe(hkey, file?.bytes ?? null, file?.sha256 ?? null);
    if (outcome === 'conflict') return conflictOf(id, file?.sha256 ?? null, expected) ?? changedSince(id);
    this.versions.recordSave(hkey, file?.bytes ?? null, data);
    return { status: 'ok', sha256: sha256Hex(data), warnings: scanContent(content) };
  }

  /** memory_search's ranking over the readable files: a hit per matching line, best file first. */
  async search(workspaceId: string | null, query: string, limit: number): Promise<AgentFileHit[]> {
    return searchAgentFiles(await this.readable(workspaceId), query, limit, this.now());
  }

  /** A file, its lines or a text selected in it, into `scope` as inbox candidates (adopt.ts). */
  async adopt(workspaceId: string | null, request: AdoptRequest): Promise<AdoptResult> {
    const bases = await this.bases(workspaceId);
    const file = await this.located(bases, request.id);
    const session = await this.options.registry.session(workspaceId);
    // The cwd the inbox finds the session by: a local checkout's; an SSH workspace's is found by its id.
    const cwd = bases.checkout && !isRemote(bases.checkout) ? bases.checkout.real : null;
    return adoptFile(file, request.scope, { lines: request.lines, text: request.text }, { inbox: this.options.inbox, session, cwd });
  }

  /** What the files (agent files' ids, /memories/... paths) state differently, side by side (compare.ts). */
  async compare(workspaceId: string | null, ids: readonly string[]): Promise<CompareResult> {
    if (new Set(ids).size !== ids.length || ids.length < 2) throw new AgentFilesError('Choose two or more different files to compare.');
    const bases = await this.bases(workspaceId);
    const session = ids.some((id) => id.startsWith('/memories/')) ? await this.options.registry.session(workspaceId) : null;
    const sides: CompareSide[] = [];
    for (const id of ids) {
      if (id.startsWith('/memories/')) {
        const { content } = await this.options.service.read(id, session!);
        sides.push({ id, label: `Cairn memory · ${id}`, content });
      } else {
        const file = await this.located(bases, id);
        sides.push({ id, label: `${AGENT_NAMES[file.entry.agent]} · ${id}`, content: file.inspected.content! });
      }
    }
    return compareSides(sides);
  }

  /** A readable file by its id, or a refusal saying why not. */
  private async located(bases: Bases, id: string): Promise<Located> {
    const { entry, base, rel } = resolveId(bases, id);
    const inspected = await inspectAt(base, rel);
    if (!inspected) throw new AgentFilesError(`${id} does not exist.`);
    if (inspected.content === null) throw new AgentFilesError(`${id} cannot be opened: ${inspected.unreadable ?? 'it cannot be read.'}`);
    return { id, entry, base, rel, inspected };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The recorded edits of one file, newest first. */
  async history(workspaceId: string | null, id: string, limit: number): Promise<AgentFileVersion[]> {
    const bases = await this.bases(workspaceId);
    const { base, rel } = resolveId(bases, id);
    const key = historyKey(base.place, rel, bases.workspaceId);
    const now = await inspectAt(base, rel);
    if (!now?.unreadable) this.versions.observe(key, now?.bytes ?? null, now?.sha256 ?? null);
    return this.versions.list(key, limit);
  }
}

/** Why a save could not be made, for a person (never a host path). */
function saveFailure(err: RuntimeError, base: AnyBase): string {
  switch (err.code) {
    case 'ESCAPE':
      return `a folder on its way is a symbolic link that leads outside ${where(base)} or into .git.`;
    case 'ENOTDIR':
      return 'a file is where one of its folders should be.';
    case 'EISDIR':
      return 'it is a folder.';
    case 'BUSY':
      return 'another save is taking too long; try again.';
    case 'UNSAFE_ROOT':
      return err.detail ?? 'Cairn could not take its lock.';
    default:
      return `the disk refused it (${err.errno ?? err.code}).`;
  }
}

/** The conflict of a save whose file now has other bytes than the person's edit was based on. */
function changedSince(id: string): Extract<WriteOutcome, { status: 'conflict' }> {
  return { status: 'conflict', kind: 'changed', message: `${id} was changed since you opened it.` };
}

/** Nothing Cairn can read is at the name, yet it is taken: a link that leads nowhere. */
function notAFile(id: string): AgentFilesError {
  return new AgentFilesError(`${id} cannot be saved: something that is not a file (such as a symbolic link that leads nowhere) is at its name.`);
}

/** The conflict of a save based on `expected` (null: a new file) with the file's digest now, or null. */
function conflictOf(id: string, now: string | null, expected: string | null): Extract<WriteOutcome, { status: 'conflict' }> | null {
  if (expected === null && now !== null) return { status: 'conflict', kind: 'exists', message: `${id} already exists; open it to edit it.` };
  if (expected !== null && now === null) return { status: 'conflict', kind: 'deleted', message: `${id} was deleted since you opened it.` };
  if (expected !== null && now !== expected) return changedSince(id);
  return null;
}
