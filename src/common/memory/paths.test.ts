import { describe, expect, it } from 'vitest';
import { MemoryToolError } from './errors';
import { isListedName, isSafeName, parseMemoryPath } from './paths';

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
];

describe('parseMemoryPath rejects', () => {
  it.each(rejected)('%s', (_name, input, fragment) => {
    let error: unknown;
    try {
      parseMemoryPath(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MemoryToolError);
    expect((error as Error).message).toContain(fragment);
    // What a model sees never contains a raw control character.
    expect((error as Error).message).not.toMatch(/[\u0000-\u001f\u007f]/);
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
  ])('%j: safe %s, listed %s', (name, safe, listed) => {
    expect(isSafeName(name)).toBe(safe);
    expect(isListedName(name)).toBe(listed);
  });
});
