/**
 * `cairn context`: the context agents get without a tool call (for agent hooks such as Claude
 * Code's SessionStart and UserPromptSubmit), printed as text, JSON or the hook's JSON.
 *
 * Kept light, since Claude Code runs it before every prompt. For the hook's format and the
 * checkout's own session, a running host of the home answers when there is one
 * (context/context-socket.ts): the hook then loads only this module and a few small ones. Otherwise the
 * answer is worked out here (context/context-answer.ts, loaded only then: the builder over the facts
 * cache, the local runtime, the usage store). A --workspace goes through the registry (a named or
 * SSH workspace), which opens the memory's services of the home (host/memory-home.ts).
 *
 * With --format claude-hook it never fails a person's prompt: whatever goes wrong (a bad flag, bad
 * hook input, a broken disk, a bug) prints nothing on stdout, exits 0, and is logged in
 * `<home>/logs/context-hook.log` (context/hook-log.ts). Claude Code would show a failing hook's output
 * to the person, and exit status 2 would even block the prompt.
 */
import * as path from 'node:path';
import { agentRefOf, type AgentRef } from '../../common/activity/agents';
import { HARVEST_CHILD_ENV } from '../harvest/harvest-child';
import { askContextHost, type ContextRequest } from '../context/context-socket';
import { isValidWorkspaceId, resolveHome } from '../workspaces/home-dir';
import { CONTEXT_HOOK_LOG, logHookError } from '../context/hook-log';
import { readConfigFile } from '../context/injection-config';
import { headMoveSince } from '../workspaces/head-moves';
import { localWorkspaceId } from '../workspaces/session';
import { assertOwnHome, ForeignHomeError } from '../runtime/local/ownership';
import { commandArgs } from './command-args';
import { readInput, writeOutput } from './read-all';
import type { CliIo } from './tool-command';
import { CONTEXT_HELP, UsageError } from './usage';

/** Set (to anything) to have `cairn context` say on stderr who worked out its answer, and why. */
export const CONTEXT_TRACE_ENV = 'CAIRN_CONTEXT_TRACE';

/** What Claude Code sends a hook command on stdin (the fields Cairn uses). */
interface ClaudeHookInput {
  hook_event_name?: string;
  /** The agent's session (Claude Code, Codex, Gemini CLI: session_id; Copilot CLI: sessionId). */
  session_id?: unknown;
  sessionId?: unknown;
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
  agent: { type: 'string' },
  'agent-session': { type: 'string' },
} as const;


export async function contextCommand(args: string[], io: CliIo): Promise<number> {
  if (!asksForHook(args)) return context(args, io);
  try {
    return await context(args, io);
  } catch (err) {
    // Another user's home is not written to, not even its log: stderr says why, the prompt goes on.
    if (err instanceof ForeignHomeError) {
      io.stderr.write(`cairn context: ${err.message}\n`);
      return 0;
    }
    // stderr only when even the log cannot be written (a hook's stderr is not the prompt's).
    if (!logHookError(homeForLog(args), CONTEXT_HOOK_LOG, err)) io.stderr.write(`cairn context: ${err instanceof Error ? err.message : String(err)}\n`);
    return 0;
  }
}

/** The hooks' formats: Claude Code's JSON, and Copilot CLI's (its own input, a top-level additionalContext). */
const HOOK_FORMATS: readonly string[] = ['claude-hook', 'copilot-hook'];

/**
 * A prompt without the hooks' context Gemini CLI wrapped before it: in `gemini -p` the SessionStart
 * hook's output (the index, the hot set) is put before the prompt in `<hook_context>` (its own `<`
 * and `>` escaped, so the block ends where it says), and BeforeAgent's input carries it too. The
 * prompt's relevant memories are for the person's words, not for Cairn's index.
 */
function withoutHookContext(prompt: string): string {
  let rest = prompt;
  while (rest.trimStart().startsWith('<hook_context>')) {
    const end = rest.indexOf('</hook_context>');
    if (end < 0) return prompt;
    rest = rest.slice(end + '</hook_context>'.length);
  }
  return rest === prompt ? prompt : rest.trim();
}

