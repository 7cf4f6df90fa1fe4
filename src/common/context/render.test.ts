import { describe, expect, it } from 'vitest';
import { truncateUtf8, utf8Length } from './render';

describe('utf8Length', () => {
  it.each(['', 'ascii', 'é', '☕ coffee', '𝄞 clef', 'a\ud800b', 'mixed é☕𝄞'])('%j matches TextEncoder', (text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('truncateUtf8', () => {
  it('cuts on a character boundary', () => {
    expect(truncateUtf8('éé', 3)).toBe('é');
    expect(truncateUtf8('a☕', 3)).toBe('a');
    expect(truncateUtf8('short', 100)).toBe('short');
  });
});
