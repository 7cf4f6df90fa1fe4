/**
 * What `cairn context` prints (see CONTEXT_HELP), worked out in whichever process answers: the
 * command's own (cli/context-command.ts) or a running host's, for the prompt hook
 * (./context-host.ts). Both call the same function, so the bytes are the same.
 *
 * For the checkout's own session (no --workspace) it loads the context builder, the local runtime
 * and the usage store, not the home's other services, and its files' facts come from the home's
 * facts cache (context/context-facts-cache.ts), so a call reads only the memory files that
 * changed. How much it gives (the hot set's budget, what a prompt gets) follows the injection
 * settings of the session's workspace, read without the registry (context/injection-config.ts).
 */
import { injectionFor, type InjectionSettings } from '../../common/context/injection';
import type { ContextRequest } from './context-socket';
import { heldPaths } from '../memory/held-outside-edits';
import { ContextBuilder, type ContextFile } from './context-builder';
import { ContextFactsCache } from './context-facts-cache';
import type { MemorySession } from '../memory/session';
import { UsageStore } from '../memory/usage-store';
import { LocalRuntime } from '../runtime/local/local-runtime';
import { readConfigFile } from './injection-config';
import { resolveLocalSession } from '../workspaces/session';
import { CONTEXT_HOOK_LOG, logHookError } from './hook-log';

/** A builder over the home's facts cache; a cache it cannot write is noted in the hook's log. */
export function contextBuilderFor(home: string, usage: UsageStore): ContextBuilder {
  return new ContextBuilder(usage, { factsCache: new ContextFactsCache(home), onCacheError: (err) => logHookError(home, CONTEXT_HOOK_LOG, err), held: (session) => heldPaths(home, session) });
}

/**
 * The answer for the checkout's own session at `request.cwd`, as sessionFromFlags gives it without
 * --workspace (`runtime`: the process's LocalRuntime; `builder`: contextBuilderFor's), within the
 * injection settings of `config` (the home's config.json as readConfigFile gives it; read here
 * when the caller has not read it already).
 */
export async function localContextAnswer(home: string, request: ContextRequest, builder: ContextBuilder, runtime: LocalRuntime, config = readConfigFile(home)): Promise<string> {
  const session = await resolveLocalSession({ home, cwd: request.cwd }, runtime);
  return contextAnswer(builder, session, injectionFor(config.settings, session.workspaceId), request);
}

/**
 * The answer for the checkout's own session worked out by this process alone: the hook's, when no
 * host answers. It opens no other services of the home, so its runtime is the process's one
 * LocalRuntime.
 */
export async function contextAnswerHere(home: string, request: ContextRequest, config?: Record<string, unknown>): Promise<string> {
  const usage = new UsageStore(home);
  try {
    return await localContextAnswer(home, request, contextBuilderFor(home, usage), new LocalRuntime(), config);
  } finally {
    await usage.flush();
  }
}

/**
 * The answer for a registered workspace's session (`--workspace`), within the injection settings
 * as the registry gives them (`settings`: WorkspaceRegistry.settings()).
 */
export function registeredContextAnswer(home: string, usage: UsageStore, settings: unknown, session: MemorySession, request: ContextRequest): Promise<string> {
  return contextAnswer(contextBuilderFor(home, usage), session, injectionFor(settings, session.workspaceId), request);
}

/** What `cairn context` prints for `session` (empty: nothing), by the workspace's injection settings. */
export async function contextAnswer(builder: ContextBuilder, session: MemorySession, injection: InjectionSettings, request: ContextRequest): Promise<string> {
  const { format, prompt } = request;
  const snapshot = await builder.snapshot(session);
  const relevant = prompt !== undefined ? builder.relevant(snapshot, prompt, Date.now(), injection) : '';

  if (format === 'claude-hook' || format === 'copilot-hook') {
    // On each prompt only the relevant memories; at session start (and after a compaction) the
    // index and the hot set, computed once so they stay the same for the whole session.
    const event = request.event;
    const context = event === 'UserPromptSubmit' ? relevant : [builder.index(snapshot), await builder.hotSet(snapshot, session, injection.hotSetMaxBytes), relevant].filter(Boolean).join('\n\n');
    if (context === '') return '';
    // Copilot CLI takes additionalContext at the top level only (it ignores hookSpecificOutput).
    const output = format === 'copilot-hook' ? { additionalContext: context } : { hookSpecificOutput: { hookEventName: event, additionalContext: context } };
    return `${JSON.stringify(output)}\n`;
  }
  const index = builder.index(snapshot);
  const hotSet = await builder.hotSet(snapshot, session, injection.hotSetMaxBytes);
  if (format === 'json') {
    const files = snapshot.files.map((f: ContextFile) => ({ path: f.path, description: f.description, pinned: f.stats.pinned, accessCount: f.stats.accessCount }));
    return `${JSON.stringify({ workspaceId: session.workspaceId, projectId: session.projectId, index, hotSet, relevant: relevant || null, files }, null, 2)}\n`;
  }
  return `${[index, hotSet, relevant].filter(Boolean).join('\n\n')}\n`;
}
