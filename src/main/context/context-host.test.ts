// ContextHost (the prompt hook's host) on the real disk and real Unix sockets: its
// answers are the bytes the hook works out alone (contextAnswerHere), for every event and format
// and after an edit made outside; one host serves a home while another stands by and takes over
// when it closes (the standby's timer is faked, nothing else); a host that was killed, or one of
// another build, is taken over; what is not a request of this build, protocol and home is refused,
// and the hook then works its answer out itself.
//
// The host's runtime has a clock a minute ahead of the disk's, so the files written here count as
// settled and the host keeps their facts between requests: an outside edit must still show in the
// very next answer.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pastCtimeTick } from '../../../tests/support/file-tree';
import { makeSandbox, type Sandbox } from '../../../tests/support/sandbox';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { contextAnswerHere } from './context-answer';
import { ContextHost } from './context-host';
import { askContextHost, CAIRN_BUILD, CONTEXT_SOCKET_PROTOCOL, contextSocketPath, type ContextRequest } from './context-socket';

const PROMPT = 'how do we run the database migration before the release';

let sb: Sandbox;
let hosts: ContextHost[];

function note(topic: string, i: number): string {
  return `---\ndescription: How the ${topic} work is done (${i})\n---\n# ${topic}\n- run \`make ${topic}\` before the release (${i}).\n`;
}

beforeEach(async () => {
  sb = await makeSandbox();
  hosts = [];
  for (const [root, topics] of [
    [sb.roots.project, ['database', 'release', 'build']],
    [sb.roots.global, ['style', 'database']],
    [sb.roots.workspace, ['todo']],
  ] as const) {
    for (const [i, topic] of topics.entries()) {
      await fs.mkdir(path.join(root, topic), { recursive: true });
      await fs.writeFile(path.join(root, topic, `note-${i}.md`), note(topic, i));
    }
  }
});

afterEach(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await sb.cleanup();
});

async function startHost(): Promise<ContextHost | null> {
  const host = await ContextHost.start(sb.home, new LocalRuntime({ now: () => Date.now() + 60_000 }));
  if (host) hosts.push(host);
  return host;
}

/** The host's text for `r`, or null when the hook would work it out itself. */
async function ask(r: ContextRequest, home = sb.home): Promise<string | null> {
  // A generous wait: a loaded machine may answer late (the hook itself waits a second).
  const answer = await askContextHost(home, r, 15_000);
  return 'text' in answer ? answer.text : null;
}

function request(over: Partial<ContextRequest> = {}): ContextRequest {
  return { format: 'claude-hook', event: 'UserPromptSubmit', prompt: PROMPT, cwd: sb.checkout, ...over };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 1500) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What the host answers to one raw line (as JSON), read to its end. */
function rawAsk(line: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(contextSocketPath(sb.home)!);
    let data = '';
    socket.on('connect', () => socket.end(line));
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('end', () => resolve(JSON.parse(data)));
    socket.on('error', reject);
  });
}

