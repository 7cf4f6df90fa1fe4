// Discovery of other agents' files in a folder the person cannot read: refused with the folder as
// the person knows it, never listed as a folder holding nothing. Root reads through any mode, so
// the folder's refusal (EACCES) is made by replacing the one readdir of that folder.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentFilesError, discover, type Bases } from './discovery';

let userHome: string;
beforeEach(() => {
  userHome = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-discovery-')));
});
afterEach(() => fs.rmSync(userHome, { recursive: true, force: true }));

/** Runs `body` while reading `dir` fails as a folder without read permission does. */
async function withUnreadable<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const readdirSync = fs.readdirSync;
  fs.readdirSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p) === dir) throw Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' });
    return (readdirSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readdirSync;
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    fs.readdirSync = readdirSync;
    syncBuiltinESMExports();
  }
}

describe('discover', () => {
  it('lists the rules in a folder, and refuses a folder it cannot read rather than listing it empty', async () => {
    const rules = path.join(userHome, '.claude', 'rules');
    fs.mkdirSync(rules, { recursive: true });
    fs.writeFileSync(path.join(rules, 'style.md'), '# Style\n');
    const bases: Bases = { workspaceId: null, home: { place: 'global', real: userHome }, checkout: null, checkoutReason: 'no workspace is selected.', projectFolders: [] };
    expect((await discover(bases)).files.map((f) => f.id)).toEqual(['~/.claude/rules/style.md']);
    const unreadable = withUnreadable(rules, () => discover(bases));
    await expect(unreadable).rejects.toThrow(AgentFilesError);
    await expect(withUnreadable(rules, () => discover(bases))).rejects.toThrow('Cairn cannot read the folder ~/.claude/rules (EACCES)');
    await expect(withUnreadable(rules, () => discover(bases))).rejects.not.toThrow(userHome);
  });
});
