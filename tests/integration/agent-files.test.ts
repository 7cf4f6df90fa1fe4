// Other agents' files: agentFiles.list, read, write and history over the real router and
// services, with each agent's files laid out as the agent lays them out (tests/fixtures/agent-files)
// in a temp user home and checkout; the envelope's hostile cases; the conflict-safe save.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRouterClient } from '@orpc/server';
import { AgentFiles } from '../../src/main/agent-files/agent-files';
import { ChangedMeanwhile, writeFileAt } from '../../src/main/agent-files/envelope';
import { router } from '../../src/main/api/router';
import { HOSTILE_REASONS, openWorld, type AgentFilesWorld } from '../fixtures/agent-files/layout';

let w: AgentFilesWorld;
const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

beforeEach(async () => {
  w = await openWorld();
});
afterEach(async () => {
  await w.close();
});

describe('agentFiles.list', () => {
  it("lists each agent's global and checkout files that exist, with who reads them, and nothing else", async () => {
    const { files, checkout } = await w.client.agentFiles.list({ workspaceId: w.ws });
    expect(checkout).toEqual({ available: true, reason: null });
    expect(files.map((f) => [f.id, f.agent, f.kind, f.place])).toEqual([
      ['~/.claude/CLAUDE.md', 'claude', 'instructions', 'global'],
      ['~/.claude/rules/testing.md', 'claude', 'rules', 'global'],
      [`~/.claude/projects/${path.basename(path.dirname(w.autoMemory))}/memory/MEMORY.md`, 'claude', 'memory', 'global'],
      [`~/.claude/projects/${path.basename(path.dirname(w.autoMemory))}/memory/debugging.md`, 'claude', 'memory', 'global'],
      ['CLAUDE.md', 'claude', 'instructions', 'checkout'],
      ['CLAUDE.local.md', 'claude', 'instructions', 'checkout'],
      ['.claude/rules/style.md', 'claude', 'rules', 'checkout'],
      ['~/.codex/AGENTS.md', 'codex', 'instructions', 'global'],
      ['~/.codex/memories/MEMORY.md', 'codex', 'memory', 'global'],
      ['~/.codex/memories/rollout_summaries/2026-11-01-build.md', 'codex', 'memory', 'global'],
      ['AGENTS.md', 'codex', 'instructions', 'checkout'],
      ['.cursor/rules/api.mdc', 'cursor', 'rules', 'checkout'],
      ['.cursor/rules/frontend/components.mdc', 'cursor', 'rules', 'checkout'],
      ['.cursorrules', 'cursor', 'instructions', 'checkout'],
      ['~/.copilot/copilot-instructions.md', 'copilot', 'instructions', 'global'],
      ['.github/copilot-instructions.md', 'copilot', 'instructions', 'checkout'],
      ['.github/instructions/docs.instructions.md', 'copilot', 'instructions', 'checkout'],
      ['~/.gemini/GEMINI.md', 'gemini', 'instructions', 'global'],
      ['GEMINI.md', 'gemini', 'instructions', 'checkout'],
    ]);
    const agents = files.find((f) => f.id === 'AGENTS.md')!;
    const text = await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md'));
    expect(agents).toMatchObject({ readBy: ['codex', 'cursor', 'copilot'], path: 'AGENTS.md', size: text.length, sha256: sha(text), unreadable: null });
    expect(Date.parse(agents.mtime)).toBeGreaterThan(0);
    // No host path anywhere in the answer.
    expect(JSON.stringify(files)).not.toContain(w.sb.dir);
  });

  it('without a workspace lists the home files only (no auto memory: it belongs to a checkout), and says why', async () => {
    const { files, checkout } = await w.client.agentFiles.list({ workspaceId: null });
    expect(files.every((f) => f.place === 'global' && !f.id.includes('/projects/'))).toBe(true);
    expect(files.map((f) => f.id)).toContain('~/.codex/AGENTS.md');
    expect(checkout).toEqual({ available: false, reason: 'no workspace is selected.' });
  });

  it('missing files are simply absent, and none of them is Cairn memory', async () => {
    await fs.rm(path.join(w.sb.checkout, 'GEMINI.md'));
    const { files } = await w.client.agentFiles.list({ workspaceId: w.ws });
    expect(files.map((f) => f.id)).not.toContain('GEMINI.md');
    expect((await w.client.memory.list({ workspaceId: w.ws })).files).toEqual([]);
  });
});

