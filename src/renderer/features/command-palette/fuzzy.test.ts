import { describe, expect, it } from 'vitest';
import { fuzzyFilter, fuzzyMatch } from './fuzzy';

const paths = ['project/build.md', 'project/notes/testing.md', 'global/languages/rust.md', 'project/deploy-staging.md', 'workspace/blob/lead.md'];
const best = (q: string) => fuzzyFilter(paths, q, (p) => p, 10).map((r) => r.item);

describe('the palette fuzzy match', () => {
  it('matches characters in order, case-insensitively, spaces ignored', () => {
    expect(fuzzyMatch('BLD', 'project/build.md')?.indices).toEqual([8, 11, 12]);
    expect(fuzzyMatch('notes test', 'project/notes/testing.md')).not.toBeNull();
    expect(fuzzyMatch('dlb', 'project/build.md')).toBeNull();
  });

  it("prefers the file's own name and word starts over scattered characters", () => {
    // "bld" is in build.md's name; in blob/lead.md only scattered across a folder and a name.
    expect(best('bld')[0]).toBe('project/build.md');
    expect(best('ds')[0]).toBe('project/deploy-staging.md');
    expect(best('rust')).toEqual(['global/languages/rust.md']);
  });

  it('keeps the given order for an empty query, and cuts at the limit', () => {
    expect(best('')).toEqual(paths);
    expect(fuzzyFilter(paths, '', (p) => p, 2)).toHaveLength(2);
  });
});
