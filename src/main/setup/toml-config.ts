/**
 * Cairn's `[mcp_servers.cairn]` table in Codex's config.toml, edited as text: the table is appended
 * (after a blank line), replaced where it stands, or cut out, and every other line stays byte for
 * byte (comments, blank lines, key order, line endings). Each edit is parsed back and must equal
 * the old configuration with only Cairn's entry changed. The file is never re-serialized: where
 * such an edit cannot be made (`mcp_servers` written as an inline table, Cairn's entry as an inline
 * table inside another value, a value over several lines under dotted keys), the file is left as it
 * is and the person is told what to do.
 */
import { parse, stringify, TomlError } from 'smol-toml';
import { SetupError } from './config-file';
import { isCairnServer, type McpServerEntry, type TextEdit } from './json-config';

export type TomlTable = Record<string, unknown>;

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function parseTomlConfig(text: string | null, file: string): TomlTable {
  if (text === null) return {};
  try {
    return parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    if (err instanceof TomlError) {
      const detail = err.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw new SetupError(`${file} is not valid TOML: line ${err.line}, column ${err.column}: ${detail}. Fix it (or move it away) and run this again; it was left untouched.`);
    }
    throw new SetupError(`${file} is not valid TOML (${(err as Error).message}); fix it (or move it away) and run this again. It was left untouched.`);
  }
}

/** The TOML Cairn adds: `[mcp_servers.<name>]` with command, args, Codex's own keys, and env. */
export function codexSnippet(name: string, entry: McpServerEntry & TomlTable): string {
  return stringify({ mcp_servers: { [name]: entry } });
}

