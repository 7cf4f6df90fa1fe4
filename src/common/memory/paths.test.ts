import { describe, expect, it } from 'vitest';
import { MemoryToolError } from './errors';
import { displayPath, isListedName, isSafeName, parseMemoryPath } from './paths';

/** Every path rule of the envelope: the input, and a fragment of the error a model must see. */
const rejected: Array<[string, string, string]> = [
  ['outside the root', '/etc/passwd', 'Path must start with /memories, got: /etc/passwd'],
  ['relative path', 'memories/global/a.md', 'Path must start with /memories'],
  ['sibling prefix', '/memoriesX/a.md', 'Path must start with /memories, got: /memoriesX/a.md'],
  ['sibling prefix, bare', '/memories-evil', 'Path must start with /memories'],
  ['empty', '', 'The path is empty'],
  ['dot-dot', '/memories/../etc/passwd', 'would escape /memories directory'],
  ['dot-dot inside a scope', '/memories/global/../../x', 'would escape /memories directory'],
  ['dot-dot at the end', '/memories/global/a/..', 'would escape /memories directory'],
  ['dot segment', '/memories/global/./a.md', 'empty or "." segment'],
  ['empty segment', '/memories/global//a.md', 'empty or "." segment'],
  ['tilde', '/memories/global/~/a.md', 'the character `~`'],
  ['tilde in a name', '/memories/global/a~b.md', 'the character `~`'],
  ['backslash', '/memories/global/..\\..\\etc', 'the character `\\`'],
  ['encoded dot, lower case', '/memories/global/%2e%2e/x', 'URL-encoded sequence `%2e`'],
  ['encoded dot, upper case', '/memories/global/%2E%2E/x', 'URL-encoded sequence `%2E`'],
  ['encoded slash', '/memories/global/a%2fb', 'URL-encoded sequence `%2f`'],
  ['encoded slash, upper', '/memories/global/a%2Fb', 'URL-encoded sequence `%2F`'],
  ['encoded backslash', '/memories/global/a%5Cb', 'URL-encoded sequence `%5C`'],
  ['NUL', '/memories/global/a\u0000.md', 'control or invisible character (U+0000)'],
  ['newline', '/memories/global/a\n.md', 'control or invisible character (U+000A)'],
  ['tab', '/memories/global/a\t.md', 'control or invisible character (U+0009)'],
  ['escape', '/memories/global/a\u001b[31m.md', 'control or invisible character (U+001B)'],
  ['DEL', '/memories/global/a\u007f.md', 'control or invisible character (U+007F)'],
  ['C1 control', '/memories/global/a\u0085.md', 'control or invisible character (U+0085)'],
  ['bidi override', '/memories/global/a\u202e.md', 'control or invisible character (U+202E)'],
  ['zero-width space', '/memories/global/a\u200b.md', 'control or invisible character (U+200B)'],
  ['less-than', '/memories/global/<x>.md', 'the character `<`'],
  ['greater-than', '/memories/global/x>.md', 'the character `>`'],
  ['double quote', '/memories/global/"x".md', 'the character `"`'],
  ['unknown scope', '/memories/notes.md', '/memories/notes.md is not a memory scope'],
  ['unknown scope dir', '/memories/team/a.md', '/memories/team is not a memory scope'],
  ['scope case', '/memories/Global/a.md', 'is not a memory scope'],
  ['reserved name', '/memories/global/.cairn-tmp-1', 'Cairn reserves for itself'],
  ['name too long', `/memories/global/${'a'.repeat(256)}`, 'longer than 255 bytes'],
  ['path too long', `/memories/global/${'a/'.repeat(600)}x`, 'the limit is 1024'],
  ['.git at the top of a scope', '/memories/project/.git/config', 'has the segment `.git`: no memory path may lead into a .git directory'],
  ['.git deep down', '/memories/global/a/b/.git/hooks/pre-commit', 'no memory path may lead into a .git directory'],
  ['.git as the last name', '/memories/workspace/notes/.git', 'has the segment `.git`'],
  ['.GIT in upper case', '/memories/project/.GIT/config', 'has the segment `.GIT`'],
  ['.Git mixed case', '/memories/global/x/.Git', 'has the segment `.Git`'],
];

