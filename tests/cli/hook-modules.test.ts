// What the hooks `cairn setup` installs cost to load: they run before every prompt and at every
// session start, so the packages they import are part of every wait. zod alone costs them more to
// load than most of their work; they must answer without it, --agent (which every installed hook
// passes) included. Packages are traced by a module resolve hook in the real CLI process.
// `cairn mcp` answers an agent's initialize before it loads the MCP SDK and zod, a one-shot
// `cairn tool` opens only the memory's services, and `cairn setup` none of them: what they load is
// read from the build itself or traced.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';
import { runJsonl } from '../support/cli';
import { runTraced } from '../support/module-trace/traced';

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
async function traced(args: string[], input?: string, cwd?: string): Promise<{ status: number | null; stdout: string; packages: string[] }> {
  const r = await runTraced(sb.dir, args, { input, cwd });
  return { ...r, packages: r.loaded };
}

describe('the installed context hooks', () => {
  it.each([
    ['SessionStart', { hook_event_name: 'SessionStart' }],
    ['UserPromptSubmit', { hook_event_name: 'UserPromptSubmit', prompt: 'how do we build the release' }],
  ])('answer %s with --agent and load no zod, nor the child processes module', async (_event, hook) => {
    const r = await traced(['context', '--format', 'claude-hook', '--agent', 'claude', '--home', sb.home], JSON.stringify({ ...hook, cwd: sb.checkout, session_id: 's1' }));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('build.md');
    expect(r.packages).not.toContain('zod');
    // The checkout's identity is kept: git is not run, so its module (and what it loads) is not either.
    expect(r.packages).toContain('node:fs');
    expect(r.packages).not.toContain('node:child_process');
  });

  it('the trace sees zod where a command loads it (the memory tool checks its input with it)', async () => {
    const r = await traced(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'view', path: '/memories/project' })]);
    expect(r.status).toBe(0);
    expect(r.packages).toContain('zod');
  });
});

/**
 * The packages a built chunk loads before it runs: its static imports, followed through the
 * build's own chunks (a dynamic import() is loaded later, when called, and is not followed).
 */
async function staticPackages(chunk: string, seen = new Set<string>()): Promise<Set<string>> {
  const packages = new Set<string>();
  if (seen.has(chunk)) return packages;
  seen.add(chunk);
  const text = await fs.readFile(chunk, 'utf8');
  for (const m of text.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["'];?$/gm)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) for (const p of await staticPackages(path.resolve(path.dirname(chunk), spec), seen)) packages.add(p);
    else if (!spec.startsWith('node:')) packages.add(spec.split('/')[0]!);
  }
  return packages;
}

/** The built chunk the CLI's entry loads for `command` (its dynamic import of `<command>-command`). */
async function commandChunk(command: string): Promise<string> {
  const entry = await fs.readFile(BUILT_CLI, 'utf8');
  const found = entry.match(new RegExp(`import\\("(\\./chunks/${command}-command-[^"]+\\.js)"\\)`));
  if (!found) throw new Error(`the built CLI loads no ${command}-command chunk`);
  return path.resolve(path.dirname(BUILT_CLI), found[1]!);
}

describe('what a command loads before it answers', () => {
  it('cairn mcp answers initialize before loading zod, the MCP SDK or the watcher', async () => {
    const packages = await staticPackages(await commandChunk('mcp'));
    expect([...packages]).not.toContain('zod');
    expect([...packages]).not.toContain('@modelcontextprotocol');
    expect([...packages]).not.toContain('chokidar');
  });

  it('cairn tool loads no watcher, transcript reader or diff library (the trace of a real delete)', async () => {
    await runJsonl(['--home', sb.home, '--cwd', sb.checkout], [{ command: 'create', path: '/memories/project/gone.md', file_text: 'soon gone\n' }]);
    const r = await traced(['tool', '--home', sb.home, '--cwd', sb.checkout, JSON.stringify({ command: 'delete', path: '/memories/project/gone.md' })]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('gone.md');
    for (const unused of ['chokidar', 'diff']) expect(r.packages).not.toContain(unused);
  });

  it("cairn setup reads a running server's address without loading the app's services (no zod, oRPC or watcher)", async () => {
    const r = await traced(['--home', sb.home, 'setup', 'claude', '--print'], undefined, sb.checkout);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('cairn');
    for (const unused of ['zod', '@orpc', 'chokidar']) expect(r.packages).not.toContain(unused);
  });
});
