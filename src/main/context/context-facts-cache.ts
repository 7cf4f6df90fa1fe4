/**
 * The context's per-file facts kept between processes (docs/architecture.md, "What is kept between
 * calls"): for each file of a scope root, what ContextBuilder learned from one version of it (its
 * description as the index shows it, the scanners' verdicts on its names and head, its words for
 * ranking, its head's bytes for excerpts), so that `cairn context` (every prompt) and `cairn mcp`
 * (every session's start) read only the files that changed since any process last looked.
 *
 * One file per scope root, `<home>/cache/context-facts/<hash of the runtime's label and the root's
 * path>`, mode 0600 in a 0700 directory: it holds memory text, and under the home it is the
 * person's own whatever the scope root's permissions are.
 *
 * Invariants:
 * - A fact is kept under its file's version (ListedEntry.version: device, inode, size, mtime and
 *   ctime, given only once the file has settled), and only used while the listing gives that same
 *   version; a file without a version is never kept.
 * - Written whole (runtime/local/atomic-write.ts: a temp file in the same directory, fsync, rename):
 *   a reader sees an old cache or a new one, never a mix. Two processes saving at once each rename
 *   a complete file; the last wins. A temp file left by a killed process is removed by a later save.
 * - Whatever is read is checked (the magic line with the format number, the build's fingerprint,
 *   the root it belongs to, every column's shape and length, the lengths adding up to the bytes
 *   there, UTF-8):
 *   a missing, truncated, corrupt or foreign cache reads as empty, so the builder reads the files
 *   and computes exactly what a fresh build does. Deleting the directory is always safe.
 *
 * File layout: the magic line with the format and the four regions' lengths; the header (JSON:
 * the root, the fingerprint, the words' fields' lengths, then one column per fact, with no array
 * per file: Header); the words, as one UTF-8 region laid out as a ranking searches them
 * (relevance-index.ts, WordTable: per field, the files' words apart by newlines), so a load
 * slices and joins nothing per file; the versions, one after the other as UTF-16 (a local version
 * is binary text, which JSON would mostly escape); the heads' bytes one after the other. A load
 * reads the header, the words and the versions; a head is read (from the file as it was loaded,
 * through the descriptor kept open for that) only when an excerpt or a search needs it: most
 * calls need ten heads of thousands, and reading them all cost more than the rest.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INDEX_HEAD_BYTES } from '../../common/memory/constants';
import { writeOwnFile } from '../runtime/local/atomic-write';
import type { ScanFlag } from './context-builder';
import { WORD_FIELDS, wordTableOf, wordsIn, type FieldWords, type WordTable, type WordsInTable } from './relevance-index';

/** What ContextBuilder keeps of one version of a file. */
export interface FileFacts {
  /** The file's version (ListedEntry.version) these facts are of. */
  readonly version: string;
  /** The description as the index shows it (withheld when the scanners flag it), or null. */
  readonly description: string | null;
  /** What the scanners flag in the path's names (line 0) and in the head as agents are shown it. */
  readonly nameFlags: readonly ScanFlag[];
  readonly headFlags: readonly ScanFlag[];
  /** The words of the path, the description and the head (relevance-index.ts, wordsOf). */
  readonly words: FieldWords;
  /** Where the words are in a loaded cache's table (what a ranking searches without joining). */
  readonly wordsAt?: WordsInTable;
  /** The first INDEX_HEAD_BYTES of the file, as read (from the cache, read when first asked). */
  head(): Uint8Array;
}

/** Facts by the file's path inside its root (segments joined by '/'). */
export type RootFacts = ReadonlyMap<string, FileFacts>;

/** Bump when what a fact means or how it is computed changes (old caches are then rebuilt). */
const FORMAT = 4;
const MAGIC = `cairn-context-facts ${FORMAT} `;
/** The magic line: the magic, then the header's, the words', the versions' and the heads' lengths in bytes. */
const MAGIC_LINE = new RegExp(`^${MAGIC}(\\d{1,12}) (\\d{1,12}) (\\d{1,12}) (\\d{1,12})\n`);
const MAGIC_LINE_MAX = MAGIC.length + 4 * 13;

