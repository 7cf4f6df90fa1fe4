/**
 * Cairn's own memory as a tar: `cairn export` writes the memory files of a session's
 * scope roots, `cairn import --from cairn` reads such a tar back as held inbox changes.
 *
 * The archive: one regular-file entry per memory file, named `<scope>/<path below the root>`
 * (`global/...`, `project/...`, `workspace/...`), sorted by name, every entry with mode 0644, mtime
 * 0 (1970-01-01), uid and gid 0 and no owner names: the same memory always gives the same bytes,
 * whenever and wherever it is exported. Only memory: pins, usage, history and the inbox stay home.
 *
 * Reading is all or nothing: every entry is checked before anything is proposed, and an archive
 * with any entry that is not a plain file (a link, a device), a name that leaves its scope or
 * breaks the path rules (traversal, an absolute name, an unknown scope, a hidden or reserved
 * name), more than MAX_FILE_BYTES, bytes that are not UTF-8 text, or a name twice, is refused
 * whole, each such entry named with its reason; an entry's bytes are never read past the cap, nor
 * an archive past MAX_TAR_ENTRIES entries or MAX_TAR_BYTES of files.
 * A file the scanners flag (a secret, an injected instruction) is refused on its own, by rule.
 *
 * Invariant: nothing here writes memory. A file absent here becomes a held `change` item that
 * would create it; one that differs, a held change that would replace it (applied by a person's
 * approval only while the file is still as it was compared: inbox/inbox-review.ts); the same bytes are
 * "already present". Like an import of entries, one holds at most MAX_IMPORT_PROPOSALS changes and
 * no more than the inbox has room for; the files past either are left out, counted.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, MAX_IMPORT_PROPOSALS, SCOPES, type Scope } from '../../common/memory/constants';
import { scopeOwner } from '../../common/memory/identity';
import { formatMemoryPath, isListedName, parseMemoryPath } from '../../common/memory/paths';
import type { ChangeItem, ChangeSource, InboxStore } from '../inbox/inbox-store';
import type { ProposedChange } from '../memory/review-gate';
import { scanContent } from '../memory/scanners/content-scanner';
import type { MemorySession } from '../memory/session';
import { scopeFiles, type MemoryFile } from './memory-files';
import { findingWords, sessionCheckout } from './propose';

/** The most entries an archive may hold: every file of three full scopes. */
export const MAX_TAR_ENTRIES = SCOPES.length * MAX_FILES_PER_SCOPE;
/** The most memory (bytes of files) one import reads: far more than memory holds in practice. */
const MAX_TAR_BYTES = 128 * 1024 * 1024;
/** The fixed time of every entry (the epoch), so that an export is the same bytes each time. */
const FIXED_MTIME = new Date(0);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export interface ExportOutcome {
  readonly tar: Buffer;
  readonly files: number;
  /** Per scope asked for: why it was not exported (unavailable), if it was not. */
  readonly unavailable: ReadonlyArray<{ scope: Scope; reason: string }>;
  /** Virtual paths listed but left out: too large or not UTF-8. */
  readonly skipped: readonly string[];
}

/** The memory files of `scopes` in the session as a deterministic tar. */
export async function exportMemory(session: MemorySession, scopes: readonly Scope[]): Promise<ExportOutcome> {
  const unavailable: Array<{ scope: Scope; reason: string }> = [];
  const skipped: string[] = [];
  const entries: Array<{ name: string; data: Uint8Array }> = [];
  for (const scope of scopes) {
    const b = session.scopes[scope];
    if (!b.available) {
      unavailable.push({ scope, reason: b.reason });
      continue;
    }
    const read = await scopeFiles(session, scope);
    skipped.push(...read.skipped);
    for (const f of read.files) entries.push({ name: `${scope}/${f.rel.join('/')}`, data: f.data });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    pack.on('data', (c: unknown) => void chunks.push(c as Buffer));
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    pack.on('error', reject);
  });
  for (const e of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: e.name, size: e.data.length, mode: 0o644, mtime: FIXED_MTIME, type: 'file', uid: 0, gid: 0, uname: '', gname: '' }, Buffer.from(e.data), (err) => (err ? reject(err) : resolve())),
    );
  }
  pack.finalize();
  return { tar: await done, files: entries.length, unavailable, skipped };
}

/** An entry the archive is refused for: its name as shown (escaped), and why. */
export interface TarProblem {
  readonly entry: string;
  readonly reason: string;
}

/** An entry's name as shown: JSON-escaped, so no control character reaches a terminal. */
const shownName = (name: string): string => JSON.stringify(name);

