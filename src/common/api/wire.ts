/**
 * How the API's one big answer travels: `memory.list`, thousands of files with the same eleven
 * keys each, goes column by column (paths, descriptions, sizes; usage and flags only for the files
 * where they are not the defaults) inside one JSON string. A 3000-file list is then about half the
 * bytes, and oRPC's serializer, which visits every value of an answer, sees one string instead of
 * some 35,000 values; the UI parses it natively in one go.
 *
 * Registered as an oRPC custom JSON serializer on every RPC handler and link (Electron's
 * MessagePort, web mode's WebSocket and HTTP): callers only ever see the contract's own shape.
 * Anything that does not look exactly like a list passes through untouched; a malformed column
 * set from the wire is refused, never half-read.
 *
 * A list read again while nothing changed (the UI asks again once the server watches the roots,
 * and after each burst of changes) comes as the same text: decoding it returns the object decoded
 * before, found by one string comparison, so the UI's cache sees its own data again and compares
 * no files. Decoded lists are therefore shared and read-only (the UI copies what it changes).
 */
import type { z } from 'zod';
import { ACTORS, SCOPES } from '../memory/constants';
import type { memoryFileSchema, scanFlagSchema, scopeStatusSchema } from './contract';

type MemoryFile = z.infer<typeof memoryFileSchema>;
type ScanFlag = z.infer<typeof scanFlagSchema>;
type ScopeStatus = z.infer<typeof scopeStatusSchema>;

export interface MemoryListOutput {
  files: MemoryFile[];
  scopes: ScopeStatus[];
}

/** oRPC's id for this encoding in an answer's meta (built-in types use 0-7). */
export const MEMORY_LIST_WIRE_TYPE = 64;

/** Usage of file `index` when it is not the default: pinned, uses, last used, last written, by whom. */
type UsageColumn = [index: number, pinned: 0 | 1, accessCount: number, lastAccessedAt: string | null, lastWriteAt: string | null, lastWriteBy: number | null];

interface ListColumns {
  v: 1;
  /** Index into SCOPES. */
  scope: number[];
  path: string[];
  description: (string | null)[];
  size: number[];
  usage: UsageColumn[];
  flags: [index: number, flags: ScanFlag[]][];
  scopes: ScopeStatus[];
}

const FILE_KEYS = ['scope', 'path', 'description', 'size', 'pinned', 'accessCount', 'lastAccessedAt', 'lastWriteAt', 'lastWriteBy', 'flags'];

/** Cheap, and exact: the serializer asks this of every value of every answer. */
function isMemoryList(data: unknown): data is MemoryListOutput {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  const d = data as Record<string, unknown>;
  if (!Array.isArray(d.files) || !Array.isArray(d.scopes)) return false;
  const keys = Object.keys(d);
  if (keys.length !== 2) return false;
  const first = d.files[0] as Record<string, unknown> | undefined;
  return first === undefined || (typeof first === 'object' && first !== null && FILE_KEYS.every((k) => k in first));
}

export function encodeMemoryList(list: MemoryListOutput): string {
  const n = list.files.length;
  const cols: ListColumns = { v: 1, scope: new Array<number>(n), path: new Array<string>(n), description: new Array<string | null>(n), size: new Array<number>(n), usage: [], flags: [], scopes: list.scopes };
  for (let i = 0; i < n; i++) {
    const f = list.files[i]!;
    cols.scope[i] = SCOPES.indexOf(f.scope);
    cols.path[i] = f.path;
    cols.description[i] = f.description;
    cols.size[i] = f.size;
    if (f.pinned || f.accessCount !== 0 || f.lastAccessedAt !== null || f.lastWriteAt !== null || f.lastWriteBy !== null) {
      cols.usage.push([i, f.pinned ? 1 : 0, f.accessCount, f.lastAccessedAt, f.lastWriteAt, f.lastWriteBy === null ? null : ACTORS.indexOf(f.lastWriteBy)]);
    }
    if (f.flags.length > 0) cols.flags.push([i, f.flags]);
  }
  return JSON.stringify(cols);
}

class WireError extends Error {
  override readonly name = 'WireError';
}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new WireError(`Malformed memory list from the server: ${what}.`);
}

/** The flags of every file the scanners flag nothing in (decoded lists are read-only). */
const NO_FLAGS = Object.freeze([]) as unknown as ScanFlag[];

const isIndex = (x: unknown, n: number): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) < n;

/** The last lists decoded, with their wire text, newest first (a view's list and another's). */
const recentlyDecoded: { wire: string; list: MemoryListOutput }[] = [];
const RECENTLY_DECODED_MAX = 3;

export function decodeMemoryList(wire: unknown): MemoryListOutput {
  check(typeof wire === 'string', 'not a string');
  const known = recentlyDecoded.find((d) => d.wire === wire);
  if (known) return known.list;
  const list = decodeColumns(wire);
  recentlyDecoded.unshift({ wire, list });
  if (recentlyDecoded.length > RECENTLY_DECODED_MAX) recentlyDecoded.pop();
  return list;
}

function decodeColumns(wire: string): MemoryListOutput {
  const cols = JSON.parse(wire) as ListColumns;
  check(typeof cols === 'object' && cols !== null && cols.v === 1, 'unknown version');
  const n = Array.isArray(cols.path) ? cols.path.length : -1;
  check(n >= 0 && [cols.scope, cols.description, cols.size].every((c) => Array.isArray(c) && c.length === n), 'columns of different lengths');
  check(Array.isArray(cols.usage) && Array.isArray(cols.flags) && Array.isArray(cols.scopes), 'missing columns');
  const files = new Array<MemoryFile>(n);
  // The page waits for this loop over every file: nothing in it is built for a file that is well
  // formed (the error's text only for one that is not), and files without flags share one empty list.
  const { scope: scopeColumn, path: pathColumn, description: descriptionColumn, size: sizeColumn } = cols;
  for (let i = 0; i < n; i++) {
    const scope = SCOPES[scopeColumn[i]!];
    const path = pathColumn[i];
    const size = sizeColumn[i];
    if (scope === undefined || typeof path !== 'string' || typeof size !== 'number') check(false, `file ${i}`);
    files[i] = { scope, path, description: descriptionColumn[i] ?? null, size, pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null, lastWriteBy: null, flags: NO_FLAGS };
  }
  for (const u of cols.usage) {
    check(Array.isArray(u) && isIndex(u[0], n), 'usage row');
    const f = files[u[0]]!;
    f.pinned = u[1] === 1;
    f.accessCount = u[2];
    f.lastAccessedAt = u[3];
    f.lastWriteAt = u[4];
    f.lastWriteBy = u[5] === null ? null : (ACTORS[u[5]] ?? null);
  }
  for (const fl of cols.flags) {
    check(Array.isArray(fl) && isIndex(fl[0], n) && Array.isArray(fl[1]), 'flags row');
    files[fl[0]]!.flags = fl[1];
  }
  return { files, scopes: cols.scopes };
}

/** The custom serializers every RPC handler and link of the API registers (see the header). */
export const apiJsonSerializers = [
  {
    type: MEMORY_LIST_WIRE_TYPE,
    condition: isMemoryList,
    serialize: (list: MemoryListOutput) => encodeMemoryList(list),
    deserialize: (wire: unknown) => decodeMemoryList(wire),
  },
] as const;