/** A comparable form: keys sorted, dates as their text. */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (Array.isArray(value)) return value.map(canonical);
  if (isTable(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
  return value;
}

const sameToml = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** The dotted key at `inner[i]`, up to where it stops (what follows is the caller's). */
function readKeys(inner: string, from: number): { keys: string[]; next: number } | null {
  const keys: string[] = [];
  let i = from;
  for (;;) {
    while (inner[i] === ' ' || inner[i] === '\t') i++;
    let key: string;
    if (inner[i] === '"') {
      let stop = i + 1;
      while (stop < inner.length && inner[stop] !== '"') stop += inner[stop] === '\\' ? 2 : 1;
      try {
        key = JSON.parse(inner.slice(i, stop + 1)) as string;
      } catch {
        return null;
      }
      i = stop + 1;
    } else if (inner[i] === "'") {
      const stop = inner.indexOf("'", i + 1);
      if (stop === -1) return null;
      key = inner.slice(i + 1, stop);
      i = stop + 1;
    } else {
      const bare = /^[A-Za-z0-9_-]+/.exec(inner.slice(i));
      if (!bare) return null;
      key = bare[0];
      i += key.length;
    }
    keys.push(key);
    while (inner[i] === ' ' || inner[i] === '\t') i++;
    if (inner[i] !== '.') return { keys, next: i };
    i++;
  }
}

/** The dotted key of a `[table]` or `[[array]]` header line, or null for any other line. */
export function headerKey(line: string): string[] | null {
  const match = /^\s*\[\[?(.*?)\]\]?\s*(?:#.*)?$/.exec(line);
  if (!match) return null;
  const read = readKeys(match[1]!, 0);
  return read && read.next >= match[1]!.length ? read.keys : null;
}

/** The key a `key = value` line sets, relative to its table, or null for any other line. */
function assignedKey(line: string): string[] | null {
  const read = readKeys(line, 0);
  return read && line[read.next] === '=' ? read.keys : null;
}

const isBlank = (line: string) => line.trim() === '';
const isCommentOrBlank = (line: string) => /^\s*(#.*)?$/.test(line);

/**
 * The line ranges [start, end) holding Cairn's entry `mcp_servers.<name>`: its tables (`[mcp_servers.
 * <name>]`, `[mcp_servers.<name>.env]`), each without the comments and blank lines that end it (those
 * are the next table's, or the end of the file's), and the lines that set it by dotted keys.
 */
function cairnRanges(lines: readonly string[], name: string): { tables: Array<[number, number]>; keyLines: number[] } {
  const ours = (keys: string[]) => keys[0] === 'mcp_servers' && keys[1] === name;
  const tables: Array<[number, number]> = [];
  const keyLines: number[] = [];
  let table: string[] = [];
  let start = -1;
  const close = (at: number) => {
    let stop = at;
    while (stop > start + 1 && isCommentOrBlank(lines[stop - 1]!)) stop--;
    tables.push([start, stop]);
    start = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    const header = headerKey(lines[i]!);
    if (header) {
      if (start !== -1) close(i);
      table = header;
      if (ours(header)) start = i;
      continue;
    }
    if (start !== -1) continue;
    const key = assignedKey(lines[i]!);
    if (key && ours([...table, ...key])) keyLines.push(i);
  }
  if (start !== -1) close(lines.length);
  return { tables, keyLines };
}

/**
 * The lines with each range cut out, or replaced by `put` for the first one when given. A range cut
 * out between blank lines (or a blank line and the end) takes the one before it along: it was the
 * separator an append put there.
 */
function cut(lines: readonly string[], ranges: ReadonlyArray<[number, number]>, put?: readonly string[]): string[] {
  const out = [...lines];
  const first = Math.min(...ranges.map(([s]) => s));
  for (const [s, e] of [...ranges].sort((a, b) => b[0] - a[0])) {
    if (put && s === first) {
      out.splice(s, e - s, ...put);
      continue;
    }
    const from = s > 0 && isBlank(out[s - 1]!) && (e >= out.length || isBlank(out[e]!)) ? s - 1 : s;
    out.splice(from, e - from);
  }
  return out;
}

function splitLines(text: string): { lines: string[]; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { lines: text.split(/\r?\n/), eol };
}

/** Why a text edit cannot be made, for the refusal. */
function whyNot(text: string): string {
  const { lines } = splitLines(text);
  let table: string[] = [];
  for (const line of lines) {
    const header = headerKey(line);
    if (header) table = header;
    else if (assignedKey(line) && [...table, ...assignedKey(line)!].join('.') === 'mcp_servers') return 'its mcp_servers is written as an inline table, `mcp_servers = { ... }`';
  }
  return 'Cairn\'s entry is written as an inline table or over several lines';
}

function refuse(file: string, doing: 'add' | 'update' | 'remove', name: string, text: string): SetupError {
  const instead = doing === 'remove' ? `Take [mcp_servers.${name}] out by hand` : `Add it by hand (\`cairn setup codex --print\` shows it), or write mcp_servers as [mcp_servers.<name>] tables and run this again`;
  return new SetupError(
    `${file}: Cairn cannot ${doing} its [mcp_servers.${name}] entry by editing only its own lines (${whyNot(text)}), and rewriting the whole file would lose your comments and layout, so it was left untouched. ${instead}.`,
  );
}

/** `text` with `snippet` appended after a blank line (nothing of the text changed). */
function appended(text: string, snippet: string): string {
  if (text.trim() === '') return text + snippet;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (/(\r?\n)[ \t]*\r?\n$/.test(text)) return text + snippet;
  return text.endsWith('\n') ? `${text}${eol}${snippet}` : `${text}${eol}${eol}${snippet}`;
}

/** Parses back what an edit made: it must be `expected` (or one of them). */
function parsesAs(text: string, ...expected: TomlTable[]): boolean {
  try {
    const parsed = parse(text.replace(/^\uFEFF/, ''));
    return expected.some((e) => sameToml(parsed, e));
  } catch {
    return false;
  }
}

/** `[mcp_servers.<name>]` taken out of Codex's config.toml when it runs Cairn, as text; '' when nothing is left. */
export function removeCodexServer(previous: string, name: string, file: string): TextEdit {
  const doc = parseTomlConfig(previous, file);
  const servers = doc.mcp_servers;
  if (!isTable(servers) || servers[name] === undefined) return { text: null, changes: [], notes: [] };
  if (!isCairnServer(servers[name])) return { text: null, changes: [], notes: [`kept [mcp_servers.${name}]: it does not run cairn mcp`] };
  const rest = { ...servers };
  delete rest[name];
  const withoutEmpty: TomlTable = { ...doc };
  delete withoutEmpty.mcp_servers;
  const { lines, eol } = splitLines(previous);
  const { tables, keyLines } = cairnRanges(lines, name);
  const kept = cut(lines, [...tables, ...keyLines.map((i): [number, number] => [i, i + 1])]);
  const edited = kept.every(isBlank) ? '' : kept.join(eol);
  if (!parsesAs(edited, { ...doc, mcp_servers: rest }, ...(Object.keys(rest).length === 0 ? [withoutEmpty] : []))) throw refuse(file, 'remove', name, previous);
  return { text: edited, changes: [`removed [mcp_servers.${name}]`], notes: [] };
}

/**
 * Adds or updates `[mcp_servers.<name>]`: appended, or replaced where it stands; nothing when it
 * already is that. The keys in `personsChoice` keep the value the entry already has (the person
 * chose it after setup: Codex's approval mode), and take `entry`'s only when the entry has none.
 */
export function mergeCodexServer(previous: string | null, name: string, wanted: McpServerEntry & TomlTable, file: string, personsChoice: readonly string[] = []): TextEdit {
  const doc = parseTomlConfig(previous, file);
  if (doc.mcp_servers !== undefined && !isTable(doc.mcp_servers)) throw new SetupError(`${file}: "mcp_servers" is not a table; it was left untouched.`);
  const servers = (doc.mcp_servers ?? {}) as TomlTable;
  const old = servers[name];
  const kept = isTable(old) ? Object.fromEntries(personsChoice.filter((k) => old[k] !== undefined).map((k) => [k, old[k]])) : {};
  const entry = { ...wanted, ...kept };
  if (sameToml(old, entry)) return { text: null, changes: [], notes: [] };
  const change = old === undefined ? `added [mcp_servers.${name}]` : `updated [mcp_servers.${name}] (it was ${JSON.stringify(old)})`;
  const expected: TomlTable = { ...doc, mcp_servers: { ...servers, [name]: entry } };
  const text = previous ?? '';
  const { lines, eol } = splitLines(text);
  const snippet = codexSnippet(name, entry).replace(/\n/g, eol);
  const { tables, keyLines } = cairnRanges(lines, name);
  let edited: string;
  if (tables.length > 0) {
    // Replaced where its first table stands; its other tables and keys go.
    const ranges = [...tables, ...keyLines.map((i): [number, number] => [i, i + 1])];
    edited = cut(lines, ranges, snippet.replace(/\r?\n$/, '').split(/\r?\n/)).join(eol);
  } else {
    const base = keyLines.length > 0 ? cut(lines, keyLines.map((i): [number, number] => [i, i + 1])).join(eol) : text;
    edited = appended(base, snippet);
  }
  if (!parsesAs(edited, expected)) throw refuse(file, old === undefined ? 'add' : 'update', name, text);
  return { text: edited, changes: [change], notes: [] };
}