/** Why an entry's name cannot be a memory path, or its scope and segments. */
function entryPath(name: string): { scope: Scope; rel: string[] } | string {
  const clean = name.replace(/^(\.\/)+/, '');
  if (clean.startsWith('/')) return 'its name is absolute; an archive of memory names files below global/, project/ or workspace/';
  const segments = clean.replace(/\/$/, '').split('/');
  if (segments.includes('..')) return 'its name climbs out of the archive (..): path traversal';
  const [first, ...rest] = segments;
  if (!(SCOPES as readonly string[]).includes(first ?? '')) return `its name does not start with a scope (${SCOPES.map((s) => `${s}/`).join(', ')})`;
  if (rest.length === 0) return 'it names a scope, not a file in it';
  try {
    parseMemoryPath(formatMemoryPath(first as Scope, rest));
  } catch (err) {
    return `its name breaks the path rules: ${(err as Error).message}`;
  }
  const hidden = rest.find((s) => !isListedName(s));
  if (hidden !== undefined) return 'it has a hidden or unlisted name, which memory never lists';
  return { scope: first as Scope, rel: rest };
}

/** Reads the whole body of an entry up to `max` bytes; past it, drains the rest and returns null. */
async function body(stream: AsyncIterable<unknown>, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  for await (const raw of stream) {
    const chunk = raw as Buffer;
    if (over) continue;
    size += chunk.length;
    if (size > max) {
      over = true;
      chunks.length = 0;
    } else chunks.push(chunk);
  }
  return over ? null : Buffer.concat(chunks);
}

/** Every entry of an archive, checked; `problems` non-empty means the archive is refused whole. */
export async function readMemoryTar(input: Readable): Promise<{ files: MemoryFile[]; problems: TarProblem[] }> {
  const files: MemoryFile[] = [];
  const problems: TarProblem[] = [];
  const names = new Set<string>();
  const extract = tar.extract();
  let count = 0;
  let total = 0;
  const reading = (async () => {
    for await (const entry of extract) {
      const h = entry.header;
      const shown = shownName(h.name);
      count++;
      if (count > MAX_TAR_ENTRIES) {
        problems.push({ entry: shown, reason: `the archive holds more than ${MAX_TAR_ENTRIES} entries, more than three full scopes; it is not read further` });
        entry.resume();
        input.unpipe(extract);
        input.destroy();
        break;
      }
      const problem = ((): string | null => {
        if (h.type === 'directory') return null;
        if (h.type === 'symlink' || h.type === 'link') return `it is a ${h.type === 'symlink' ? 'symbolic' : 'hard'} link; an archive of memory holds plain files only`;
        if (h.type !== 'file' && h.type !== 'contiguous-file') return `it is a ${h.type}, not a plain file`;
        return null;
      })();
      // A directory entry of a scope itself (global/), or of the archive's root (./), is fine.
      const bare = h.name.replace(/^(\.\/)+/, '').replace(/\/$/, '');
      const where = h.type === 'directory' && (bare === '' || bare === '.' || (SCOPES as readonly string[]).includes(bare)) ? null : entryPath(h.name);
      if (problem !== null || typeof where === 'string') {
        problems.push({ entry: shown, reason: problem ?? (where as string) });
        entry.resume();
        continue;
      }
      if (h.type === 'directory' || where === null) {
        entry.resume();
        continue;
      }
      const path = formatMemoryPath(where.scope, where.rel);
      if (names.has(path)) {
        problems.push({ entry: shown, reason: 'the archive holds this name twice' });
        entry.resume();
        continue;
      }
      names.add(path);
      if (h.size > MAX_FILE_BYTES) {
        problems.push({ entry: shown, reason: `it is ${h.size} bytes, more than the ${MAX_FILE_BYTES} a memory file may hold` });
        entry.resume();
        continue;
      }
      const data = await body(entry, MAX_FILE_BYTES);
      if (data === null) {
        problems.push({ entry: shown, reason: `it holds more than the ${MAX_FILE_BYTES} bytes a memory file may hold` });
        continue;
      }
      let text: string;
      try {
        text = strictUtf8.decode(data);
      } catch {
        problems.push({ entry: shown, reason: 'it is not valid UTF-8 text' });
        continue;
      }
      if (text.includes('\0')) {
        problems.push({ entry: shown, reason: 'it holds a NUL character; memory is text only' });
        continue;
      }
      total += data.length;
      if (total > MAX_TAR_BYTES) {
        problems.push({ entry: shown, reason: `the archive holds more than ${MAX_TAR_BYTES} bytes of memory, more than one import reads; it is not read further` });
        input.unpipe(extract);
        input.destroy();
        break;
      }
      files.push({ scope: where.scope, rel: where.rel, path, data: new Uint8Array(data), text });
    }
  })();
  input.on('error', (err) => extract.destroy(err));
  input.pipe(extract);
  try {
    await reading;
  } catch (err) {
    problems.push({ entry: '(the archive)', reason: `it is not a readable tar archive (${(err as Error).message})` });
  }
  if (count === 0 && problems.length === 0) problems.push({ entry: '(the archive)', reason: 'it is empty, or not a tar archive' });
  return { files, problems };
}

