/**
 * `cairn context`: the context agents get without a tool call (for agent hooks such as Claude
 * Code's SessionStart and UserPromptSubmit), printed as text, JSON or the hook's JSON.
 *
 * Kept light, since Claude Code runs it before every prompt: for the checkout's own session it
 * loads the context builder, the local runtime and the usage store, not the home's other services
 * (history, journal, inbox, change feed: src/main/host/home-services.ts), and its files' facts come
 * from the home's facts cache (memory/context-facts-cache.ts), so a call reads only the memory
 * files that changed. A --workspace goes through the registry (a named or SSH workspace), which
 * opens the home's services. How much it gives (the hot set's budget, what a prompt gets) follows
 * the injection settings of the session's workspace, read without the registry
 * (workspaces/injection-config.ts), or from it with --workspace, which has loaded it.
 *
 * With --format claude-hook it never fails a person's prompt: whatever goes wrong (a bad flag, bad
 * hook input, a broken disk, a bug) prints nothing on stdout, exits 0, and is logged in
 * `<home>/logs/context-hook.log` (./hook-log.ts). Claude Code would show a failing hook's output
 * to the person, and exit status 2 would even block the prompt.
 */
import { parseArgs } from 'node:util';
import { injectionFor, type InjectionSettings } from '../../common/context/injection';
import { HARVEST_CHILD_ENV } from '../harvest/harvest-child';
import { ContextBuilder, type ContextFile } from '../memory/context-builder';
import { ContextFactsCache } from '../memory/context-facts-cache';
import type { MemorySession } from '../memory/session';
import { UsageStore } from '../memory/usage-store';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { isValidWorkspaceId, resolveHome } from '../workspaces/identity';
import { readInjection } from '../workspaces/injection-config';
import { resolveLocalSession } from '../workspaces/session';
import { logHookError } from './hook-log';
import { readInput, writeOutput } from './read-all';
import type { CliIo } from './tool-command';
import { CONTEXT_HELP, UsageError } from './usage';

/** The hook's log under <home>/logs/. */
export const CONTEXT_HOOK_LOG = 'context-hook';

/** What Claude Code sends a hook command on stdin (the fields Cairn uses). */
interface ClaudeHookInput {
  hook_event_name?: string;
  prompt?: string;
  cwd?: string;
}