/** Closes the descriptor a loaded cache's heads are read through once no fact needs it. */
const openFiles = new FinalizationRegistry<number>((fd) => fs.close(fd, () => {}));

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * What the facts were computed by: the format, the head size and this build of Cairn (the size
 * and mtime of the module's own file, which every build rewrites; the scanners and the tokenizer
 * are part of the build), so a cache written by another version, whose scanners or tokenizer may
 * judge differently, is not used. The scanners are not loaded for it: a call whose files are all
 * kept judges none.
 */
function buildFingerprint(): string {
  let build = 'unknown';
  try {
    const st = fs.statSync(fileURLToPath(import.meta.url));
    build = `${st.size}:${st.mtimeMs}`;
  } catch {
    // Not a file (bundled elsewhere): the format still tells versions apart.
  }
  return createHash('sha256').update(`${FORMAT}\0${INDEX_HEAD_BYTES}\0${build}`).digest('hex').slice(0, 32);
}

let fingerprint: string | undefined;

/** A flag of a file: [its index in the header, 0 for its names or 1 for its head, kind, rule, line]. */
type FlagRow = [file: number, where: 0 | 1, kind: ScanFlag['kind'], rule: string, line: number];

/**
 * The header: one column per fact, each file at the same index of every column (strings and
 * numbers, which JSON parses fastest; no array per file).
 */
interface Header {
  readonly root: string;
  readonly fingerprint: string;
  /** The characters of each field's text in the words region (WordTable.texts). */
  readonly fields: number[];
  readonly rels: string[];
  /** The UTF-16 units of each file's version in the versions region. */
  readonly versionLengths: number[];
  readonly descriptions: Array<string | null>;
  /** The bytes of each file's head in the heads region. */
  readonly heads: number[];
  /** Per file, WORD_FIELDS pairs: the characters of the field's words text, and its length (FieldWords.lengths). */
  readonly words: number[];
  /** The flags of the few files the scanners flag. */
  readonly flags: FlagRow[];
}

export class ContextFactsCache {
  private readonly dir: string;

  /** The cache of the home at `home` (nothing is touched until a root is loaded or saved). */
  constructor(home: string) {
    this.dir = path.join(home, 'cache', 'context-facts');
  }

  /** The cache file of a root, as `label` (the runtime's) reaches it. */
  fileOf(label: string, rootPath: string): string {
    return path.join(this.dir, createHash('sha256').update(rootKey(label, rootPath)).digest('hex').slice(0, 40));
  }

