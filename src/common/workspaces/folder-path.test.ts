// The "Add workspace" folder rule: absolute paths pass, relative ones (and ~) get a sentence that
// names what was typed and what to type instead.
import { describe, expect, it } from 'vitest';
import { isAbsoluteFolder, relativeFolderProblem } from './folder-path';

describe('the folder of a new workspace', () => {
  it('takes absolute paths, on Windows too for a local folder, and only /... on an SSH host', () => {
    for (const p of ['/home/ann/src/app', '/', 'C:\\src\\app', 'd:/src/app', '\\\\server\\share\\app']) expect(isAbsoluteFolder(p, 'local'), p).toBe(true);
    expect(isAbsoluteFolder('/srv/app', 'ssh')).toBe(true);
    expect(isAbsoluteFolder('C:\\src\\app', 'ssh')).toBe(false);
    for (const p of ['src/app', './app', '../app', '~/src/app', 'app', 'C:app']) expect(isAbsoluteFolder(p, 'local'), p).toBe(false);
  });

  it('says why a relative path is refused, naming it, and says nothing of an absolute or empty one', () => {
    expect(relativeFolderProblem('src/app', 'local')).toBe(
      'The folder must be an absolute path that starts with /, such as /home/you/src/project; "src/app" is relative. Cairn does not guess what it is relative to.',
    );
    expect(relativeFolderProblem(' ~/src/app ', 'local')).toContain('"~/src/app" is relative (~ is not expanded)');
    expect(relativeFolderProblem('srv/app', 'ssh')).toMatch(/^The folder must be an absolute path on that host that starts with \//);
    expect(relativeFolderProblem('/home/ann/src/app', 'local')).toBeNull();
    expect(relativeFolderProblem('', 'local')).toBeNull();
  });
});