describe('none of them is Cairn memory', () => {
  it('agents never receive them through Cairn, and the memory tool cannot name them', async () => {
    const preview = await w.client.context.preview({ workspaceId: w.ws });
    for (const word of ['CLAUDE', 'AGENTS', 'GEMINI', 'cursorrules', 'zod']) expect(`${preview.index.text}${preview.hot.text}`).not.toContain(word);
    const session = await w.host.registry.session(w.ws);
    const view = await w.host.service.execute({ command: 'view', path: '/memories' }, session, { mode: 'exec', actor: 'agent' });
    expect(view.output).not.toMatch(/CLAUDE|AGENTS|GEMINI/);
    const search = await w.client.memory.search({ workspaceId: w.ws, query: 'timestamp UTC' });
    expect(search.hits).toEqual([]);
  });
});

describe('the envelope', () => {
  it('lists hostile files as unreadable with the reason, and never opens them', async () => {
    const outside = path.join(w.sb.dir, 'secret.txt');
    await fs.writeFile(outside, 'password: hunter2-hunter2\n');
    const c = w.sb.checkout;
    await fs.rm(path.join(c, 'CLAUDE.md'));
    await fs.symlink(outside, path.join(c, 'CLAUDE.md')); // out of the checkout
    await fs.writeFile(path.join(c, '.git', 'notes.md'), 'in git\n');
    await fs.rm(path.join(c, 'GEMINI.md'));
    await fs.symlink(path.join(c, '.git', 'notes.md'), path.join(c, 'GEMINI.md')); // into .git
    await fs.writeFile(path.join(c, 'AGENTS.md'), 'x'.repeat(100 * 1024 + 1)); // over the cap
    await fs.writeFile(path.join(c, 'CLAUDE.local.md'), Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0a])); // not UTF-8
    await fs.rm(path.join(c, '.cursorrules'));
    execFileSync('mkfifo', [path.join(c, '.cursorrules')]); // a FIFO: opening it must not block
    await fs.mkdir(path.join(c, '.claude', 'CLAUDE.md'), { recursive: true }); // a folder named CLAUDE.md
    await fs.writeFile(path.join(c, '.github', 'copilot-instructions.md'), 'a\u0000b');
    const { files } = await w.client.agentFiles.list({ workspaceId: w.ws });
    const reason = (id: string) => files.find((f) => f.id === id)?.unreadable;
    for (const [id, why] of Object.entries(HOSTILE_REASONS)) expect(reason(id)).toBe(why);
    for (const id of ['CLAUDE.md', 'GEMINI.md', 'AGENTS.md', '.cursorrules']) expect(files.find((f) => f.id === id)?.sha256).toBeNull();
    // Reading one says why, naming no host path; its bytes never travel.
    await expect(w.client.agentFiles.read({ workspaceId: w.ws, id: 'CLAUDE.md' })).rejects.toThrow('CLAUDE.md cannot be opened: it is a symbolic link that leads outside the checkout; Cairn does not follow it.');
    await expect(w.client.agentFiles.read({ workspaceId: w.ws, id: '.cursorrules' })).rejects.toThrow(/not a regular file/);
    // Nor are they written through.
    const save = await w.client.agentFiles.write({ workspaceId: w.ws, id: 'CLAUDE.md', content: 'mine\n', expectedSha256: sha('password: hunter2-hunter2\n') });
    expect(save).toEqual({ status: 'error', message: 'CLAUDE.md cannot be saved: it is a symbolic link that leads outside the checkout; Cairn does not follow it.' });
    expect(await fs.readFile(outside, 'utf8')).toBe('password: hunter2-hunter2\n');
  });

  it("a link in the home to a file no agent reads (~/.claude/CLAUDE.md -> ~/.ssh/id_rsa) is listed as a link with where it leads, never opened, never saved through", async () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n';
    await fs.mkdir(path.join(w.userHome, '.ssh'), { mode: 0o700 });
    const idRsa = path.join(w.userHome, '.ssh', 'id_rsa');
    await fs.writeFile(idRsa, key, { mode: 0o600 });
    await fs.rm(path.join(w.userHome, '.claude', 'CLAUDE.md'));
    await fs.symlink(idRsa, path.join(w.userHome, '.claude', 'CLAUDE.md'));
    const { files } = await w.client.agentFiles.list({ workspaceId: w.ws });
    expect(files.find((f) => f.id === '~/.claude/CLAUDE.md')).toMatchObject({
      sha256: null,
      unreadable: 'it is a symbolic link to something that is not a file an agent reads at a place Cairn knows; Cairn does not follow it.',
      linkTo: '~/.ssh/id_rsa',
    });
    expect(JSON.stringify(files)).not.toContain('PRIVATE KEY');
    await expect(w.client.agentFiles.read({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md' })).rejects.toThrow('~/.claude/CLAUDE.md cannot be opened: it is a symbolic link to something that is not a file an agent reads');
    expect((await w.client.agentFiles.search({ workspaceId: w.ws, query: 'PRIVATE KEY' })).hits).toEqual([]);
    const save = await w.client.agentFiles.write({ workspaceId: w.ws, id: '~/.claude/CLAUDE.md', content: 'owned\n', expectedSha256: sha(key) });
    expect(save).toMatchObject({ status: 'error', message: expect.stringContaining('~/.claude/CLAUDE.md cannot be saved: it is a symbolic link to something that is not a file an agent reads') });
    expect(await fs.readFile(idRsa, 'utf8')).toBe(key);
    expect(await fs.readlink(path.join(w.userHome, '.claude', 'CLAUDE.md'))).toBe(idRsa);
  });

  it("adopting Claude Code's auto memory that is a link to ~/.netrc puts nothing in the inbox", async () => {
    const netrc = path.join(w.userHome, '.netrc');
    await fs.writeFile(netrc, 'machine api.example.com login deploy password s3cr3t-Pa55w0rd\n', { mode: 0o600 });
    const memory = path.join(w.autoMemory, 'MEMORY.md');
    await fs.rm(memory);
    await fs.symlink(netrc, memory);
    const id = `~/.claude/projects/${path.basename(path.dirname(w.autoMemory))}/memory/MEMORY.md`;
    expect((await w.client.agentFiles.list({ workspaceId: w.ws })).files.find((f) => f.id === id)).toMatchObject({ sha256: null, linkTo: '~/.netrc' });
    const adopt = await w.client.agentFiles.adopt({ workspaceId: w.ws, id, scope: 'project' });
    expect(adopt).toMatchObject({ status: 'error', message: expect.stringContaining(`${id} cannot be opened: it is a symbolic link to something that is not a file an agent reads`) });
    expect(JSON.stringify(adopt)).not.toContain('s3cr3t');
    expect((await w.client.inbox.list({})).items).toEqual([]);
    await expect(w.client.agentFiles.compare({ workspaceId: w.ws, ids: [id, 'AGENTS.md'] })).rejects.toThrow(/cannot be opened/);
  });

  it('a folder on the way that is a link is judged by where the file really is: a rules folder linked into the checkout lists its files as links, unread', async () => {
    const c = w.sb.checkout;
    await fs.mkdir(path.join(c, 'docs'));
    await fs.writeFile(path.join(c, 'docs', 'secret.md'), 'not a rule\n');
    await fs.rm(path.join(c, '.claude', 'rules'), { recursive: true });
    await fs.symlink('../docs', path.join(c, '.claude', 'rules'));
    const file = (await w.client.agentFiles.list({ workspaceId: w.ws })).files.find((f) => f.id === '.claude/rules/secret.md');
    expect(file).toMatchObject({ sha256: null, linkTo: 'docs/secret.md', unreadable: expect.stringContaining('symbolic link to something that is not a file an agent reads') });
  });

  it('does not open a file with a second hard link (its content has another name, perhaps outside)', async () => {
    const outside = path.join(w.sb.dir, 'private.md');
    await fs.writeFile(outside, 'not for agents\n');
    await fs.rm(path.join(w.sb.checkout, 'CLAUDE.local.md'));
    await fs.link(outside, path.join(w.sb.checkout, 'CLAUDE.local.md'));
    const file = (await w.client.agentFiles.list({ workspaceId: w.ws })).files.find((f) => f.id === 'CLAUDE.local.md');
    expect(file).toMatchObject({ sha256: null, unreadable: 'it has more than one hard link, so its content also has another name, perhaps outside; Cairn does not open it.' });
    await expect(w.client.agentFiles.search({ workspaceId: w.ws, query: 'agents' })).resolves.toMatchObject({ hits: expect.not.arrayContaining([expect.objectContaining({ id: 'CLAUDE.local.md' })]) });
  });

  it('follows a link that stays inside the checkout to a file an agent reads (CLAUDE.md -> AGENTS.md), shows where it leads, and never writes through it', async () => {
    const c = w.sb.checkout;
    const before = await fs.readFile(path.join(c, 'AGENTS.md'), 'utf8');
    await fs.rm(path.join(c, 'CLAUDE.md'));
    await fs.symlink('AGENTS.md', path.join(c, 'CLAUDE.md'));
    const listed = (await w.client.agentFiles.list({ workspaceId: w.ws })).files.find((f) => f.id === 'CLAUDE.md');
    expect(listed).toMatchObject({ unreadable: null, linkTo: 'AGENTS.md' });
    const read = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'CLAUDE.md' });
    expect(read.content).toBe(before);
    const save = await w.client.agentFiles.write({ workspaceId: w.ws, id: 'CLAUDE.md', content: 'shared\n', expectedSha256: read.sha256 });
    expect(save).toEqual({ status: 'error', message: 'CLAUDE.md cannot be saved: it is a symbolic link to AGENTS.md, and Cairn never writes through a link. Open AGENTS.md to edit it.' });
    expect(await fs.readlink(path.join(c, 'CLAUDE.md'))).toBe('AGENTS.md');
    expect(await fs.readFile(path.join(c, 'AGENTS.md'), 'utf8')).toBe(before);
  });

  it('does not walk a rules folder that is a link out of the checkout, nor a linked folder inside one', async () => {
    const elsewhere = path.join(w.sb.dir, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.writeFile(path.join(elsewhere, 'x.instructions.md'), 'outside\n');
    await fs.symlink(elsewhere, path.join(w.sb.checkout, '.github', 'instructions', 'linked'));
    await fs.rm(path.join(w.sb.checkout, '.cursor', 'rules'), { recursive: true });
    await fs.symlink(elsewhere, path.join(w.sb.checkout, '.cursor', 'rules'));
    const ids = (await w.client.agentFiles.list({ workspaceId: w.ws })).files.map((f) => f.id);
    expect(ids.filter((id) => id.startsWith('.github/instructions/') || id.startsWith('.cursor/'))).toEqual(['.github/instructions/docs.instructions.md']);
  });

  it('refuses an id that is no known file at a known place, in words', async () => {
    for (const id of ['README.md', '../outside.md', '.git/config', '~/.ssh/id_rsa', '.cursor/rules/../../x.mdc', '~/.claude/projects/-elsewhere/memory/MEMORY.md']) {
      await expect(w.client.agentFiles.read({ workspaceId: w.ws, id })).rejects.toThrow(/is not a file another agent reads at a place Cairn knows/);
      expect(await w.client.agentFiles.write({ workspaceId: w.ws, id, content: 'x', expectedSha256: null })).toMatchObject({ status: 'error' });
    }
    expect(await fs.readFile(path.join(w.sb.checkout, '.git', 'config'), 'utf8')).toContain('origin');
  });

  it("says why an SSH workspace's checkout cannot be looked at when its host cannot be used, and still lists the home's files", async () => {
    // Registered as Cairn keeps an SSH workspace (written to config.json directly: adding one through
    // the API would try to reach the host, and this machine may have no network).
    const config = path.join(w.sb.home, 'config.json');
    const stored = JSON.parse(await fs.readFile(config, 'utf8')) as { workspaces: unknown[] };
    stored.workspaces.push({ id: 'remote-widgets', name: 'Remote', kind: 'ssh', path: '/srv/widgets', host: 'dev@devbox.invalid', identity: null, knownHosts: null, projectId: null });
    await fs.writeFile(config, JSON.stringify(stored));
    const { files, checkout } = await w.client.agentFiles.list({ workspaceId: 'remote-widgets' });
    // Its checkout is read on its host (tests/ssh/agent-files.test.ts), which cannot be reached here.
    expect(checkout.available).toBe(false);
    expect(checkout.reason).toMatch(/^the SSH host dev@devbox\.invalid cannot be /);
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.place === 'global')).toBe(true);
  });
});

