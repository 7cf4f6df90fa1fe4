// Injection settings keep today's bytes with their defaults: over the fixed home of
// tests/support/context-home.ts, real `cairn context` processes (text and Claude Code's hook, at
// session start and with a prompt that matches and one that matches nothing) and a real `cairn mcp`
// (its instructions, through the official MCP client) print exactly the goldens in
// tests/fixtures/context-settings, which the build printed before injection settings existed.
//
// The goldens are written only on purpose: CAIRN_WRITE_GOLDENS=1 npx vitest run this file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn } from '../support/cli';
import { CONTEXT_GOLDENS, RELEASE_PROMPT, UNMATCHED_PROMPT, mcpInstructions, writeContextHome } from '../support/context-home';
import { makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

const WRITE = process.env.CAIRN_WRITE_GOLDENS === '1';

/** A fresh fixed home for each output, so no call can change what the next one sees. */
async function fixedHome(): Promise<Sandbox> {
  const sb = await makeSandbox();
  writeContextHome(sb);
  sandboxes.push(sb);
  return sb;
}
const sandboxes: Sandbox[] = [];

const hookInput = (sb: Sandbox, event: 'SessionStart' | 'UserPromptSubmit', prompt?: string) =>
  JSON.stringify({ hook_event_name: event, session_id: 'golden', cwd: sb.checkout, ...(prompt === undefined ? { source: 'startup' } : { prompt }) });

/** Every output the goldens hold, by golden file name, each from its own real process. */
const OUTPUTS: Record<string, (sb: Sandbox) => Promise<string>> = {
  'session-start.txt': async (sb) => ok(await runCairn(['context', '--home', sb.home, '--cwd', sb.checkout])),
  'session-start.hook.json': async (sb) => ok(await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: hookInput(sb, 'SessionStart') })),
  'prompt-release.txt': async (sb) => ok(await runCairn(['context', '--home', sb.home, '--cwd', sb.checkout, '--prompt', RELEASE_PROMPT])),
  'prompt-release.hook.json': async (sb) => ok(await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: hookInput(sb, 'UserPromptSubmit', RELEASE_PROMPT) })),
  'prompt-unmatched.txt': async (sb) => ok(await runCairn(['context', '--home', sb.home, '--cwd', sb.checkout, '--prompt', UNMATCHED_PROMPT])),
  'prompt-unmatched.hook.json': async (sb) => ok(await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: hookInput(sb, 'UserPromptSubmit', UNMATCHED_PROMPT) })),
  'mcp-instructions.txt': async (sb) => mcpInstructions(sb),
};

function ok(result: { status: number | null; stdout: string; stderr: string }): string {
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

beforeAll(requireBuiltCli);
afterAll(async () => {
  await Promise.all(sandboxes.map((sb) => sb.cleanup()));
});

describe('injection settings at their defaults give the bytes agents got before they existed', () => {
  it.each(Object.keys(OUTPUTS))('%s', async (name) => {
    const sb = await fixedHome();
    const out = await OUTPUTS[name]!(sb);
    const golden = path.join(CONTEXT_GOLDENS, name);
    if (WRITE) {
      fs.mkdirSync(CONTEXT_GOLDENS, { recursive: true });
      fs.writeFileSync(golden, out);
    }
    expect(out).toBe(fs.readFileSync(golden, 'utf8'));
  });

  it('the goldens show what the fixed home is for: the flagged file never, the pinned one first', () => {
    const start = fs.readFileSync(path.join(CONTEXT_GOLDENS, 'session-start.txt'), 'utf8');
    expect(start).toContain('<memory_file path="/memories/project/build.md">');
    expect(start).not.toContain('curl evil.sh');
    expect(fs.readFileSync(path.join(CONTEXT_GOLDENS, 'prompt-release.hook.json'), 'utf8')).toContain('/memories/project/build.md');
    expect(fs.readFileSync(path.join(CONTEXT_GOLDENS, 'prompt-unmatched.hook.json'), 'utf8')).toBe('');
  });
});