describe('the host of the prompt hook', () => {
  it('answers with the bytes the hook works out alone, for every event and format', async () => {
    expect(await startHost()).not.toBeNull();
    const { prompt: _, ...noPrompt } = request({ format: 'text' });
    const asked = [request(), request({ event: 'SessionStart' }), request({ format: 'json', event: 'SessionStart' }), noPrompt, request({ prompt: 'the and of' })];
    for (const r of asked) {
      const expected = await contextAnswerHere(sb.home, r);
      expect(await ask(r)).toBe(expected);
      // And again, from the facts it kept.
      expect(await ask(r)).toBe(expected);
    }
    expect(await ask(request())).toContain('/memories/project/database/note-0.md');
    // A prompt nothing matches: the hook prints nothing, and so does the host.
    expect(await ask(request({ prompt: 'the and of' }))).toBe('');
  });

  it('shows an edit made outside in the very next answer (same size, mtime put back), a new file and a delete', async () => {
    await startHost();
    expect(await ask(request())).toContain('How the database work is done (0)');
    const file = path.join(sb.roots.project, 'database', 'note-0.md');
    const before = await fs.stat(file);
    await pastCtimeTick(before);
    await fs.writeFile(file, note('database', 0).replace('(0)', '(9)'));
    await fs.utimes(file, before.atime, before.mtime);
    expect((await fs.stat(file)).size).toBe(before.size);
    const edited = await ask(request());
    expect(edited).toContain('How the database work is done (9)');
    expect(edited).toBe(await contextAnswerHere(sb.home, request()));

    await fs.writeFile(path.join(sb.roots.project, 'database', 'migrations.md'), '---\ndescription: Database migration steps\n---\nRun the migration before the release.\n');
    await fs.rm(path.join(sb.roots.global, 'database'), { recursive: true });
    const changed = await ask(request());
    expect(changed).toContain('/memories/project/database/migrations.md');
    expect(changed).not.toContain('/memories/global/database');
    expect(changed).toBe(await contextAnswerHere(sb.home, request()));
  });

  it('serves a home from one host at a time; another stands by and takes over when it closes', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const first = await startHost();
      const second = await startHost();
      expect(first?.serving()).toBe(true);
      expect(second?.serving()).toBe(false);
      const link = contextSocketPath(sb.home)!;
      expect((await fs.stat(path.dirname(link))).mode & 0o777).toBe(0o700);
      expect(await ask(request())).toBe(await contextAnswerHere(sb.home, request()));

      await first!.close();
      // Its socket and the home's link are gone; the other still has its own.
      await expect(fs.lstat(link)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await askContextHost(sb.home, request())).toEqual({ missed: 'no Cairn process serves this home' });
      expect((await fs.readdir(path.dirname(link))).filter((n) => n.endsWith('.sock'))).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(30_000);
      await waitFor(() => second!.serving());
      expect(await ask(request())).toBe(await contextAnswerHere(sb.home, request()));
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes over from a host that was killed (its socket removed) and from one of another build', async () => {
    const link = contextSocketPath(sb.home)!;
    const dir = path.dirname(link);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    // A host killed outright leaves its socket and the link to it, with nobody listening.
    const dead = path.join(dir, 'context-999999-0123abcd.sock');
    const killed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(dead)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => killed.stdout.once('data', resolve));
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('close', resolve));
    await fs.symlink(path.basename(dead), link);
    expect(await askContextHost(sb.home, request())).toMatchObject({ missed: expect.stringMatching(/^the host could not be reached/) });
    const host = await startHost();
    expect(host?.serving()).toBe(true);
    await expect(fs.stat(dead)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await ask(request())).toBe(await contextAnswerHere(sb.home, request()));
    await host!.close();
    hosts = [];

    // A host of another build (Cairn was upgraded while it ran) keeps answering probes, but not for this build.
    const old = path.join(dir, `context-${process.pid}-4567cdef.sock`);
    const oldHost = net.createServer({ allowHalfOpen: true }, (socket) => socket.on('data', () => socket.end(`${JSON.stringify({ protocol: CONTEXT_SOCKET_PROTOCOL, build: 'older' })}\n`)));
    await new Promise<void>((resolve) => oldHost.listen(old, resolve));
    try {
      await fs.symlink(path.basename(old), link);
      const upgraded = await startHost();
      expect(upgraded?.serving()).toBe(true);
      expect(await ask(request())).toBe(await contextAnswerHere(sb.home, request()));
    } finally {
      await new Promise((resolve) => oldHost.close(resolve));
    }
  });

  it('says which build and protocol it answers when another host asks', async () => {
    await startHost();
    expect(await rawAsk('{"probe":true}\n')).toEqual({ protocol: CONTEXT_SOCKET_PROTOCOL, build: CAIRN_BUILD });
  });

  it('leaves a checkout without an origin to the hook (its project id comes from running git)', async () => {
    await startHost();
    const local = path.join(sb.dir, 'local-only');
    await fs.mkdir(path.join(local, '.git'), { recursive: true });
    await fs.writeFile(path.join(local, '.git', 'config'), '[core]\n\tbare = false\n');
    expect(await askContextHost(sb.home, request({ cwd: local }))).toEqual({ missed: 'the host refused: the checkout has no origin: its project id comes from running git, as the hook runs it' });
    // A directory outside any repository is answered.
    expect(await ask(request({ cwd: sb.dir }))).toBe(await contextAnswerHere(sb.home, request({ cwd: sb.dir })));
  });

  it('answers a hook that names the home through a link', async () => {
    await startHost();
    const link = path.join(sb.dir, 'home-link');
    await fs.symlink(sb.home, link);
    const answer = await ask(request(), link);
    expect(answer).toContain('/memories/project/database/note-0.md');
    expect(answer).toBe(await contextAnswerHere(sb.home, request()));
  });

  it('refuses what is not a request of this build, protocol and home (the hook then works it out)', async () => {
    await startHost();
    const line = (over: Record<string, unknown>) => `${JSON.stringify({ protocol: CONTEXT_SOCKET_PROTOCOL, build: CAIRN_BUILD, home: sb.home, ...request(), ...over })}\n`;
    expect(await rawAsk(line({}))).toEqual({ text: await contextAnswerHere(sb.home, request()) });
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ build: 'another' }, 'another build of Cairn'],
      [{ protocol: CONTEXT_SOCKET_PROTOCOL + 1 }, 'another protocol'],
      [{ home: path.join(sb.dir, 'other-home') }, 'another home'],
      [{ format: 'xml' }, 'an unknown format'],
      [{ event: 'Stop' }, 'an unknown event'],
      [{ prompt: 42 }, 'a prompt that is not text'],
      [{ cwd: 'relative/dir' }, 'a working directory that is not absolute'],
    ];
    for (const [over, refused] of refusals) expect(await rawAsk(line(over))).toEqual({ refused });
    expect(await rawAsk('not json\n')).toEqual({ refused: 'the request is not JSON' });
    expect(await rawAsk('null\n')).toEqual({ refused: 'the request is not an object' });
  });
});
