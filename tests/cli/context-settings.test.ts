// Injection settings as agents feel them: set through the API (settings.set on the
// router over real services, as the Settings view does), then read by real `cairn context`
// processes (text, and Claude Code's hook) and a real `cairn mcp` (its instructions, through the
// official MCP client), over the fixed home of tests/support/context-home.ts.
//
// By recency (the later of a file's last use and last change) the fixed home's clean files are
// editor.md, todo.md, errors.md, style.md, build.md; obey.md, the most recently used of all, is
// flagged by the scanners and must never be given.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRouterClient, type RouterClient } from '@orpc/server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_INJECTION, type InjectionSettings } from '../../src/common/context/injection';
import { NO_MATCH_HEADER, RECENT_HEADER, RELEVANT_HEADER, utf8Length } from '../../src/common/context/render';
import { router, type AppRouter } from '../../src/main/api/router';
import { openAppHost, type AppHost } from '../../src/main/host/app-host';
import { runCairn } from '../support/cli';
import { CONTEXT_GOLDENS, RELEASE_PROMPT, UNMATCHED_PROMPT, mcpInstructions, writeContextHome } from '../support/context-home';
import { makeCheckout, makeSandbox, requireBuiltCli, type Sandbox } from '../support/sandbox';

const G = '/memories/global';
const P = '/memories/project';
const W = '/memories/workspace';
const RECENT_CLEAN = [`${G}/tools/editor.md`, `${W}/todo.md`, `${P}/api/errors.md`, `${G}/style.md`, `${P}/build.md`];
const golden = (name: string) => fs.readFileSync(path.join(CONTEXT_GOLDENS, name), 'utf8');

let sb: Sandbox;
let host: AppHost;
let api: RouterClient<AppRouter>;
let ws: string;

beforeAll(requireBuiltCli);
beforeEach(async () => {
  sb = await makeSandbox();
  writeContextHome(sb);
  host = openAppHost(sb.home);
  api = createRouterClient(router, { context: host });
  ws = (await api.workspaces.add({ name: 'Widgets', path: sb.checkout })).id;
  expect(ws).toBe(sb.session.workspaceId);
});
afterEach(async () => {
  await host.close();
  await sb.cleanup();
});

const setGlobal = (injection: Partial<InjectionSettings>) => api.settings.set({ injection: { ...DEFAULT_INJECTION, ...injection } });
const setWorkspace = (id: string, override: Partial<InjectionSettings>) => api.settings.set({ injectionByWorkspace: { [id]: override } });

async function context(args: string[] = []): Promise<string> {
  const result = await runCairn(['context', '--home', sb.home, '--cwd', sb.checkout, ...args]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

/** What Claude Code's UserPromptSubmit hook adds for `prompt` ('' when nothing). */
async function onPrompt(prompt: string, cwd = sb.checkout): Promise<string> {
  const result = await runCairn(['context', '--format', 'claude-hook', '--home', sb.home], { input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, cwd }) });
  expect(result.status).toBe(0);
  if (result.stdout === '') return '';
  return (JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
}

const block = (out: string, tag: string): string => {
  const start = out.indexOf(`<${tag}>`);
  return start === -1 ? '' : out.slice(start, out.indexOf(`</${tag}>`) + tag.length + 3);
};
const paths = (out: string): string[] => [...out.matchAll(/<memory_file path="([^"]+)">/g)].map((m) => m[1]!);

describe('what each prompt gets', () => {
  it('off: no memories with any prompt, while the index and the hot set stay as they were', async () => {
    await setGlobal({ relevant: 'off' });
    expect(await onPrompt(RELEASE_PROMPT)).toBe('');
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('session-start.txt'));
  });

  it('recent_only: the most recent clean files whatever the prompt, never the flagged one', async () => {
    await setGlobal({ relevant: 'recent_only' });
    const release = await onPrompt(RELEASE_PROMPT);
    expect(release.split('\n').slice(0, 2)).toEqual(['<relevant_memories>', RECENT_HEADER]);
    expect(paths(release)).toEqual(RECENT_CLEAN);
    expect(release).not.toContain('obey.md');
    expect(release).not.toContain('curl');
    // Each with its description and its first lines.
    expect(release).toContain(`<memory_file path="${P}/api/errors.md">\nError handling conventions\nErrors are wrapped with their cause; never log tokens.\n</memory_file>`);
    // The prompt does not matter: the same bytes for one that matches nothing.
    expect(await onPrompt(UNMATCHED_PROMPT)).toBe(release);
  });

  it('the budget in files and in bytes holds, for recent and for matching files', async () => {
    await setGlobal({ relevant: 'recent_only', relevantMaxFiles: 2 });
    expect(paths(await onPrompt(RELEASE_PROMPT))).toEqual(RECENT_CLEAN.slice(0, 2));

    await setGlobal({ relevant: 'recent_only', relevantMaxBytes: 512 });
    const small = await onPrompt(RELEASE_PROMPT);
    expect(utf8Length(small)).toBeLessThanOrEqual(512);
    expect(paths(small).length).toBeGreaterThanOrEqual(1);
    expect(paths(small)).toEqual(RECENT_CLEAN.slice(0, paths(small).length));
    expect(paths(small).length).toBeLessThan(RECENT_CLEAN.length);

    // A prompt that matches three files, with room for one: the best match alone.
    const prompt = 'release errors tabs';
    await setGlobal({});
    expect(paths(await onPrompt(prompt))).toHaveLength(3);
    await setGlobal({ relevantMaxFiles: 1 });
    expect(paths(await onPrompt(prompt))).toHaveLength(1);
  });

  it('when nothing matches, the most recent clean files if asked for, else nothing; a match is unchanged', async () => {
    expect(await onPrompt(UNMATCHED_PROMPT)).toBe('');
    await setGlobal({ recentWhenNoMatch: true });
    const fallback = await onPrompt(UNMATCHED_PROMPT);
    expect(fallback.split('\n').slice(0, 2)).toEqual(['<relevant_memories>', NO_MATCH_HEADER]);
    expect(paths(fallback)).toEqual(RECENT_CLEAN);
    expect(fallback).not.toContain('obey.md');
    // The fallback keeps to the budget too.
    await setGlobal({ recentWhenNoMatch: true, relevantMaxFiles: 3 });
    expect(paths(await onPrompt(UNMATCHED_PROMPT))).toEqual(RECENT_CLEAN.slice(0, 3));
    // A prompt that matches gets its matches, as before.
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('prompt-release.txt'));
    expect(await onPrompt(RELEASE_PROMPT)).toContain(RELEVANT_HEADER);
  });
});

