/**
 * The description of a memory file: the `description:` of its optional YAML frontmatter (where the
 * block is: common/memory/frontmatter-block.ts, every view's one reader), read from the first bytes
 * of the file. The one reader of a description: the index's and an imported .mdc rule's context
 * (import/entries.ts) read the same value. Display metadata only; anything malformed yields no
 * description rather than an error.
 *
 * The common case, a one-line plain scalar, is read directly (the YAML library costs about 0.1 ms
 * a file, which an index of thousands of files would feel); anything else (quotes, block scalars,
 * continuation lines, flow collections) goes to the YAML library. An unquoted description that is
 * not valid YAML, such as `description: Use when: deploying`, still shows as written.
 */
import { createRequire } from 'node:module';
import { frontmatterBlock } from '../../common/memory/frontmatter-block';

/**
 * The YAML library, loaded the first time a description needs it: most never do, and loading it
 * costs ~40 ms at each `cairn context` (agents' hooks run one per prompt).
 */
let yaml: typeof import('yaml') | undefined;
function parse(text: string, options: import('yaml').ParseOptions & import('yaml').DocumentOptions & import('yaml').SchemaOptions & import('yaml').ToJSOptions): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text, options);
}

const DESCRIPTION_LINE = /^description:[ \t]*(.*?)[ \t]*$/m;
/** A plain scalar that means exactly what it says: no indicator first, no `: ` or ` #` inside. */
const PLAIN = /^(?![-?:,[\]{}#&*!|>'"%@`])(?!.*(?:: | #|:$))[^\r\n]+$/;

/**
 * The description per the YAML library; undefined when the block is not valid YAML.
 *
 * Frontmatter is untrusted (a repository can commit any file): the parse is quiet and inert. The
 * library knows no executable tags; an unknown tag (`!!js/function`, `!foo`) leaves its value as
 * the plain data it spells, and the warning the library would print about it on stderr (through
 * process.emitWarning, once per file an index reads) is not printed: `logLevel: 'error'` keeps
 * errors, which are caught here, and drops warnings.
 */
function fromYaml(block: string): string | null | undefined {
  try {
    const data: unknown = parse(block, { maxAliasCount: 10, prettyErrors: false, logLevel: 'error' });
    if (typeof data !== 'object' || data === null) return null;
    const description = (data as Record<string, unknown>).description;
    if (typeof description === 'string') return description;
    if (typeof description === 'number' || typeof description === 'boolean') return String(description);
    return null;
  } catch {
    return undefined;
  }
}

export function extractDescription(head: string): string | null {
  const { block } = frontmatterBlock(head);
  if (block === null) return null;
  const line = DESCRIPTION_LINE.exec(block);
  if (!line) return null;
  const value = line[1]!;
  const next = block.slice(line.index + line[0].length + 1).split(/\r?\n/, 1)[0] ?? '';
  const continues = /^[ \t]+\S/.test(next);
  if (PLAIN.test(value) && !continues) return value;
  const parsed = fromYaml(block);
  if (parsed !== undefined) return parsed;
  // Not valid YAML: show an unquoted one-line value as written.
  return value !== '' && !continues && !/^[|>[{&*!]/.test(value) ? value.replace(/^(['"])(.*)\1$/, '$2') : null;
}