describe('agentFiles.read and write', () => {
  it('reads a file with its digest, and saves it atomically keeping its mode, warning like a memory save', async () => {
    const file = path.join(w.sb.checkout, 'AGENTS.md');
    await fs.chmod(file, 0o640);
    const read = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'AGENTS.md' });
    expect(read).toMatchObject({ content: await fs.readFile(file, 'utf8'), sha256: sha(await fs.readFile(file)), file: { id: 'AGENTS.md', agent: 'codex' } });
    const content = `${read.content}- Deploy key: ghp_R8xk2LmQ9vT4nW7yB3cZ5pJ1hF6gD0sA2eK4\n`;
    const save = await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content, expectedSha256: read.sha256 });
    expect(save).toMatchObject({ status: 'ok', sha256: sha(content), warnings: [{ kind: 'secret', rule: 'github-token', line: 7 }] });
    expect(await fs.readFile(file, 'utf8')).toBe(content);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o640);
    // No temp file is left beside it.
    expect((await fs.readdir(w.sb.checkout)).filter((n) => n.startsWith('.cairn-tmp'))).toEqual([]);
  });

  it('answers a conflict when the file changed on disk, was deleted, or was created meanwhile; nothing is clobbered', async () => {
    const file = path.join(w.sb.checkout, 'AGENTS.md');
    const read = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'AGENTS.md' });
    await fs.writeFile(file, 'changed by Codex\n');
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'mine\n', expectedSha256: read.sha256 })).toEqual({
      status: 'conflict',
      kind: 'changed',
      message: 'AGENTS.md was changed since you opened it.',
    });
    expect(await fs.readFile(file, 'utf8')).toBe('changed by Codex\n');
    await fs.rm(file);
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'mine\n', expectedSha256: read.sha256 })).toMatchObject({ status: 'conflict', kind: 'deleted' });
    await fs.writeFile(file, 'created by Codex\n');
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'mine\n', expectedSha256: null })).toMatchObject({
      status: 'conflict',
      kind: 'exists',
      message: 'AGENTS.md already exists; open it to edit it.',
    });
    expect(await fs.readFile(file, 'utf8')).toBe('created by Codex\n');
  });

  it('two saves based on the same version: one is written, the other is a conflict', async () => {
    const read = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'AGENTS.md' });
    const [a, b] = await Promise.all([
      w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'from tab A\n', expectedSha256: read.sha256 }),
      w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'from tab B\n', expectedSha256: read.sha256 }),
    ]);
    // Which one runs first is the event loop's; exactly one is written, and the other is told.
    expect([a.status, b.status].sort()).toEqual(['conflict', 'ok']);
    const lost = a.status === 'conflict' ? a : b;
    expect(lost).toMatchObject({ kind: 'changed', message: 'AGENTS.md was changed since you opened it.' });
    expect(await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md'), 'utf8')).toBe(a.status === 'ok' ? 'from tab A\n' : 'from tab B\n');
  });

  it('the last look before the rename refuses a file that is no longer what the save was based on, leaving no temp file', async () => {
    // The window between the save's check and its rename cannot be hit from outside without luck,
    // so the envelope's write is called directly with a digest the file on disk no longer has: the
    // real file, the real atomic write, only the timing skipped.
    const base = { place: 'checkout' as const, real: w.sb.checkout };
    const before = await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md'), 'utf8');
    await expect(writeFileAt(base, ['AGENTS.md'], new TextEncoder().encode('mine\n'), sha('what it was\n'), 0o644)).rejects.toBeInstanceOf(ChangedMeanwhile);
    await expect(writeFileAt(base, ['GEMINI.md'], new TextEncoder().encode('mine\n'), null, 0o644)).rejects.toBeInstanceOf(ChangedMeanwhile);
    expect(await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md'), 'utf8')).toBe(before);
    expect((await fs.readdir(w.sb.checkout)).filter((n) => n.startsWith('.cairn-tmp'))).toEqual([]);
  });

  it('creates a file that is absent at a known place, making its folders', async () => {
    const save = await w.client.agentFiles.write({ workspaceId: w.ws, id: '.cursor/rules/db/sql.mdc', content: '- Use migrations.\n', expectedSha256: null });
    expect(save).toMatchObject({ status: 'ok', warnings: [] });
    expect(await fs.readFile(path.join(w.sb.checkout, '.cursor', 'rules', 'db', 'sql.mdc'), 'utf8')).toBe('- Use migrations.\n');
    const global = await w.client.agentFiles.write({ workspaceId: null, id: '~/.codex/AGENTS.override.md', content: 'today only\n', expectedSha256: null });
    expect(global).toMatchObject({ status: 'ok' });
    expect(await fs.readFile(path.join(w.userHome, '.codex', 'AGENTS.override.md'), 'utf8')).toBe('today only\n');
  });

  it('refuses to create a file through a folder that is a link, out of the checkout or inside it, saying so', async () => {
    const elsewhere = path.join(w.sb.dir, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.rm(path.join(w.sb.checkout, '.github', 'instructions'), { recursive: true });
    await fs.symlink(elsewhere, path.join(w.sb.checkout, '.github', 'instructions'));
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: '.github/instructions/new.instructions.md', content: 'x\n', expectedSha256: null })).toEqual({
      status: 'error',
      message: '.github/instructions/new.instructions.md cannot be saved: a folder on its way is a symbolic link, and Cairn never writes through a link.',
    });
    expect(await fs.readdir(elsewhere)).toEqual([]);
    // Inside the checkout too: nothing, not even a folder, is made where the link leads.
    const docs = path.join(w.sb.checkout, 'docs');
    await fs.mkdir(docs);
    await fs.rm(path.join(w.sb.checkout, '.cursor', 'rules'), { recursive: true });
    await fs.symlink('../docs', path.join(w.sb.checkout, '.cursor', 'rules'));
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: '.cursor/rules/db/sql.mdc', content: 'x\n', expectedSha256: null })).toMatchObject({
      status: 'error',
      message: expect.stringContaining('a folder on its way is a symbolic link'),
    });
    expect(await fs.readdir(docs)).toEqual([]);
  });

  it('a link that leads nowhere is listed as a link, saying where it points, and is not replaced by a save', async () => {
    await fs.rm(path.join(w.sb.checkout, 'GEMINI.md'));
    await fs.symlink('nowhere.md', path.join(w.sb.checkout, 'GEMINI.md'));
    const listed = (await w.client.agentFiles.list({ workspaceId: w.ws })).files.find((f) => f.id === 'GEMINI.md');
    expect(listed).toMatchObject({ sha256: null, unreadable: 'it is a symbolic link that leads nowhere.', linkTo: 'nowhere.md' });
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'GEMINI.md', content: 'x\n', expectedSha256: null })).toEqual({
      status: 'error',
      message: 'GEMINI.md cannot be saved: it is a symbolic link that leads nowhere.',
    });
    expect(await fs.readlink(path.join(w.sb.checkout, 'GEMINI.md'))).toBe('nowhere.md');
  });

  it('refuses content over the cap or holding NUL, writing nothing', async () => {
    const read = await w.client.agentFiles.read({ workspaceId: w.ws, id: 'AGENTS.md' });
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'x'.repeat(100 * 1024 + 1), expectedSha256: read.sha256 })).toEqual({
      status: 'error',
      message: 'AGENTS.md would be 101 KiB; Cairn saves files of at most 100 KiB.',
    });
    expect(await w.client.agentFiles.write({ workspaceId: w.ws, id: 'AGENTS.md', content: 'a\u0000b', expectedSha256: read.sha256 })).toMatchObject({ status: 'error' });
    expect(sha(await fs.readFile(path.join(w.sb.checkout, 'AGENTS.md')))).toBe(read.sha256);
  });
});

