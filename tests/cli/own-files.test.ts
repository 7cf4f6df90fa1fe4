// Cairn's own files under its home, through the built CLI and `cairn serve` on a real disk: on a
// full disk (a real small tmpfs mounted as the home, as root) every write fails whole, leaving the
// file as it was and no temp file behind; a file that does not parse (seen marks, pins and usage,
// a consolidation record, the harvest's state) is moved aside to <name>.damaged-<time> with the
// reason said, never replaced or hidden, and the rest goes on working.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, stopProcess } from '../support/cli';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { rpc, serve, type Served } from '../support/serve';
import { canMount, fillDisk, mountSmallDisk } from '../support/small-disk';

let sb: Sandbox;
let served: Served | null = null;
let unmount: (() => void) | null = null;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  if (served) await stopProcess(served.server);
  served = null;
  unmount?.();
  unmount = null;
  await sb.cleanup();
});

const cairn = (...args: string[]) => runCairn([...args, '--home', sb.home], { cwd: sb.checkout });

/** Every name under `dir`, relative, sorted. */
function allNames(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    out.push(`${prefix}${entry.name}`);
    if (entry.isDirectory()) out.push(...allNames(path.join(dir, entry.name), `${prefix}${entry.name}/`));
  }
  return out.sort();
}
const leftovers = () => allNames(sb.home).filter((n) => /\.tmp$|(^|\/)\.cairn-tmp-/.test(n));
const read = (rel: string) => fs.readFileSync(path.join(sb.home, rel), 'utf8');
const asides = (dir = sb.home) => fs.readdirSync(dir).filter((n) => n.includes('.damaged-'));

/** Collects what a served process says on stderr from now on. */
function stderrOf(s: Served): () => string {
  let text = '';
  s.server.stderr.on('data', (d: Buffer) => (text += d.toString()));
  return () => text;
}

async function addWorkspace(): Promise<string> {
  const added = await cairn('workspace', 'add', '--name', 'widgets', '--path', sb.checkout);
  expect(added.status, added.stderr).toBe(0);
  return added.stdout.trim();
}