/**
 * Characters that are invisible, or that make two names look the same, or one name that the disk
 * stores as another: each is refused, named by its code point, and shown escaped.
 */
const invisible: Array<[string, string, string]> = [
  // [what, the character, how displayPath shows it]
  ['soft hyphen', '\u00ad', '\\u00ad'],
  ['combining grapheme joiner', '\u034f', '\\u034f'],
  ['Arabic letter mark', '\u061c', '\\u061c'],
  ['Hangul choseong filler', '\u115f', '\\u115f'],
  ['Khmer vowel inherent AQ', '\u17b4', '\\u17b4'],
  ['Khmer vowel inherent AA', '\u17b5', '\\u17b5'],
  ['Mongolian free variation selector', '\u180b', '\\u180b'],
  ['Mongolian vowel separator', '\u180e', '\\u180e'],
  ['zero-width non-joiner', '\u200c', '\\u200c'],
  ['left-to-right mark', '\u200e', '\\u200e'],
  ['line separator', '\u2028', '\\u2028'],
  ['word joiner', '\u2060', '\\u2060'],
  ['first isolate', '\u2068', '\\u2068'],
  ['inhibit symmetric swapping', '\u206a', '\\u206a'],
  ['nominal digit shapes', '\u206f', '\\u206f'],
  ['Hangul filler', '\u3164', '\\u3164'],
  ['variation selector 1', '\ufe00', '\\ufe00'],
  ['variation selector 16 (emoji)', '\ufe0f', '\\ufe0f'],
  ['byte order mark', '\ufeff', '\\ufeff'],
  ['halfwidth Hangul filler', '\uffa0', '\\uffa0'],
  ['interlinear annotation anchor', '\ufff9', '\\ufff9'],
  ['interlinear annotation terminator', '\ufffb', '\\ufffb'],
  ['shorthand format letter overlap', '\u{1bca0}', '\\u{1bca0}'],
  ['musical symbol begin beam', '\u{1d173}', '\\u{1d173}'],
  ['musical symbol end phrase', '\u{1d17a}', '\\u{1d17a}'],
  ['language tag', '\u{e0001}', '\\u{e0001}'],
  ['tag letter A', '\u{e0041}', '\\u{e0041}'],
  ['cancel tag', '\u{e007f}', '\\u{e007f}'],
  ['variation selector 17', '\u{e0100}', '\\u{e0100}'],
];

/** Other characters the one rule refuses, with the words of the error. */
const unstorable: Array<[string, string, string]> = [
  ['no-break space', 'a\u00a0b.md', 'a space other than the plain space (U+00A0)'],
  ['ideographic space', 'a\u3000b.md', 'a space other than the plain space (U+3000)'],
  ['em space', 'a\u2003b.md', 'a space other than the plain space (U+2003)'],
  ['narrow no-break space', 'a\u202fb.md', 'a space other than the plain space (U+202F)'],
  ['private use', 'a\ue000.md', 'a private-use character (U+E000)'],
  ['supplementary private use', 'a\u{f0000}.md', 'a private-use character (U+F0000)'],
  ['noncharacter FDD0', 'a\ufdd0.md', 'a noncharacter (U+FDD0)'],
  ['noncharacter FFFE', 'a\ufffe.md', 'a noncharacter (U+FFFE)'],
  ['noncharacter 1FFFF', 'a\u{1ffff}.md', 'a noncharacter (U+1FFFF)'],
  ['replacement character', 'a\ufffd.md', 'the replacement character (U+FFFD)'],
  ['lone high surrogate', 'a\ud800.md', 'an unpaired surrogate (U+D800)'],
  ['lone low surrogate', 'a\udc00.md', 'an unpaired surrogate (U+DC00)'],
  ['surrogates in the wrong order', 'a\ude00\ud83d.md', 'an unpaired surrogate (U+DE00)'],
];

