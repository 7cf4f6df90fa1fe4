/**
 * Checks the labelled sets under eval/sets/ (or CAIRN_EVAL_SETS) mechanically, so a label that
 * stops being true fails loudly: every label names a file of the set; a `none` prompt has no label
 * and every other prompt at least one; a `paraphrase` prompt shares no content word with any file
 * it needs; a `typo` prompt holds a word that no file of the set has. Prints each set's count per
 * kind; exits 1 on any problem. Run with `npx tsx eval/sets/check-sets.ts`.
 *
 * Content words are the ranker's own (tokenize: lower case, split at anything but letters, digits
 * and `_`, English stopwords and single characters dropped), over the file's path and whole text.
 * Two words count as shared when they are equal or one begins the other and the shorter has at
 * least four letters ("deploy" and "deploys"), which is stricter than the ranker's prefix match:
 * a paraphrase must give a lexical ranker nothing to hold on to.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tokenize } from '../../src/main/context/relevance-index';

const SETS = process.env.CAIRN_EVAL_SETS ?? path.dirname(new URL(import.meta.url).pathname);
const KINDS = ['lexical', 'paraphrase', 'identifier', 'typo', 'multilingual-stopwords', 'none'] as const;
const SHARED_PREFIX_MIN = 4;

interface Prompt {
  readonly prompt: string;
  readonly relevant: readonly string[];
  readonly kind: string;
}

function memoryFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string, rel: string[]) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(at, entry.name), [...rel, entry.name]);
      else if (entry.isFile()) files.set(`/memories/global/${[...rel, entry.name].join('/')}`, fs.readFileSync(path.join(at, entry.name), 'utf8'));
    }
  };
  walk(path.join(dir, 'memory'), []);
  return files;
}

/** A file's content words: its path's (split at separators, as the ranker splits it) and its text's. */
function fileWords(virtualPath: string, text: string): Set<string> {
  return new Set(tokenize(`${virtualPath.replace(/[/_.-]+/g, ' ')} ${text}`));
}

function shared(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= SHARED_PREFIX_MIN && long.startsWith(short);
}

function checkSet(dir: string): string[] {
  const name = path.basename(dir);
  const files = memoryFiles(dir);
  const vocabulary = new Set<string>();
  for (const [p, text] of files) for (const w of fileWords(p, text)) vocabulary.add(w);
  const problems: string[] = [];
  const counts = new Map<string, number>();
  const lines = fs.readFileSync(path.join(dir, 'prompts.jsonl'), 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `${name} prompts.jsonl line ${i + 1}`;
    const p = JSON.parse(line) as Prompt;
    counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
    if (!(KINDS as readonly string[]).includes(p.kind)) problems.push(`${at}: unknown kind ${p.kind}`);
    for (const r of p.relevant) if (!files.has(r)) problems.push(`${at}: ${r} is not a file of the set`);
    if (p.kind === 'none' && p.relevant.length > 0) problems.push(`${at}: a none prompt has labels`);
    if (p.kind !== 'none' && p.relevant.length === 0) problems.push(`${at}: no label`);
    const words = tokenize(p.prompt);
    if (p.kind === 'paraphrase') {
      for (const r of p.relevant) {
        const text = files.get(r);
        if (text === undefined) continue;
        const inFile = [...fileWords(r, text)];
        const common = words.filter((w) => inFile.some((f) => shared(w, f)));
        if (common.length > 0) problems.push(`${at}: paraphrase shares ${common.join(', ')} with ${r}`);
      }
    }
    if (p.kind === 'typo' && words.every((w) => vocabulary.has(w))) problems.push(`${at}: typo prompt has no word outside the set's vocabulary`);
  });
  console.log(`${name}: ${files.size} files, ${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  return problems;
}

const sets = fs
  .readdirSync(SETS)
  .filter((n) => fs.existsSync(path.join(SETS, n, 'prompts.jsonl')))
  .sort();
const problems = sets.flatMap((n) => checkSet(path.join(SETS, n)));
for (const p of problems) console.error(p);
process.exit(problems.length > 0 ? 1 : 0);
