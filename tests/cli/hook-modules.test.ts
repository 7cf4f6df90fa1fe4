// What the hooks `cairn setup` installs cost to load: they run before every prompt and at every
// session start, so the packages they import are part of every wait. zod alone costs them more to
// load than most of their work; they must answer without it, --agent (which every installed hook
// passes) included. Packages are traced by a module resolve hook in the real CLI process.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runCairn, runJsonl } from '../support/cli';

const REGISTER = path.join(REPO_ROOT, 'tests', 'support', 'module-trace', 'register.mjs');

let sb: Sandbox;
beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'create', path: '/memories/project/build.md', file_text: '---\ndescription: How to build and release\n---\nRun `make release` to build the release.\n' }]);
});
afterEach(async () => {
  await sb.cleanup();
});

/** Runs the built CLI with the trace on; returns its result and the packages it imported. */
async function traced(args: string[], input?: string): Promise<{ status: number | null; stdout: string; packages: string[] }> {
  const trace = path.join(sb.dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  await fs.writeFile(trace, '');
  const r = await runCairn(args, { input, env: { NODE_OPTIONS: `--import ${REGISTER}`, CAIRN_MODULE_TRACE: trace } });
  return { ...r, packages: [...new Set((await fs.readFile(trace, 'utf8')).split('\n').filter(Boolean))] };
}

describe('the installed context hooks', () => {
  it.each([
    ['SessionStart', { hook_event_name: 'SessionStart' }],
    ['UserPromptSubmit', { hook_event_name: 'UserPromptSubmit', prompt: 'how do we build the release' }],
  ])('answer %s with --agent and load no zod', async (_event, hook) => {
    const r = await traced(['context', '--format', 'claude-hook', '--agent', 'claude', '--home', sb.home], JSON.stringify({ ...hook, cwd: sb.checkout, session_id: 's1' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('build.md');
    expect(r.packages).not.toContain('zod');
  });

  it('the trace sees zod where a command loads it (the memory tool checks its input with it)', async () => {
    const r = await traced(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'view', path: '/memories/project' })]);
    expect(r.status).toBe(0);
    expect(r.packages).toContain('zod');
  });
});
