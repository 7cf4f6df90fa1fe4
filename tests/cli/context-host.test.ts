// The prompt hook and a running host, as Claude Code runs them: the built `cairn context
// --format claude-hook` asks a host of its home when one listens on `<home>/run/context.sock`,
// prints the host's answer as it is, and works its answer out itself when nobody answers, when
// the host refuses, answers something else, or takes too long. A real `cairn mcp` is such a host:
// with it running, the hook prints the bytes it prints alone, also after an edit (and says on
// stderr, with CAIRN_CONTEXT_TRACE set, that the host answered).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCairn, runJsonl } from '../support/cli';
import { runTraced } from '../support/module-trace/traced';
import { BUILT_CLI, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
let servers: net.Server[];
let sockets: net.Socket[];
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  servers = [];
  sockets = [];
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [
    { command: 'create', path: '/memories/project/release.md', file_text: '---\ndescription: How to release\n---\nRun `make release` after the migration.\n' },
    { command: 'create', path: '/memories/global/database.md', file_text: '---\ndescription: Database notes\n---\nThe database migration runs before the release.\n' },
  ]);
});
afterEach(async () => {
  await closeStandIns();
  await sb.cleanup();
});

/** Closes the stand-in hosts and the connections they left open (a silent host keeps its own). */
async function closeStandIns(): Promise<void> {
  sockets.forEach((s) => s.destroy());
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
  sockets = [];
}

const socketOf = () => path.join(sb.home, 'run', 'context.sock');

function hook(event: 'SessionStart' | 'UserPromptSubmit', prompt = 'how do we run the database migration before the release') {
  return runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: JSON.stringify({ hook_event_name: event, prompt, cwd: sb.checkout }) });
}

/** The hook, saying on stderr who worked out its answer (CAIRN_CONTEXT_TRACE). */
function tracedHook(event: 'SessionStart' | 'UserPromptSubmit') {
  return runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
    input: JSON.stringify({ hook_event_name: event, prompt: 'how do we run the database migration before the release', cwd: sb.checkout }),
    env: { CAIRN_CONTEXT_TRACE: '1' },
  });
}

