import { describe, expect, it } from 'vitest';
import { fileViewText, formatFileSize } from './texts';

describe('formatFileSize', () => {
  it.each([
    [0, '0B'],
    [34, '34B'],
    [1023, '1023B'],
    [1024, '1K'],
    [4096, '4K'],
    [1536, '1.5K'],
    [1.4 * 1024 * 1024, '1.4M'],
  ])('%d -> %s', (bytes, text) => {
    expect(formatFileSize(bytes)).toBe(text);
  });
});

describe('fileViewText', () => {
  it('numbers lines with a last empty line after a trailing newline', () => {
    expect(fileViewText('/memories/global/a.md', 'line1\nline2\n')).toBe(
      "Here's the content of /memories/global/a.md with line numbers:\n     1\tline1\n     2\tline2\n     3\t",
    );
  });
  it('honours view_range, with -1 for the end', () => {
    expect(fileViewText('/p', 'a\nb\nc', [2, -1])).toBe("Here's the content of /p with line numbers:\n     2\tb\n     3\tc");
    expect(fileViewText('/p', 'a\nb\nc', [2, 2])).toBe("Here's the content of /p with line numbers:\n     2\tb");
  });
});