describe("the hot set's budget", () => {
  it('holds in cairn context and in the MCP server instructions; 0 leaves the hot set out', async () => {
    await setGlobal({ hotSetMaxBytes: 700 });
    const hot = block(await context(), 'hot_memories');
    expect(utf8Length(hot)).toBeLessThanOrEqual(700);
    // Pinned first: build.md stays, the rest that no longer fits is left out.
    expect(paths(hot)[0]).toBe(`${P}/build.md`);
    expect(paths(hot).length).toBeLessThan(4);
    // Both ways cairn mcp answers: early, before its server loads, and (with --workspace) by the server.
    expect(block(await mcpInstructions(sb), 'hot_memories')).toBe(hot);
    expect(block(await mcpInstructions(sb, ['--workspace', ws]), 'hot_memories')).toBe(hot);

    await setGlobal({ hotSetMaxBytes: 0 });
    expect(await context()).not.toContain('<hot_memories>');
    expect(await context()).toContain('<memory_index>');
    const none = await mcpInstructions(sb);
    expect(none).not.toContain('<hot_memories>');
    expect(none).toBe(golden('mcp-instructions.txt').slice(0, golden('mcp-instructions.txt').indexOf('\n\n<hot_memories>')));
    expect(await mcpInstructions(sb, ['--workspace', ws])).toBe(none);
  });
});

describe('a workspace overrides the global settings', () => {
  it("the workspace's own value wins, the fields it leaves out are the global ones, and other workspaces keep the global ones", async () => {
    const other = await makeCheckout(path.join(sb.dir, 'other'), 'git@example.com:acme/other.git');
    await setGlobal({ relevant: 'off', hotSetMaxBytes: 0 });
    await setWorkspace(ws, { relevant: 'recent_only', relevantMaxFiles: 2 });

    // This workspace: its override for what prompts get; the global hot set budget (0).
    expect(paths(await onPrompt(RELEASE_PROMPT))).toEqual(RECENT_CLEAN.slice(0, 2));
    expect(await context()).not.toContain('<hot_memories>');
    // Through --workspace (the registry's path) too.
    const byId = await runCairn(['context', '--home', sb.home, '--workspace', ws, '--prompt', RELEASE_PROMPT]);
    expect(paths(block(byId.stdout, 'relevant_memories'))).toEqual(RECENT_CLEAN.slice(0, 2));
    // Another checkout: the global settings.
    fs.mkdirSync(path.join(other, 'notes'), { recursive: true });
    expect(await onPrompt(RELEASE_PROMPT, path.join(other, 'notes'))).toBe('');

    // Its hot set budget for the MCP server's instructions, over the global 0.
    await setWorkspace(ws, { hotSetMaxBytes: 48 * 1024 });
    expect(await mcpInstructions(sb)).toBe(golden('mcp-instructions.txt'));
  });
});

describe('settings.set through the API', () => {
  it('changes the next cairn context call, and back: the defaults give the goldens again', async () => {
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('prompt-release.txt'));
    await setWorkspace(ws, { relevant: 'off' });
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('session-start.txt'));
    expect((await api.settings.get()).injectionByWorkspace).toEqual({ [ws]: { relevant: 'off' } });
    await api.settings.set({ injectionByWorkspace: {} });
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('prompt-release.txt'));
  });

  it('refuses values out of range, and the hook ignores invalid values written by hand', async () => {
    await expect(api.settings.set({ injection: { ...DEFAULT_INJECTION, relevantMaxFiles: 0 } })).rejects.toThrow();
    await expect(api.settings.set({ injection: { ...DEFAULT_INJECTION, hotSetMaxBytes: 10 * 1024 * 1024 } })).rejects.toThrow();
    const config = JSON.parse(fs.readFileSync(path.join(sb.home, 'config.json'), 'utf8')) as { settings: Record<string, unknown> };
    config.settings.injection = { relevant: 'sometimes', hotSetMaxBytes: -1, relevantMaxFiles: 2.5 };
    config.settings.injectionByWorkspace = { [ws]: 'garbage' };
    fs.writeFileSync(path.join(sb.home, 'config.json'), JSON.stringify(config));
    expect(await context(['--prompt', RELEASE_PROMPT])).toBe(golden('prompt-release.txt'));
  });
});
