/**
 * The readers of other memory systems' files (`cairn import`): each turns one file's text
 * into entries, each a candidate memory of one line with the 1-based line it starts at, and reports
 * the lines it could not take (with their number and why), which are skipped.
 *
 * - Markdown (`markdown`, and the Markdown of Claude Code's CLAUDE.md and auto memory, Codex's
 *   AGENTS.md and memories, Cursor's .mdc rules and .cursorrules): a list item (with its
 *   continuation lines) or a paragraph is an entry; the headings above it are kept as its context
 *   ("Build > Tests"); a list item ending in ":" with items under it is their context, not an entry;
 *   YAML frontmatter is skipped (an .mdc rule's `description` becomes the context of its body); a
 *   fenced code block joins the entry before it when that entry ends with ":" and is an entry of
 *   its own otherwise, its lines as inline code; HTML comments, thematic breaks and Claude Code's
 *   `@path` import lines are not entries.
 * - Aegis (`memories.jsonl`): one JSON object per line, `{"id", "text", "scope", "tags", "ts"}`.
 * - Kimchi (`MEMORY.md`, `USER.md`): entries separated by a line holding only `§`.
 *
 * Invariants: pure (text in, entries out); an entry's text is one line (runs of whitespace made one
 * space), at most MAX_ENTRY_CHARS; a line that is not valid UTF-8 or holds a NUL is bad, never
 * decoded with replacement characters; nothing here decides scope or category beyond what the
 * source says (sources.ts and propose.ts do).
 */
import type { Scope } from '../../common/memory/constants';
import { frontmatterBlock } from '../../common/memory/frontmatter-block';
import type { CandidateCategory } from '../inbox/candidate';
import { extractDescription } from '../memory/frontmatter';

/** The longest entry taken: a memory is a sentence or two, not a document. */
const MAX_ENTRY_CHARS = 1000;

export interface ImportEntry {
  /** The memory, one line. */
  readonly text: string;
  /** 1-based line of the file where it starts. */
  readonly line: number;
  /** The headings (or the rule's description) above it, " > " between them; null when none. */
  readonly context: string | null;
  /** The scope the source itself gives (Aegis's `scope`), when it gives one. */
  readonly scope?: Scope;
  /** The category the source itself implies (Kimchi's USER.md: preferences), when it does. */
  readonly category?: CandidateCategory;
}

export interface BadLine {
  readonly line: number;
  readonly reason: string;
}

export interface ParsedFile {
  readonly entries: ImportEntry[];
  readonly bad: BadLine[];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's lines as text, each valid UTF-8 line decoded and every other one reported bad (and
 * left empty, so line numbers stay right). A byte-order mark is dropped.
 */
function decodeLines(data: Uint8Array): { lines: string[]; bad: BadLine[] } {
  const lines: string[] = [];
  const bad: BadLine[] = [];
  let start = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
  for (let i = start; i <= data.length; i++) {
    if (i < data.length && data[i] !== 0x0a) continue;
    let end = i;
    if (end > start && data[end - 1] === 0x0d) end--;
    const bytes = data.subarray(start, end);
    try {
      const text = strictUtf8.decode(bytes);
      if (text.includes('\0')) {
        bad.push({ line: lines.length + 1, reason: 'it holds a NUL character (memory is text only)' });
        lines.push('');
      } else lines.push(text);
    } catch {
      bad.push({ line: lines.length + 1, reason: 'it is not valid UTF-8' });
      lines.push('');
    }
    start = i + 1;
  }
  // A final newline does not open another line.
  if (lines.length > 1 && lines[lines.length - 1] === '' && data[data.length - 1] === 0x0a) lines.pop();
  return { lines, bad };
}

