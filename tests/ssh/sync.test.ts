// Sync over SSH as a person has it: a bare repository on a host reached by the real OpenSSH sshd
// on loopback, through the person's own git and ssh (their GIT_SSH_COMMAND naming their key and
// known hosts, as one would set it), with the built CLI. Two machines' homes sync through it; with
// the host down, the sync says it is offline and keeps the change; back up, it goes out.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

describe.runIf(sshdAvailable())('cairn sync over SSH', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let remote: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    await requireBuiltCli();
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
    const bare = path.join(sb.dir, 'host', 'memory.git');
    fs.mkdirSync(path.dirname(bare), { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    remote = `ssh://${sshd.user}@127.0.0.1:${sshd.port}${bare}`;
    env = { GIT_SSH_COMMAND: `ssh -i ${sshd.identity} -o UserKnownHostsFile=${sshd.knownHosts} -o IdentitiesOnly=yes -o BatchMode=yes`, SSH_AUTH_SOCK: '' };
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  const cairn = (name: string, ...args: string[]) => runCairn([...args, '--home', path.join(sb.dir, name)], { env });
  const file = (name: string, rel: string) => path.join(sb.dir, name, 'memory', 'global', rel);

  it('carries memory between two machines through a repository on an SSH host', async () => {
    const wrote = await cairn('laptop', 'tool', JSON.stringify({ command: 'create', path: '/memories/global/ssh.md', file_text: 'over ssh\n' }));
    expect(wrote.status, wrote.stderr).toBe(0);
    const out = await cairn('laptop', 'sync', '--remote', remote);
    expect(out.stdout, out.stderr).toContain('1 sent, 0 taken in');
    const came = await cairn('desktop', 'sync', '--remote', remote);
    expect(came.stdout, came.stderr).toContain('0 sent, 1 taken in');
    expect(fs.readFileSync(file('desktop', 'ssh.md'), 'utf8')).toBe('over ssh\n');
  });

  it('is offline while the host is down, and sends what waited once it is back', async () => {
    expect((await cairn('laptop', 'sync', '--remote', remote)).status).toBe(0);
    await cairn('laptop', 'tool', JSON.stringify({ command: 'create', path: '/memories/global/later.md', file_text: 'later\n' }));
    await sshd.stop();
    let down;
    try {
      down = await cairn('laptop', 'sync');
    } finally {
      await sshd.start();
    }
    expect(down.status).toBe(1);
    expect(down.stdout).toContain('Your changes are kept and go out with the next sync.');
    const up = await cairn('laptop', 'sync');
    expect(up.stdout, up.stderr).toContain('Synced the global memory with');
    const came = await cairn('desktop', 'sync', '--remote', remote);
    expect(came.stdout).toContain('1 taken in');
    expect(fs.readFileSync(file('desktop', 'later.md'), 'utf8')).toBe('later\n');
  });
});
