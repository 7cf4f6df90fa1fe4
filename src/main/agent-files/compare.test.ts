import { describe, expect, it } from 'vitest';
import { compareSides } from './compare';
import { statementsOf } from './statements';

describe('statementsOf', () => {
  it('splits a paragraph of one sentence per line, keeps a wrapped one and list items whole', () => {
    const text = '# Rules\n\nUse tabs.\nKeep lines short.\n\nThis sentence is wrapped\nover two lines.\n\n- An item\n  that goes on.\n- Another.\n';
    expect(statementsOf(text).map((e) => [e.line, e.text])).toEqual([
      [3, 'Use tabs.'],
      [4, 'Keep lines short.'],
      [6, 'This sentence is wrapped over two lines.'],
      [9, 'An item that goes on.'],
      [11, 'Another.'],
    ]);
  });
});

describe('compareSides', () => {
  const side = (id: string, content: string) => ({ id, label: id, content });

  it('pairs statements about the same thing, tells differs, missing and only apart, and counts what all state alike', () => {
    const result = compareSides([
      side('a', '- Use pnpm, not npm.\n- Indent with 2 spaces.\n- Tests run with vitest.\n- Ship on Fridays.\n'),
      side('b', '- Use npm, not pnpm.\n- Indent with 2 spaces.\n- Tests run with vitest.\n'),
      side('c', '- Indent with 2 spaces.\n- Use pnpm, not npm.\n'),
    ]);
    expect(result.same).toBe(1);
    expect(result.rows).toEqual([
      { kind: 'differs', cells: [{ line: 1, text: 'Use pnpm, not npm.' }, { line: 1, text: 'Use npm, not pnpm.' }, { line: 2, text: 'Use pnpm, not npm.' }] },
      { kind: 'missing', cells: [{ line: 3, text: 'Tests run with vitest.' }, { line: 3, text: 'Tests run with vitest.' }, null] },
      { kind: 'only', cells: [{ line: 4, text: 'Ship on Fridays.' }, null, null] },
    ]);
  });

  it('does not pair statements that share a single word', () => {
    const result = compareSides([side('a', 'Use tabs.\n'), side('b', 'Use zod for request bodies.\n')]);
    expect(result.rows.map((r) => r.kind)).toEqual(['only', 'only']);
  });
});
