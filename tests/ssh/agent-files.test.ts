// Other agents' files in an SSH workspace's checkout, over a real OpenSSH sshd on
// loopback (tests/support/sshd.ts): the checkout laid out as the agents lay it out
// (tests/fixtures/agent-files) is registered twice, as a local workspace and as an SSH workspace
// of the same folder, so each answer over SSH is compared with the same answer read locally:
// the listing, reads, the conflict-safe save and its conflicts, the envelope's hostile cases
// (refused on the remote side by the helper, with the same reasons), search and adopt into the
// Inbox. The helper's SHA-256 for hosts without Digest::SHA is checked against node's.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentFile } from '../../src/common/agent-files/schema';
import { closeAllConnections } from '../../src/main/runtime/ssh/ssh-connection';
import { HELPER_SOURCE } from '../../src/main/runtime/ssh/remote-helper';
import { HOSTILE_REASONS, openWorld, type AgentFilesWorld } from '../fixtures/agent-files/layout';
import { startSshd, sshdAvailable, type Sshd } from '../support/sshd';

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe.runIf(sshdAvailable())("other agents' files in an SSH workspace's checkout", () => {
  let sshd: Sshd;
  let w: AgentFilesWorld;
  /** The SSH workspace of the same checkout as the world's local one (w.ws). */
  let remote: string;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(async () => {
    closeAllConnections();
    await sshd?.stop();
  });
  beforeEach(async () => {
    w = await openWorld();
    await fs.writeFile(path.join(w.sb.home, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}\n`);
    remote = (await w.client.workspaces.add({ name: 'Dev box', path: w.sb.checkout, ssh: sshd.spec, identity: sshd.identity })).id;
  });
  afterEach(async () => {
    closeAllConnections();
    await w.close();
  });

  const list = async (workspaceId: string) => w.client.agentFiles.list({ workspaceId });
  const checkoutFiles = (files: AgentFile[]) => files.filter((f) => f.place === 'checkout');
  /** Every entry of the checkout gets the same whole-second mtime, so both sides' times compare exactly. */
  async function settleTimes(dir = w.sb.checkout): Promise<void> {
    const when = new Date('2026-11-01T10:00:00Z');
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== '.git') await settleTimes(p);
      if (entry.isSymbolicLink()) await fs.lutimes(p, when, when);
      else await fs.utimes(p, when, when);
    }
  }

  it('lists the checkout as the same checkout read locally (one request), with the home files of this machine', async () => {
    await settleTimes();
    const local = await list(w.ws);
    const over = await list(remote);
    expect(over.checkout).toEqual({ available: true, reason: null });
    expect(checkoutFiles(over.files)).toEqual(checkoutFiles(local.files));
    expect(checkoutFiles(over.files).map((f) => f.id)).toEqual([
      'CLAUDE.md',
      'CLAUDE.local.md',
      '.claude/rules/style.md',
      'AGENTS.md',
      '.cursor/rules/api.mdc',
      '.cursor/rules/frontend/components.mdc',
      '.cursorrules',
      '.github/copilot-instructions.md',
      '.github/instructions/docs.instructions.md',
      'GEMINI.md',
    ]);
    // The home's files are this machine's; Claude Code's auto memory of a remote checkout is on its host.
    expect(over.files.filter((f) => f.place === 'global')).toEqual(local.files.filter((f) => f.place === 'global' && !f.id.includes('/projects/')));
    expect(JSON.stringify(over)).not.toContain(w.sb.dir);
  });

  it('walks a rules folder on the host as locally: depth and file caps, names by the same rules', async () => {
    const rules = path.join(w.sb.checkout, '.cursor', 'rules');
    for (let i = 0; i < 205; i++) await fs.writeFile(path.join(rules, `r${String(i).padStart(3, '0')}.mdc`), `- rule ${i}\n`);
    await fs.mkdir(path.join(rules, 'a', 'b', 'c', 'd'), { recursive: true });
    await fs.writeFile(path.join(rules, 'a', 'b', 'c', 'deep.mdc'), 'three levels down\n');
    await fs.writeFile(path.join(rules, 'a', 'b', 'c', 'd', 'deeper.mdc'), 'four levels down\n');
    await fs.writeFile(path.join(rules, '.cairn-tmp-1-abc.mdc'), 'a temp file\n');
    await fs.writeFile(path.join(rules, 'zero\u200bwidth.mdc'), 'an invisible character\n');
    await fs.writeFile(path.join(rules, 'plain.md'), 'not a Cursor rule\n');
    await settleTimes();
    const local = checkoutFiles((await list(w.ws)).files);
    const over = checkoutFiles((await list(remote)).files);
    expect(over).toEqual(local);
    const cursor = over.filter((f) => f.id.startsWith('.cursor/rules/'));
    expect(cursor).toHaveLength(200);
    expect(cursor.map((f) => f.id)).toContain('.cursor/rules/a/b/c/deep.mdc');
    expect(cursor.map((f) => f.id).filter((id) => /deeper|cairn-tmp|\u200b|plain/.test(id))).toEqual([]);
  });

  it('costs one request to the host per listing, read and save', async () => {
    const entry = w.host.registry.get(remote);
    if (entry?.kind !== 'ssh') throw new Error('not an SSH workspace');
    const connection = (await w.host.registry.ssh.runtimeOf(entry)).connection;
    const sent: string[] = [];
    const request = connection.request.bind(connection);
    connection.request = (fields) => {
      sent.push(String(fields[0]));
      return request(fields);
    };
    await list(remote);
    expect(sent).toEqual(['afiles']);
    const read = await w.client.agentFiles.read({ workspaceId: remote, id: 'GEMINI.md' });
    expect(sent).toEqual(['afiles', 'afile']);
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'GEMINI.md', content: 'mine\n', expectedSha256: read.sha256 })).toMatchObject({ status: 'ok' });
    expect(sent).toEqual(['afiles', 'afile', 'afwrite']);
  });

  it('reads a file as locally, and search finds words in the checkout over SSH', async () => {
    const local = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'AGENTS.md' });
    const over = await w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' });
    expect(over).toEqual(local);
    expect(over.content).toBe(await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md'), 'utf8'));
    const { hits } = await w.client.agentFiles.search({ workspaceId: remote, query: 'zod request body' });
    expect(hits.map((h) => h.id)).toContain('CLAUDE.md');
  });

  it('saves atomically on the host keeping the mode, never through a link, and records the edit', async () => {
    const file = path.join(w.sb.checkout, 'AGENTS.md');
    await fs.chmod(file, 0o640);
    const read = await w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' });
    const content = `${read.content}- Deploy key: ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4\n`;
    const save = await w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content, expectedSha256: read.sha256 });
    expect(save).toMatchObject({ status: 'ok', sha256: sha(content), warnings: [{ kind: 'secret', rule: 'github-token', line: 7 }] });
    expect(await fs.readFile(file, 'utf8')).toBe(content);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    expect((await fs.readdir(w.sb.checkout)).filter((n) => n.startsWith('.cairn-tmp'))).toEqual([]);
    const { versions } = await w.client.agentFiles.history({ workspaceId: remote, id: 'AGENTS.md' });
    expect(versions.map(({ op, actor, before, after }) => ({ op, actor, before, after }))).toEqual([{ op: 'update', actor: 'person', before: read.content, after: content }]);
    // A change made on the host outside Cairn is kept as such at the next look.
    await fs.writeFile(file, `${content}- edited in vim\n`);
    const edited = await w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' });
    expect((await w.client.agentFiles.history({ workspaceId: remote, id: 'AGENTS.md' })).versions[0]).toMatchObject({ actor: 'external', before: content, after: edited.content });
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content, expectedSha256: edited.sha256 })).toMatchObject({ status: 'ok' });

    // CLAUDE.md -> AGENTS.md: read through the link, but never saved through it (as locally);
    // nor is a file under a linked folder.
    await fs.rm(path.join(w.sb.checkout, 'CLAUDE.md'));
    await fs.symlink('AGENTS.md', path.join(w.sb.checkout, 'CLAUDE.md'));
    const linked = await w.client.agentFiles.read({ workspaceId: remote, id: 'CLAUDE.md' });
    expect(linked.content).toBe(content);
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'CLAUDE.md', content: 'shared\n', expectedSha256: linked.sha256 })).toEqual({
      status: 'error',
      message: 'CLAUDE.md cannot be saved: it, or a folder on its way, is a symbolic link on the host, and Cairn never writes through a link.',
    });
    expect((await fs.lstat(path.join(w.sb.checkout, 'CLAUDE.md'))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe(content);
    await fs.mkdir(path.join(w.sb.checkout, 'docs', 'team'), { recursive: true });
    await fs.mkdir(path.join(w.sb.checkout, '.claude', 'rules'), { recursive: true });
    await fs.symlink('../../docs/team', path.join(w.sb.checkout, '.claude', 'rules', 'team'));
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: '.claude/rules/team/x.md', content: 'x\n', expectedSha256: null })).toMatchObject({ status: 'error', message: expect.stringMatching(/never writes through a link/) });
    await expect(fs.access(path.join(w.sb.checkout, 'docs', 'team', 'x.md'))).rejects.toThrow();
    await fs.rm(path.join(w.sb.checkout, '.claude', 'rules', 'team'));

    // A new file at a known place, its folders made.
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: '.cursor/rules/db/sql.mdc', content: '- Use migrations.\n', expectedSha256: null })).toMatchObject({ status: 'ok', warnings: [] });
    expect(await fs.readFile(path.join(w.sb.checkout, '.cursor', 'rules', 'db', 'sql.mdc'), 'utf8')).toBe('- Use migrations.\n');
  });

  it('answers each conflict as locally (changed, deleted, exists), and nothing is clobbered', async () => {
    const file = path.join(w.sb.checkout, 'AGENTS.md');
    const read = await w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' });
    await fs.writeFile(file, 'changed by Codex\n');
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content: 'mine\n', expectedSha256: read.sha256 })).toEqual({
      status: 'conflict',
      kind: 'changed',
      message: 'AGENTS.md was changed since you opened it.',
    });
    expect(await fs.readFile(file, 'utf8')).toBe('changed by Codex\n');
    await fs.rm(file);
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content: 'mine\n', expectedSha256: read.sha256 })).toEqual({
      status: 'conflict',
      kind: 'deleted',
      message: 'AGENTS.md was deleted since you opened it.',
    });
    await expect(fs.access(file)).rejects.toThrow();
    await fs.writeFile(file, 'created by Codex\n');
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content: 'mine\n', expectedSha256: null })).toEqual({
      status: 'conflict',
      kind: 'exists',
      message: 'AGENTS.md already exists; open it to edit it.',
    });
    expect(await fs.readFile(file, 'utf8')).toBe('created by Codex\n');

    // Two saves based on the same version: exactly one is written.
    const now = await w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' });
    const [a, b] = await Promise.all([
      w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content: 'from tab A\n', expectedSha256: now.sha256 }),
      w.client.agentFiles.write({ workspaceId: remote, id: 'AGENTS.md', content: 'from tab B\n', expectedSha256: now.sha256 }),
    ]);
    expect([a.status, b.status].sort()).toEqual(['conflict', 'ok']);
    expect(await fs.readFile(file, 'utf8')).toBe(a.status === 'ok' ? 'from tab A\n' : 'from tab B\n');
  });

  it("refuses the envelope's hostile cases on the remote side, with the same reasons as locally", async () => {
    const c = w.sb.checkout;
    const outside = path.join(w.sb.dir, 'secret.txt');
    await fs.writeFile(outside, 'password: hunter2-hunter2\n');
    await fs.rm(path.join(c, 'CLAUDE.md'));
    await fs.symlink(outside, path.join(c, 'CLAUDE.md')); // a link out of the checkout
    await fs.writeFile(path.join(c, '.git', 'notes.md'), 'in git\n');
    await fs.rm(path.join(c, 'GEMINI.md'));
    await fs.symlink(path.join(c, '.git', 'notes.md'), path.join(c, 'GEMINI.md')); // into .git
    await fs.writeFile(path.join(c, 'AGENTS.md'), 'x'.repeat(100 * 1024 + 1)); // over the cap
    await fs.writeFile(path.join(c, 'CLAUDE.local.md'), Buffer.from([0x68, 0x69, 0xed, 0xa0, 0x80, 0x0a])); // a surrogate: not UTF-8
    await fs.rm(path.join(c, '.cursorrules'));
    execFileSync('mkfifo', [path.join(c, '.cursorrules')]); // a FIFO: opening it must not block the helper
    await fs.mkdir(path.join(c, '.claude', 'CLAUDE.md'), { recursive: true }); // a folder named CLAUDE.md
    await fs.writeFile(path.join(c, '.github', 'copilot-instructions.md'), 'a\u0000b');
    const privateFile = path.join(w.sb.dir, 'private.md');
    await fs.writeFile(privateFile, 'not for agents\n');
    await fs.link(privateFile, path.join(c, '.claude', 'rules', 'linked.md')); // a second hard link
    // A rules folder that is a link out of the checkout, and a linked folder inside one: not walked.
    const elsewhere = path.join(w.sb.dir, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.writeFile(path.join(elsewhere, 'x.instructions.md'), 'outside\n');
    await fs.writeFile(path.join(elsewhere, 'x.mdc'), 'outside\n');
    await fs.symlink(elsewhere, path.join(c, '.github', 'instructions', 'linked'));
    await fs.rm(path.join(c, '.cursor', 'rules'), { recursive: true });
    await fs.symlink(elsewhere, path.join(c, '.cursor', 'rules'));
    await settleTimes();

    const local = checkoutFiles((await list(w.ws)).files);
    const over = checkoutFiles((await list(remote)).files);
    // The same files, reasons and links, each shown with where it leads, as locally.
    expect(over).toEqual(local);
    expect(over.find((f) => f.id === 'GEMINI.md')?.linkTo).toBe('.git/notes.md');
    expect(over.find((f) => f.id === 'CLAUDE.md')?.linkTo).toBe(outside);
    const reason = (id: string) => over.find((f) => f.id === id)?.unreadable;
    for (const [id, why] of Object.entries(HOSTILE_REASONS)) expect(reason(id)).toBe(why);
    expect(reason('.claude/rules/linked.md')).toBe('it has more than one hard link, so its content also has another name, perhaps outside; Cairn does not open it.');
    expect(over.map((f) => f.id).filter((id) => id.startsWith('.github/instructions/') || id.startsWith('.cursor/'))).toEqual(['.github/instructions/docs.instructions.md']);
    for (const f of over.filter((f) => f.unreadable !== null)) expect(f.sha256).toBeNull();

    // Reading or saving one says why, naming no host path; nothing is written through.
    await expect(w.client.agentFiles.read({ workspaceId: remote, id: 'CLAUDE.md' })).rejects.toThrow('CLAUDE.md cannot be opened: it is a symbolic link that leads outside the checkout; Cairn does not follow it.');
    await expect(w.client.agentFiles.read({ workspaceId: remote, id: '.cursorrules' })).rejects.toThrow(/not a regular file/);
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: 'CLAUDE.md', content: 'mine\n', expectedSha256: sha('password: hunter2-hunter2\n') })).toEqual({
      status: 'error',
      message: 'CLAUDE.md cannot be saved: it is a symbolic link that leads outside the checkout; Cairn does not follow it.',
    });
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: '.claude/rules/linked.md', content: 'mine\n', expectedSha256: sha('not for agents\n') })).toMatchObject({
      status: 'error',
      message: expect.stringContaining('more than one hard link'),
    });
    expect(await fs.readFile(outside, 'utf8')).toBe('password: hunter2-hunter2\n');
    expect(await fs.readFile(privateFile, 'utf8')).toBe('not for agents\n');
    // Nor is a new file made through a folder that leads out.
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: '.cursor/rules/new.mdc', content: 'x\n', expectedSha256: null })).toEqual({
      status: 'error',
      message: '.cursor/rules/new.mdc cannot be saved: a folder on its way is a symbolic link that leads outside the checkout or into .git.',
    });
    expect((await fs.readdir(elsewhere)).sort()).toEqual(['x.instructions.md', 'x.mdc']);
    // A link that leads nowhere is absent, and a save does not replace it.
    await fs.rm(path.join(c, '.github', 'copilot-instructions.md'));
    await fs.symlink('nowhere.md', path.join(c, '.github', 'copilot-instructions.md'));
    expect((await list(remote)).files.map((f) => f.id)).not.toContain('.github/copilot-instructions.md');
    expect(await w.client.agentFiles.write({ workspaceId: remote, id: '.github/copilot-instructions.md', content: 'x\n', expectedSha256: null })).toEqual({
      status: 'error',
      message: '.github/copilot-instructions.md cannot be saved: something that is not a file (such as a symbolic link that leads nowhere) is at its name.',
    });
    expect(await fs.readlink(path.join(c, '.github', 'copilot-instructions.md'))).toBe('nowhere.md');
    // An id that is no known file at a known place never reaches the host.
    await expect(w.client.agentFiles.read({ workspaceId: remote, id: '.git/config' })).rejects.toThrow(/is not a file another agent reads at a place Cairn knows/);
  });

  it('adopts a remote CLAUDE.md into the Inbox', async () => {
    const adopted = await w.client.agentFiles.adopt({ workspaceId: remote, id: 'CLAUDE.md', scope: 'project' });
    expect(adopted).toMatchObject({ status: 'ok', duplicates: [], refused: [], message: '3 proposals from CLAUDE.md added to the Inbox for project memory.' });
    const { items } = await w.client.inbox.list({});
    expect(items.map((i) => [i.text, i.scope, i.workspaceId, i.evidence[0]!.messageId]).sort()).toEqual([
      ['Run `make test` before pushing.', 'project', remote, 'CLAUDE.md:3'],
      ['The API lives in src/api.', 'project', remote, 'CLAUDE.md:5'],
      ['Use zod for every request body.', 'project', remote, 'CLAUDE.md:6'],
    ]);
  });

  it('says why when the checkout is gone from the host, and still lists the home files', async () => {
    await fs.rm(w.sb.checkout, { recursive: true });
    const { files, checkout } = await list(remote);
    expect(checkout).toEqual({ available: false, reason: `the checkout of this workspace no longer exists on ${sshd.spec}.` });
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.place === 'global')).toBe(true);
    await expect(w.client.agentFiles.read({ workspaceId: remote, id: 'AGENTS.md' })).rejects.toThrow(`The checkout's files cannot be shown: the checkout of this workspace no longer exists on ${sshd.spec}.`);
  });
});

describe('the remote helper without Digest::SHA', () => {
  it('computes SHA-256 in plain Perl exactly as node does', () => {
    const sub = /sub sha256_pp \{[\s\S]*?\n\}\n/.exec(HELPER_SOURCE)?.[0];
    expect(sub).toBeDefined();
    const inputs = [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100 * 1024].map((n) => randomBytes(n));
    const program = `${sub}\nbinmode STDIN; local $/; my @in = split /\\n/, <STDIN>; print sha256_pp(pack('H*', $_)), "\\n" for @in;`;
    const out = execFileSync('perl', ['-e', program], { input: inputs.map((b) => b.toString('hex')).join('\n') + '\n', encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(inputs.map((b) => sha(b)));
  });
});
