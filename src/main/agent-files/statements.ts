/**
 * How an agent's file is read as statements, for adopt and compare: the import's Markdown reader
 * (import/entries.ts parseMarkdown: a list item with its continuation lines, or a paragraph; the
 * headings as context; frontmatter, comments and `@` imports left out), with one difference that
 * instruction files need: a paragraph whose every line is a sentence of its own ("Use npm for
 * everything." / "Run make test before pushing." / ...; .cursorrules and many CLAUDE.md are written
 * so) is one statement per line, each with its own line number. A paragraph wrapped mid-sentence
 * stays one statement.
 *
 * Invariant: pure; a statement's text is what the reader gives for its lines (one line, whitespace
 * runs as one space), so it compares with the import's and the harvest's texts.
 */
import { oneLine, parseMarkdown, type ImportEntry } from '../import/entries';

const encoder = new TextEncoder();
/** A line that ends a sentence: its last word then . ! or ?, perhaps inside a closing quote, bracket or emphasis. */
const SENTENCE_END = /[.!?]["')\]`*_]*\s*$/;
/** A line opening a list item (the reader keeps those whole). */
const BULLET = /^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+/;

/** The statements of a text, with their 1-based lines; `description` makes an .mdc rule's description their context. */
export function statementsOf(content: string, options: { description?: boolean } = {}): ImportEntry[] {
  const entries = parseMarkdown(encoder.encode(content), { descriptionAsContext: options.description === true }).entries;
  const lines = content.split('\n');
  const out: ImportEntry[] = [];
  entries.forEach((entry, i) => {
    const next = entries[i + 1]?.line ?? lines.length + 1;
    const own: Array<{ line: number; text: string }> = [];
    for (let n = entry.line; n < next && n <= lines.length; n++) {
      const text = lines[n - 1]!.replace(/\r$/, '');
      if (text.trim() === '') break;
      own.push({ line: n, text });
    }
    const whole = own.length >= 2 && !BULLET.test(own[0]!.text) && oneLine(own.map((l) => l.text).join(' ')) === entry.text;
    if (whole && own.every((l) => SENTENCE_END.test(l.text))) {
      for (const l of own) out.push({ ...entry, text: oneLine(l.text), line: l.line });
    } else out.push(entry);
  });
  return out;
}