const OPTIONS = {
  cwd: { type: 'string' },
  workspace: { type: 'string' },
  home: { type: 'string' },
  prompt: { type: 'string' },
  'prompt-stdin': { type: 'boolean' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;


export async function contextCommand(args: string[], io: CliIo): Promise<number> {
  if (!asksForHook(args)) return context(args, io);
  try {
    return await context(args, io);
  } catch (err) {
    // stderr only when even the log cannot be written (a hook's stderr is not the prompt's).
    if (!logHookError(homeForLog(args), CONTEXT_HOOK_LOG, err)) io.stderr.write(`cairn context: ${err instanceof Error ? err.message : String(err)}\n`);
    return 0;
  }
}

/** Whether the arguments ask for the hook's format (looked at before they are parsed, which may fail). */
function asksForHook(args: readonly string[]): boolean {
  return args.some((a, i) => a === '--format=claude-hook' || (a === '--format' && args[i + 1] === 'claude-hook'));
}

/** The home a failure is logged in: --home if it can be found, else the default. */
function homeForLog(args: readonly string[]): string {
  const at = args.indexOf('--home');
  const given = at !== -1 ? args[at + 1] : args.find((a) => a.startsWith('--home='))?.slice('--home='.length);
  try {
    return resolveHome(given);
  } catch {
    return resolveHome();
  }
}

async function context(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: OPTIONS });
  if (values.help) {
    io.stdout.write(CONTEXT_HELP);
    return 0;
  }
  const format = values.format ?? 'text';
  if (!['text', 'json', 'claude-hook'].includes(format)) throw new UsageError('--format must be one of text, json, claude-hook');
  if (values.prompt !== undefined && values['prompt-stdin']) throw new UsageError('give --prompt or --prompt-stdin, not both');
  if (values.workspace !== undefined && !isValidWorkspaceId(values.workspace)) {
    throw new UsageError('--workspace must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }

  // Inside Cairn's own extraction run (the harvest's command backend), the hook adds nothing: the
  // model there reads a transcript as data, not memory.
  if (format === 'claude-hook' && process.env[HARVEST_CHILD_ENV]) return 0;
  let prompt = values.prompt;
  let hook: ClaudeHookInput = {};
  const input = values['prompt-stdin'] || format === 'claude-hook' ? await readInput(io, values['prompt-stdin'] === true) : null;
  if (input !== null) {
    if (format === 'claude-hook') {
      try {
        hook = JSON.parse(input) as ClaudeHookInput;
      } catch {
        if (input.trim() !== '') throw new UsageError('with --format claude-hook, stdin must be the hook input JSON Claude Code sends');
      }
      if (prompt === undefined && typeof hook.prompt === 'string') prompt = hook.prompt;
    } else prompt = input;
  }
  const fallbackCwd = typeof hook.cwd === 'string' ? hook.cwd : process.cwd();
  const print = (builder: ContextBuilder, session: MemorySession, injection: InjectionSettings) => printContext(builder, session, injection, prompt, format, hook, io);

  if (values.workspace !== undefined) {
    // A registered workspace (local or SSH) is the registry's to resolve.
    const { sessionFromFlags, withHome } = await import('./session-flags');
    return withHome(values, async (services) => {
      const session = await sessionFromFlags(services, values, fallbackCwd);
      // The registry is loaded here: the settings as it gives them.
      return print(builderFor(services.home, services.usage), session, injectionFor(services.registry.settings(), session.workspaceId));
    });
  }
  // The checkout's own session, as sessionFromFlags gives it without --workspace. This process
  // opens no other services of the home, so this runtime is its one LocalRuntime.
  const home = resolveHome(values.home);
  const usage = new UsageStore(home);
  try {
    const session = await resolveLocalSession({ home, cwd: values.cwd ?? fallbackCwd }, new LocalRuntime());
    return await print(builderFor(home, usage), session, readInjection(home, session.workspaceId));
  } finally {
    await usage.flush();
  }
}

/** A builder over the home's facts cache; a cache it cannot write is noted in the hook's log. */
function builderFor(home: string, usage: UsageStore): ContextBuilder {
  return new ContextBuilder(usage, { factsCache: new ContextFactsCache(home), onCacheError: (err) => logHookError(home, CONTEXT_HOOK_LOG, err) });
}

/** What `cairn context` prints for `session` (see CONTEXT_HELP), by the workspace's injection settings. */
async function printContext(
  builder: ContextBuilder,
  session: MemorySession,
  injection: InjectionSettings,
  prompt: string | undefined,
  format: string,
  hook: ClaudeHookInput,
  io: CliIo,
): Promise<number> {
  const snapshot = await builder.snapshot(session);
  const relevant = prompt !== undefined ? builder.relevant(snapshot, prompt, Date.now(), injection) : '';

  if (format === 'claude-hook') {
    // On each prompt only the relevant memories; at session start (and after a compaction) the
    // index and the hot set, computed once so they stay the same for the whole session.
    const event = hook.hook_event_name === 'UserPromptSubmit' ? 'UserPromptSubmit' : 'SessionStart';
    const context = event === 'UserPromptSubmit' ? relevant : [builder.index(snapshot), await builder.hotSet(snapshot, session, injection.hotSetMaxBytes), relevant].filter(Boolean).join('\n\n');
    if (context === '') return 0;
    writeOutput(io, `${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`);
    return 0;
  }
  const index = builder.index(snapshot);
  const hotSet = await builder.hotSet(snapshot, session, injection.hotSetMaxBytes);
  if (format === 'json') {
    const files = snapshot.files.map((f: ContextFile) => ({ path: f.path, description: f.description, pinned: f.stats.pinned, accessCount: f.stats.accessCount }));
    writeOutput(io, `${JSON.stringify({ workspaceId: session.workspaceId, projectId: session.projectId, index, hotSet, relevant: relevant || null, files }, null, 2)}\n`);
    return 0;
  }
  writeOutput(io, `${[index, hotSet, relevant].filter(Boolean).join('\n\n')}\n`);
  return 0;
}
