// Logging in as a person who lives in `ssh` expects, against a real OpenSSH sshd on loopback: a
// ~/.ssh/config alias (HostName, Port, User, IdentityFile) with the host in a hashed
// ~/.ssh/known_hosts, and a key held only by a real ssh-agent (SSH_AUTH_SOCK), with the CLI.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { makeCheckout, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

describe.runIf(sshdAvailable())('SSH login as OpenSSH does it', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let userHome: string;
  let remote: string;
  beforeAll(async () => {
    await requireBuiltCli();
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
    remote = await makeCheckout(path.join(sb.dir, 'remote-host'));
    userHome = path.join(sb.dir, 'user-home');
    await fs.mkdir(path.join(userHome, '.ssh'), { recursive: true, mode: 0o700 });
    const knownHosts = path.join(userHome, '.ssh', 'known_hosts');
    await fs.writeFile(knownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
    execFileSync('ssh-keygen', ['-H', '-f', knownHosts], { stdio: 'ignore' });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('reaches a ~/.ssh/config alias with its HostName, Port, User and IdentityFile', async () => {
    await fs.writeFile(
      path.join(userHome, '.ssh', 'config'),
      `Host devbox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.identity}\n`,
    );
    const env = { HOME: userHome, SSH_AUTH_SOCK: '' };
    const added = await runCairn(['--home', sb.home, 'workspace', 'add', '--name', 'alias', '--ssh', `devbox:${remote}`, '--id', 'alias'], { env });
    expect(added).toMatchObject({ status: 0, stdout: 'alias\n', stderr: '' });
    const created = await runCairn(['--home', sb.home, 'tool', '--workspace', 'alias', JSON.stringify({ command: 'create', path: '/memories/project/via-alias.md', file_text: 'x' })], { env });
    expect(created.stdout).toBe('File created successfully at: /memories/project/via-alias.md\n');
    await fs.access(path.join(remote, '.cairn', 'memory', 'via-alias.md'));
  });

  it('uses a key held by ssh-agent', async () => {
    const sock = path.join(sb.dir, 'agent.sock');
    const agent: ChildProcess = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    try {
      // Wait until the agent answers (ssh-add -l: 1 is "no identities", 2 "cannot connect"), with a
      // deadline no loaded machine misses; its socket file alone can exist before it listens.
      const deadline = Date.now() + 15_000;
      while (spawnSync('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' }).status === 2) {
        if (Date.now() > deadline) throw new Error('ssh-agent did not start within 15 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      execFileSync('ssh-add', [sshd.identity], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
      // No identity anywhere but in the agent: the key file is not given and ~/.ssh has none.
      const env = { HOME: userHome, SSH_AUTH_SOCK: sock };
      const added = await runCairn(['--home', sb.home, 'workspace', 'add', '--name', 'agent', '--ssh', `${sshd.spec}:${remote}`, '--id', 'agent'], { env });
      expect(added).toMatchObject({ status: 0, stdout: 'agent\n', stderr: '' });
      const view = await runCairn(['--home', sb.home, 'tool', '--workspace', 'agent', JSON.stringify({ command: 'view', path: '/memories/project' })], { env });
      expect(view.status).toBe(0);
      // Without the agent, the same login has no key to offer, and says so.
      const without = await runCairn(['--home', sb.home, 'tool', '--workspace', 'agent', JSON.stringify({ command: 'view', path: '/memories/project' })], { env: { HOME: userHome, SSH_AUTH_SOCK: '' } });
      expect(without.stdout).toMatch(/^Error: \/memories\/project is unavailable: the SSH host .* cannot be used: No SSH key for .*: no ssh-agent is running and no key file was found; give one with --identity\./);
    } finally {
      agent.kill();
    }
  });
});