/** Whether the arguments ask for the hook's format (looked at before they are parsed, which may fail). */
function asksForHook(args: readonly string[]): boolean {
  return args.some((a, i) => HOOK_FORMATS.some((f) => a === `--format=${f}` || (a === '--format' && args[i + 1] === f)));
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
  const parsed = commandArgs(args, io, CONTEXT_HELP, OPTIONS, false);
  if (!parsed) return 0;
  const { values } = parsed;
  const format = values.format ?? 'text';
  if (!['text', 'json', ...HOOK_FORMATS].includes(format)) throw new UsageError('--format must be one of text, json, claude-hook, copilot-hook');
  const asHook = HOOK_FORMATS.includes(format);
  if (values.prompt !== undefined && values['prompt-stdin']) throw new UsageError('give --prompt or --prompt-stdin, not both');
  if (values.workspace !== undefined && !isValidWorkspaceId(values.workspace)) {
    throw new UsageError('--workspace must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }

  // Inside Cairn's own extraction run (the harvest's command backend), the hook adds nothing: the
  // model there reads a transcript as data, not memory.
  if (asHook && process.env[HARVEST_CHILD_ENV]) return 0;
  let prompt = values.prompt;
  let hook: ClaudeHookInput = {};
  const input = values['prompt-stdin'] || asHook ? await readInput(io, values['prompt-stdin'] === true) : null;
  if (input !== null) {
    if (asHook) {
      try {
        hook = JSON.parse(input) as ClaudeHookInput;
      } catch {
        if (input.trim() !== '') throw new UsageError(`with --format ${format}, stdin must be the hook input JSON the agent sends`);
      }
      if (prompt === undefined && typeof hook.prompt === 'string') prompt = withoutHookContext(hook.prompt);
    } else prompt = input;
  }
  const fallbackCwd = typeof hook.cwd === 'string' ? hook.cwd : process.cwd();
  const agent = values.agent === undefined ? undefined : agentRefOf(values.agent, values['agent-session'] ?? hook.session_id ?? hook.sessionId);
  if (values.agent !== undefined && !agent) throw new UsageError('--agent must name the agent (claude, codex, gemini, copilot, or its own name)');
  const request: ContextRequest = {
    format: format as ContextRequest['format'],
    // Gemini CLI's prompt hook is BeforeAgent (its input carries the prompt, as UserPromptSubmit's).
    // Copilot CLI names no event: its userPromptSubmitted input alone has a prompt (its sessionStart's initialPrompt is left for that prompt's own hook).
    event: hook.hook_event_name === 'UserPromptSubmit' || hook.hook_event_name === 'BeforeAgent' || (format === 'copilot-hook' && typeof hook.prompt === 'string') ? 'UserPromptSubmit' : 'SessionStart',
    ...(prompt !== undefined ? { prompt } : {}),
    cwd: path.resolve(values.cwd ?? fallbackCwd),
  };

  if (values.workspace !== undefined) {
    // A registered workspace (local or SSH) is the registry's to resolve.
    const [{ sessionFromFlags, withMemoryHome }, { registeredContextAnswer }] = await Promise.all([import('./session-flags'), import('../context/context-answer')]);
    return withMemoryHome(values, async (services) => {
      const session = await sessionFromFlags(services, values, fallbackCwd);
      // The registry is loaded here: the settings as it gives them.
      writeOutput(io, await registeredContextAnswer(services.home, services.usage, services.registry.settings(), session, request));
      if (agent) await noteSeen(services.home, session.workspaceId, agent);
      return 0;
    });
  }
  // The checkout's own session, as sessionFromFlags gives it without --workspace.
  const home = resolveHome(values.home);
  assertOwnHome(home);
  const trace = process.env[CONTEXT_TRACE_ENV] ? (line: string) => io.stderr.write(`cairn context: ${line}\n`) : null;
  if (asHook) {
    const asked = await askContextHost(home, request);
    if ('text' in asked) {
      trace?.('answered by a running Cairn (its host of the prompt hook)');
      writeOutput(io, asked.text);
      if (agent) await noteSeen(home, null, agent, request.cwd);
      return 0;
    }
    trace?.(`worked out here: ${asked.missed}`);
  }
  // Read once: for the catch-up's review scopes and the answer's injection settings.
  const config = readConfigFile(home);
  await catchUpUnwatchedPull(home, request.cwd, config);
  const { contextAnswerHere } = await import('../context/context-answer');
  writeOutput(io, await contextAnswerHere(home, request, config));
  if (agent) await noteSeen(home, null, agent, request.cwd);
  return 0;
}

/**
 * Project memory a pull brought while no Cairn process watched, in a home that holds some scope
 * under review: caught up (held in the Inbox) before the answer is worked out, so that it cannot
 * reach the agent first. Costs a read of the settings and, with a scope under review, a stat of
 * git's log of HEAD; the catch-up itself only after HEAD moved. Flagged text needs no catch-up
 * here: the scanners keep it out of every answer.
 */
async function catchUpUnwatchedPull(home: string, cwd: string, config: Record<string, unknown>): Promise<void> {
  const { reviewScopes } = (config.settings ?? {}) as { reviewScopes?: unknown };
  if (!Array.isArray(reviewScopes) || reviewScopes.length === 0) return;
  const move = await headMoveSince(home, cwd);
  if (!move) return;
  try {
    const [{ sessionFromFlags, withMemoryHome }, { catchUpPulls }] = await Promise.all([import('./session-flags'), import('./pull-catch-up')]);
    await withMemoryHome({ home }, async (services) => catchUpPulls(services, await sessionFromFlags(services, { cwd }), move.since));
    await move.seen();
  } catch (err) {
    process.stderr.write(`cairn context: what the last pull brought could not be checked (${err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.name) : 'error'}); it is checked again on the next call.\n`);
  }
}

/**
 * Records that the hook's agent was seen in its workspace (the checkout's own, from `cwd`, when
 * not given), after the answer is out: its store loaded only then, and never failing the prompt.
 */
async function noteSeen(home: string, workspaceId: string | null, agent: AgentRef, cwd?: string): Promise<void> {
  try {
    const { AgentsSeen } = await import('../activity/agents-seen');
    new AgentsSeen(home).seen(workspaceId ?? (cwd === undefined ? null : await localWorkspaceId(cwd)), agent);
  } catch {
    // A hint for the person only.
  }
}
