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
 * - Written whole (a temp file in the same directory, then a rename): a reader sees an old cache or
 *   a new one, never a mix. Two processes saving at once each rename a complete file; the last wins.
 *   A temp file left by a killed process is removed by a later save once it is a minute old.
 * - Whatever is read is checked (the magic line with the format number, the build's fingerprint,
 *   the root it belongs to, every entry's shape, the lengths adding up to the bytes there, UTF-8):
 *   a missing, truncated, corrupt or foreign cache reads as empty, so the builder reads the files
 *   and computes exactly what a fresh build does. Deleting the directory is always safe.
 *
 * File layout: the magic line with the format and the three regions' lengths; the header (JSON:
 * the root, the fingerprint, one array per file); every file's words as one UTF-8 region; the heads'
 * bytes one after the other. A load reads the header and the words; a head is read (from the file
 * as it was loaded, through the descriptor kept open for that) only when an excerpt or a search
 * needs it: most calls need ten heads of thousands, and reading them all cost more than the rest.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INDEX_HEAD_BYTES } from '../../common/memory/constants';
import type { ScanFlag } from './context-builder';
import type { FieldWords } from './relevance-index';
import { SCANNER_RULE_IDS } from './scanners/content-scanner';

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
  /** The first INDEX_HEAD_BYTES of the file, as read (from the cache, read when first asked). */
  head(): Uint8Array;
}

/** Facts by the file's path inside its root (segments joined by '/'). */
export type RootFacts = ReadonlyMap<string, FileFacts>;

/** Bump when what a fact means or how it is computed changes (old caches are then rebuilt). */
const FORMAT = 1;
const MAGIC = `cairn-context-facts ${FORMAT} `;
/** The magic line: the magic, then the header's, the words' and the heads' lengths in bytes. */
const MAGIC_LINE = new RegExp(`^${MAGIC}(\\d{1,12}) (\\d{1,12}) (\\d{1,12})\n`);
const MAGIC_LINE_MAX = MAGIC.length + 3 * 13;
const FIELDS = 3;

/** Closes the descriptor a loaded cache's heads are read through once no fact needs it. */
const openFiles = new FinalizationRegistry<number>((fd) => fs.close(fd, () => {}));

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * What the facts were computed by: the format, the head size, the scanners' rules and this build
 * of Cairn (the size and mtime of the module's own file, which every build rewrites), so a cache
 * written by another version, whose scanners or tokenizer may judge differently, is not used.
 */
function buildFingerprint(): string {
  let build = 'unknown';
  try {
    const st = fs.statSync(fileURLToPath(import.meta.url));
    build = `${st.size}:${st.mtimeMs}`;
  } catch {
    // Not a file (bundled elsewhere): the format and the rules still tell versions apart.
  }
  return createHash('sha256').update(`${FORMAT}\0${INDEX_HEAD_BYTES}\0${SCANNER_RULE_IDS.join(',')}\0${build}`).digest('hex').slice(0, 32);
}

let fingerprint: string | undefined;

/** One entry of the header: see toEntry. */
type Entry = [rel: string, version: string, description: string | null, nameFlags: FlagTuple[], headFlags: FlagTuple[], headBytes: number, wordChars: number[], lengths: number[]];
type FlagTuple = [kind: ScanFlag['kind'], rule: string, line: number];

interface Header {
  readonly root: string;
  readonly fingerprint: string;
  readonly files: Entry[];
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

  /** Removes temp files of saves that never finished (their process was killed). */
  private async removeLeftovers(): Promise<void> {
    const now = Date.now();
    for (const name of await fs.promises.readdir(this.dir)) {
      if (!name.endsWith('.tmp')) continue;
      const temp = path.join(this.dir, name);
      const st = await fs.promises.lstat(temp).catch(() => null);
      if (st && now - st.mtimeMs > LEFTOVER_MS) await fs.promises.rm(temp, { force: true });
    }
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
    const file = this.fileOf(label, rootPath);
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
      await fs.promises.writeFile(temp, serialize(facts, rootKey(label, rootPath)), { mode: 0o600, flag: 'wx' });
      await fs.promises.rename(temp, file);
      await this.removeLeftovers();
      return null;
    } catch (err) {
      await fs.promises.rm(temp, { force: true }).catch(() => {});
      return err as Error;
    }
  }
}

