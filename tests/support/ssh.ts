/** SshRuntimes for tests, connected to a test sshd (tests/support/sshd.ts) with its own keys. */
import * as path from 'node:path';
import { SshConnection, type ConnectionOptions } from '../../src/main/runtime/ssh/ssh-connection';
import { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { resolveSshTarget, type SshTarget } from '../../src/main/runtime/ssh/ssh-target';
import { afterAll, beforeAll } from 'vitest';
import { startSshd, sshdAvailable, type Sshd } from './sshd';

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

/** What a suite runs over: the local disk, and the same roots over SSH where an sshd can run. */
export const RUNTIME_KINDS = sshdAvailable() ? (['local', 'ssh'] as const) : (['local'] as const);

/**
 * In a `describe.each(RUNTIME_KINDS)` suite: for 'ssh', a test sshd started before the suite and
 * stopped after it. Returns the SshRuntime that reaches it (undefined for 'local').
 */
export function suiteRuntime(kind: (typeof RUNTIME_KINDS)[number]): () => SshRuntime | undefined {
  let sshd: Sshd | null = null;
  let runtime: SshRuntime | undefined;
  beforeAll(async () => {
    if (kind !== 'ssh') return;
    sshd = await startSshd();
    runtime = testRuntime(sshd);
  });
  afterAll(async () => {
    runtime?.connection.close();
    runtime = undefined;
    await sshd?.stop();
  });
  return () => runtime;
}
