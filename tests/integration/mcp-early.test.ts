// `cairn mcp` answers `initialize` before its server has loaded, as real processes: the
// official MCP client gets the instructions of before (the golden the build printed before the
// early answer existed) and a session that works end to end; the early answer is the very line a
// server that does not answer early (`--workspace`) gives; messages sent before the server has
// loaded are all answered; an initialize the SDK refuses is answered by the SDK; and a client that
// sends initialize and closes its input gets one answer and a clean exit.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSIONS } from '../../src/main/mcp/early-initialize';
import { runCairn, stopProcess } from '../support/cli';
import { CONTEXT_GOLDENS, writeContextHome } from '../support/context-home';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

let sb: Sandbox;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  writeContextHome(sb);
});
afterEach(async () => {
  for (const child of children.splice(0)) await stopProcess(child);
  await sb.cleanup();
});

interface Raw {
  write(data: string): void;
  /** Closes stdin. */
  end(): void;
  /** The next line on stdout, as written. */
  next(): Promise<string>;
  /** Every line written, once the process has exited, and its exit code. */
  exit(): Promise<{ code: number | null; lines: string[] }>;
  stderr(): string;
}

/** `cairn mcp` driven line by line on its stdio. */
function raw(args: string[] = ['--cwd', sb.checkout]): Raw {
  const child = spawn(CAIRN_BIN, ['mcp', '--home', sb.home, ...args]);
  children.push(child);
  const lines: string[] = [];
  const all: string[] = [];
  const waiting: Array<() => void> = [];
  let out = '';
  let err = '';
  let exited = false;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl !== -1; nl = out.indexOf('\n')) {
      lines.push(out.slice(0, nl + 1));
      all.push(out.slice(0, nl + 1));
      out = out.slice(nl + 1);
    }
    waiting.splice(0).forEach((wake) => wake());
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const closed = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      exited = true;
      waiting.splice(0).forEach((wake) => wake());
      resolve(code);
    }),
  );
  return {
    write: (data) => void child.stdin.write(data),
    end: () => void child.stdin.end(),
    async next() {
      while (lines.length === 0) {
        if (exited) throw new Error(`cairn mcp exited (${child.exitCode}) without answering; stderr: ${err}`);
        await new Promise<void>((wake) => waiting.push(wake));
      }
      return lines.shift()!;
    },
    exit: async () => ({ code: await closed, lines: all }),
    stderr: () => err,
  };
}