/** A temp file this old was left by a process that died before its rename: removed. */
const LEFTOVER_MS = 60_000;

function rootKey(label: string, rootPath: string): string {
  return `${label}\0${rootPath}`;
}

function serialize(facts: RootFacts, root: string): Buffer {
  const files: Entry[] = [];
  const heads: Uint8Array[] = [];
  let headTotal = 0;
  let words = '';
  for (const [rel, f] of facts) {
    const head = f.head();
    files.push([rel, f.version, f.description, f.nameFlags.map(toTuple), f.headFlags.map(toTuple), head.length, f.words.text.map((t) => t.length), [...f.words.lengths]]);
    heads.push(head);
    headTotal += head.length;
    words += f.words.text.join('');
  }
  const wordBytes = Buffer.from(words, 'utf8');
  const header = Buffer.from(JSON.stringify({ root, fingerprint: (fingerprint ??= buildFingerprint()), files } satisfies Header), 'utf8');
  return Buffer.concat([Buffer.from(`${MAGIC}${header.length} ${wordBytes.length} ${headTotal}\n`, 'latin1'), header, wordBytes, ...heads]);
}

function toTuple(flag: ScanFlag): FlagTuple {
  return [flag.kind, flag.rule, flag.line];
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
  const [headerBytes, wordBytes, headBytes] = [Number(line[1]), Number(line[2]), Number(line[3])];
  const start = line[0].length;
  if (size !== start + headerBytes + wordBytes + headBytes) return null;
  const data = Buffer.allocUnsafe(headerBytes + wordBytes);
  if (fs.readSync(fd, data, 0, data.length, start) !== data.length) return null;
  const header = JSON.parse(strictUtf8.decode(data.subarray(0, headerBytes))) as Partial<Header>;
  if (header.root !== root || header.fingerprint !== (fingerprint ??= buildFingerprint()) || !Array.isArray(header.files)) return null;
  const wordText = strictUtf8.decode(data.subarray(headerBytes));
  const heads = new HeadReader(fd);
  const out = new Map<string, FileFacts>();
  let headAt = start + headerBytes + wordBytes;
  let wordAt = 0;
  for (const entry of header.files as unknown[]) {
    if (!isEntry(entry)) return null;
    const [rel, version, description, nameFlags, headFlags, length, wordChars, lengths] = entry;
    const text = wordChars.map((n) => wordText.slice(wordAt, (wordAt += n)));
    const at = headAt;
    headAt += length;
    out.set(rel, { version, description, nameFlags: flagsOf(nameFlags), headFlags: flagsOf(headFlags), words: { text, lengths }, head: () => heads.read(at, length) });
  }
  if (headAt !== size || wordAt !== wordText.length) return null;
  openFiles.register(heads, fd);
  return out;
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

function fromTuple([kind, rule, line]: FlagTuple): ScanFlag {
  return { kind, rule, line };
}

/** No flags (most files): one shared array, not one per file. */
const NO_FLAGS: readonly ScanFlag[] = Object.freeze([]);

function flagsOf(tuples: readonly FlagTuple[]): readonly ScanFlag[] {
  return tuples.length === 0 ? NO_FLAGS : tuples.map(fromTuple);
}

function isCount(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}

function isFlag(x: unknown): x is FlagTuple {
  return Array.isArray(x) && x.length === 3 && (x[0] === 'secret' || x[0] === 'injection') && typeof x[1] === 'string' && isCount(x[2]);
}

function isEntry(x: unknown): x is Entry {
  if (!Array.isArray(x) || x.length !== 8) return false;
  const [rel, version, description, nameFlags, headFlags, headBytes, wordChars, lengths] = x as unknown[];
  return (
    typeof rel === 'string' &&
    typeof version === 'string' &&
    (description === null || typeof description === 'string') &&
    Array.isArray(nameFlags) &&
    nameFlags.every(isFlag) &&
    Array.isArray(headFlags) &&
    headFlags.every(isFlag) &&
    isCount(headBytes) &&
    headBytes <= INDEX_HEAD_BYTES &&
    Array.isArray(wordChars) &&
    wordChars.length === FIELDS &&
    wordChars.every(isCount) &&
    Array.isArray(lengths) &&
    lengths.length === FIELDS &&
    lengths.every(isCount)
  );
}
