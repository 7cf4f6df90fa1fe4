// The one rule for names (src/common/memory/paths.ts) on the real disk: files whose names
// a model could not have written (invisible characters, NFD spellings, bytes that are not UTF-8,
// .git) are never listed nor indexed, and the tool refuses to create them, so no two names that
// look the same can become two files. Local runtime (the SSH helper keeps its own listing rule).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { ContextBuilder } from '../../src/main/context/context-builder';

let sb: Sandbox;
beforeEach(async () => {
  sb = await makeSandbox();
  expect((await sb.run({ command: 'create', path: '/memories/global/plain.md', file_text: '---\ndescription: plain\n---\n' })).ok).toBe(true);
});
afterEach(async () => {
  await sb.cleanup();
});

/** Names on disk that break the rule: each is written there behind Cairn's back. */
const hostile: Array<[string, string | Buffer]> = [
  ['NFD café', 'cafe\u0301.md'],
  ['soft hyphen', 'soft\u00adhyphen.md'],
  ['tag characters', 'tag\u{e0041}\u{e0042}.md'],
  ['variation selector', 'heart\u2764\ufe0f.md'],
  ['Mongolian vowel separator', 'a\u180eb.md'],
  ['interlinear annotation', 'a\ufff9b.md'],
  ['combining grapheme joiner', 'a\u034fb.md'],
  ['no-break space', 'a\u00a0b.md'],
  ['bytes that are not UTF-8', Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x2e, 0x6d, 0x64])],
  ['U+FFFD itself', 'a\ufffd.md'],
];

describe('names on disk that break the rule', () => {
  it('are neither listed nor indexed; the good names are', async () => {
    for (const [, name] of hostile) {
      const file = typeof name === 'string' ? path.join(sb.roots.global, name) : Buffer.concat([Buffer.from(`${sb.roots.global}/`), name]);
      await fs.writeFile(file, '---\ndescription: hostile\n---\n');
    }
    await fs.mkdir(path.join(sb.roots.global, 'sub', '.git'), { recursive: true });
    await fs.writeFile(path.join(sb.roots.global, 'sub', '.git', 'config'), '[core]\n');
    await fs.writeFile(path.join(sb.roots.global, 'sub', 'ok.md'), 'ok\n');

    const view = await sb.run({ command: 'view', path: '/memories/global' });
    const listed = view.output.split('\n').slice(1).map((l) => l.split('\t')[1]);
    expect(listed).toEqual(['/memories/global', '/memories/global/plain.md', '/memories/global/sub/', '/memories/global/sub/ok.md']);
    const indexed = (await new ContextBuilder().snapshot(sb.session)).files.map((f) => f.path).sort();
    expect(indexed).toEqual(['/memories/global/plain.md', '/memories/global/sub/ok.md']);
  });
});

describe('the tool never makes two files that look the same', () => {
  it('refuses the NFD spelling, naming the NFC one; the NFC spelling is one file', async () => {
    const nfd = await sb.run({ command: 'create', path: '/memories/global/cafe\u0301.md', file_text: 'x' });
    expect(nfd.ok).toBe(false);
    expect(nfd.output).toContain('it has U+0065 U+0301 where NFC has U+00E9. Write it as /memories/global/caf\u00e9.md');
    expect((await sb.run({ command: 'create', path: '/memories/global/caf\u00e9.md', file_text: 'x' })).ok).toBe(true);
    expect((await fs.readdir(sb.roots.global)).sort()).toEqual(['caf\u00e9.md', 'plain.md']);
  });

  it('refuses a lone surrogate, which the disk would store as U+FFFD', async () => {
    const lone = await sb.run({ command: 'create', path: '/memories/global/a\ud800.md', file_text: 'x' });
    expect(lone).toEqual({ ok: false, output: expect.stringContaining('Path /memories/global/a\\ud800.md contains an unpaired surrogate (U+D800)') as unknown as string });
    expect(await fs.readdir(sb.roots.global)).toEqual(['plain.md']);
  });

  it.each([
    ['soft hyphen', '\u00ad', '\\u00ad'],
    ['tag letter', '\u{e0041}', '\\u{e0041}'],
    ['variation selector 16', '\ufe0f', '\\ufe0f'],
  ])('refuses a %s, shown escaped', async (_name, c, shown) => {
    const result = await sb.run({ command: 'create', path: `/memories/global/a${c}.md`, file_text: 'x' });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`Path /memories/global/a${shown}.md contains a control or invisible character`);
    expect(result.output).not.toContain(c);
  });

  it('refuses a path into .git, in any case, at any depth', async () => {
    for (const p of ['/memories/global/.git/config', '/memories/global/notes/.GIT/hooks/pre-commit', '/memories/global/x/.Git']) {
      const result = await sb.run({ command: 'create', path: p, file_text: 'x' });
      expect(result.ok).toBe(false);
      expect(result.output).toContain('no memory path may lead into a .git directory');
    }
    expect(await fs.readdir(sb.roots.global)).toEqual(['plain.md']);
  });
});
