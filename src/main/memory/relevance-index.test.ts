// RelevanceIndex (the incremental search index of an MCP session's memory_search) ranks exactly as
// rankRelevant over the same files, through a long run of adds, edits, description changes,
// renames and deletes.
import { describe, expect, it } from 'vitest';
import { EMPTY_USAGE } from '../../common/memory/usage';
import { rankRelevant, RelevanceIndex, type ContextFile } from './context-builder';

const WORDS = ['build', 'release', 'electron', 'vite', 'vitest', 'deploy', 'database', 'migration', 'token', 'cache', 'review', 'lint', 'docker', 'staging', 'flaky'];

function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

function file(path: string, head: string, description: string | null, mtimeMs: number): ContextFile {
  return { scope: 'project', segments: path.split('/').slice(3), path, size: head.length, mtimeMs, description, head, stats: EMPTY_USAGE };
}

describe('RelevanceIndex', () => {
  it('ranks as rankRelevant over the same files after every change', () => {
    const random = rng(7);
    const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
    const text = (n: number) => Array.from({ length: n }, pick).join(' ');
    const files = new Map<string, ContextFile>();
    const index = new RelevanceIndex();
    const now = 1_700_000_000_000;
    for (let step = 0; step < 300; step++) {
      const paths = [...files.keys()];
      const r = random();
      const victim = paths[Math.floor(random() * paths.length)];
      if (r < 0.4 || !victim) {
        const p = `/memories/project/${pick()}/${pick()}-${step}.md`;
        files.set(p, file(p, text(5 + Math.floor(random() * 60)), random() < 0.5 ? text(3) : null, now - step * 1000));
      } else if (r < 0.6) {
        files.set(victim, { ...files.get(victim)!, head: text(10), mtimeMs: now });
      } else if (r < 0.7) {
        files.set(victim, { ...files.get(victim)!, description: text(2) });
      } else if (r < 0.85) {
        const moved = `/memories/project/moved/${step}.md`;
        files.set(moved, { ...files.get(victim)!, path: moved });
        files.delete(victim);
      } else files.delete(victim);
      const list = [...files.values()];
      for (const q of [[pick()], [pick(), pick()], [pick().slice(0, 4)]]) {
        expect(index.rank(list, q, now).map((f) => f.path)).toEqual(rankRelevant(list, q, now).map((f) => f.path));
      }
    }
    expect(index.rank([], ['build'], now)).toEqual([]);
  });
});