/** A stand-in host on the home's socket: `answer` gets each request line and gives the answer's bytes (or never answers). */
async function standIn(answer: (request: Record<string, unknown>) => string | null): Promise<Array<Record<string, unknown>>> {
  const requests: Array<Record<string, unknown>> = [];
  await fs.mkdir(path.dirname(socketOf()), { recursive: true, mode: 0o700 });
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('end', () => {
      const request = JSON.parse(data) as Record<string, unknown>;
      requests.push(request);
      const bytes = answer(request);
      if (bytes !== null) socket.end(bytes);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(socketOf(), resolve));
  servers.push(server);
  return requests;
}

describe('the prompt hook with a host', () => {
  it("prints the host's answer as it is, and asks with what the answer depends on", async () => {
    const requests = await standIn(() => `${JSON.stringify({ text: '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"from the host"}}\n' })}\n`);
    const result = await hook('UserPromptSubmit');
    expect(result).toMatchObject({ status: 0, stderr: '', stdout: '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"from the host"}}\n' });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ protocol: 1, home: sb.home, format: 'claude-hook', event: 'UserPromptSubmit', prompt: 'how do we run the database migration before the release', cwd: sb.checkout });
    // The build's own id (a host of another build refuses).
    expect(requests[0]!.build).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
  });

  it("answered by a running `cairn mcp`, loads none of the code that works an answer out, --agent's note of the agent included", async () => {
    const mcp = await startMcp();
    try {
      const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'how do we run the database migration before the release', cwd: sb.checkout, session_id: 's1' });
      const traced = () => runTraced(sb.dir, ['context', '--format', 'claude-hook', '--agent', 'claude', '--home', sb.home], { input, env: { CAIRN_CONTEXT_TRACE: '1' } });
      // Its first answer may come after the hook's (a host just started): asked until the host has answered.
      let r = await traced();
      for (let i = 0; i < 10 && !r.stderr.includes('answered by a running Cairn'); i++) r = await traced();
      expect(r.stderr).toContain('answered by a running Cairn');
      expect(r.stdout).toContain('/memories/global/database.md');
      const { chunks } = r;
      expect(chunks, chunks.join(', ')).toContain('chunk:context-hook');
      expect(chunks, chunks.join(', ')).not.toContain('chunk:context-here');
      expect(chunks, chunks.join(', ')).not.toContain('chunk:content-scanner');
    } finally {
      await stopMcp(mcp);
    }
  });

  it('works its answer out itself when the host refuses, answers garbage, cuts its answer, or is silent past the timeout', async () => {
    const alone = await hook('UserPromptSubmit');
    expect(alone.stdout).toContain('/memories/global/database.md');
    const answers = [`${JSON.stringify({ refused: 'another build of Cairn' })}\n`, 'garbage\n', '{"text":"cut', null];
    for (const answer of answers) {
      await closeStandIns();
      await standIn(() => answer);
      expect(await hook('UserPromptSubmit')).toMatchObject({ status: 0, stderr: '', stdout: alone.stdout });
    }
  });

  it('stops reading a host that answers more than any context holds, and works its answer out itself, its memory bounded', async () => {
    // The hook's peak resident memory, written by the hook's own process as it exits (Linux: kB).
    const rssFile = path.join(sb.dir, 'peak-rss');
    const preload = path.join(sb.dir, 'peak-rss.cjs');
    await fs.writeFile(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS * 1024)));\n`);
    const measured = async () => {
      const result = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], {
        input: JSON.stringify({ hook_event_name: 'SessionStart', cwd: sb.checkout }),
        env: { NODE_OPTIONS: `--require ${preload}`, CAIRN_CONTEXT_TRACE: '1' },
      });
      return { ...result, peak: Number(await fs.readFile(rssFile, 'utf8')) };
    };
    const alone = await measured();
    expect(alone.stdout).toContain('<memory_index>');

    // A whole answer, well formed, of 4 MiB: more than the largest context, so not one. Made
    // before it is asked for, so it comes at once, long before the hook's timeout.
    const huge = `${JSON.stringify({ text: `{"hookSpecificOutput":{"additionalContext":"${'x'.repeat(4 * 1024 * 1024)}"}}\n` })}\n`;
    await standIn(() => huge);
    const whole = await measured();
    expect(whole).toMatchObject({ status: 0, stdout: alone.stdout });
    expect(whole.stderr).toMatch(/^cairn context: worked out here: the answer is longer than any context \(over \d+ bytes\)\n$/);

    // An answer that never ends: the hook stops at the bound (or its timeout, on a machine too
    // loaded to send a few MiB in a second) and its memory stays what it is alone.
    await closeStandIns();
    await fs.mkdir(path.dirname(socketOf()), { recursive: true, mode: 0o700 });
    let sent = 0;
    const endless = net.createServer({ allowHalfOpen: true }, (socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      socket.on('end', () => {
        const mib = Buffer.alloc(1024 * 1024, 'y');
        const pump = (): void => {
          while (!socket.destroyed && sent < 4096 * mib.length) {
            sent += mib.length;
            if (!socket.write(mib)) return;
          }
        };
        socket.on('drain', pump);
        socket.write('{"text":"');
        pump();
      });
      socket.resume();
    });
    await new Promise<void>((resolve) => endless.listen(socketOf(), resolve));
    servers.push(endless);
    const flooded = await measured();
    expect(flooded).toMatchObject({ status: 0, stdout: alone.stdout });
    // What it read is dropped as soon as it passes the bound (a few MiB): its peak is the one it has
    // alone, give or take what V8 has not collected yet.
    expect(flooded.peak - alone.peak).toBeLessThan(48 * 1024 * 1024);
  });

  it('does not ask a host whose socket others could have put there (a directory others may write to)', async () => {
    const alone = await hook('UserPromptSubmit');
    await standIn(() => `${JSON.stringify({ text: 'from whoever put the socket there\n' })}\n`);
    expect((await hook('UserPromptSubmit')).stdout).toBe('from whoever put the socket there\n');
    await fs.chmod(path.dirname(socketOf()), 0o770);
    expect(await hook('UserPromptSubmit')).toMatchObject({ status: 0, stderr: '', stdout: alone.stdout });
  });

  it('works its answer out itself when the socket is left by a host that is gone', async () => {
    const alone = await hook('UserPromptSubmit');
    await standIn(() => null);
    await closeStandIns();
    await fs.writeFile(socketOf(), '');
    expect(await hook('UserPromptSubmit')).toMatchObject({ status: 0, stderr: '', stdout: alone.stdout });
  });

  it('gets from a running `cairn mcp` the bytes it prints alone, also right after an edit', async () => {
    const alone = { start: (await hook('SessionStart')).stdout, prompt: (await hook('UserPromptSubmit')).stdout };
    expect(alone.start).toContain('<memory_index>');
    const mcp = await startMcp();
    const byHost = 'cairn context: answered by a running Cairn (its host of the prompt hook)\n';
    try {
      // Its first answer may come after the hook's second (a loaded machine, a host just started):
      // asked until the host has answered once.
      let first = await tracedHook('SessionStart');
      for (let i = 0; i < 10 && first.stderr !== byHost; i++) first = await tracedHook('SessionStart');
      expect(first).toMatchObject({ stdout: alone.start, stderr: byHost });
      expect(await tracedHook('SessionStart')).toMatchObject({ stdout: alone.start, stderr: byHost });
      expect(await tracedHook('UserPromptSubmit')).toMatchObject({ stdout: alone.prompt, stderr: byHost });
      await fs.writeFile(path.join(sb.roots.global, 'database.md'), '---\ndescription: Database notes, edited\n---\nThe database migration runs after the backup.\n');
      const edited = await tracedHook('UserPromptSubmit');
      expect(edited).toMatchObject({ stderr: byHost });
      expect(edited.stdout).toContain('runs after the backup');
      await stopMcp(mcp);
      expect(await tracedHook('UserPromptSubmit')).toMatchObject({ stdout: edited.stdout, stderr: 'cairn context: worked out here: no Cairn process serves this home\n' });
    } finally {
      await stopMcp(mcp);
    }
  });
});

/** A real `cairn mcp` for the sandbox, once it has answered initialize and serves the hook's socket. */
async function startMcp(): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, [BUILT_CLI, 'mcp', '--home', sb.home, '--cwd', sb.checkout]);
  child.stderr.resume();
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } })}\n`);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  // The services (and with them the host) load after the early answer.
  for (let i = 0; i < 600; i++) {
    if (await fs.stat(socketOf()).then((s) => s.isSocket(), () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill();
  throw new Error('cairn mcp did not serve the hook socket');
}

async function stopMcp(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.stdin.end();
  await closed;
}