  /** The kept facts of a root; empty when there is no usable cache (missing, damaged, foreign). */
  load(label: string, rootPath: string): Map<string, FileFacts> {
    let fd: number;
    try {
      fd = fs.openSync(this.fileOf(label, rootPath), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return new Map();
    }
    let facts: Map<string, FileFacts> | null;
    try {
      facts = parse(fd, rootKey(label, rootPath));
    } catch {
      facts = null;
    }
    if (facts === null || facts.size === 0) fs.closeSync(fd);
    return facts ?? new Map();
  }

  /**
   * Replaces a root's cache with `facts` (best effort: a cache that cannot be written is only a
   * slower next call; the error is returned for the caller to log, never thrown).
   */
  async save(label: string, rootPath: string, facts: RootFacts): Promise<Error | null> {
    try {
      await writeOwnFile(this.fileOf(label, rootPath), serialize(facts, rootKey(label, rootPath)));
      return null;
    } catch (err) {
      return err as Error;
    }
  }
}

function rootKey(label: string, rootPath: string): string {
  return `${label}\0${rootPath}`;
}

function serialize(facts: RootFacts, root: string): Buffer {
  const rels: string[] = [];
  const versions: string[] = [];
  const versionLengths: number[] = [];
  const descriptions: Array<string | null> = [];
  const headBytes: number[] = [];
  const words: number[] = [];
  const flags: FlagRow[] = [];
  const heads: Uint8Array[] = [];
  let headTotal = 0;
  const allWords: FieldWords[] = [];
  for (const [rel, f] of facts) {
    const file = rels.length;
    const head = f.head();
    rels.push(rel);
    versions.push(f.version);
    versionLengths.push(f.version.length);
    descriptions.push(f.description);
    headBytes.push(head.length);
    const fileWords = f.words;
    allWords.push(fileWords);
    fileWords.text.forEach((text, field) => words.push(text.length, fileWords.lengths[field]!));
    for (const flag of f.nameFlags) flags.push([file, 0, flag.kind, flag.rule, flag.line]);
    for (const flag of f.headFlags) flags.push([file, 1, flag.kind, flag.rule, flag.line]);
    heads.push(head);
    headTotal += head.length;
  }
  // Laid out as a ranking searches them: what parse gives back as the cache's table.
  const fieldTexts = wordTableOf(allWords).texts;
  const wordBytes = Buffer.from(fieldTexts.join(''), 'utf8');
  // A local version is binary text (runtime/local/listing.ts versionOf): as JSON it would be
  // mostly escapes, which cost a load more than the rest of the header; as UTF-16 it is copied.
  const versionBytes = Buffer.from(versions.join(''), 'utf16le');
  const header: Header = { root, fingerprint: (fingerprint ??= buildFingerprint()), fields: fieldTexts.map((t) => t.length), rels, versionLengths, descriptions, heads: headBytes, words, flags };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  return Buffer.concat([Buffer.from(`${MAGIC}${headerBytes.length} ${wordBytes.length} ${versionBytes.length} ${headTotal}\n`, 'latin1'), headerBytes, wordBytes, versionBytes, ...heads]);
}

/**
 * The facts of the cache open at `fd`, or null when it is not a whole, valid cache of `root` by this
 * build. Heads are read through `fd` when asked (it stays open while a fact of it is kept).
 */
function parse(fd: number, root: string): Map<string, FileFacts> | null {
  const size = fs.fstatSync(fd).size;
  const first = Buffer.alloc(Math.min(size, MAGIC_LINE_MAX));
  const line = MAGIC_LINE.exec(first.toString('latin1', 0, fs.readSync(fd, first, 0, first.length, 0)));
  if (!line) return null;
  const [headerBytes, wordBytes, versionBytes, headBytes] = [Number(line[1]), Number(line[2]), Number(line[3]), Number(line[4])];
  const start = line[0].length;
  if (size !== start + headerBytes + wordBytes + versionBytes + headBytes || versionBytes % 2 !== 0) return null;
  const data = Buffer.allocUnsafe(headerBytes + wordBytes + versionBytes);
  if (fs.readSync(fd, data, 0, data.length, start) !== data.length) return null;
  const header = JSON.parse(strictUtf8.decode(data.subarray(0, headerBytes))) as unknown;
  if (!isHeader(header) || header.root !== root || header.fingerprint !== (fingerprint ??= buildFingerprint())) return null;
  const { fields, rels, versionLengths, descriptions, words, flags } = header;
  const wordText = strictUtf8.decode(data.subarray(headerBytes, headerBytes + wordBytes));
  const versionText = data.toString('utf16le', headerBytes + wordBytes);
  let versionsTotal = 0;
  for (const length of versionLengths) versionsTotal += length;
  if (versionsTotal !== versionText.length) return null;
  const texts: string[] = [];
  let textAt = 0;
  for (const chars of fields) texts.push(wordText.slice(textAt, (textAt += chars)));
  if (textAt !== wordText.length) return null;
  const count = rels.length;
  const starts = texts.map(() => new Int32Array(count));
  const table: WordTable = { texts, starts, lengths: new Int32Array(count * WORD_FIELDS) };
  // Per field, where the next file's words begin.
  const next = new Array<number>(WORD_FIELDS).fill(0);
  for (let index = 0, at = 0; index < count; index++) {
    for (let field = 0; field < WORD_FIELDS; field++, at += 2) {
      starts[field]![index] = next[field]!;
      next[field]! += words[at]! + 1;
      table.lengths[index * WORD_FIELDS + field] = words[at + 1]!;
    }
  }
  // Each field's text is its files' texts and the newlines between them, and nothing else.
  if (next.some((n, field) => n - (count > 0 ? 1 : 0) !== texts[field]!.length)) return null;
  for (let field = 0; field < WORD_FIELDS; field++) {
    const text = texts[field]!;
    const begin = starts[field]!;
    for (let index = 1; index < count; index++) if (text.charCodeAt(begin[index]! - 1) !== NEWLINE) return null;
  }
  const flagged = new Map<number, { names: ScanFlag[]; head: ScanFlag[] }>();
  for (const [file, where, kind, rule, line] of flags) {
    let both = flagged.get(file);
    if (!both) flagged.set(file, (both = { names: [], head: [] }));
    (where === 0 ? both.names : both.head).push({ kind, rule, line });
  }
  const reader = new HeadReader(fd);
  const out = new Map<string, FileFacts>();
  let headAt = start + headerBytes + wordBytes + versionBytes;
  let versionAt = 0;
  for (let index = 0; index < count; index++) {
    const length = header.heads[index]!;
    const both = flagged.get(index);
    const version = versionText.slice(versionAt, (versionAt += versionLengths[index]!));
    out.set(rels[index]!, new CachedFacts(version, descriptions[index]!, both?.names ?? NO_FLAGS, both?.head ?? NO_FLAGS, table, index, reader, headAt, length));
    headAt += length;
  }
  if (headAt !== size) return null;
  // The descriptor is closed when no fact needs it any more; an empty cache's is closed by load
  // at once (registering it too would close the same number twice, maybe another file's by then).
  if (out.size > 0) openFiles.register(reader, fd);
  return out;
}

/** The facts of one file of a loaded cache (its words where they are in the cache's table). */
class CachedFacts implements FileFacts, WordsInTable {
  constructor(
    readonly version: string,
    readonly description: string | null,
    readonly nameFlags: readonly ScanFlag[],
    readonly headFlags: readonly ScanFlag[],
    readonly table: WordTable,
    readonly index: number,
    private readonly reader: HeadReader,
    private readonly headAt: number,
    private readonly headLength: number,
  ) {}

