/**
 * Merging Cairn's `[mcp_servers.cairn]` table into Codex's config.toml. The file is edited as text
 * where it can be (Cairn's old tables cut out, the new one appended), so the user's comments,
 * formatting and other tables stay byte for byte; the result is parsed back and must equal the old
 * configuration with only Cairn's entry changed. When the entry is spelled in a way that edit cannot
 * handle (an inline table, dotted keys), the file is re-serialized instead, which loses comments.
 */
import { parse, stringify, TomlError } from 'smol-toml';
import { SetupError } from './config-file';
import { isCairnServer, type McpServerEntry } from './json-config';

type TomlTable = Record<string, unknown>;

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function parseTomlConfig(text: string | null, file: string): TomlTable {
  if (text === null) return {};
  try {
    return parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const detail = err instanceof TomlError ? err.message.split('\n')[0] : (err as Error).message;
    throw new SetupError(`${file} is not valid TOML (${detail}); fix it or move it away and run again. It was left untouched.`);
  }
}

/** The TOML Cairn adds: `[mcp_servers.<name>]` with command, args and env. */
export function codexSnippet(name: string, entry: McpServerEntry): string {
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

/** The dotted key of a `[table]` or `[[array]]` header line, or null for any other line. */
export function headerKey(line: string): string[] | null {
  const match = line.match(/^\s*\[\[?(.*?)\]\]?\s*(?:#.*)?$/);
  if (!match) return null;
  const inner = match[1]!;
  const keys: string[] = [];
  let i = 0;
  for (;;) {
    while (inner[i] === ' ' || inner[i] === '\t') i++;
    let key: string;
    if (inner[i] === '"') {
      let end = i + 1;
      while (end < inner.length && inner[end] !== '"') end += inner[end] === '\\' ? 2 : 1;
      try {
        key = JSON.parse(inner.slice(i, end + 1)) as string;
      } catch {
        return null;
      }
      i = end + 1;
    } else if (inner[i] === "'") {
      const end = inner.indexOf("'", i + 1);
      if (end === -1) return null;
      key = inner.slice(i + 1, end);
      i = end + 1;
    } else {
      const bare = inner.slice(i).match(/^[A-Za-z0-9_-]+/);
      if (!bare) return null;
      key = bare[0];
      i += key.length;
    }
    keys.push(key);
    while (inner[i] === ' ' || inner[i] === '\t') i++;
    if (i >= inner.length) return keys;
    if (inner[i] !== '.') return null;
    i++;
  }
}

/** The text with every `[mcp_servers.<name>...]` table cut out and the snippet appended. */
function textEdit(text: string, name: string, snippet: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const kept = cutTables(text, name, false);
  const body = snippet.replace(/\n/g, eol);
  return kept.length === 0 ? body : `${kept.join(eol)}${eol}${eol}${body}`;
}

/**
 * The lines of `text` without its `[mcp_servers.<name>...]` tables, trailing blank lines dropped.
 * Comments right above the next table belong to it and stay; with `keepTail`, so do the comments
 * after a cut table's last key at the end of the file (a removal cuts only what is Cairn's).
 */
function cutTables(text: string, name: string, keepTail: boolean): string[] {
  const kept: string[] = [];
  let skipped: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    const key = headerKey(line);
    if (key) {
      const ours = key[0] === 'mcp_servers' && key[1] === name;
      if (skipped && !ours) {
        // Comments right above the next table belong to it.
        let start = skipped.length;
        while (start > 0 && /^\s*(#.*)?$/.test(skipped[start - 1]!)) start--;
        while (start < skipped.length && skipped[start]!.trim() === '') start++;
        kept.push(...skipped.slice(start));
      }
      skipped = ours ? [] : null;
    }
    if (skipped) skipped.push(line);
    else kept.push(line);
  }
  if (skipped && keepTail) {
    let start = skipped.length;
    while (start > 0 && /^\s*(#.*)?$/.test(skipped[start - 1]!)) start--;
    while (start < skipped.length && skipped[start]!.trim() === '') start++;
    kept.push(...skipped.slice(start));
  }
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
  return kept;
}

export interface TomlRemoval {
  /** The new text ('' when nothing but blank lines is left), or null when Cairn is not in the file. */
  text: string | null;
  changes: string[];
  notes: string[];
}

/**
 * `[mcp_servers.<name>]` taken out of Codex's config.toml when it runs Cairn, as text (the other
 * tables, comments and formatting stay byte for byte; trailing blank lines end in one newline);
 * the result must parse as the old configuration without Cairn's entry, else the file is
 * re-serialized (comments lost, said in a note; the backup keeps them).
 */
export function removeCodexServer(previous: string, name: string, file: string): TomlRemoval {
  const doc = parseTomlConfig(previous, file);
  const servers = doc.mcp_servers;
  if (!isTable(servers) || servers[name] === undefined) return { text: null, changes: [], notes: [] };
  if (!isCairnServer(servers[name])) return { text: null, changes: [], notes: [`kept [mcp_servers.${name}]: it does not run cairn mcp`] };
  const rest = { ...servers };
  delete rest[name];
  const expected: TomlTable = { ...doc, mcp_servers: rest };
  const withoutEmpty: TomlTable = { ...doc };
  delete withoutEmpty.mcp_servers;
  const eol = previous.includes('\r\n') ? '\r\n' : '\n';
  const kept = cutTables(previous, name, true);
  const edited = kept.length === 0 ? '' : `${kept.join(eol)}${eol}`;
  const change = `removed [mcp_servers.${name}]`;
  try {
    const parsed = parse(edited.replace(/^\uFEFF/, ''));
    if (sameToml(parsed, expected) || (Object.keys(rest).length === 0 && sameToml(parsed, withoutEmpty))) return { text: edited, changes: [change], notes: [] };
  } catch {}
  const whole = Object.keys(rest).length === 0 ? withoutEmpty : expected;
  return {
    text: Object.keys(whole).length === 0 ? '' : stringify(whole),
    changes: [change],
    notes: [`${file} was rewritten as a whole (Cairn's entry was not a plain [mcp_servers.${name}] table), so its comments and formatting were not kept; the backup has them`],
  };
}

/** The text as a removal leaves it (trailing blank lines as one newline): what a backup is compared by. */
export function tomlTail(text: string): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join(eol)}${eol}`;
}

export interface TomlMerge {
  /** The new text, or null when the file already holds exactly this entry. */
  text: string | null;
  changes: string[];
  notes: string[];
}

export function mergeCodexServer(previous: string | null, name: string, entry: McpServerEntry, file: string): TomlMerge {
  const doc = parseTomlConfig(previous, file);
  if (doc.mcp_servers !== undefined && !isTable(doc.mcp_servers)) throw new SetupError(`${file}: "mcp_servers" is not a table; it was left untouched.`);
  const servers = (doc.mcp_servers ?? {}) as TomlTable;
  const old = servers[name];
  if (sameToml(old, entry)) return { text: null, changes: [], notes: [] };
  const change = old === undefined ? `added [mcp_servers.${name}]` : `updated [mcp_servers.${name}] (it was ${JSON.stringify(old)})`;

  const expected: TomlTable = { ...doc, mcp_servers: { ...servers, [name]: entry } };
  const snippet = codexSnippet(name, entry);
  const edited = textEdit(previous ?? '', name, snippet);
  try {
    if (sameToml(parse(edited.replace(/^\uFEFF/, '')), expected)) return { text: edited, changes: [change], notes: [] };
  } catch {}
  return {
    text: stringify(expected),
    changes: [change],
    notes: [`${file} was rewritten as a whole (Cairn's entry was not a plain [mcp_servers.${name}] table), so its comments and formatting were not kept; the backup has them`],
  };
}
