/**
 * The memory files of a session's scope roots, read whole, for an export (memory-tar.ts) and for
 * an import's comparisons (the lines an entry must not repeat; the files a tar's files are compared
 * with). Listing and reading go through the scope's Runtime, so the envelope's rules hold: names
 * that break the path rules are not listed, links never lead out of the root, the first
 * MAX_FILES_PER_SCOPE files by name, each at most MAX_FILE_BYTES.
 *
 * Invariant: only what the Runtime lists and reads as valid UTF-8 is returned; anything else is
 * counted in `skipped` with its virtual path, never read with replacement characters.
 */
import { MAX_FILE_BYTES, MAX_FILES_PER_SCOPE, type Scope } from '../../common/memory/constants';
import { formatMemoryPath } from '../../common/memory/paths';
import type { MemorySession } from '../memory/session';

/** A memory file read whole (a tar's file too: `path` is then where it would be here). */
export interface MemoryFile {
  readonly scope: Scope;
  /** Segments below the scope root. */
  readonly rel: readonly string[];
  /** The virtual path, /memories/<scope>/... */
  readonly path: string;
  readonly data: Uint8Array;
  readonly text: string;
}

export interface ScopeFiles {
  readonly files: MemoryFile[];
  /** Virtual paths listed but not read: too large, unreadable, not UTF-8. */
  readonly skipped: string[];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Every file of one scope of the session, sorted by path; empty when the scope is unavailable or empty. */
export async function scopeFiles(session: MemorySession, scope: Scope): Promise<ScopeFiles> {
  const b = session.scopes[scope];
  if (!b.available) return { files: [], skipped: [] };
  const listed = (await b.runtime.list(b.root, [], { depth: Number.POSITIVE_INFINITY, limit: MAX_FILES_PER_SCOPE, filesOnly: true })) ?? [];
  const readable = listed.filter((e) => e.size <= MAX_FILE_BYTES);
  const skipped = listed.filter((e) => e.size > MAX_FILE_BYTES).map((e) => formatMemoryPath(scope, e.rel));
  const heads = await b.runtime.readHeads(b.root, readable.map((e) => e.rel), MAX_FILE_BYTES);
  const files: MemoryFile[] = [];
  readable.forEach((e, i) => {
    const head = heads[i];
    const path = formatMemoryPath(scope, e.rel);
    if (!head || head.data.length > MAX_FILE_BYTES) return void skipped.push(path);
    try {
      files.push({ scope, rel: e.rel, path, data: head.data, text: strictUtf8.decode(head.data) });
    } catch {
      skipped.push(path);
    }
  });
  files.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return { files, skipped: skipped.sort() };
}

/** Every line of every memory file the session sees (what an imported entry must not repeat). */
export async function allMemoryLines(session: MemorySession, scopes: readonly Scope[]): Promise<string[]> {
  const lines: string[] = [];
  for (const scope of scopes) for (const f of (await scopeFiles(session, scope)).files) lines.push(...f.text.split('\n'));
  return lines;
}