  get wordsAt(): WordsInTable {
    return this;
  }

  get words(): FieldWords {
    return wordsIn(this);
  }

  head(): Uint8Array {
    return this.reader.read(this.headAt, this.headLength);
  }
}

/** Reads heads from a loaded cache file (a renamed-over file keeps its bytes while open). */
class HeadReader {
  constructor(private readonly fd: number) {}

  read(at: number, length: number): Uint8Array {
    const data = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = fs.readSync(this.fd, data, done, length - done, at + done);
      if (n === 0) break;
      done += n;
    }
    return data.subarray(0, done);
  }
}

const NEWLINE = 10;

/** No flags (most files): one shared array, not one per file. */
const NO_FLAGS: readonly ScanFlag[] = Object.freeze([]);

function isCount(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}

/** Whether every element of `xs` passes `test` (a loop: this runs for every file of every call). */
function all<T>(xs: readonly unknown[], test: (x: unknown) => x is T): xs is T[] {
  for (let i = 0; i < xs.length; i++) if (!test(xs[i])) return false;
  return true;
}

function isString(x: unknown): x is string {
  return typeof x === 'string';
}

function isDescription(x: unknown): x is string | null {
  return x === null || typeof x === 'string';
}

function isHeadBytes(x: unknown): x is number {
  return isCount(x) && x <= INDEX_HEAD_BYTES;
}

function isHeader(x: unknown): x is Header {
  if (typeof x !== 'object' || x === null) return false;
  const h = x as Record<keyof Header, unknown>;
  if (typeof h.root !== 'string' || typeof h.fingerprint !== 'string') return false;
  const { fields, rels, versionLengths, descriptions, heads, words, flags } = h;
  if (!Array.isArray(fields) || fields.length !== WORD_FIELDS || !all(fields, isCount)) return false;
  if (!Array.isArray(rels) || !all(rels, isString)) return false;
  const count = rels.length;
  if (!Array.isArray(versionLengths) || versionLengths.length !== count || !all(versionLengths, isCount)) return false;
  if (!Array.isArray(descriptions) || descriptions.length !== count || !all(descriptions, isDescription)) return false;
  if (!Array.isArray(heads) || heads.length !== count || !all(heads, isHeadBytes)) return false;
  if (!Array.isArray(words) || words.length !== count * WORD_FIELDS * 2 || !all(words, isCount)) return false;
  return Array.isArray(flags) && all(flags, (f): f is FlagRow => isFlagRow(f, count));
}

function isFlagRow(x: unknown, files: number): x is FlagRow {
  if (!Array.isArray(x) || x.length !== 5) return false;
  const [file, where, kind, rule, line] = x as unknown[];
  return isCount(file) && file < files && (where === 0 || where === 1) && (kind === 'secret' || kind === 'injection') && typeof rule === 'string' && isCount(line);
}
