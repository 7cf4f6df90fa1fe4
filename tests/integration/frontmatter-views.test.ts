// Every view of a memory file agrees on where its frontmatter ends (common/memory/frontmatter-block.ts):
// the index's description, the excerpt of relevant memories, memory_search's line, consolidation's
// merge, an import's entries, over the same table of files on the real disk. (The preview's own test
// renders the same table.)
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../src/main/import/entries';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { SessionSearch } from '../../src/main/context/session-search';
import { mergedText } from '../../src/main/consolidation/rules-consolidation';
import { FRONTMATTER_CASES } from '../support/frontmatter-cases';
import { makeSandbox, type Sandbox } from '../support/sandbox';

describe('every view reads the block the same way', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await makeSandbox();
    await fs.mkdir(sb.roots.global, { recursive: true });
    for (const [i, c] of FRONTMATTER_CASES.entries()) await fs.writeFile(path.join(sb.roots.global, `case-${i}.md`), c.text);
  });
  afterAll(() => sb.cleanup());

  const described = FRONTMATTER_CASES.map((c, i) => ({ ...c, i })).filter((c) => c.block !== null && c.block.includes('description'));

  it('the index shows the description of each file with one, and nothing else', async () => {
    const builder = new ContextBuilder();
    const index = builder.index(await builder.snapshot(sb.session));
    for (const c of described) expect(index).toContain(`/memories/global/case-${c.i}.md: Deploy steps\n`);
    expect(index).not.toMatch(/case-\d+\.md: ?---/);
  });

  it('excerpts of relevant memories and memory_search lines start at the body, never at a fence', async () => {
    const builder = new ContextBuilder();
    const relevant = builder.relevant(await builder.snapshot(sb.session), 'zebra deploy', Date.now(), { relevant: 'relevant', relevantMaxBytes: 100_000, relevantMaxFiles: 50, hotSetMaxBytes: 1000, recentWhenNoMatch: false });
    const search = await new SessionSearch(builder, sb.session).search('zebra deploy', { limit: 50 });
    // memory_search answers a path line then its matching line, per file, in ranked order (which
    // ties leave to the files' times): looked up by path.
    const lines = search.split('\n');
    const hitOf = (p: string) => lines[lines.indexOf(p) + 1];
    for (const c of described) {
      expect(relevant).toContain(`<memory_file path="/memories/global/case-${c.i}.md">\nDeploy steps\nRun the zebra deploy.\n</memory_file>`);
      expect(hitOf(`/memories/global/case-${c.i}.md`)).toBe('  Deploy steps');
    }
    const blockOnly = FRONTMATTER_CASES.findIndex((c) => c.block === '');
    // An empty block has no description to match, so next to described files with the same body
    // it may fall under the relevance threshold; when it is injected, it starts at the body too.
    const injectedBlockOnly = new RegExp(`<memory_file path="/memories/global/case-${blockOnly}\\.md">\n([^\n]*)`).exec(relevant);
    if (injectedBlockOnly) expect(injectedBlockOnly[1]).toBe('Run the zebra deploy.');
    expect(hitOf(`/memories/global/case-${blockOnly}.md`)).toBe('  Run the zebra deploy.');
    // No excerpt of any file starts at a fence or inside the block.
    for (const m of relevant.matchAll(/<memory_file path="[^"]*">\n([^\n]*)/g)) expect(m[1]).not.toMatch(/^(---|\.\.\.|description:|tags:)/);
    expect(relevant + search).not.toContain('\r');
  });

  it("consolidation's merge and an import's entries leave every block out", () => {
    for (const c of FRONTMATTER_CASES.filter((x) => x.block !== null)) {
      expect(mergedText('kept line\n', [c.text])).toBe('kept line\nRun the zebra deploy.\n');
      const entries = parseMarkdown(new TextEncoder().encode(c.text)).entries.map((e) => e.text);
      expect(entries).toEqual(['Run the zebra deploy.']);
    }
  });
});
