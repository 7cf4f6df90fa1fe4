// SshRuntime when things go wrong, against a real OpenSSH sshd on loopback: unknown and changed
// host keys, a key the server does not accept, an encrypted key without an agent, a host that is
// down, a connection cut mid-session and a host that goes silent mid-command (both through an
// in-process TCP proxy in front of the real sshd, tests/support/tcp-proxy.ts, since sshd itself
// cannot be made to drop or stall one connection on cue). Every failure must be a clear error
// naming the host, never a hang past the timeout, never a partial file; the next command reconnects.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryService, type MemorySession } from '../../src/main/memory/memory-service';
import { RuntimeError } from '../../src/main/runtime/runtime';
import { SshConnection, SshError } from '../../src/main/runtime/ssh/ssh-connection';
import { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { makeSandbox, type Sandbox } from '../support/sandbox';
import { testTarget } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';
import { startProxy, type TcpProxy } from '../support/tcp-proxy';
import { canMount } from '../support/small-disk';

describe.runIf(sshdAvailable())('SshRuntime faults', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  const opened: SshConnection[] = [];
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    vi.useRealTimers();
    for (const c of opened.splice(0)) c.close();
    await sb.cleanup();
  });

  const connect = (overrides: Parameters<typeof testTarget>[1] = {}, options: ConstructorParameters<typeof SshConnection>[1] = {}) => {
    const c = new SshConnection(testTarget(sshd, overrides), options);
    opened.push(c);
    return c;
  };
  const knownHostsFor = async (port: number, key = sshd.hostPublicKey) => {
    const file = path.join(sb.dir, `known_hosts_${port}`);
    await fs.writeFile(file, `[127.0.0.1]:${port} ${key}\n`);
    return file;
  };
  const sessionOver = (runtime: SshRuntime): MemorySession => ({
    ...sb.session,
    scopes: { ...sb.session.scopes, project: { scope: 'project', available: true, runtime, root: { path: sb.roots.project, anchor: sb.checkout } } },
  });

  /** Whether `p` has settled, once the I/O and promise callbacks already due have run (setImmediate is never faked here). */
  async function settled(p: Promise<unknown>): Promise<boolean> {
    let done = false;
    p.then(
      () => (done = true),
      () => (done = true),
    );
    await new Promise((r) => setImmediate(r));
    return done;
  }
  /** Polls for an outcome with a deadline a loaded machine cannot miss. */
  async function until(what: string, check: () => boolean): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function failure(c: SshConnection): Promise<SshError> {
    const err = await c.ensure().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SshError);
    return err as SshError;
  }

  it('refuses an unknown host key, naming the host and the fingerprint', async () => {
    const err = await failure(connect({ knownHosts: path.join(sb.dir, 'empty') }));
    expect(err.kind).toBe('hostkey');
    expect(err.hostKey).toMatchObject({ host: `[127.0.0.1]:${sshd.port}`, state: 'unknown', keyType: 'ssh-ed25519' });
    expect(err.message).toMatch(new RegExp(`^The host key of \\[127\\.0\\.0\\.1\\]:${sshd.port} is not trusted yet \\(ssh-ed25519 SHA256:[A-Za-z0-9+/]{43}\\)`));
  });

  it('refuses a changed host key', async () => {
    const other = path.join(sb.dir, 'other_host_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const otherPub = (await fs.readFile(`${other}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ');
    const err = await failure(connect({ knownHosts: await knownHostsFor(sshd.port, otherPub) }));
    expect(err.kind).toBe('hostkey');
    expect(err.hostKey?.state).toBe('changed');
    expect(err.message).toContain('has CHANGED');
  });

  it('trusts a hashed known_hosts entry', async () => {
    const file = await knownHostsFor(sshd.port);
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
    expect(await fs.readFile(file, 'utf8')).toMatch(/^\|1\|/);
    await connect({ knownHosts: file }).ensure();
  });

  it('says when the server accepts none of the keys', async () => {
    const wrong = path.join(sb.dir, 'wrong_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', wrong]);
    const err = await failure(connect({ identity: wrong }));
    expect(err.kind).toBe('auth');
    expect(err.message).toBe(`${sshd.user}@127.0.0.1:${sshd.port} refused every key Cairn offered.`);
  });

  it('answers an encrypted key without an agent with a clear error, not a hang or a prompt', async () => {
    const locked = path.join(sb.dir, 'locked_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'passphrase', '-f', locked]);
    const err = await failure(connect({ identity: locked }));
    expect(err.kind).toBe('auth');
    expect(err.message).toContain('locked_key');
    expect(err.message).toContain('passphrase');
    expect(err.message).not.toContain(sb.dir);
  });

  it('reports a host that is down, and backs off before trying again', async () => {
    // The backoff is read off Date.now(): a frozen clock, so the retry inside the backoff does not
    // depend on how fast this machine gets from one attempt to the next.
    vi.useFakeTimers({ toFake: ['Date'] });
    const c = connect({ port: 1 });
    const err = await failure(c);
    expect(err.message).toBe(`Cannot connect to ${sshd.user}@127.0.0.1:1: connection refused.`);
    vi.setSystemTime(Date.now() + 249);
    const again = await failure(c);
    expect(again).toBe(err);
    expect(c.counters.connects).toBe(1);
    // Once the first backoff (250 ms) is over, the next command tries the host again.
    vi.setSystemTime(Date.now() + 1);
    const third = await failure(c);
    expect(third.message).toBe(err.message);
    expect(c.counters.connects).toBe(2);
  });

  it('an idle connection closes itself, and the next command reconnects', async () => {
    // The idle timer runs on a fake clock (the socket I/O stays real): closed at idleMs, not before.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const connection = connect({}, { idleMs: 300 });
    const runtime = new SshRuntime(connection);
    const root = { path: sb.roots.project, anchor: sb.checkout };
    expect(await runtime.stat(root, [], true)).toBeNull();
    expect(connection.connected).toBe(true);
    vi.advanceTimersByTime(299);
    expect(connection.connected).toBe(true);
    vi.advanceTimersByTime(1);
    expect(connection.connected).toBe(false);
    expect(await runtime.stat(root, [], true)).toBeNull();
    expect(connection.counters.connects).toBe(2);
  });

  describe('through a proxy', () => {
    let proxy: TcpProxy;
    beforeEach(async () => {
      proxy = await startProxy(sshd.port);
    });
    afterEach(async () => {
      await proxy.close();
    });

    it('a connection cut between commands fails nothing but reconnects for the next command', async () => {
      const connection = connect({ port: proxy.port, knownHosts: await knownHostsFor(proxy.port) });
      const runtime = new SshRuntime(connection);
      const service = new MemoryService();
      const session = sessionOver(runtime);
      const run = (input: unknown) => service.execute(input, session, { mode: 'exec', actor: 'agent' });
      expect((await run({ command: 'create', path: '/memories/project/a.md', file_text: 'one\n' })).ok).toBe(true);
      proxy.killAll();
      // Between commands: the next command comes once the cut has been noticed (as it is while an
      // agent thinks), so wait for that rather than for a guessed delay.
      await until('the cut to be noticed', () => !connection.connected);
      const next = await run({ command: 'view', path: '/memories/project/a.md' });
      expect(next).toEqual({ ok: true, output: "Here's the content of /memories/project/a.md with line numbers:\n     1\tone\n     2\t" });
      expect(connection.counters.connects).toBe(2);
    });

    it('a connection cut mid-command fails that command with a clear error and leaves no partial file', async () => {
      const connection = connect({ port: proxy.port, knownHosts: await knownHostsFor(proxy.port) });
      const runtime = new SshRuntime(connection, 'devbox');
      const service = new MemoryService();
      const session = sessionOver(runtime);
      await runtime.probe();
      proxy.blackhole = true;
      const pending = service.execute({ command: 'create', path: '/memories/project/big.md', file_text: 'x'.repeat(90_000) }, session, { mode: 'exec', actor: 'agent' });
      // Cut once the write (all 90 000 bytes of it) is on the wire, not after a guessed delay.
      await proxy.swallowed(90_000);
      proxy.killAll();
      const result = await pending;
      expect(result).toEqual({
        ok: false,
        output: `Error: /memories/project is unavailable: the host of workspace devbox cannot be used right now: the connection to ${sshd.user}@127.0.0.1:${proxy.port} was lost; the next command reconnects (a write in flight was made whole or not at all).`,
      });
      expect(runtime.lastError?.message).toBe(`The connection to ${sshd.user}@127.0.0.1:${proxy.port} was lost.`);
      proxy.blackhole = false;
      await expect(fs.access(path.join(sb.roots.project, 'big.md'))).rejects.toThrow();
      const names = await fs.readdir(sb.roots.project).catch(() => []);
      expect(names.filter((n) => !n.startsWith('.cairn-tmp-'))).toEqual([]);
      // The next command reconnects and works.
      expect((await service.execute({ command: 'create', path: '/memories/project/ok.md', file_text: 'ok' }, session, { mode: 'exec', actor: 'agent' })).ok).toBe(true);
    });

    it('a host that goes silent mid-command fails it after the timeout, never hangs, then reconnects', async () => {
      // The request timeout runs on a fake clock (the socket I/O stays real): the command fails
      // exactly when requestTimeoutMs has passed since it was sent, whatever this machine's speed.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const connection = connect({ port: proxy.port, knownHosts: await knownHostsFor(proxy.port) }, { requestTimeoutMs: 800 });
      const runtime = new SshRuntime(connection);
      const root = { path: sb.roots.project, anchor: sb.checkout };
      await runtime.probe();
      proxy.blackhole = true;
      const pending = runtime.stat(root, [], true).catch((e: unknown) => e);
      await proxy.swallowed(1); // the request is on the wire, unanswered
      vi.advanceTimersByTime(799);
      expect(await settled(pending)).toBe(false);
      vi.advanceTimersByTime(1);
      const err = await pending;
      expect(err).toBeInstanceOf(RuntimeError);
      expect((err as RuntimeError).code).toBe('UNREACHABLE');
      expect(runtime.lastError?.message).toBe(`${sshd.user}@127.0.0.1:${proxy.port} did not answer within 1 s.`);
      proxy.blackhole = false;
      expect(await runtime.stat(root, [], true)).toBeNull();
      expect(connection.counters.connects).toBe(2);
    });
  });

  // A full remote disk and a read-only one, as a small tmpfs mounted over the remote project root
  // (needs root with mount rights, as in this project's containers; elsewhere these two are skipped).
  describe.runIf(canMount())('remote filesystem errors', () => {
    let mounted: string | null = null;
    afterEach(() => {
      if (mounted) execFileSync('umount', [mounted]);
      mounted = null;
    });
    const mountRoot = async (options: string) => {
      await fs.mkdir(sb.roots.project, { recursive: true });
      // mode=0700: a tmpfs's root is world-writable (1777) by default, and Cairn refuses such a root.
      execFileSync('mount', ['-t', 'tmpfs', '-o', `${options},mode=0700`, 'tmpfs', sb.roots.project]);
      mounted = sb.roots.project;
    };

    it('a full disk fails the write with a clear error and leaves no partial or temp file', async () => {
      await mountRoot('size=64k');
      const runtime = new SshRuntime(connect());
      const service = new MemoryService();
      const result = await service.execute({ command: 'create', path: '/memories/project/big.md', file_text: 'x'.repeat(90_000) }, sessionOver(runtime), { mode: 'exec', actor: 'agent' });
      expect(result.ok).toBe(false);
      expect(result.output).toBe('Error: Could not create /memories/project/big.md: the disk is full.');
      expect(await fs.readdir(sb.roots.project)).toEqual([]);
      // Smaller files still fit.
      expect((await service.execute({ command: 'create', path: '/memories/project/small.md', file_text: 'ok' }, sessionOver(runtime), { mode: 'exec', actor: 'agent' })).ok).toBe(true);
    });

    it('a read-only remote filesystem fails writes with a clear error; reads still work', async () => {
      await fs.mkdir(sb.roots.project, { recursive: true });
      await fs.writeFile(path.join(sb.roots.project, 'kept.md'), 'kept\n');
      // Bind the populated root read-only over itself.
      execFileSync('mount', ['--bind', '-o', 'ro', sb.roots.project, sb.roots.project]);
      mounted = sb.roots.project;
      const runtime = new SshRuntime(connect());
      const service = new MemoryService();
      const session = sessionOver(runtime);
      const result = await service.execute({ command: 'str_replace', path: '/memories/project/kept.md', old_str: 'kept', new_str: 'changed' }, session, { mode: 'exec', actor: 'agent' });
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(/^Error: Could not str replace \/memories\/project\/kept.md: /);
      expect(result.output).not.toContain(sb.dir);
      expect((await service.execute({ command: 'view', path: '/memories/project/kept.md' }, session, { mode: 'exec', actor: 'agent' })).ok).toBe(true);
    });
  });

  it('sshd stopped: the next command reports the host unreachable, and works again once sshd is back', async () => {
    const connection = connect();
    const runtime = new SshRuntime(connection);
    const root = { path: sb.roots.project, anchor: sb.checkout };
    await runtime.probe();
    await sshd.stop();
    // The open session survives a stopped listener (as with OpenSSH); cut it, as a reboot would.
    connection.close();
    try {
      const err = await runtime.stat(root, [], true).catch((e: unknown) => e);
      expect((err as RuntimeError).code).toBe('UNREACHABLE');
      expect(runtime.lastError?.message).toContain('connection refused');
    } finally {
      await sshd.start();
    }
    connection.resetBackoff();
    expect(await runtime.stat(root, [], true)).toBeNull();
  });
});