describe('agentFiles.history', () => {
  it("records a person's saves with both sides, and changes seen between them as made outside Cairn", async () => {
    const id = '~/.claude/CLAUDE.md';
    const file = path.join(w.userHome, '.claude', 'CLAUDE.md');
    const original = await fs.readFile(file, 'utf8');
    expect(await w.client.agentFiles.history({ workspaceId: w.ws, id })).toEqual({ versions: [] });
    const first = await w.client.agentFiles.read({ workspaceId: w.ws, id });
    await w.client.agentFiles.write({ workspaceId: w.ws, id, content: 'one\n', expectedSha256: first.sha256 });
    await fs.writeFile(file, 'edited in vim\n');
    const second = await w.client.agentFiles.read({ workspaceId: w.ws, id });
    await w.client.agentFiles.write({ workspaceId: w.ws, id, content: 'two\n', expectedSha256: second.sha256 });
    const { versions } = await w.client.agentFiles.history({ workspaceId: w.ws, id });
    expect(versions.map(({ op, actor, cause, before, after }) => ({ op, actor, cause, before, after }))).toEqual([
      { op: 'update', actor: 'person', cause: 'ui', before: 'edited in vim\n', after: 'two\n' },
      { op: 'update', actor: 'external', cause: 'external', before: 'one\n', after: 'edited in vim\n' },
      { op: 'update', actor: 'person', cause: 'ui', before: original, after: 'one\n' },
    ]);
    // Deleted outside Cairn: the next look records it, with what the file held.
    await fs.rm(file);
    const after = await w.client.agentFiles.history({ workspaceId: w.ws, id });
    expect(after.versions[0]).toMatchObject({ op: 'delete', actor: 'external', before: 'two\n', after: null });
    // Kept under <home>/agent-files, never in memory's history.
    await expect(fs.stat(path.join(w.sb.home, 'agent-files', 'history', 'log.jsonl'))).resolves.toBeTruthy();
    expect(await w.client.history.list({ workspaceId: w.ws })).toMatchObject({ versions: [] });
  });
});

