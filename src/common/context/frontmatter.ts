/**
 * The description of a memory file: the `description:` of its optional YAML frontmatter, parsed
 * with a YAML library from the first bytes of the file. Display metadata only; anything malformed
 * yields no description rather than an error.
 */
import { parse } from 'yaml';

const FRONTMATTER = /^\ufeff?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

export function extractDescription(head: string): string | null {
  const block = FRONTMATTER.exec(head)?.[1];
  if (block === undefined) return null;
  try {
    const data: unknown = parse(block, { maxAliasCount: 10, prettyErrors: false });
    if (typeof data !== 'object' || data === null) return null;
    const description = (data as Record<string, unknown>).description;
    if (typeof description === 'string') return description;
    if (typeof description === 'number' || typeof description === 'boolean') return String(description);
    return null;
  } catch {
    return null;
  }
}
