// The one reader of where a memory's frontmatter ends, table-driven (the views that use it:
// tests/integration/frontmatter-views.test.ts).
import { describe, expect, it } from 'vitest';
import { FRONTMATTER_CASES } from '../../../tests/support/frontmatter-cases';
import { frontmatterBlock } from './frontmatter-block';

describe('frontmatterBlock', () => {
  it.each(FRONTMATTER_CASES)('$name', ({ text, block, body }) => {
    const found = frontmatterBlock(text);
    expect(found.block).toBe(block);
    expect(text.slice(found.bodyStart).split(/\r?\n/)[0]).toBe(body);
    expect(found.unclosed).toBe(block === null && text.startsWith('---'));
  });
});