/** The MemoryToolError's message for a refused path. */
function errorOf(input: string): string {
  let error: unknown;
  try {
    parseMemoryPath(input);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(MemoryToolError);
  return (error as Error).message;
}

describe('parseMemoryPath rejects', () => {
  it.each(rejected)('%s', (_name, input, fragment) => {
    const message = errorOf(input);
    expect(message).toContain(fragment);
    // What a model sees never contains a raw control character.
    expect(message).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
});

describe('parseMemoryPath refuses invisible characters, and shows them escaped', () => {
  it.each(invisible)('%s', (_name, c, shown) => {
    const cp = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    for (const input of [`/memories/global/a${c}b.md`, `/memories/project/${c}`, `/memories/workspace/dir${c}/x.md`]) {
      const message = errorOf(input);
      expect(message).toContain(`control or invisible character (${cp})`);
      expect(message).toContain(shown);
      expect(message).not.toContain(c);
    }
    expect(displayPath(`/memories/global/a${c}b.md`)).toBe(`/memories/global/a${shown}b.md`);
  });
});

describe('parseMemoryPath refuses names that alias or cannot be stored as written', () => {
  it.each(unstorable)('%s', (_name, name, fragment) => {
    const message = errorOf(`/memories/global/${name}`);
    expect(message).toContain(fragment);
    expect(message).toContain('which memory paths may not contain');
    // Shown escaped, never raw (a lone surrogate printed would be U+FFFD on the way out).
    expect(message.isWellFormed()).toBe(true);
    expect(message).not.toMatch(/[\u00a0\u2003\u202f\u3000\ue000\ufdd0\ufffe\ufffd]|\u{f0000}|\u{1ffff}/u);
  });

  it('a lone surrogate names one file that a well-formed name also names: refused', () => {
    // What the disk would get for the lone surrogate: the bytes of U+FFFD, the same as this name.
    expect(new TextEncoder().encode('a\ud800.md')).toEqual(new TextEncoder().encode('a\ufffd.md'));
    expect(errorOf('/memories/global/a\ud800.md')).toContain('Path /memories/global/a\\ud800.md contains an unpaired surrogate');
  });
});

describe('names must be in Unicode NFC', () => {
  const nfd = 'cafe\u0301.md';
  const nfc = 'caf\u00e9.md';

  it('refuses the NFD spelling of café.md, showing the code points and the NFC path to write', () => {
    expect(nfd).not.toBe(nfc);
    expect(nfd.normalize('NFC')).toBe(nfc);
    const message = errorOf(`/memories/global/notes/${nfd}`);
    expect(message).toContain('is not in Unicode normalization form C (NFC)');
    expect(message).toContain('it has U+0065 U+0301 where NFC has U+00E9');
    expect(message).toContain(`Write it as /memories/global/notes/${nfc} `);
    expect(parseMemoryPath(`/memories/global/notes/${nfc}`)).toEqual({ kind: 'scope', scope: 'global', segments: ['notes', nfc] });
  });

  it.each<[string, string, string]>([
    ['Hangul jamo', '\u1100\u1161.md', 'U+1100 U+1161 where NFC has U+AC00'],
    ['angstrom sign', '\u212b.md', 'U+212B where NFC has U+00C5'],
    ['CJK compatibility ideograph', '\uf900.md', 'U+F900 where NFC has U+8C48'],
    ['combining marks out of order', 'a\u0301\u0323.md', 'U+0061 U+0301 U+0323 where NFC has U+1EA1 U+0301'],
    ['a decomposed character beyond the BMP', '\u{1d15e}.md', 'U+1D157 U+1D165'],
  ])('%s', (_name, name, fragment) => {
    expect(errorOf(`/memories/global/${name}`)).toContain(fragment);
    expect(isSafeName(name)).toBe(false);
  });
});

describe('parseMemoryPath accepts', () => {
  it.each<[string, unknown]>([
    ['/memories', { kind: 'root' }],
    ['/memories/', { kind: 'root' }],
    ['/memories/global', { kind: 'scope', scope: 'global', segments: [] }],
    ['/memories/project/', { kind: 'scope', scope: 'project', segments: [] }],
    ['/memories/workspace/notes/a.md', { kind: 'scope', scope: 'workspace', segments: ['notes', 'a.md'] }],
    ['/memories/global/notes/', { kind: 'scope', scope: 'global', segments: ['notes'] }],
    ['/memories/global/100%.md', { kind: 'scope', scope: 'global', segments: ['100%.md'] }],
    ['/memories/global/ünïcödé é.md', { kind: 'scope', scope: 'global', segments: ['ünïcödé é.md'] }],
    ['/memories/global/.hidden', { kind: 'scope', scope: 'global', segments: ['.hidden'] }],
    ['/memories/global/a..b.md', { kind: 'scope', scope: 'global', segments: ['a..b.md'] }],
    // Visible non-ASCII stays allowed: accents in NFC, other scripts, emoji without a selector.
    ['/memories/global/caf\u00e9.md', { kind: 'scope', scope: 'global', segments: ['caf\u00e9.md'] }],
    ['/memories/global/日本語/メモ.md', { kind: 'scope', scope: 'global', segments: ['日本語', 'メモ.md'] }],
    ['/memories/global/\u{1f600} ok.md', { kind: 'scope', scope: 'global', segments: ['\u{1f600} ok.md'] }],
    ['/memories/global/\u0645\u0631\u062d\u0628\u0627.md', { kind: 'scope', scope: 'global', segments: ['\u0645\u0631\u062d\u0628\u0627.md'] }],
    ['/memories/global/\u0915\u094d\u0937.md', { kind: 'scope', scope: 'global', segments: ['\u0915\u094d\u0937.md'] }],
    // Names that merely contain "git".
    ['/memories/global/.gitignore', { kind: 'scope', scope: 'global', segments: ['.gitignore'] }],
    ['/memories/global/a.git', { kind: 'scope', scope: 'global', segments: ['a.git'] }],
    ['/memories/global/.github/x.md', { kind: 'scope', scope: 'global', segments: ['.github', 'x.md'] }],
    ['/memories/global/git/x.md', { kind: 'scope', scope: 'global', segments: ['git', 'x.md'] }],
  ])('%s', (input, expected) => {
    expect(parseMemoryPath(input)).toEqual(expected);
  });
});

describe('names found on disk', () => {
  it.each([
    ['plain.md', true, true],
    ['.hidden', true, false],
    ['node_modules', true, false],
    ['.cairn-tmp-123-abc', false, false],
    ['evil\nname.md', false, false],
    ['<script>.md', false, false],
    ['a\\b', false, false],
    ['%2e%2e', false, false],
    ['rtl\u202eod.md', false, false],
    ['', false, false],
    ['..', false, false],
    ['caf\u00e9.md', true, true],
    ['cafe\u0301.md', false, false],
    ['soft\u00adhyphen.md', false, false],
    ['tag\u{e0041}.md', false, false],
    ['emoji\u2764\ufe0f.md', false, false],
    ['lone\ud800.md', false, false],
    ['invalid-utf8-\ufffd.md', false, false],
    ['nbsp\u00a0.md', false, false],
    ['pua\ue000.md', false, false],
    ['.git', false, false],
    ['.GIT', false, false],
    ['.gitignore', true, false],
    ['日本語.md', true, true],
  ])('%j: safe %s, listed %s', (name, safe, listed) => {
    expect(isSafeName(name)).toBe(safe);
    expect(isListedName(name)).toBe(listed);
  });
});

describe('one rule for names found on disk and paths a model writes', () => {
  // Every name a model may write is listed when found on disk, and no other: the same rule.
  const names = [
    'plain.md', 'caf\u00e9.md', 'cafe\u0301.md', 'a\u00adb', 'a\u200bb', 'a\u{e0041}', 'a\ufe0f', 'a\u034f', 'a\ufff9',
    'a\u{1d173}', 'a\u17b4', 'a\u180e', 'a\u061c', 'a\u206a', 'a\ud800', 'a\ufffd', 'a\u00a0b', 'a\ue000', 'a\ufdd0',
    'a~b', 'a<b', '%2e', '.cairn-x', 'x'.repeat(256), '.git', 'Notes 2024.md', '\u{1f600}.md',
  ];
  it.each(names.map((n) => [JSON.stringify(n).slice(0, 40), n]))('%s', (_label, name) => {
    let accepted = true;
    try {
      parseMemoryPath(`/memories/global/${name}`);
    } catch {
      accepted = false;
    }
    expect(isSafeName(name)).toBe(accepted);
  });
});
