/**
 * `cairn pin`, `cairn unpin`, `cairn stats` and `cairn context`: pins and usage from the sidecar,
 * and the context agents get without a tool call (for agent hooks such as Claude Code's). Each
 * opens the home's services (src/main/host) for the one command and closes them after.
 */
import { HARVEST_CHILD_ENV } from '../harvest/harvest-child';
import { parseArgs } from 'node:util';
import { cappedScopeNote } from '../../common/context/render';
import { formatMemoryPath } from '../../common/memory/paths';
import type { HomeServices } from '../host/home-services';
import type { ContextBuilder, ContextFile } from '../memory/context-builder';
import type { MemorySession } from '../memory/session';
import { SESSION_OPTIONS, sessionFromFlags, withHome, type SessionFlags } from './session-flags';
import { minuteOf, writeTable } from './table';
import { readAll, refusing, type CliIo } from './tool-command';
import { CONTEXT_HELP, PIN_HELP, STATS_HELP, UsageError } from './usage';

export async function pinCommand(args: string[], io: CliIo, pinned: boolean): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { ...SESSION_OPTIONS, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.stdout.write(PIN_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`give one memory path, e.g. cairn ${pinned ? 'pin' : 'unpin'} /memories/project/build.md`);
  return withHome(values, async (services) => {
    const session = await sessionFromFlags(services, values);
    return refusing(io, async () => {
      io.stdout.write(`${await services.service.setPinned(positionals[0]!, pinned, session)}\n`);
      return 0;
    });
  });
}

export async function statsCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { ...SESSION_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    io.stdout.write(STATS_HELP);
    return 0;
  }
  return withHome(values, (services) => stats(services, values, io));
}

async function stats(services: HomeServices, values: SessionFlags & { json?: boolean | undefined }, io: CliIo): Promise<number> {
  const session = await sessionFromFlags(services, values);
  const snapshot = await services.builder.snapshot(session);
  if (values.json) {
    const files = snapshot.files.map((f) => ({ path: f.path, scope: f.scope, size: f.size, description: f.description, ...f.stats }));
    io.stdout.write(`${JSON.stringify({ workspaceId: session.workspaceId, projectId: session.projectId, files, unavailable: snapshot.unavailable, capped: snapshot.capped }, null, 2)}\n`);
    return 0;
  }
  writeTable(io, [['PIN', 'USES', 'LAST USED (UTC)', 'LAST WRITTEN (UTC)', 'PATH'], ...snapshot.files.map((f) => [f.stats.pinned ? 'yes' : '', String(f.stats.accessCount), minuteOf(f.stats.lastAccessedAt), minuteOf(f.stats.lastWriteAt), f.path])]);
  for (const scope of snapshot.capped) io.stdout.write(`${cappedScopeNote(formatMemoryPath(scope))}\n`);
  for (const u of snapshot.unavailable) io.stdout.write(`(/memories/${u.scope} is unavailable: ${u.reason})\n`);
  return 0;
}

/** What Claude Code sends a hook command on stdin (the fields Cairn uses). */
interface ClaudeHookInput {
  hook_event_name?: string;
  prompt?: string;
  cwd?: string;
}

export async function contextCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...SESSION_OPTIONS,
      prompt: { type: 'string' },
      'prompt-stdin': { type: 'boolean' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(CONTEXT_HELP);
    return 0;
  }
  const format = values.format ?? 'text';
  if (!['text', 'json', 'claude-hook'].includes(format)) throw new UsageError('--format must be one of text, json, claude-hook');
  if (values.prompt !== undefined && values['prompt-stdin']) throw new UsageError('give --prompt or --prompt-stdin, not both');

  // Inside Cairn's own extraction run (the harvest's command backend), the hook adds nothing: the
  // model there reads a transcript as data, not memory.
  if (format === 'claude-hook' && process.env[HARVEST_CHILD_ENV]) return 0;
  let prompt = values.prompt;
  let hook: ClaudeHookInput = {};
  if (values['prompt-stdin'] || (format === 'claude-hook' && !io.stdin.isTTY)) {
    const input = await readAll(io.stdin);
    if (format === 'claude-hook') {
      try {
        hook = JSON.parse(input) as ClaudeHookInput;
      } catch {
        if (input.trim() !== '') throw new UsageError('with --format claude-hook, stdin must be the hook input JSON Claude Code sends');
      }
      if (prompt === undefined && typeof hook.prompt === 'string') prompt = hook.prompt;
    } else prompt = input;
  }

  return withHome(values, async (services) => {
    const session = await sessionFromFlags(services, values, typeof hook.cwd === 'string' ? hook.cwd : process.cwd());
    return printContext(services.builder, session, prompt, format, hook, io);
  });
}

/** What `cairn context` prints for `session` (see CONTEXT_HELP). */
async function printContext(
  builder: ContextBuilder,
  session: MemorySession,
  prompt: string | undefined,
  format: string,
  hook: ClaudeHookInput,
  io: CliIo,
): Promise<number> {
  const snapshot = await builder.snapshot(session);
  const relevant = prompt !== undefined ? builder.relevant(snapshot, prompt, Date.now()) : '';

  if (format === 'claude-hook') {
    // On each prompt only the relevant memories; at session start (and after a compaction) the
    // index and the hot set, computed once so they stay the same for the whole session.
    const event = hook.hook_event_name === 'UserPromptSubmit' ? 'UserPromptSubmit' : 'SessionStart';
    const context = event === 'UserPromptSubmit' ? relevant : [builder.index(snapshot), await builder.hotSet(snapshot, session), relevant].filter(Boolean).join('\n\n');
    if (context === '') return 0;
    io.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}\n`);
    return 0;
  }
  const index = builder.index(snapshot);
  const hotSet = await builder.hotSet(snapshot, session);
  if (format === 'json') {
    const files = snapshot.files.map((f: ContextFile) => ({ path: f.path, description: f.description, pinned: f.stats.pinned, accessCount: f.stats.accessCount }));
    io.stdout.write(`${JSON.stringify({ workspaceId: session.workspaceId, projectId: session.projectId, index, hotSet, relevant: relevant || null, files }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(`${[index, hotSet, relevant].filter(Boolean).join('\n\n')}\n`);
  return 0;
}
