/**
 * Where a memory file's YAML frontmatter block is: the one reader of its bounds, used by every view
 * (the index's description, excerpts of relevant memories and memory_search, consolidation's
 * merges, imports, the editor's preview), so none can disagree about where the body starts.
 *
 * A block opens on the file's first line, `---` (after an optional byte order mark, with trailing
 * spaces or tabs allowed), and closes at the first later line that is `---` or `...` (the same
 * trailing spaces allowed). Lines end with LF or CRLF. An empty block (`---` then `---`) is a
 * block. A block that never closes is no block: the whole file is body, and `unclosed` says so.
 */

export interface FrontmatterBlock {
  /** The block's text between its fences (without them, lines joined by LF), or null when the file has none. */
  readonly block: string | null;
  /** Where the body starts in the text (0 without a block): after the closing fence's line end. */
  readonly bodyStart: number;
  /** The 1-based line the body starts on. */
  readonly bodyLine: number;
  /** An opening fence with no closing one: read as no block. */
  readonly unclosed: boolean;
}

const OPEN = /^\ufeff?---[ \t]*(?:\r?\n|$)/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

export function frontmatterBlock(text: string): FrontmatterBlock {
  const open = OPEN.exec(text);
  if (!open) return { block: null, bodyStart: 0, bodyLine: 1, unclosed: false };
  let start = open[0].length;
  let line = 2;
  const blockStart = start;
  while (start <= text.length && open[0].endsWith('\n')) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const content = text.slice(start, end).replace(/\r$/, '');
    if (CLOSE.test(content)) {
      const block = text.slice(blockStart, start).replace(/\r?\n$/, '').replace(/\r\n/g, '\n');
      const bodyStart = newline === -1 ? text.length : newline + 1;
      return { block, bodyStart, bodyLine: line + 1, unclosed: false };
    }
    if (newline === -1) break;
    start = newline + 1;
    line++;
  }
  return { block: null, bodyStart: 0, bodyLine: 1, unclosed: true };
}

/** The text after its frontmatter block (all of it when there is none). */
export function frontmatterBody(text: string): string {
  return text.slice(frontmatterBlock(text).bodyStart);
}
