/** SshRuntimes for tests, connected to a test sshd (tests/support/sshd.ts) with its own keys. */
import * as path from 'node:path';
import { SshConnection, type ConnectionOptions } from '../../src/main/runtime/ssh/ssh-connection';
import { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { resolveSshTarget, type SshTarget } from '../../src/main/runtime/ssh/ssh-target';
import type { Sshd } from './sshd';

/** The target of `sshd` with its client key and known_hosts; no ~/.ssh, no agent. */
export function testTarget(sshd: Pick<Sshd, 'port' | 'user' | 'identity' | 'knownHosts' | 'dir'>, overrides: { port?: number; knownHosts?: string; identity?: string } = {}): SshTarget {
  return resolveSshTarget(
    { host: '127.0.0.1', port: overrides.port ?? sshd.port, user: sshd.user, identity: overrides.identity ?? sshd.identity, knownHosts: overrides.knownHosts ?? sshd.knownHosts },
    { home: path.join(sshd.dir, 'cairn-home'), sshDir: path.join(sshd.dir, 'no-ssh-dir'), env: {} },
  );
}

export function testRuntime(sshd: Sshd, options: ConnectionOptions & { port?: number } = {}): SshRuntime {
  return new SshRuntime(new SshConnection(testTarget(sshd, options.port === undefined ? {} : { port: options.port }), options));
}
