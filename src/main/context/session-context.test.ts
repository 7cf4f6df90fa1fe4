// `cairn mcp --session-context off` (what `cairn setup claude` writes, whose hooks deliver the
// index and hot set) answers initialize with instructions that leave both out; `cairn mcp` as set
// up by hand, without hooks, still carries them. Through the built CLI, as an agent starts it.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJsonl } from '../../../tests/support/cli';
import { CAIRN_BIN, makeSandbox, requireBuiltCli, type Sandbox } from '../../../tests/support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  await requireBuiltCli();
  sb = await makeSandbox();
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'create', path: '/memories/project/deploy.md', file_text: '---\ndescription: How to deploy\n---\nmake deploy\n' }]);
});
afterAll(() => sb.cleanup());

/** The instructions `cairn mcp ARGS` answers an initialize with. */
async function instructions(args: string[]): Promise<string> {
  const child = spawn(CAIRN_BIN, ['mcp', '--home', sb.home, '--cwd', sb.checkout, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };
  child.stdin.write(`${JSON.stringify(init)}\n`);
  let out = '';
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.on('error', reject);
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  child.stdin.end();
  await exited;
  return (JSON.parse(line) as { result: { instructions: string } }).result.instructions;
}

describe('cairn mcp --session-context', () => {
  it('on (the default): the instructions carry the index and the hot set', async () => {
    const text = await instructions([]);
    expect(text).toContain('<memory_index>');
    expect(text).toContain('/memories/project/deploy.md: How to deploy');
    expect(text).toContain('<hot_memories>');
  });

  it('off: the instructions say how to use the tools, without the index or the hot set', async () => {
    const text = await instructions(['--session-context', 'off']);
    expect(text).toMatch(/^Cairn keeps your persistent memory\./);
    expect(text).not.toContain('<memory_index>');
    expect(text).not.toContain('<hot_memories>');
  });

  it('refuses a value other than on or off (usage error, exit 2)', async () => {
    const child = spawn(CAIRN_BIN, ['mcp', '--home', sb.home, '--session-context', 'maybe'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toContain('--session-context must be one of on, off');
  });
});