describe.runIf(canMount())('on a full disk', () => {
  it('every write of Cairn fails whole: each file stays as it was, no temp file is left, and each says why', async () => {
    unmount = mountSmallDisk(sb.home, '1m');
    const workspaceId = await addWorkspace();
    expect((await cairn('tool', '{"command":"create","path":"/memories/global/a.md","file_text":"a note\\n"}')).status).toBe(0);
    expect((await cairn('pin', '/memories/global/a.md')).status).toBe(0);
    // A project file (in the checkout, off the full disk) over 8 KiB: its versions go to blob files.
    const big = `${'line of a long note\n'.repeat(1200)}end\n`;
    expect((await cairn('tool', JSON.stringify({ command: 'create', path: '/memories/project/big.md', file_text: big }))).status).toBe(0);
    expect((await cairn('harvest', '--enable')).status).toBe(0);
    served = await serve(sb.home);
    const said = stderrOf(served);
    await rpc(served, 'memory/read', { workspaceId, path: '/memories/global/a.md' });
    const before = Object.fromEntries(['config.json', 'memory-meta.json', 'seen.json', 'web-token', 'mcp-token', 'server.json'].map((f) => [f, read(f)]));
    expect(leftovers()).toEqual([]);

    fillDisk(sb.home);
    // Settings: the new workspace is refused, the file is the person's as it was.
    const add = await runCairn(['workspace', 'add', '--name', 'other', '--path', sb.dir, '--home', sb.home]);
    expect(add.status).not.toBe(0);
    expect(add.stderr).toContain('ENOSPC');
    // A pin: refused, saying why, never reported done; memory itself is untouched.
    const unpin = await cairn('unpin', '/memories/global/a.md');
    expect(unpin.status).toBe(1);
    expect(unpin.stdout + unpin.stderr).toContain('Could not unpin /memories/global/a.md: the disk is full');
    expect(unpin.stdout).not.toContain('Unpinned');
    // A seen mark: the read itself is answered, the failure logged.
    expect(await rpc(served, 'memory/read', { workspaceId, path: '/memories/global/a.md' })).toMatchObject({ content: 'a note\n' });
    await expect.poll(said).toContain('could not record that a file was opened (ENOSPC)');
    // The harvest hook queues nothing and says so (it never fails the agent).
    const hook = await runCairn(['harvest', '--hook', '--home', sb.home], { input: JSON.stringify({ session_id: 's', transcript_path: path.join(sb.dir, 's.jsonl'), cwd: sb.checkout }) });
    expect(hook).toMatchObject({ status: 0, stderr: expect.stringContaining('ENOSPC') });
    expect(await rpc(served, 'memory/badges', { workspaceId })).toMatchObject({ badges: [{ path: '/memories/project/big.md', badge: 'agent' }] });
    // A change whose versions need a new blob file: refused, the memory file as it was.
    const edit = await cairn('tool', JSON.stringify({ command: 'str_replace', path: '/memories/project/big.md', old_str: 'end', new_str: 'the end' }));
    expect(edit.status).not.toBe(0);
    expect(edit.stdout + edit.stderr).toMatch(/disk is full|ENOSPC/);
    expect(fs.readFileSync(path.join(sb.roots.project, 'big.md'), 'utf8')).toBe(big);
    expect(leftovers()).toEqual([]);
    for (const [file, text] of Object.entries(before)) expect(read(file), file).toBe(text);

    // A new web token (the server stopped first, and the room its server.json held filled again):
    // refused, the old token kept.
    await stopProcess(served.server);
    served = null;
    fillDisk(sb.home);
    const rotate = await runCairn(['serve', '--port', '0', '--rotate-token', '--home', sb.home], { env: { HOME: sb.dir } });
    expect(rotate.status).not.toBe(0);
    expect(rotate.stderr).toContain('ENOSPC');
    expect(read('web-token')).toBe(before['web-token']);
    expect(leftovers()).toEqual([]);
  }, 120_000);
});

