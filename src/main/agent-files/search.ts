/**
 * Search over other agents' files: the files ranked exactly as memory_search ranks
 * memory (relevance-index.ts rankRelevant: BM25 over path and content with the recency bonus), then
 * every line of each that holds a matching word, best file first, in line order, with the matching
 * words' spans (session-search.ts matchSpans, what the tree's content search highlights).
 *
 * Invariant: ranking and matching are memory_search's own code; nothing here scores words. Unlike
 * an agent's search, files the scanners flag are not left out: they are the person's own files.
 */
import { EMPTY_USAGE } from '../../common/memory/usage';
import type { AgentFileHit } from '../../common/agent-files/schema';
import type { ContextFile } from '../context/context-file';
import { promptTerms, rankRelevant } from '../context/relevance-index';
import { matchSpans } from '../context/session-search';
import type { Located } from './discovery';

/** A hit's line is cut to this many characters around its first match (as the tree's content search). */
const LINE_MAX_CHARS = 200;

/** The readable files matching `query`, a hit per matching line, at most `limit`. */
export function searchAgentFiles(files: readonly Located[], query: string, limit: number, now: number): AgentFileHit[] {
  const terms = promptTerms(query);
  if (terms.length === 0) return [];
  const byPath = new Map<string, Located>();
  const docs: ContextFile[] = [];
  for (const f of files) {
    if (f.inspected.content === null) continue;
    byPath.set(f.id, f);
    // The ranking's own shape: the id as its path, the whole text as its head, no description or usage.
    docs.push({ scope: f.entry.place === 'global' ? 'global' : 'project', segments: [...f.rel], path: f.id, size: f.inspected.size, mtimeMs: f.inspected.mtimeMs, version: null, description: null, head: f.inspected.content, stats: EMPTY_USAGE });
  }
  const hits: AgentFileHit[] = [];
  for (const doc of rankRelevant(docs, terms, now)) {
    const file = byPath.get(doc.path)!;
    const lines = file.inspected.content!.split('\n');
    for (let i = 0; i < lines.length && hits.length < limit; i++) {
      const spans = matchSpans(lines[i]!, terms);
      if (spans.length === 0) continue;
      hits.push({ id: file.id, agent: file.entry.agent, line: i + 1, ...cut(lines[i]!.replace(/\r$/, ''), spans) });
    }
    if (hits.length >= limit) break;
  }
  return hits;
}

/** A long line cut to LINE_MAX_CHARS around its first match, `…` where cut, the spans moved with it. */
function cut(line: string, spans: Array<[number, number]>): { text: string; matches: Array<[number, number]> } {
  const inLine = spans.filter(([, b]) => b <= line.length);
  if (line.length <= LINE_MAX_CHARS) return { text: line, matches: inLine };
  const start = Math.max(0, Math.min((inLine[0]?.[0] ?? 0) - 40, line.length - LINE_MAX_CHARS));
  const end = start + LINE_MAX_CHARS;
  const offset = start > 0 ? 1 : 0;
  return {
    text: `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`,
    matches: inLine.filter(([a, b]) => a >= start && b <= end).map(([a, b]): [number, number] => [a - start + offset, b - start + offset]),
  };
}
