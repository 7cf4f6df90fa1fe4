// An SSH edit sent with the bytes it was based on (one round trip) must never apply a change to
// stale bytes: when the file changed on the host since Cairn last read or wrote it, the change is
// applied to what is there now, against a real OpenSSH sshd on loopback.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryService, type MemorySession } from '../../src/main/memory/memory-service';
import { SshConnection } from '../../src/main/runtime/ssh/ssh-connection';
import { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { testTarget } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

describe.runIf(sshdAvailable())('edits over SSH based on known bytes', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let connection: SshConnection;
  let session: MemorySession;
  const service = new MemoryService();
  const run = (input: Record<string, unknown>) => service.execute(input, session, { mode: 'exec', actor: 'agent' });
  const onHost = (name: string) => path.join(sb.roots.project, name);

  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
    connection = new SshConnection(testTarget(sshd));
    const runtime = new SshRuntime(connection);
    session = { ...sb.session, scopes: { ...sb.session.scopes, project: { scope: 'project', available: true, runtime, root: { path: sb.roots.project, anchor: sb.checkout } } } };
  });
  afterEach(async () => {
    connection.close();
    await sb.cleanup();
  });

  it('applies a change to the current bytes when the file changed on the host, keeping that change', async () => {
    expect((await run({ command: 'create', path: '/memories/project/a.md', file_text: 'x one\n' })).ok).toBe(true);
    await fs.writeFile(onHost('a.md'), 'y one\n'); // edited on the host; Cairn still knows "x one"
    const result = await run({ command: 'str_replace', path: '/memories/project/a.md', old_str: 'one', new_str: 'two' });
    expect(result.ok).toBe(true);
    expect(await fs.readFile(onHost('a.md'), 'utf8')).toBe('y two\n');
  });

  it('finds text that exists only in the current bytes', async () => {
    expect((await run({ command: 'create', path: '/memories/project/b.md', file_text: 'alpha\n' })).ok).toBe(true);
    await fs.writeFile(onHost('b.md'), 'alpha\nbeta\n');
    expect((await run({ command: 'str_replace', path: '/memories/project/b.md', old_str: 'beta', new_str: 'gamma' })).ok).toBe(true);
    expect(await fs.readFile(onHost('b.md'), 'utf8')).toBe('alpha\ngamma\n');
    // And reports a miss on the current bytes, not on stale ones.
    await fs.writeFile(onHost('b.md'), 'delta\n');
    const miss = await run({ command: 'insert', path: '/memories/project/b.md', insert_line: 5, insert_text: 'x' });
    expect(miss.ok).toBe(false);
    expect(miss.output).toMatch(/insert_line/);
  });

  it('chains edits on known bytes, each one landing', async () => {
    expect((await run({ command: 'create', path: '/memories/project/c.md', file_text: '0\n' })).ok).toBe(true);
    for (let i = 1; i <= 5; i++) expect((await run({ command: 'insert', path: '/memories/project/c.md', insert_line: i, insert_text: String(i) })).ok).toBe(true);
    expect(await fs.readFile(onHost('c.md'), 'utf8')).toBe('0\n1\n2\n3\n4\n5\n');
  });
});