/** One line: runs of whitespace as one space. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** An entry of at most MAX_ENTRY_CHARS, or the bad line saying it is longer. */
function sized(text: string, line: number, rest: Omit<ImportEntry, 'text' | 'line'>, bad: BadLine[]): ImportEntry | null {
  const flat = oneLine(text);
  if (flat.length === 0) return null;
  if (flat.length > MAX_ENTRY_CHARS) {
    bad.push({ line, reason: `the entry starting here is ${flat.length} characters long, more than the ${MAX_ENTRY_CHARS} one memory may hold; split it` });
    return null;
  }
  return { text: flat, line, ...rest };
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const IMPORT_LINE = /^@[^\s]+$/;

/**
 * The frontmatter's end (the index of its closing line), or -1 when the text has none; null when it
 * never closes (common/memory/frontmatter-block.ts, every view's one reader).
 */
function frontmatterEnd(lines: readonly string[]): number | null {
  const { block, bodyLine, unclosed } = frontmatterBlock(lines.join('\n'));
  if (unclosed) return null;
  return block === null ? -1 : bodyLine - 2;
}

/**
 * Markdown split into entries (see the header). `descriptionAsContext`: a frontmatter
 * `description` (an .mdc rule's) becomes the context of everything below it.
 */
export function parseMarkdown(data: Uint8Array, options: { descriptionAsContext?: boolean } = {}): ParsedFile {
  const { lines, bad } = decodeLines(data);
  const entries: ImportEntry[] = [];
  let first = 0;
  let baseContext: string | null = null;
  const end = frontmatterEnd(lines);
  if (end === null) bad.push({ line: 1, reason: 'the frontmatter opened here (---) is never closed; the file is read as Markdown from line 2' });
  else if (end >= 0) {
    // The description as the index reads a memory file's (quoted, folded, over several lines).
    if (options.descriptionAsContext) baseContext = oneLine(extractDescription(lines.slice(0, end + 1).join('\n')) ?? '') || null;
    first = end + 1;
  }
  if (end === null) first = 1;

  const headings: string[] = [];
  const contextNow = (): string | null => {
    const parts = [...(baseContext ? [baseContext] : []), ...headings.filter((h) => h.length > 0)];
    return parts.length > 0 ? parts.join(' > ') : null;
  };
  // The entry being gathered, and the list items ending in ":" that are the context of deeper ones.
  let current: { text: string; line: number; indent: number; bullet: boolean; context: string | null } | null = null;
  const parents: Array<{ indent: number; text: string; line: number; used: boolean }> = [];
  const parentContext = (indent: number): string | null => {
    while (parents.length > 0 && parents[parents.length - 1]!.indent >= indent) {
      const p = parents.pop()!;
      // A "Label:" item with nothing under it is an entry after all.
      if (!p.used) push(p.text, p.line, contextNow());
    }
    parents.forEach((p) => (p.used = true));
    const base = contextNow();
    const chain = parents.map((p) => p.text.replace(/:\s*$/, ''));
    const parts = [...(base ? [base] : []), ...chain];
    return parts.length > 0 ? parts.join(' > ') : null;
  };
  const push = (text: string, line: number, context: string | null) => {
    const entry = sized(text, line, { context }, bad);
    if (entry) entries.push(entry);
  };
  const flush = () => {
    if (!current) return;
    const c = current;
    current = null;
    if (c.bullet && /:\s*$/.test(c.text)) {
      // Perhaps the context of the items under it: decided by what follows.
      parents.push({ indent: c.indent, text: oneLine(c.text), line: c.line, used: false });
      return;
    }
    // "Run the tests:" then a blank line and a code block: one entry, decided by what follows.
    if (/:\s*$/.test(c.text)) hold.value = c;
    else push(c.text, c.line, c.context);
  };
  const hold: { value: { text: string; line: number; context: string | null } | null } = { value: null };
  const release = () => {
    if (hold.value) push(hold.value.text, hold.value.line, hold.value.context);
    hold.value = null;
  };
  const closeLists = () => {
    flush();
    release();
    parentContext(-1);
  };

  let inComment = false;
  for (let i = first; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    if (inComment) {
      if (raw.includes('-->')) inComment = false;
      continue;
    }
    if (/^\s*<!--/.test(raw)) {
      if (!raw.includes('-->')) inComment = true;
      continue;
    }
    if (raw.trim() === '') {
      // A blank line ends a paragraph; a list item may go on after one when indented (kept simple: it ends too).
      flush();
      continue;
    }
    const fence = raw.match(FENCE);
    if (!fence) release();
    if (fence) {
      const marker = fence[1]!;
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        if (lines[j]!.trim().startsWith(marker[0]!.repeat(marker.length)) && lines[j]!.trim().replace(new RegExp(`^\\${marker[0]}+`), '').trim() === '') break;
        if (lines[j]!.trim() !== '') code.push(lines[j]!.trim());
      }
      if (j >= lines.length) bad.push({ line: lineNo, reason: 'the code block opened here is never closed; it is read up to the end of the file' });
      const inline = code.map((c) => `\`${c.replace(/`/g, "'")}\``).join(', ');
      if (inline.length > 0) {
        const prev: { text: string; line: number; indent: number; bullet: boolean; context: string | null } | null = current;
        const colon = hold.value;
        hold.value = null;
        if (prev && /:\s*$/.test(prev.text)) {
          current = null;
          push(`${prev.text} ${inline}`, prev.line, prev.context);
        } else if (colon) {
          push(`${colon.text} ${inline}`, colon.line, colon.context);
        } else {
          flush();
          const last = parents.length > 0 ? parents[parents.length - 1]! : null;
          if (last && !last.used) {
            // "- Run the tests:" then a block: one entry.
            parents.pop();
            push(`${last.text} ${inline}`, last.line, contextNow());
          } else push(inline, lineNo, contextNow());
        }
      } else flush();
      i = j;
      continue;
    }
    const heading = raw.match(HEADING);
    if (heading) {
      closeLists();
      const level = heading[1]!.length;
      headings.length = Math.min(headings.length, level - 1);
      while (headings.length < level - 1) headings.push('');
      headings.push(oneLine(heading[2] ?? ''));
      continue;
    }
    // A setext heading: one line of a paragraph underlined with = (level 1) or - (level 2).
    const underline = raw.match(/^ {0,3}(=+|-+)[ \t]*$/);
    if (underline && current !== null && !current.bullet && current.line === i) {
      const title = oneLine(current.text);
      current = null;
      release();
      parentContext(-1);
      const level = underline[1]!.startsWith('=') ? 1 : 2;
      headings.length = Math.min(headings.length, level - 1);
      while (headings.length < level - 1) headings.push('');
      headings.push(title);
      continue;
    }
    if (BREAK.test(raw) || IMPORT_LINE.test(raw.trim())) {
      flush();
      continue;
    }
    const text = raw.replace(/^\s*(?:>\s?)+/, '');
    const bullet = text.match(BULLET);
    if (bullet) {
      flush();
      const indent = bullet[1]!.replace(/\t/g, '    ').length;
      const context = parentContext(indent);
      current = { text: bullet[2]!, line: lineNo, indent, bullet: true, context };
      continue;
    }
    if (current) {
      current.text += ` ${text.trim()}`;
      continue;
    }
    // A paragraph after a list ends the list.
    if (!/^\s/.test(raw)) parentContext(-1);
    current = { text: text.trim(), line: lineNo, indent: -1, bullet: false, context: contextNow() };
  }
  closeLists();
  entries.sort((a, b) => a.line - b.line);
  return { entries, bad: bad.sort((a, b) => a.line - b.line) };
}