describe('a file of Cairn that does not parse', () => {
  it('seen.json: moved aside and said by the server, every badge shows again, and the next mark writes a fresh file', async () => {
    const workspaceId = await addWorkspace();
    expect((await cairn('tool', '{"command":"create","path":"/memories/global/a.md","file_text":"a\\n"}')).status).toBe(0);
    fs.writeFileSync(path.join(sb.home, 'seen.json'), '{"version":1,"files":{"/memories/global/a.md":"2025-');
    served = await serve(sb.home);
    const said = stderrOf(served);
    expect(await rpc(served, 'memory/badges', { workspaceId })).toMatchObject({ badges: [{ path: '/memories/global/a.md', badge: 'agent' }] });
    const [aside] = asides();
    expect(aside).toMatch(/^seen\.json\.damaged-\d{8}T\d{6}Z$/);
    expect(read(aside!)).toBe('{"version":1,"files":{"/memories/global/a.md":"2025-');
    await expect.poll(said).toContain(`${path.join(sb.home, 'seen.json')} could not be read (`);
    expect(said()).toContain(`moved aside to ${path.join(sb.home, aside!)}`);
    await rpc(served, 'memory/read', { workspaceId, path: '/memories/global/a.md' });
    expect(await rpc(served, 'memory/badges', { workspaceId })).toEqual({ badges: [] });
    expect(asides()).toEqual([aside]);
  }, 60_000);

  it('memory-meta.json: the next pin sets it aside and says so; the pins salvaged from it are kept', async () => {
    for (const name of ['a', 'b']) expect((await cairn('tool', JSON.stringify({ command: 'create', path: `/memories/global/${name}.md`, file_text: `${name}\n` }))).status).toBe(0);
    expect((await cairn('pin', '/memories/global/a.md')).status).toBe(0);
    const whole = read('memory-meta.json');
    const torn = whole.slice(0, whole.indexOf('"global:b.md"') + 10);
    fs.writeFileSync(path.join(sb.home, 'memory-meta.json'), torn);
    const pin = await cairn('pin', '/memories/global/b.md');
    expect(pin.status).toBe(0);
    const [aside] = asides();
    expect(aside).toMatch(/^memory-meta\.json\.damaged-/);
    expect(read(aside!)).toBe(torn);
    expect(pin.stderr).toContain(`${path.join(sb.home, 'memory-meta.json')} could not be read (`);
    expect(pin.stderr).toContain(`moved aside to ${path.join(sb.home, aside!)}`);
    const stats = await cairn('stats');
    expect(stats.stdout).toMatch(/yes .*\/memories\/global\/a\.md/);
    expect(stats.stdout).toMatch(/yes .*\/memories\/global\/b\.md/);
  }, 60_000);

  it('a consolidation record: moved aside and said; the other proposals are listed as before', async () => {
    fs.mkdirSync(sb.roots.project, { recursive: true });
    fs.writeFileSync(path.join(sb.roots.project, 'a.md'), 'Run make test before pushing any branch to the remote.\n');
    fs.writeFileSync(path.join(sb.roots.project, 'b.md'), 'Run make test before pushing any branch to the remote, always.\n');
    const first = JSON.parse((await cairn('consolidate', '--json', '--cwd', sb.checkout)).stdout) as { proposal: { id: string } };
    const consolidations = path.join(sb.home, 'sweeps');
    const other = '000000000-deadbeef';
    fs.writeFileSync(path.join(consolidations, `${other}.json`), '{"id":"000000000-deadbeef","state":');
    const list = await cairn('consolidate', 'list', '--cwd', sb.checkout);
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(first.proposal.id);
    expect(list.stderr).toContain(`${path.join(consolidations, `${other}.json`)} could not be read (`);
    expect(asides(consolidations)).toEqual([expect.stringMatching(new RegExp(`^${other}\\.json\\.damaged-`))]);
    expect(fs.readFileSync(path.join(consolidations, asides(consolidations)[0]!), 'utf8')).toBe('{"id":"000000000-deadbeef","state":');
  }, 60_000);

  it("the harvest's session state and job files: moved aside and said; the session is harvested from its start", async () => {
    const transcript = path.join(sb.dir, 'session.jsonl');
    const say = (id: string, text: string) => JSON.stringify({ type: 'user', uuid: id, sessionId: 'sess-1', timestamp: '2026-01-01T10:00:00.000Z', cwd: sb.checkout, message: { role: 'user', content: text } });
    fs.writeFileSync(transcript, `${say('m1', 'Remember that the staging database is reset every Monday at 06:00 UTC.')}\n`);
    const first = await cairn('harvest', '--transcript', transcript, '--json');
    expect(first.status, first.stderr).toBe(0);
    const sessions = path.join(sb.home, 'harvest', 'sessions');
    const [state] = fs.readdirSync(sessions).filter((n) => n.endsWith('.json'));
    fs.writeFileSync(path.join(sessions, state!), '{"lastId":');
    const again = await cairn('harvest', '--transcript', transcript, '--json');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${path.join(sessions, state!)} could not be read (`);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'harvested', segmentMessages: 1 });
    expect(asides(sessions)).toHaveLength(1);

    // A job file (the hook's queue) that does not parse: the status says so, and still answers.
    const jobs = path.join(sb.home, 'harvest', 'jobs');
    fs.mkdirSync(jobs, { recursive: true });
    fs.writeFileSync(path.join(jobs, `${'a'.repeat(24)}.json`), '[1,2');
    const status = await cairn('harvest', '--status', '--json');
    expect(status.status, status.stderr).toBe(0);
    expect(status.stderr).toContain(`${path.join(jobs, `${'a'.repeat(24)}.json`)} could not be read (`);
    expect(asides(jobs)).toHaveLength(1);
    expect(fs.readFileSync(path.join(jobs, asides(jobs)[0]!), 'utf8')).toBe('[1,2');
  }, 60_000);
});
