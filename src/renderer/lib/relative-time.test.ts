import { describe, expect, it } from 'vitest';
import { relativeTime, usageLine } from './relative-time';

const now = Date.parse('2026-11-23T12:00:00Z');
const ago = (ms: number) => new Date(now - ms).toISOString();

describe('relative times', () => {
  it.each([
    [10_000, 'just now'],
    [5 * 60_000, '5 min ago'],
    [3 * 3_600_000, '3 h ago'],
    [2 * 86_400_000, '2 d ago'],
    [90 * 86_400_000, '2026-08-25'],
  ])('%i ms ago reads %s', (ms, text) => expect(relativeTime(ago(ms), now)).toBe(text));

  it('says nothing for never or garbage', () => {
    expect(relativeTime(null, now)).toBeNull();
    expect(relativeTime('yesterday', now)).toBeNull();
  });

  it('writes the usage line only for used files', () => {
    expect(usageLine(12, ago(3 * 3_600_000), now)).toBe('Used 12× · 3 h ago');
    expect(usageLine(0, null, now)).toBeNull();
  });
});
