// The readers of other memory systems' files: entries with their lines and headings, bad lines
// reported by number and skipped.
import { describe, expect, it } from 'vitest';
import { parseAegis, parseKimchi, parseMarkdown } from './entries';

const bytes = (text: string) => new TextEncoder().encode(text);
const brief = (parsed: ReturnType<typeof parseMarkdown>) => parsed.entries.map((e) => [e.line, e.text, e.context]);

describe('parseMarkdown', () => {
  it('takes list items and paragraphs, each with the headings above it', () => {
    const parsed = parseMarkdown(
      bytes(
        [
          '# Widgets', // 1
          '', // 2
          'A service that sells widgets.', // 3
          '', // 4
          '## Build', // 5
          '- Use pnpm, not npm.', // 6
          '- Run the tests with', // 7
          '  `make test` before pushing.', // 8
          '', // 9
          '## Style', // 10
          '### Go', // 11
          '* Errors wrap with %w.', // 12
          '1. Tabs, never spaces.', // 13
        ].join('\n'),
      ),
    );
    expect(parsed.bad).toEqual([]);
    expect(brief(parsed)).toEqual([
      [3, 'A service that sells widgets.', 'Widgets'],
      [6, 'Use pnpm, not npm.', 'Widgets > Build'],
      [7, 'Run the tests with `make test` before pushing.', 'Widgets > Build'],
      [12, 'Errors wrap with %w.', 'Widgets > Style > Go'],
      [13, 'Tabs, never spaces.', 'Widgets > Style > Go'],
    ]);
  });

  it('makes a "Label:" item the context of the items under it, and joins a code block to the line before it', () => {
    const parsed = parseMarkdown(
      bytes(['- Testing:', '  - unit tests with vitest', '  - e2e with playwright', '- Deploy:', '', 'Release with:', '', '```sh', 'make release', '```', '<!-- a note', 'to self -->', '@~/.claude/extra.md', '---', 'Last words.'].join('\n')),
    );
    expect(brief(parsed)).toEqual([
      [2, 'unit tests with vitest', 'Testing'],
      [3, 'e2e with playwright', 'Testing'],
      [4, 'Deploy:', null],
      [6, 'Release with: `make release`', null],
      [15, 'Last words.', null],
    ]);
  });

  it('reads setext headings (underlined with = or -) as headings', () => {
    const parsed = parseMarkdown(bytes('Widgets\n=======\n\nBuild\n-----\n- Use pnpm.\n'));
    expect(brief(parsed)).toEqual([[6, 'Use pnpm.', 'Widgets > Build']]);
  });

  it('skips frontmatter (an .mdc rule: its description becomes the context)', () => {
    const parsed = parseMarkdown(bytes('---\ndescription: "TypeScript rules"\nglobs: src/**/*.ts\nalwaysApply: false\n---\n- No any.\n'), { descriptionAsContext: true });
    expect(brief(parsed)).toEqual([[6, 'No any.', 'TypeScript rules']]);
  });

  it('reads an .mdc rule’s description as the index reads a memory file’s: YAML quoting and folding', () => {
    const context = (frontmatter: string) => brief(parseMarkdown(bytes(`---\n${frontmatter}\n---\n- No any.\n`), { descriptionAsContext: true }))[0]![2];
    expect(context("description: 'It''s TypeScript'")).toBe("It's TypeScript");
    expect(context('description: >-\n  TypeScript rules\n  for the server\nglobs: src/**/*.ts')).toBe('TypeScript rules for the server');
    expect(context('description: "Tabs\\tand \\"quotes\\""')).toBe('Tabs and "quotes"');
    expect(context('description: Use when: deploying')).toBe('Use when: deploying');
    expect(context('description:\nglobs: src/**/*.ts')).toBeNull();
  });

  it('reports lines that are not UTF-8, hold a NUL, or open a block never closed, and entries too long', () => {
    const data = new Uint8Array([...bytes('- fine\n- bad '), 0xff, 0xfe, ...bytes('\n- nul \0 here\n- also fine\n\n```\ncode\n')]);
    const parsed = parseMarkdown(data);
    expect(brief(parsed)).toEqual([
      [1, 'fine', null],
      [4, 'also fine', null],
      [6, '`code`', null],
    ]);
    expect(parsed.bad.map((b) => b.line)).toEqual([2, 3, 6]);
    expect(parsed.bad[0]!.reason).toMatch(/not valid UTF-8/);
    expect(parsed.bad[1]!.reason).toMatch(/NUL/);
    expect(parsed.bad[2]!.reason).toMatch(/never closed/);
    const long = parseMarkdown(bytes(`- ${'word '.repeat(300)}\n- short\n`));
    expect(brief(long)).toEqual([[2, 'short', null]]);
    expect(long.bad).toEqual([{ line: 1, reason: expect.stringMatching(/more than the 1000/) }]);
  });
});

describe('parseAegis', () => {
  it('reads one JSON object per line, its scope and tags; reports the rest by line', () => {
    const parsed = parseAegis(
      bytes(
        [
          '{"id":"m-1","scope":"user","text":"User prefers Python over JavaScript","tags":["preference"],"ts":"2026-02-26T12:00:00Z"}',
          '{"id":"m-2","scope":"workspace","text":"Project uses PostgreSQL 16 on port 5432","tags":["infra"]}',
          '',
          'not json',
          '["an array"]',
          '{"id":"m-3","text":""}',
          '{"id":"m-4","scope":"team","text":"x"}',
          '{"id":"m-5","text":"Deploy target is AWS us-east-1"}',
        ].join('\n'),
      ),
    );
    expect(parsed.entries.map((e) => [e.line, e.text, e.scope ?? null, e.category ?? null])).toEqual([
      [1, 'User prefers Python over JavaScript', 'global', 'preference'],
      [2, 'Project uses PostgreSQL 16 on port 5432', 'project', null],
      [8, 'Deploy target is AWS us-east-1', null, null],
    ]);
    expect(parsed.bad.map((b) => [b.line, b.reason])).toEqual([
      [4, 'it is not JSON'],
      [5, 'it is not a JSON object'],
      [6, 'it has no "text" (a non-empty string)'],
      [7, 'its "scope" is "team", not one of user, workspace, session'],
    ]);
  });
});

describe('parseKimchi', () => {
  it('splits entries at lines holding only §; USER.md entries are the person\'s preferences', () => {
    const text = 'Uses rg instead of grep.\n§\nThe repo builds with\nmake all.\n§\n§\nTimezone: Europe/Paris\n';
    const memory = parseKimchi(bytes(text), false);
    expect(memory.entries.map((e) => [e.line, e.text, e.category ?? null])).toEqual([
      [1, 'Uses rg instead of grep.', null],
      [3, 'The repo builds with make all.', null],
      [7, 'Timezone: Europe/Paris', null],
    ]);
    const user = parseKimchi(bytes(text), true);
    expect(user.entries.every((e) => e.category === 'preference' && e.scope === 'global')).toBe(true);
  });

  it('skips an entry with a line that is not UTF-8, reporting that line', () => {
    const parsed = parseKimchi(new Uint8Array([...bytes('good one\n§\nhalf '), 0xc3, ...bytes('\nrest\n§\nlast\n')]), false);
    expect(parsed.entries.map((e) => e.text)).toEqual(['good one', 'last']);
    expect(parsed.bad).toEqual([{ line: 3, reason: 'it is not valid UTF-8' }]);
  });
});
