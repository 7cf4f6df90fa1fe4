// The str_replace errors echo old_str as the reference does up to MAX_ECHOED_OLD_STR characters,
// and cut a longer one (with an ellipsis and its length) instead of echoing megabytes.
import { describe, expect, it } from 'vitest';
import { errors, MAX_ECHOED_LINES, MAX_ECHOED_OLD_STR } from './texts';

describe('old_str in the str_replace errors', () => {
  it('is echoed whole up to the bound, byte for byte as the reference prints it', () => {
    const exact = 'x'.repeat(MAX_ECHOED_OLD_STR);
    expect(errors.noMatch(exact, '/memories/global/a.md')).toBe(`No replacement was performed, old_str \`${exact}\` did not appear verbatim in /memories/global/a.md.`);
    expect(errors.multipleMatches('a\nb', [1, 3])).toBe('No replacement was performed. Multiple occurrences of old_str `a\nb` in lines: 1, 3. Please ensure it is unique');
    // Characters are code points: 200 emoji (400 UTF-16 units) are still whole.
    const emoji = '😀'.repeat(MAX_ECHOED_OLD_STR);
    expect(errors.noMatch(emoji, '/m')).toContain(`\`${emoji}\``);
  });

  it('is cut beyond the bound, with an ellipsis and its length, in both errors', () => {
    const long = 'abc'.repeat(2_000_000); // 6 MB
    const noMatch = errors.noMatch(long, '/memories/global/a.md');
    expect(noMatch).toBe(`No replacement was performed, old_str \`${long.slice(0, MAX_ECHOED_OLD_STR)}…\` (6000000 characters) did not appear verbatim in /memories/global/a.md.`);
    expect(noMatch.length).toBeLessThan(400);
    const one = 'y'.repeat(MAX_ECHOED_OLD_STR + 1);
    expect(errors.multipleMatches(one, [2, 5])).toBe(
      `No replacement was performed. Multiple occurrences of old_str \`${'y'.repeat(MAX_ECHOED_OLD_STR)}…\` (${MAX_ECHOED_OLD_STR + 1} characters) in lines: 2, 5. Please ensure it is unique`,
    );
    // The cut never splits a surrogate pair.
    const emoji = '😀'.repeat(MAX_ECHOED_OLD_STR + 5);
    expect(errors.noMatch(emoji, '/m')).toContain(`\`${'😀'.repeat(MAX_ECHOED_OLD_STR)}…\` (${MAX_ECHOED_OLD_STR + 5} characters)`);
  });

  it('lists every occurrence line up to the bound, then the first ones and how many in all', () => {
    const all = Array.from({ length: MAX_ECHOED_LINES }, (_, i) => i + 1);
    expect(errors.multipleMatches('x', all)).toContain(`in lines: ${all.join(', ')}. Please`);
    const many = Array.from({ length: 50_000 }, (_, i) => i + 1);
    const text = errors.multipleMatches('x', many);
    expect(text).toBe(`No replacement was performed. Multiple occurrences of old_str \`x\` in lines: ${all.join(', ')}, … (50000 occurrences in all). Please ensure it is unique`);
    expect(text.length).toBeLessThan(400);
  });
});