export interface TarFileOutcome {
  readonly path: string;
  readonly status: 'create' | 'update' | 'present' | 'in-inbox' | 'refused' | 'left-out';
  /** For `refused`: why (never the file's text); for `left-out`: which bound left it out (propose.ts's). */
  readonly reason?: string;
  /** The held change, for `create` and `update` (not in a dry run). */
  readonly item?: ChangeItem;
}

/** Whether a pending change in the inbox already proposes exactly this. */
function samePending(items: readonly ChangeItem[], path: string, after: string, beforeSha256: string | null): boolean {
  return items.some((i) => i.status === 'pending' && i.change.path === path && i.change.after === after && i.change.beforeSha256 === beforeSha256 && i.change.newPath === null);
}

/**
 * Compares each file of a checked archive with memory here and holds a change in the inbox for
 * each one absent or different. The archive's scopes must all be available (checked by the caller).
 */
export async function proposeTarFiles(files: readonly MemoryFile[], session: MemorySession, inbox: InboxStore, options: { dryRun?: boolean } = {}): Promise<TarFileOutcome[]> {
  const here = new Map<string, { data: Uint8Array; text: string } | 'unreadable'>();
  for (const scope of new Set(files.map((f) => f.scope))) {
    const read = await scopeFiles(session, scope);
    for (const f of read.files) here.set(f.path, f);
    for (const p of read.skipped) here.set(p, 'unreadable');
  }
  const pending = inbox.list('pending').filter((i): i is ChangeItem => i.kind === 'change');
  const cwd = sessionCheckout(session);
  const outcomes: TarFileOutcome[] = [];
  // As an import of entries: at most MAX_IMPORT_PROPOSALS held, and no more than the inbox has room for.
  const room = inbox.room();
  let held = 0;
  /** The changes to hold, made into items at the end in one add. */
  const toAdd: Array<{ at: number; change: ProposedChange; source: ChangeSource }> = [];
  for (const f of files) {
    if (held >= MAX_IMPORT_PROPOSALS || held >= room) {
      outcomes.push({ path: f.path, status: 'left-out', reason: held >= MAX_IMPORT_PROPOSALS ? 'import-cap' : 'inbox-full' });
      continue;
    }
    const current = here.get(f.path);
    if (current === 'unreadable') {
      outcomes.push({ path: f.path, status: 'refused', reason: 'the file here is too large or not UTF-8, so it cannot be compared; look at both by hand' });
      continue;
    }
    if (current && Buffer.compare(Buffer.from(current.data), Buffer.from(f.data)) === 0) {
      outcomes.push({ path: f.path, status: 'present' });
      continue;
    }
    const finding = scanContent(f.text)[0];
    if (finding) {
      outcomes.push({ path: f.path, status: 'refused', reason: `the scanners find ${findingWords(finding)} on its line ${finding.line}` });
      continue;
    }
    const beforeSha256 = current ? sha256(current.data) : null;
    if (samePending(pending, f.path, f.text, beforeSha256)) {
      outcomes.push({ path: f.path, status: 'in-inbox' });
      continue;
    }
    const status = current ? 'update' : 'create';
    held++;
    if (!options.dryRun) {
      toAdd.push({
        at: outcomes.length,
        change: { command: current ? 'str_replace' : 'create', scope: f.scope, path: f.path, newPath: null, before: current ? current.text : null, beforeSha256, after: f.text },
        source: { workspaceId: session.workspaceId, projectId: session.projectId, owner: scopeOwner(f.scope, session) ?? f.scope, cwd },
      });
    }
    outcomes.push({ path: f.path, status });
  }
  const items = inbox.addChanges(toAdd);
  toAdd.forEach(({ at }, i) => {
    const o = outcomes[at]!;
    // The inbox took fewer than it had room for: another process filled it meanwhile.
    outcomes[at] = items[i] ? { ...o, item: items[i] } : { path: o.path, status: 'left-out', reason: 'inbox-full' };
  });
  return outcomes;
}
