/**
 * Builds the memory files of the `harvest` evaluation set (eval/sets/harvest/memory/) from the
 * harvest corpus (tests/fixtures/harvest-corpus/*.json): one file per corpus entry that has
 * approved items, named after the entry's id, holding its `expected` memories as "- item" lines
 * under a frontmatter `description:` taken from the entry's `notes`. An entry with no approved
 * item (a transcript with nothing worth remembering) gives no file: there is no memory to find.
 *
 * The output is committed, so `make eval` needs no build step; run this again (`npx tsx
 * eval/build-harvest-set.ts`) after the corpus changes, and check prompts.jsonl still names files
 * that exist (the runner refuses a label that is not a file of the set). Deterministic: the memory
 * folder is rewritten whole, entries in file-name order.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'yaml';

const ROOT = path.dirname(new URL(import.meta.url).pathname);
const CORPUS = path.join(ROOT, '..', 'tests', 'fixtures', 'harvest-corpus');
const MEMORY = path.join(ROOT, 'sets', 'harvest', 'memory');

interface CorpusEntry {
  readonly id: string;
  readonly notes: string;
  readonly expected: readonly string[];
}

/** The Markdown of one entry's memory file: the description (quoted by YAML's rules when it must be) and one line per approved item. */
function memoryFile(entry: CorpusEntry): string {
  const frontmatter = stringify({ description: entry.notes }, { lineWidth: 0 }).trimEnd();
  return `---\n${frontmatter}\n---\n${entry.expected.map((item) => `- ${item}`).join('\n')}\n`;
}

function main(): void {
  const entries = fs
    .readdirSync(CORPUS)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(CORPUS, name), 'utf8')) as CorpusEntry);
  fs.rmSync(MEMORY, { recursive: true, force: true });
  fs.mkdirSync(MEMORY, { recursive: true });
  let written = 0;
  for (const entry of entries) {
    if (entry.expected.length === 0) continue;
    fs.writeFileSync(path.join(MEMORY, `${entry.id}.md`), memoryFile(entry));
    written++;
  }
  console.log(`${written} memory files from ${entries.length} corpus entries in ${path.relative(process.cwd(), MEMORY)}`);
}

main();