describe('the history kept of agent files', () => {
  it('is collected as memory history is: past 90 days only the newest 20 versions of a file stay', async () => {
    // The clock is the test's: the router over the host's real services, with AgentFiles on a fake clock.
    let now = Date.parse('2026-01-01T00:00:00Z');
    const agentFiles = new AgentFiles({ home: w.sb.home, userHome: w.userHome, registry: w.host.registry, inbox: w.host.inbox, service: w.host.service, now: () => now });
    const client = createRouterClient(router, { context: { ...w.host, agentFiles } });
    const id = '~/.gemini/GEMINI.md';
    for (let i = 0; i < 25; i++) {
      const { sha256 } = await client.agentFiles.read({ workspaceId: null, id });
      await client.agentFiles.write({ workspaceId: null, id, content: `version ${i}\n`, expectedSha256: sha256 });
      now += 60_000;
    }
    expect((await client.agentFiles.history({ workspaceId: null, id, limit: 200 })).versions).toHaveLength(25);
    now += 91 * 24 * 60 * 60 * 1000;
    const { sha256 } = await client.agentFiles.read({ workspaceId: null, id });
    await client.agentFiles.write({ workspaceId: null, id, content: 'after the summer\n', expectedSha256: sha256 });
    const { versions } = await client.agentFiles.history({ workspaceId: null, id, limit: 200 });
    expect(versions).toHaveLength(20);
    expect(versions[0]).toMatchObject({ before: 'version 24\n', after: 'after the summer\n' });
  });
});
