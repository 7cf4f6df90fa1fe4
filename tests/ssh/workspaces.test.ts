// SSH workspaces end to end against a real OpenSSH sshd on loopback (tests/support/sshd.ts): the
// API routes the UI uses (add, status with the host key, trust by fingerprint, memory.list with an
// unavailable project scope) and the CLI (cairn workspace add|list|trust|remove, cairn tool
// --workspace, --jsonl). The "remote" checkout is a directory on this machine reached over SSH.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createRouterClient, type RouterClient } from '@orpc/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openAppHost, type AppHost } from '../../src/main/host/app-host';
import { localRuntime } from '../../src/main/host/memory-home';
import { router, type AppRouter } from '../../src/main/api/router';
import { closeAllConnections } from '../../src/main/runtime/ssh/ssh-connection';
import { resolveLocalSession } from '../../src/main/workspaces/session';
import { runCairn } from '../support/cli';
import { makeCheckout, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

const fingerprintOf = (pub: string) => {
  const blob = Buffer.from(pub.split(' ')[1]!, 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
};

describe.runIf(sshdAvailable())('SSH workspaces', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let remote: string;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    closeAllConnections();
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox();
    // A clone of the same repository (same origin) on the "remote" host.
    remote = await makeCheckout(path.join(sb.dir, 'remote-host'));
  });
  afterEach(async () => {
    closeAllConnections();
    await sb.cleanup();
  });

  describe('through the API', () => {
    let host: AppHost;
    let client: RouterClient<AppRouter>;
    beforeEach(() => {
      host = openAppHost(sb.home);
      client = createRouterClient(router, { context: host });
    });
    afterEach(async () => {
      await host.close();
    });

    it('adds a remote checkout, reports its untrusted key, trusts it by fingerprint, then reaches its project memory', async () => {
      const ws = await client.workspaces.add({ name: 'Dev box', path: remote, ssh: sshd.spec, identity: sshd.identity });
      expect(ws).toMatchObject({ name: 'Dev box', kind: 'ssh', path: remote, host: sshd.spec });
      expect(await client.workspaces.list()).toEqual([ws]);

      const fingerprint = fingerprintOf(sshd.hostPublicKey);
      const untrusted = await client.workspaces.status({ id: ws.id });
      expect(untrusted).toMatchObject({ id: ws.id, reachable: false, hostKey: { host: `[127.0.0.1]:${sshd.port}`, fingerprint, state: 'unknown' } });
      expect(untrusted.reason).toContain('not trusted yet');
      expect(untrusted.reason).toContain(fingerprint);

      // The project scope is listed as unavailable, saying why; the other scopes work.
      await client.memory.save({ workspaceId: ws.id, path: '/memories/workspace/w.md', content: 'w', expectedSha256: null });
      const listed = await client.memory.list({ workspaceId: ws.id });
      const project = listed.scopes.find((s) => s.scope === 'project')!;
      expect(project.available).toBe(false);
      expect(project.reason).toContain('not trusted yet');
      expect(listed.scopes.filter((s) => s.available).map((s) => s.scope)).toEqual(['global', 'workspace']);
      expect(listed.files.map((f) => f.path)).toEqual(['/memories/workspace/w.md']);

      // A fingerprint the host does not present is refused, and nothing is recorded.
      const wrong = await client.workspaces.trust({ id: ws.id, fingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
      expect(wrong.status).toBe('error');
      expect(wrong.message).toContain(`presents ${fingerprint}`);
      await expect(fs.access(path.join(sb.home, 'known_hosts'))).rejects.toThrow();

      expect(await client.workspaces.trust({ id: ws.id, fingerprint })).toMatchObject({ status: 'ok' });
      expect(await fs.readFile(path.join(sb.home, 'known_hosts'), 'utf8')).toBe(`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      expect(await client.workspaces.status({ id: ws.id })).toEqual({ id: ws.id, reachable: true, reason: null, hostKey: { host: `[127.0.0.1]:${sshd.port}`, fingerprint, state: 'trusted' } });

      expect(await client.memory.save({ workspaceId: ws.id, path: '/memories/project/p.md', content: '---\ndescription: remote note\n---\nbody\n', expectedSha256: null })).toMatchObject({ status: 'ok' });
      expect(await fs.readFile(path.join(remote, '.cairn', 'memory', 'p.md'), 'utf8')).toContain('body');
      const after = await client.memory.list({ workspaceId: ws.id });
      expect(after.scopes.every((s) => s.available)).toBe(true);
      expect(after.files.find((f) => f.path === '/memories/project/p.md')).toMatchObject({ description: 'remote note' });
      expect((await client.memory.read({ workspaceId: ws.id, path: '/memories/project/p.md' })).content).toContain('body');

      // Removing the workspace leaves the remote checkout and its project memory alone.
      expect(await client.workspaces.remove({ id: ws.id })).toMatchObject({ status: 'ok' });
      await fs.access(path.join(remote, '.cairn', 'memory', 'p.md'));
    });

    it('streams edits made on the remote host outside Cairn (polled), and Cairn\'s own writes once', async () => {
      await fs.mkdir(sb.home, { recursive: true });
      await fs.writeFile(path.join(sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      const ws = await client.workspaces.add({ name: 'Dev box', path: remote, ssh: sshd.spec, identity: sshd.identity });
      const controller = new AbortController();
      const stream = await client.memory.onChange({ workspaceId: ws.id }, { signal: controller.signal });
      const events: Array<{ op: string; path: string; actor: string }> = [];
      let ready!: () => void;
      const isReady = new Promise<void>((resolve) => (ready = resolve));
      const reading = (async () => {
        for await (const item of stream) {
          if (item.type === 'ready') ready();
          else events.push({ op: item.op, path: item.path, actor: item.actor });
        }
      })().catch(() => {});
      await isReady;
      await client.memory.save({ workspaceId: ws.id, path: '/memories/project/mine.md', content: 'mine', expectedSha256: null });
      await fs.mkdir(path.join(remote, '.cairn', 'memory'), { recursive: true });
      await fs.writeFile(path.join(remote, '.cairn', 'memory', 'pulled.md'), 'from git pull\n');
      const until = async (what: string, done: () => boolean) => {
        const deadline = Date.now() + 15_000; // a passing wait ends at once; this is for a loaded machine
        while (!done()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      await until('pulled.md', () => events.some((e) => e.path === '/memories/project/pulled.md'));
      // One more outside edit, written once pulled.md was reported, so found by a later poll: a
      // duplicate of Cairn's own write (found by that poll or an earlier one) would come before it.
      await fs.writeFile(path.join(remote, '.cairn', 'memory', 'later.md'), 'edited on the host\n');
      await until('later.md', () => events.some((e) => e.path === '/memories/project/later.md'));
      controller.abort();
      await reading;
      expect(events).toEqual([
        { op: 'create', path: '/memories/project/mine.md', actor: 'person' },
        { op: 'create', path: '/memories/project/pulled.md', actor: 'external' },
        { op: 'create', path: '/memories/project/later.md', actor: 'external' },
      ]);
      // Each is a version in the history, with the bytes found on the remote host.
      const { versions } = await client.history.list({ workspaceId: ws.id, scope: 'project' });
      expect(versions.map((v) => [v.op, v.actor, v.path])).toEqual([
        ['create', 'external', '/memories/project/later.md'],
        ['create', 'external', '/memories/project/pulled.md'],
        ['create', 'person', '/memories/project/mine.md'],
      ]);
      expect(await client.history.read({ workspaceId: ws.id, id: versions[1]!.id })).toMatchObject({ before: null, after: 'from git pull\n' });
    });

    it('reports a changed host key, and trusting the new one replaces the old in Cairn\'s known_hosts', async () => {
      const stale = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBfCZIsnd4EuS8sRDBqAs/8ySS4QfQ0uCR2pfsEAwuDa';
      await fs.mkdir(sb.home, { recursive: true });
      await fs.writeFile(path.join(sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${stale}\nother.example ${stale}\n`);
      const ws = await client.workspaces.add({ name: 'Dev box', path: remote, ssh: sshd.spec, identity: sshd.identity });
      const fingerprint = fingerprintOf(sshd.hostPublicKey);
      const changed = await client.workspaces.status({ id: ws.id });
      expect(changed).toMatchObject({ reachable: false, hostKey: { fingerprint, state: 'changed' } });
      expect(changed.reason).toContain('has CHANGED');
      const listed = await client.memory.list({ workspaceId: ws.id });
      expect(listed.scopes.find((x) => x.scope === 'project')?.reason).toContain('has CHANGED');
      expect(await client.workspaces.trust({ id: ws.id, fingerprint })).toMatchObject({ status: 'ok' });
      expect(await fs.readFile(path.join(sb.home, 'known_hosts'), 'utf8')).toBe(`other.example ${stale}\n[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      expect(await client.workspaces.status({ id: ws.id })).toMatchObject({ reachable: true, hostKey: { state: 'trusted' } });
    });

    it('refuses a remote path that is missing or a file, once the host is trusted', async () => {
      await fs.writeFile(path.join(sb.home + '-kh'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      await fs.mkdir(sb.home, { recursive: true });
      await fs.copyFile(sb.home + '-kh', path.join(sb.home, 'known_hosts'));
      await expect(client.workspaces.add({ name: 'x', path: path.join(remote, 'nope'), ssh: sshd.spec, identity: sshd.identity })).rejects.toThrow(/There is no folder/);
      await fs.writeFile(path.join(remote, 'file'), 'x');
      await expect(client.workspaces.add({ name: 'x', path: path.join(remote, 'file'), ssh: sshd.spec, identity: sshd.identity })).rejects.toThrow(/is a file, not a folder/);
      await expect(client.workspaces.add({ name: 'x', path: 'relative/path', ssh: sshd.spec })).rejects.toThrow(/must be absolute/);
      await expect(client.workspaces.add({ name: 'x', path: remote, ssh: 'not a host' })).rejects.toThrow(/USER@/);
    });

    it('shows a host that is down as unavailable, naming it', async () => {
      await fs.mkdir(sb.home, { recursive: true });
      await fs.writeFile(path.join(sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      const ws = await client.workspaces.add({ name: 'Down', path: remote, ssh: `${sshd.user}@127.0.0.1:1`, identity: sshd.identity });
      const status = await client.workspaces.status({ id: ws.id });
      expect(status).toMatchObject({ reachable: false, hostKey: null });
      expect(status.reason).toMatch(/127\.0\.0\.1:1 .*connection refused/);
      const listed = await client.memory.list({ workspaceId: ws.id });
      expect(listed.scopes.find((s) => s.scope === 'project')).toMatchObject({ available: false, reason: expect.stringContaining('connection refused') });
    });
  });

  describe('through the CLI', () => {
    beforeAll(requireBuiltCli);
    // A HOME without ~/.ssh and no agent: only what the commands are given is used.
    const env = () => ({ HOME: path.join(sb.dir, 'user-home'), SSH_AUTH_SOCK: '' });
    const cairn = (args: string[], input?: string) => runCairn(['--home', sb.home, ...args], { env: env(), ...(input !== undefined ? { input } : {}) });

    it('adds, trusts (only when confirmed), runs memory commands on the remote checkout, lists and removes', async () => {
      const added = await cairn(['workspace', 'add', '--name', 'dev', '--ssh', `${sshd.spec}:${remote}`, '--identity', sshd.identity, '--id', 'devbox']);
      expect(added.stdout).toBe('devbox\n');
      expect(added.stderr).toContain('cairn workspace trust devbox');
      expect(added.status).toBe(0);

      const refused = await cairn(['tool', '--workspace', 'devbox', JSON.stringify({ command: 'create', path: '/memories/project/a.md', file_text: 'a' })]);
      expect(refused.status).toBe(1);
      expect(refused.stdout).toMatch(/^Error: \/memories\/project is unavailable: the host key of .* is not trusted yet \(ssh-ed25519 SHA256:/);

      const declined = await cairn(['workspace', 'trust', 'devbox'], 'n\n');
      expect(declined.stdout).toContain(fingerprintOf(sshd.hostPublicKey));
      expect(declined.stdout).toContain('Not trusted');
      expect(declined.status).toBe(1);
      const confirmed = await cairn(['workspace', 'trust', 'devbox'], 'y\n');
      expect(confirmed.stdout).toContain('Trusted [127.0.0.1]');
      expect((await cairn(['workspace', 'trust', 'devbox', '--yes'])).stdout).toContain('already trusted');

      const created = await cairn(['tool', '--workspace', 'devbox', JSON.stringify({ command: 'create', path: '/memories/project/a.md', file_text: 'remote\n' })]);
      expect(created).toEqual({ status: 0, stdout: 'File created successfully at: /memories/project/a.md\n', stderr: '' });
      expect(await fs.readFile(path.join(remote, '.cairn', 'memory', 'a.md'), 'utf8')).toBe('remote\n');

      const lines = await runCairn(['--home', sb.home, 'tool', '--jsonl', '--workspace', 'devbox'], {
        env: env(),
        input: [
          { command: 'str_replace', path: '/memories/project/a.md', old_str: 'remote', new_str: 'edited' },
          { command: 'view', path: '/memories/project' },
          { command: 'view', path: '/memories/project/../x' },
        ]
          .map((c) => JSON.stringify(c))
          .join('\n'),
      });
      const out = lines.stdout.trim().split('\n').map((l) => JSON.parse(l) as { ok: boolean; output: string });
      expect(out.map((o) => o.ok)).toEqual([true, true, false]);
      expect(out[1]!.output).toContain('7B\t/memories/project/a.md');
      expect(await fs.readFile(path.join(remote, '.cairn', 'memory', 'a.md'), 'utf8')).toBe('edited\n');

      const listed = JSON.parse((await cairn(['workspace', 'list', '--json'])).stdout);
      expect(listed).toEqual([{ id: 'devbox', name: 'dev', kind: 'ssh', path: remote, host: sshd.spec }]);
      expect((await cairn(['workspace', 'list'])).stdout).toBe(`devbox\tssh\t${sshd.spec}:${remote}\tdev\n`);

      expect((await cairn(['workspace', 'remove', 'devbox'])).status).toBe(0);
      expect((await cairn(['workspace', 'list', '--json'])).stdout.trim()).toBe('[]');
      await fs.access(path.join(remote, '.cairn', 'memory', 'a.md'));
    });

    it('gives a remote clone the project id of a local clone of the same repository', async () => {
      await fs.mkdir(sb.home, { recursive: true });
      await fs.writeFile(path.join(sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
      expect((await cairn(['workspace', 'add', '--name', 'r', '--ssh', `${sshd.spec}:${remote}`, '--identity', sshd.identity, '--id', 'r'])).status).toBe(0);
      const config = JSON.parse(await fs.readFile(path.join(sb.home, 'config.json'), 'utf8')) as { workspaces: Array<{ projectId: string }> };
      const local = await resolveLocalSession({ home: sb.home, cwd: sb.checkout }, localRuntime());
      expect(config.workspaces[0]!.projectId).toBe(local.projectId);
      // So a pin made through the remote workspace shows in the local one.
      await cairn(['tool', '--workspace', 'r', JSON.stringify({ command: 'create', path: '/memories/project/shared.md', file_text: 's' })]);
      expect((await cairn(['pin', '/memories/project/shared.md', '--workspace', 'r'])).status).toBe(0);
    });

    it('explains usage mistakes', async () => {
      expect((await cairn(['workspace', 'add', '--name', 'x'])).stderr).toMatch(/one of --path DIR or --ssh/);
      expect((await cairn(['workspace', 'add', '--name', 'x', '--ssh', 'host:relative'])).stderr).toMatch(/--ssh takes/);
      expect((await cairn(['workspace', 'trust', 'nope'])).stderr).toMatch(/No workspace nope/);
      expect((await cairn(['workspace', 'frob'])).status).toBe(2);
    });
  });
});
