// The index of a remote scope over SSH: each listing brings the heads of the files along (one round
// trip), but a head the helper already sent at the file's current version is not sent again; the
// index stays exactly what the files hold, also after an edit made on the host in place (same
// size, the mtime put back). Real OpenSSH sshd on loopback. A file's version is given only once its
// last change is VERSION_SETTLE_MS old on the host's clock, so these tests wait that long once
// (a wait that any machine speed only lengthens: it decides nothing by luck).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_HEAD_BYTES } from '../../src/common/memory/constants';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { VERSION_SETTLE_MS } from '../../src/main/runtime/runtime';
import type { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { testRuntime } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

const settle = () => new Promise((resolve) => setTimeout(resolve, VERSION_SETTLE_MS + 200));

describe.runIf(sshdAvailable())('the remote index’s heads', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let runtime: SshRuntime;
  const note = (n: number, description: string) => `---\ndescription: ${description}\n---\n${'body '.repeat(100)}${n}\n`;

  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    runtime = testRuntime(sshd);
    sb = await makeSandbox({ runtime });
    await fs.mkdir(sb.roots.project, { recursive: true });
    // Connected and the helper started before the files are written: the tests' "not settled yet"
    // listings must come within VERSION_SETTLE_MS of the writes, whatever the connection costs.
    await runtime.connection.request(['list', sb.roots.project, sb.checkout, '', '1000000', '1000', '1', String(INDEX_HEAD_BYTES)]);
    for (let i = 0; i < 5; i++) {
      await fs.writeFile(path.join(sb.roots.project, `n${i}.md`), note(i, `note ${i}`));
      // A whole second, which utimes can put back exactly.
      await fs.utimes(path.join(sb.roots.project, `n${i}.md`), 1_700_000_000, 1_700_000_000);
    }
  });
  afterEach(async () => {
    runtime.connection.close();
    await sb.cleanup();
  });

  const listWithHeads = async () => (await runtime.connection.request(['list', sb.roots.project, sb.checkout, '', '1000000', '1000', '1', String(INDEX_HEAD_BYTES)])).map((f) => f.toString());
  /** [name, has] of each entry of a raw listing answer (7 fields an entry after 'ok', 'some'). */
  const has = (raw: string[]) => Array.from({ length: (raw.length - 2) / 7 }, (_, i) => [raw[2 + i * 7], raw[2 + i * 7 + 5]]);

  it('are sent once per version: a settled, unchanged file’s head is not sent again; an unsettled one always is', async () => {
    const fresh = await listWithHeads();
    expect(has(fresh)).toEqual([0, 1, 2, 3, 4].map((i) => [`n${i}.md`, '1']));
    // Not settled yet: no version, so sent again.
    expect(has(await listWithHeads())).toEqual([0, 1, 2, 3, 4].map((i) => [`n${i}.md`, '1']));
    await settle();
    expect(has(await listWithHeads())).toEqual([0, 1, 2, 3, 4].map((i) => [`n${i}.md`, '1']));
    expect(has(await listWithHeads())).toEqual([0, 1, 2, 3, 4].map((i) => [`n${i}.md`, '=']));
  });

  it('the index stays exactly what the files hold, also after an in-place edit at the same size with the mtime put back', async () => {
    const builder = new ContextBuilder();
    const described = async () => (await builder.snapshot(sb.session)).files.filter((f) => f.scope === 'project').map((f) => f.description);
    await settle();
    expect(await described()).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4']);
    // Again: the heads come from what this runtime was sent (the helper answers '=').
    expect(await described()).toEqual(['note 0', 'note 1', 'note 2', 'note 3', 'note 4']);
    const file = path.join(sb.roots.project, 'n2.md');
    await fs.writeFile(file, note(2, 'NOTE 2')); // the same size
    await fs.utimes(file, 1_700_000_000, 1_700_000_000);
    expect(await described()).toEqual(['note 0', 'note 1', 'NOTE 2', 'note 3', 'note 4']);
    // An edit nobody lists until it has settled: its version differs from the one its old head
    // was sent at by the ctime alone (same inode, size and mtime).
    const other = path.join(sb.roots.project, 'n3.md');
    await fs.writeFile(other, note(3, 'NOTE 3'));
    await fs.utimes(other, 1_700_000_000, 1_700_000_000);
    await settle();
    expect(await described()).toEqual(['note 0', 'note 1', 'NOTE 2', 'NOTE 3', 'note 4']);
    // A fresh builder on the same runtime gets every head, kept or sent.
    expect((await new ContextBuilder().snapshot(sb.session)).files.filter((f) => f.scope === 'project').map((f) => f.description)).toEqual(['note 0', 'note 1', 'NOTE 2', 'NOTE 3', 'note 4']);
  });
});