/** Aegis's `scope` as Cairn's: `user` is the person's (global), `workspace` the project's, `session` the checkout's own. */
const AEGIS_SCOPES: Readonly<Record<string, Scope>> = { user: 'global', workspace: 'project', session: 'workspace' };
const TAG_CATEGORIES: ReadonlyArray<[RegExp, CandidateCategory]> = [
  [/^pref/i, 'preference'],
  [/^(conv|style|rule)/i, 'convention'],
  [/^(cmd|commands?|build|scripts?)$/i, 'command'],
  [/^(lesson|gotcha|pitfall|bug)/i, 'lesson'],
];

/** Aegis's memories.jsonl: one JSON object per line (blank lines skipped). */
export function parseAegis(data: Uint8Array): ParsedFile {
  const { lines, bad } = decodeLines(data);
  const badLines = new Set(bad.map((b) => b.line));
  const entries: ImportEntry[] = [];
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (badLines.has(line) || raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      bad.push({ line, reason: 'it is not JSON' });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      bad.push({ line, reason: 'it is not a JSON object' });
      return;
    }
    const o = value as Record<string, unknown>;
    if (typeof o.text !== 'string' || o.text.trim() === '') {
      bad.push({ line, reason: 'it has no "text" (a non-empty string)' });
      return;
    }
    let scope: Scope | undefined;
    if (o.scope !== undefined && o.scope !== null) {
      scope = typeof o.scope === 'string' ? AEGIS_SCOPES[o.scope] : undefined;
      if (!scope) {
        bad.push({ line, reason: `its "scope" is ${JSON.stringify(o.scope)}, not one of user, workspace, session` });
        return;
      }
    }
    const tags = Array.isArray(o.tags) ? o.tags.filter((t): t is string => typeof t === 'string') : [];
    const category = tags.map((t) => TAG_CATEGORIES.find(([re]) => re.test(t))?.[1]).find((c) => c !== undefined);
    const entry = sized(o.text, line, { context: tags.length > 0 ? `tags: ${tags.join(', ')}` : null, ...(scope ? { scope } : {}), ...(category ? { category } : {}) }, bad);
    if (entry) entries.push(entry);
  });
  return { entries, bad: bad.sort((a, b) => a.line - b.line) };
}

/** Kimchi's MEMORY.md / USER.md: entries separated by a line holding only `§`. `user`: USER.md, the person's profile. */
export function parseKimchi(data: Uint8Array, user: boolean): ParsedFile {
  const { lines, bad } = decodeLines(data);
  const badLines = new Set(bad.map((b) => b.line));
  const entries: ImportEntry[] = [];
  let chunk: { text: string[]; line: number; broken: boolean } | null = null;
  const close = () => {
    if (chunk && !chunk.broken) {
      const entry = sized(chunk.text.join('\n'), chunk.line, { context: user ? 'user profile' : null, ...(user ? { category: 'preference' as const, scope: 'global' as const } : {}) }, bad);
      if (entry) entries.push(entry);
    }
    chunk = null;
  };
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '\u00a7') {
      close();
      return;
    }
    if (badLines.has(line)) {
      // An entry with an undecodable line is skipped whole: half of it would say something else.
      if (chunk) chunk.broken = true;
      else chunk = { text: [], line, broken: true };
      return;
    }
    if (raw.trim() === '' && !chunk) return;
    if (!chunk) chunk = { text: [], line, broken: false };
    chunk.text.push(raw);
  });
  close();
  return { entries, bad: bad.sort((a, b) => a.line - b.line) };
}
