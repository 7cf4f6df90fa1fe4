// @vitest-environment happy-dom
// The preview is GitHub-flavoured: a memory's table is a table, its task list
// has (read-only) check boxes, ~~text~~ is struck and a bare address is a link, as on GitHub; raw
// HTML stays out, also inside a table cell. Without remark-gfm each of these comes out as raw text.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FRONTMATTER_CASES } from '../../../../tests/support/frontmatter-cases';
import { Preview } from './Preview';

afterEach(cleanup);

const NOTE = [
  '---',
  'description: Build matrix',
  '---',
  '# Targets',
  '',
  '| Target | Command |',
  '| ------ | ------- |',
  '| linux  | `make`  |',
  '| mac    | <b>brew</b> make |',
  '',
  '- [x] pin the toolchain',
  '- [ ] cache the build',
  '',
  'The old flag ~~--fast~~ is gone; see https://example.com/build for more.',
  '',
].join('\n');

describe('the preview', () => {
  it('renders tables, task lists, strikethrough and autolinks as GitHub does, with no raw HTML', () => {
    render(<Preview text={NOTE} />);
    const preview = screen.getByLabelText('Rendered preview');

    const table = within(preview).getByRole('table');
    expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Target', 'Command']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').map((c) => c.textContent))).toEqual([
      ['linux', 'make'],
      ['mac', 'brew make'],
    ]);
    expect(table.querySelector('b')).toBeNull();

    const boxes = within(preview).getAllByRole('checkbox') as HTMLInputElement[];
    expect(boxes.map((b) => [b.closest('li')?.textContent?.trim(), b.checked, b.disabled])).toEqual([
      ['pin the toolchain', true, true],
      ['cache the build', false, true],
    ]);
    expect(preview.textContent).not.toContain('[x]');

    expect(within(preview).getByText('--fast').tagName).toBe('DEL');
    const link = within(preview).getByRole('link', { name: 'https://example.com/build' });
    expect(link.getAttribute('href')).toBe('https://example.com/build');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(preview.querySelector('pre.frontmatter')?.textContent).toBe('description: Build matrix');
  });
});

describe("the preview's frontmatter", () => {
  it.each(FRONTMATTER_CASES.filter((c) => c.block !== null))('$name: shown as data, the body as Markdown', ({ text, block }) => {
    render(<Preview text={text} />);
    const preview = screen.getByLabelText('Rendered preview');
    expect(preview.querySelector('pre.frontmatter')?.textContent).toBe(block);
    expect(preview.querySelector('p')?.textContent).toBe('Run the zebra deploy.');
  });
});