const initialize = (id: number, protocolVersion = '2025-06-18', capabilities: unknown = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'early', version: '1' } } })}\n`;
const request = (id: number, method: string, params?: unknown) => `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`;
const initialized = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;

describe('cairn mcp, answering initialize before its server has loaded', () => {
  it('gives the official client the instructions of before, and a session that works end to end', async () => {
    const transport = new StdioClientTransport({ command: CAIRN_BIN, args: ['mcp', '--home', sb.home, '--cwd', sb.checkout], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'cairn-early-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const instructions = client.getInstructions() ?? '';
      expect(instructions).toBe(await fs.readFile(path.join(CONTEXT_GOLDENS, 'mcp-instructions.txt'), 'utf8'));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['memory', 'memory_consolidate', 'memory_propose', 'memory_search']);
      const created = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/global/early.md', file_text: 'answered early\n' } });
      expect(created.content).toEqual([{ type: 'text', text: 'File created successfully at: /memories/global/early.md' }]);
      expect(await fs.readFile(path.join(sb.roots.global, 'early.md'), 'utf8')).toBe('answered early\n');
      const index = await client.readResource({ uri: 'cairn://index' });
      expect(instructions).toContain((index.contents[0] as { text: string }).text);
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain('cairn://memory/global/early.md');
    } finally {
      await client.close();
    }
    // Nothing said on stderr: in particular, the server's own answer to initialize was the early one.
    expect(stderr).toBe('');
  });

  it('writes the line a server that does not answer early writes, for every protocol version', async () => {
    // The first session registers the checkout (its git root), as any agent's first session does.
    const first = raw();
    first.write(initialize(1));
    await first.next();
    const { workspaceId } = sb.session;
    for (const version of [...PROTOCOL_VERSIONS, '2099-01-01']) {
      const early = raw();
      early.write(initialize(7, version));
      // --workspace is the registry's to resolve: that server loads before it answers.
      const late = raw(['--workspace', workspaceId!]);
      late.write(initialize(7, version));
      expect(await early.next()).toBe(await late.next());
    }
  });

  it('works out the workspace the registry gives: the deepest registered one containing the directory', async () => {
    const sub = path.join(sb.checkout, 'packages', 'api');
    await fs.mkdir(path.join(sub, 'src'), { recursive: true });
    const added = await runCairn(['workspace', 'add', '--home', sb.home, '--name', 'api', '--path', sub, '--id', 'api-custom']);
    expect(added.status).toBe(0);
    await fs.mkdir(path.join(sb.home, 'workspaces', 'api-custom', 'memory'), { recursive: true });
    await fs.writeFile(path.join(sb.home, 'workspaces', 'api-custom', 'memory', 'api-notes.md'), '---\ndescription: Notes of the api package\n---\nx\n');
    const early = raw(['--cwd', path.join(sub, 'src')]);
    early.write(initialize(3));
    const line = await early.next();
    expect(JSON.parse(line).result.instructions).toContain('/memories/workspace/api-notes.md: Notes of the api package');
    const late = raw(['--workspace', 'api-custom']);
    late.write(initialize(3));
    expect(await late.next()).toBe(line);
    // The registry's session once loaded was the one worked out early: nothing said on stderr.
    early.end();
    expect((await early.exit()).code).toBe(0);
    expect(early.stderr()).toBe('');
  });

  it('answers every message sent before its server has loaded', async () => {
    const session = raw();
    // All at once, before anything is answered: they wait in the pipe while the server loads.
    session.write(
      initialize(1) +
        initialized +
        request(2, 'tools/list') +
        request(3, 'tools/call', { name: 'memory', arguments: { command: 'create', path: '/memories/workspace/sent-early.md', file_text: 'kept\n' } }) +
        request(4, 'resources/read', { uri: 'cairn://hot-set' }) +
        request(5, 'prompts/list') +
        request(6, 'ping'),
    );
    const first = JSON.parse(await session.next()) as { id: number; result: { instructions: string } };
    expect(first.id).toBe(1);
    expect(first.result.instructions).toContain('<memory_index>');
    const answers = new Map<number, { result?: Record<string, unknown>; error?: unknown }>();
    while (answers.size < 5) {
      const answer = JSON.parse(await session.next()) as { id: number; result?: Record<string, unknown>; error?: unknown };
      expect(answers.has(answer.id), `answered twice: ${answer.id}`).toBe(false);
      answers.set(answer.id, answer);
    }
    expect([...answers.keys()].sort()).toEqual([2, 3, 4, 5, 6]);
    expect(answers.get(2)!.result!.tools).toHaveLength(4);
    expect(answers.get(3)!.result!.content).toEqual([{ type: 'text', text: 'File created successfully at: /memories/workspace/sent-early.md' }]);
    expect(JSON.stringify(answers.get(4)!.result)).toContain('/memories/project/build.md');
    expect(answers.get(5)!.result!.prompts).toEqual([expect.objectContaining({ name: 'harvest' }), expect.objectContaining({ name: 'consolidate' })]);
    expect(answers.get(6)!.result).toEqual({});
    expect(await fs.readFile(path.join(sb.roots.workspace, 'sent-early.md'), 'utf8')).toBe('kept\n');
    expect(session.stderr()).toBe('');
  });

  it('leaves an initialize the SDK refuses, and anything else first, to the SDK', async () => {
    const odd = raw();
    odd.write(initialize(1, '2025-06-18', { roots: { listChanged: 'yes' } }));
    // The SDK's answer, not an early success.
    expect(JSON.parse(await odd.next())).toMatchObject({ id: 1, error: { code: -32602 } });
    odd.write(initialize(2));
    expect(JSON.parse(await odd.next())).toMatchObject({ id: 2, result: { serverInfo: { name: 'cairn' } } });

    const pingFirst = raw();
    pingFirst.write(request(1, 'ping') + initialize(2));
    expect(JSON.parse(await pingFirst.next())).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(JSON.parse(await pingFirst.next())).toMatchObject({ id: 2, result: { instructions: expect.stringContaining('<memory_index>') } });
  });

  it('answers once a client that sends initialize and closes its input, and exits 0', async () => {
    const session = raw();
    session.write(initialize(1));
    session.end();
    const { code, lines } = await session.exit();
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: 1, result: { instructions: expect.stringContaining('<memory_index>') } });
    expect(session.stderr()).toBe('');
  });
});
