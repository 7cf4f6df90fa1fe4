// The rules extractor's parts: near-duplicate groups (prefix filtering finds exactly
// the pairs an all-pairs comparison finds, on seeded random notes), the merged text, and a pinned
// file never merged away.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../tests/support/random';
import { normalizedText } from '../harvest/checks';
import type { ConsolidationFileInput } from './extractor';
import { MERGE_MIN_OVERLAP, MERGE_MIN_WORDS, duplicateGroups, mergedText, rulesProposals } from './rules-consolidation';

const file = (name: string, content: string, over: Partial<ConsolidationFileInput> = {}): ConsolidationFileInput => ({
  path: `/memories/global/${name}`,
  sha256: createHash('sha256').update(content).digest('hex'),
  size: content.length,
  mtimeMs: 0,
  content,
  usage: { pinned: false, accessCount: 0, lastAccessedAt: null, lastWriteAt: null },
  score: 0,
  protected: false,
  ...over,
});

/** The groups an all-pairs comparison gives (connected components of pairs at the threshold). */
function allPairs(files: readonly ConsolidationFileInput[]): string[][] {
  const sets = files.map((f) => new Set(normalizedText(f.content).split(' ').filter(Boolean)));
  const parent = files.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < files.length; i++) {
    for (let j = i + 1; j < files.length; j++) {
      if (sets[i]!.size < MERGE_MIN_WORDS || sets[j]!.size < MERGE_MIN_WORDS) continue;
      const shared = [...sets[i]!].filter((w) => sets[j]!.has(w)).length;
      if (shared / (sets[i]!.size + sets[j]!.size - shared) >= MERGE_MIN_OVERLAP) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, string[]>();
  files.forEach((f, i) => (groups.get(find(i)) ?? groups.set(find(i), []).get(find(i))!).push(f.path));
  return [...groups.values()].filter((g) => g.length > 1).map((g) => g.sort()).sort();
}

describe('rules consolidation', () => {
  it('finds exactly the near-duplicate groups an all-pairs comparison finds (50 seeded scopes)', () => {
    let found = 0;
    for (let seed = 1; seed <= 50; seed++) {
      const random = seededRandom(seed * 7919);
      const vocabulary = Array.from({ length: 40 }, (_, i) => `w${i}`);
      const notes: ConsolidationFileInput[] = [];
      for (let i = 0; i < 40; i++) {
        const base = i > 0 && random() < 0.4 ? notes[Math.floor(random() * notes.length)]!.content : '';
        const extra = Array.from({ length: 1 + Math.floor(random() * (base ? 3 : 12)) }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
        notes.push(file(`n${i}.md`, `${base}${extra}\n`));
      }
      const expected = allPairs(notes);
      found += expected.length;
      expect(duplicateGroups(notes).map((g) => g.files.map((f) => f.path).sort()).sort()).toEqual(expected);
    }
    expect(found).toBeGreaterThan(50);
  });

  it('merges into the kept file the lines it lacks, leaving out frontmatter and lines it has', () => {
    expect(mergedText('# Build\nRun make test.\n', ['---\ndescription: x\n---\n# build\nRun make test\nUse the fake clock.  \n'])).toBe('# Build\nRun make test.\nUse the fake clock.\n');
    expect(mergedText('no newline', ['no newline', 'another line'])).toBe('no newline\nanother line\n');
    expect(mergedText('same\n', ['Same.\n'])).toBeNull();
  });

  it('keeps a pinned file, never merges one away, and does not propose deleting a merged file too', () => {
    const text = 'Deploys go through the release branch after review by two people.\n';
    const out = rulesProposals({
      scope: 'global',
      now: 0,
      days: 60,
      files: [
        file('used.md', text, { score: 5, usage: { pinned: false, accessCount: 5, lastAccessedAt: null, lastWriteAt: null } }),
        file('pinned.md', text, { usage: { pinned: true, accessCount: 0, lastAccessedAt: null, lastWriteAt: null } }),
        file('pinned2.md', text, { usage: { pinned: true, accessCount: 0, lastAccessedAt: null, lastWriteAt: null } }),
        file('copy.md', text),
      ],
      stale: ['/memories/global/copy.md'],
      since: { last: null, changed: [], total: 0 },
    });
    expect(out).toEqual([
      {
        kind: 'merge',
        keep: '/memories/global/pinned.md',
        others: ['/memories/global/used.md', '/memories/global/copy.md'],
        reason: 'used.md, copy.md say the same as pinned.md (identical); keeps pinned.md, pinned',
      },
    ]);
  });
});

describe('a merge of near-identical lines', () => {
  it('keeps one version of a statement: the fuller one, in the kept line\u2019s place', () => {
    const kept = '# Release\n- Run make test before pushing any branch to the remote.\n- Tag releases as vX.Y.Z.\n';
    const other = '- Run make test before pushing any branch to the remote, always.\n- Deploys go out on Tuesdays.\n';
    expect(mergedText(kept, [other])).toBe('# Release\n- Run make test before pushing any branch to the remote, always.\n- Tag releases as vX.Y.Z.\n- Deploys go out on Tuesdays.\n');
  });

  it('adds nothing for a line the kept file already says more fully', () => {
    expect(mergedText('- Run make test before pushing any branch, always.\n', ['- Run make test before pushing any branch.\n'])).toBeNull();
  });

  it('keeps short lines and different statements apart', () => {
    expect(mergedText('# Build\n- Use pnpm for installs.\n', ['# Builds\n- Use pnpm for scripts and lint.\n'])).toBe('# Build\n- Use pnpm for installs.\n# Builds\n- Use pnpm for scripts and lint.\n');
  });
});
