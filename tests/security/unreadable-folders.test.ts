// A folder Cairn cannot read is never shown as an empty one: the inbox's folder of items made
// unreadable (chmod 000) by its owner, a real Unix user running the built CLI (root reads through
// any mode, so the suite runs as another user, made with useradd; tests/support/unix-users.ts).
// `cairn inbox list` then says it cannot read the inbox, naming no path, and never "(the inbox is
// empty)"; made readable again, the same items are listed, nothing lost.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cairnAs, letOthersReachCli, shellAs, unixUser, unixUsersAvailable, type UnixUser } from '../support/unix-users';

describe.runIf(unixUsersAvailable())('a folder that cannot be read', () => {
  let me: UnixUser;
  let restoreReach: () => void;
  let base: string;

  beforeAll(() => {
    me = unixUser('cairn-t-me');
    restoreReach = letOthersReachCli();
  });
  afterAll(() => restoreReach?.());
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-unreadable-')));
    fs.chmodSync(base, 0o1777);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('the inbox: an unreadable folder of items is said to be unreadable, never listed as an empty inbox', async () => {
    const home = path.join(base, 'home');
    await shellAs(me, `mkdir work && printf -- '- Use pnpm for everything.\\n' > work/notes.md`, base);
    const imported = await cairnAs(me, ['import', '--from', 'markdown', 'notes.md', '--home', home], { cwd: path.join(base, 'work'), home: base });
    expect(imported.stdout).toContain('Proposed 1 for your review in the inbox.');
    const listed = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(listed.stdout).toContain('Use pnpm for everything.');

    await shellAs(me, 'chmod 000 home/inbox/items', base);
    const unreadable = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(unreadable.stdout).not.toContain('(the inbox is empty)');
    expect(unreadable.stdout).toContain('Cairn cannot read its inbox (EACCES)');
    expect(unreadable.stdout + unreadable.stderr).not.toContain(base);
    expect(unreadable.status).toBe(1);
    // A harvest or an import into it fails the same way rather than counting the inbox empty.
    const again = await cairnAs(me, ['import', '--from', 'markdown', 'notes.md', '--home', home], { cwd: path.join(base, 'work'), home: base });
    expect(again.stdout).toContain('Cairn cannot read its inbox (EACCES)');
    expect(again.status).not.toBe(0);

    await shellAs(me, 'chmod 700 home/inbox/items', base);
    const readable = await cairnAs(me, ['inbox', 'list', '--home', home], { home: base });
    expect(readable.status).toBe(0);
    expect(readable.stdout).toContain('Use pnpm for everything.');
  });
});
