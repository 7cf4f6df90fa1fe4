// Where a rename lands, from what the person typed: pure, no DOM.
import { describe, expect, it } from 'vitest';
import { baseNameRange, renameTarget, type RenameSource } from './rename-target';

const rust: RenameSource = { kind: 'file', scope: 'global', path: '/memories/global/languages/rust.md' };
const dir: RenameSource = { kind: 'dir', scope: 'project', path: '/memories/project/notes' };

describe('renameTarget', () => {
  it('reads a full virtual path, a path inside the scope, and one with stray slashes or spaces', () => {
    expect(renameTarget('/memories/global/languages/go.md', rust)).toEqual({ ok: true, path: '/memories/global/languages/go.md' });
    expect(renameTarget('languages/go.md', rust)).toEqual({ ok: true, path: '/memories/global/languages/go.md' });
    expect(renameTarget('  /go.md/ ', rust)).toEqual({ ok: true, path: '/memories/global/go.md' });
    expect(renameTarget('/memories/global/go.md/', rust)).toEqual({ ok: true, path: '/memories/global/go.md' });
  });

  it('refuses another scope (as the core does) instead of nesting its path in this one', () => {
    for (const typed of ['/memories/project/shell.md', 'memories/project/shell.md']) {
      const t = renameTarget(typed, rust);
      expect(t.ok).toBe(false);
      expect(!t.ok && t.problem).toMatch(/^A memory moves within its scope: .* To move it to project memory, create it there/);
    }
  });

  it('explains with the path rules, the scope roots, the current place, a move into itself and an existing name', () => {
    const problem = (typed: string, source = rust, exists?: (p: string) => boolean) => {
      const t = renameTarget(typed, source, exists);
      return t.ok ? null : t.problem;
    };
    expect(problem('')).toBe('Type the new name or path.');
    expect(problem('a"b.md')).toMatch(/contains the character `"`/);
    expect(problem('x/.git/y.md')).toMatch(/\.git/);
    expect(problem('/memories')).toMatch(/the directory of all scopes/);
    expect(problem('/memories/elsewhere/x.md')).toMatch(/is not a memory scope/);
    expect(problem('/memories/global/languages/rust.md')).toBe('That is where it is now.');
    expect(problem('notes/old', dir)).toBe('A directory cannot move inside itself.');
    expect(problem('archive/notes', dir)).toBeNull();
    expect(problem('languages/go.md', rust, (p) => p === '/memories/global/languages/go.md')).toMatch(/already exists; Cairn never overwrites/);
  });
});

describe('baseNameRange', () => {
  it("selects a file's name without its extension, and a directory's whole name", () => {
    const p = '/memories/global/languages/rust.md';
    expect(p.slice(...baseNameRange(p, 'file'))).toBe('rust');
    expect('/memories/global/notes.d'.slice(...baseNameRange('/memories/global/notes.d', 'dir'))).toBe('notes.d');
    expect('/memories/global/.md'.slice(...baseNameRange('/memories/global/.md', 'file'))).toBe('.md');
    expect('/memories/global/Makefile'.slice(...baseNameRange('/memories/global/Makefile', 'file'))).toBe('Makefile');
  });
});
