// Hostile remote checkouts, over a real OpenSSH sshd on loopback: a checkout path and memory names
// full of quotes, spaces and $(...) (no command injection: paths travel as data to the remote
// helper, never through a shell), 5000 files (listings and the index bounded by the cap), a 10 MB
// file, a binary file, and the cross-process lock shared by two SSH connections and a local writer.
// (Symlink escapes of every kind run over SSH in tests/security/envelope.test.ts.)
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FILES_PER_SCOPE } from '../../src/common/memory/constants';
import { ContextBuilder } from '../../src/main/context/context-builder';
import { MemoryService, type MemorySession } from '../../src/main/memory/memory-service';
import { LocalRuntime } from '../../src/main/runtime/local/local-runtime';
import type { Runtime } from '../../src/main/runtime/runtime';
import { closeAllConnections } from '../../src/main/runtime/ssh/ssh-connection';
import type { SshRuntime } from '../../src/main/runtime/ssh/ssh-runtime';
import { WorkspaceRegistry } from '../../src/main/workspaces/registry';
import { localRuntime } from '../../src/main/host/memory-home';
import { makeCheckout, makeSandbox, type Sandbox } from '../support/sandbox';
import { testRuntime } from '../support/ssh';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

describe.runIf(sshdAvailable())('hostile remote checkouts', () => {
  let sshd: Sshd;
  let sb: Sandbox;
  let runtime: SshRuntime;
  const service = new MemoryService();
  beforeAll(async () => {
    sshd = await startSshd();
    runtime = testRuntime(sshd);
  });
  afterAll(async () => {
    runtime?.connection.close();
    closeAllConnections();
    await sshd?.stop();
  });
  beforeEach(async () => {
    sb = await makeSandbox({ runtime });
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  const run = async (input: unknown, session: MemorySession = sb.session) => {
    const result = await service.execute(input, session, { mode: 'exec', actor: 'agent' });
    expect(result.output).not.toContain(sb.dir);
    return result;
  };

  it('a checkout path with quotes, spaces, newlines and $(...) is used literally, never run', async () => {
    // Were any of these run by a shell, it would create the marker in its working directory: the
    // remote user's home, or somewhere under the sandbox.
    const marker = `pwned-${randomBytes(4).toString('hex')}`;
    const hostile = path.join(sb.dir, `it's "a" $(touch ${marker}) \`touch ${marker}\` ;touch ${marker};\nline`);
    await fs.mkdir(hostile);
    const checkout = await makeCheckout(hostile);
    await fs.mkdir(sb.home, { recursive: true });
    await fs.writeFile(path.join(sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
    const registry = new WorkspaceRegistry(sb.home, { local: localRuntime(), ssh: { sshDir: path.join(sb.dir, 'no-ssh'), env: {} } });
    const { entry, warning } = await registry.addSsh({ name: 'hostile', host: sshd.spec, path: checkout, identity: sshd.identity });
    expect(warning).toBeNull();
    const session = await registry.session(entry.id);
    expect(session.scopes.project.available).toBe(true);
    expect(session.projectId).toBe(sb.session.projectId);
    const name = `it's a $(touch ${marker}) \`touch ${marker}\` ;x.md`;
    expect((await run({ command: "create", path: `/memories/project/${name}`, file_text: "literal\n" }, session)).output).toBe(`File created successfully at: /memories/project/${name}`);
    expect(await fs.readFile(path.join(checkout, '.cairn', 'memory', name), 'utf8')).toBe('literal\n');
    expect((await run({ command: 'view', path: '/memories/project' }, session)).output).toContain(name);
    expect((await run({ command: 'rename', old_path: `/memories/project/${name}`, new_path: '/memories/project/$(reboot).md' }, session)).ok).toBe(true);
    expect((await run({ command: 'delete', path: '/memories/project/$(reboot).md' }, session)).ok).toBe(true);
    for (const dir of [os.homedir(), sb.dir, hostile, checkout, '/']) await expect(fs.access(path.join(dir, marker))).rejects.toThrow();
  });

  it('the remote helper itself skips names a model could not have written (not only the client)', async () => {
    await fs.mkdir(sb.roots.project, { recursive: true });
    for (const name of ['plain.md', 'trailing-newline.md\n', 'esc\u001b.md', 'zero\u200bwidth.md', '%2e%2e.md', 'a"b.md', '.cairn-tmp-1-ab']) {
      await fs.writeFile(path.join(sb.roots.project, name), 'x');
    }
    const raw = await runtime.connection.request(['list', sb.roots.project, sb.checkout, '', '1', '100', '0', '0']);
    // Only plain.md is listed; its version ('' until its ctime is 3 s old) depends on how long the connection took.
    expect(raw.map((f) => f.toString())).toEqual(['ok', 'some', 'plain.md', 'file', '1', expect.any(String), expect.any(String), '0', '']);
  });

  it('5000 files: views and the index stop at the cap, and one more file is refused', async () => {
    const dir = path.join(sb.roots.project, 'bulk');
    await fs.mkdir(dir, { recursive: true });
    await Promise.all(Array.from({ length: 5000 }, (_, i) => fs.writeFile(path.join(dir, `n${String(i).padStart(4, '0')}.md`), `---\ndescription: note ${i}\n---\n`)));
    const view = await run({ command: 'view', path: '/memories/project/bulk' });
    const rows = view.output.split('\n');
    expect(rows.filter((r) => r.includes('/memories/project/bulk/n')).length).toBe(MAX_FILES_PER_SCOPE);
    expect(rows.at(-1)).toBe(`(listing stopped at ${MAX_FILES_PER_SCOPE} entries)`);
    // The lexicographically first subset, as on the local disk.
    expect(rows[2]).toContain('bulk/n0000.md');
    const snapshot = await new ContextBuilder().snapshot(sb.session);
    const project = snapshot.files.filter((f) => f.scope === 'project');
    expect(project.length).toBe(MAX_FILES_PER_SCOPE);
    expect(project[0]).toMatchObject({ path: '/memories/project/bulk/n0000.md', description: 'note 0' });
    expect((await run({ command: 'create', path: '/memories/project/one-more.md', file_text: 'x' })).output).toContain('already holds 1000 files');
  });

  it('a 10 MB file is not read (the index takes only its head), a binary file is refused as not UTF-8', async () => {
    await fs.mkdir(sb.roots.project, { recursive: true });
    await fs.writeFile(path.join(sb.roots.project, 'huge.md'), `---\ndescription: huge\n---\n${'y'.repeat(10 * 1024 * 1024)}`);
    await fs.writeFile(path.join(sb.roots.project, 'blob.md'), randomBytes(4096));
    const huge = await run({ command: 'view', path: '/memories/project/huge.md' });
    expect(huge.output).toMatch(/^Error: \/memories\/project\/huge.md is 10(\.0)?M, over the 100K limit/);
    expect((await run({ command: 'view', path: '/memories/project/blob.md' })).output).toBe('Error: /memories/project/blob.md is not UTF-8 text; memory files must be UTF-8 text.');
    expect((await run({ command: 'str_replace', path: '/memories/project/blob.md', old_str: 'a', new_str: 'b' })).ok).toBe(false);
    const snapshot = await new ContextBuilder().snapshot(sb.session);
    expect(snapshot.files.find((f) => f.path === '/memories/project/huge.md')).toMatchObject({ description: 'huge' });
  });

  it('two SSH connections and a local writer share the cross-process lock: no update is lost', async () => {
    const second = testRuntime(sshd);
    try {
      await run({ command: 'create', path: '/memories/project/log.md', file_text: 'log\n' });
      const writers: Array<[string, Runtime]> = [
        ['a', runtime],
        ['b', second],
        ['c', new LocalRuntime()],
      ];
      await Promise.all(
        writers.map(async ([who, rt]) => {
          const session: MemorySession = { ...sb.session, scopes: { ...sb.session.scopes, project: { scope: 'project', available: true, runtime: rt, root: { path: sb.roots.project, anchor: sb.checkout } } } };
          for (let i = 0; i < 25; i++) {
            const r = await service.execute({ command: 'insert', path: '/memories/project/log.md', insert_line: 1, insert_text: `${who}${i}` }, session, { mode: 'exec', actor: 'agent' });
            expect(r.ok).toBe(true);
          }
        }),
      );
      const lines = (await fs.readFile(path.join(sb.roots.project, 'log.md'), 'utf8')).split('\n').filter(Boolean);
      expect(lines.length).toBe(76);
      for (const who of ['a', 'b', 'c']) for (let i = 0; i < 25; i++) expect(lines).toContain(`${who}${i}`);
    } finally {
      second.connection.close();
    }
  });
});
