/**
 * How attackers hide text from a person and not from a model, for the tests of the hidden-text
 * checks: variation-selector smuggling (each UTF-8 byte as a variation selector after a visible
 * character) and tag-character smuggling (each ASCII character as its Unicode tag character).
 */

/** `carrier` followed by each UTF-8 byte of `secret` as a variation selector (bytes 0-15: U+FE00-FE0F, 16-255: U+E0100-E01EF). */
export function smuggleInSelectors(carrier: string, secret: string): string {
  const bytes = new TextEncoder().encode(secret);
  return carrier + Array.from(bytes, (b) => String.fromCodePoint(b < 16 ? 0xfe00 + b : 0xe0100 + b - 16)).join('');
}

/** Each ASCII character of `secret` as its tag character (U+E0000 + the character). */
export function smuggleInTags(secret: string): string {
  return Array.from(secret, (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
}

/** Ordinary emoji sequences that must pass every check untouched. */
export const EMOJI_NOTES: readonly string[] = [
  'Team mood: \u{1F468}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466} family day, coffee \u2615\ufe0f, hearts \u2764\ufe0f',
  'Reactions we use: \u{1F44B}\u{1F3FD} \u{1F44D}\u{1F3FF} \u{1F9D1}\u{1F3FD}\u200d\u{1F4BB} \u{1F3F3}\ufe0f\u200d\u{1F308}',
  'Offices: \u{1F1EB}\u{1F1F7} Paris, \u{1F1EF}\u{1F1F5} Tokyo, \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Glasgow',
  'Release steps: 1\ufe0f\u20e3 build, 2\ufe0f\u20e3 test, #\ufe0f\u20e3 tag',
];
