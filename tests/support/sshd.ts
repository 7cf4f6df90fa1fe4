/**
 * A real OpenSSH sshd for tests: started on a free loopback port with freshly generated host and
 * client keys, key authentication only, its own config (UsePAM no, StrictModes no, internal-sftp;
 * as root it needs /run/sshd). `make test` installs openssh-server when it is missing. Without
 * sshd the SSH suites fail under CI (CI=true) and are skipped elsewhere, saying why.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const SSHD_BIN = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => fs.existsSync(p)) ?? null;

/** Whether the SSH suites can run here; under CI a missing sshd is a failure, not a skip. */
export function sshdAvailable(): boolean {
  if (SSHD_BIN && fs.existsSync('/usr/bin/ssh-keygen')) return true;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error('OpenSSH sshd is not installed; the SSH suites need it (make test installs openssh-server).');
  }
  process.stderr.write('SSH suites skipped: OpenSSH sshd is not installed (make test installs openssh-server).\n');
  return false;
}

export interface Sshd {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly user: string;
  /** The client's private key (unencrypted ed25519). */
  readonly identity: string;
  /** A known_hosts file trusting this server's host key. */
  readonly knownHosts: string;
  /** The host key's public line (`ssh-ed25519 AAAA...`). */
  readonly hostPublicKey: string;
  readonly dir: string;
  /** `[user@]host:port` for the CLI and the API. */
  readonly spec: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  start(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited (${child.exitCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startSshd(): Promise<Sshd> {
  if (!SSHD_BIN) throw new Error('sshd is not installed');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sshd-')));
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cairn-test', '-f', file]);
  const hostKey = path.join(dir, 'host_ed25519');
  const identity = path.join(dir, 'client_ed25519');
  keygen(hostKey);
  keygen(identity);
  const authorized = path.join(dir, 'authorized_keys');
  fs.copyFileSync(`${identity}.pub`, authorized);
  fs.chmodSync(authorized, 0o600);
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'StrictModes no',
      'Subsystem sftp internal-sftp',
      'LogLevel ERROR',
      // Each test opens a connection or a few; do not throttle them.
      'MaxStartups 100',
      '',
    ].join('\n'),
  );
  const hostPublicKey = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPublicKey}\n`);
  const user = os.userInfo().username;
  let child: ChildProcess | null = null;
  let log = '';
  const start = async () => {
    log = '';
    const c = spawn(SSHD_BIN, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child = c;
    await waitForPort(port, c, () => log);
  };
  await start();
  return {
    host: '127.0.0.1',
    port,
    user,
    identity,
    knownHosts,
    hostPublicKey,
    dir,
    spec: `${user}@127.0.0.1:${port}`,
    start,
    stop: async () => {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGTERM');
      });
    },
  };
}
