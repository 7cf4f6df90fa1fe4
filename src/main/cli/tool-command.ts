/**
 * `cairn tool`: one memory command from the argument or stdin, or a JSON-lines stream of them
 * (`--jsonl`), executed by the MemoryService of the home's memory (src/main/host/memory-home.ts) for the
 * session of --cwd / --workspace. Every change is in the journal before the process exits.
 */
import { readAll } from './read-all';
import * as readline from 'node:readline';
import { ACTORS, MODES, type Actor, type Mode } from '../../common/memory/constants';
import { errorText, MemoryToolError } from '../../common/memory/errors';
import { AgentsSeen } from '../activity/agents-seen';
import { openMemoryHome } from '../host/memory-home';
import type { MemoryService } from '../memory/memory-service';
import type { ExecuteOptions, MemorySession } from '../memory/session';
import { AGENT_OPTIONS, agentFromFlags, homeFromFlags, reportSettingsProblems, SESSION_OPTIONS, sessionFromFlags } from './session-flags';
import { commandArgs } from './command-args';
import { TOOL_HELP, UsageError } from './usage';

export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /**
   * Reads the whole of stdin, or null when it is a terminal unless `evenFromTerminal`; the
   * process's own io (process-io.ts) reads the descriptor without making a stream. Without it,
   * read-all.ts's readInput reads `stdin`.
   */
  readonly readInput?: (evenFromTerminal: boolean) => Promise<string | null>;
  /** Writes a whole text to stdout (the process's own io: to the descriptor). Without it, `stdout`. */
  readonly writeOutput?: (text: string) => void;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  return value as T;
}

/**
 * Runs a command of the CLI whose refusals are the memory's (MemoryToolError): written as the tool
 * writes one (`Error: ...` on stdout), status 1; any other failure passes.
 */
export async function refusing(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof MemoryToolError)) throw err;
    io.stdout.write(`${errorText(err.message)}\n`);
    return 1;
  }
}

export async function toolCommand(args: string[], io: CliIo): Promise<number> {
  const parsed = commandArgs(args, io, TOOL_HELP, {
    ...SESSION_OPTIONS,
    ...AGENT_OPTIONS,
    mode: { type: 'string' },
    actor: { type: 'string' },
    jsonl: { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const mode: Mode = oneOf(values.mode, MODES, 'mode', 'exec');
  // `user` is the person's older name, still accepted.
  const actor: Actor = oneOf(values.actor === 'user' ? 'person' : values.actor, ACTORS.filter((a) => a !== 'external' && a !== 'sync'), 'actor', 'agent');
  const home = homeFromFlags(values);
  const agent = actor === 'agent' ? agentFromFlags(values) : undefined;
  if (positionals.length > 1) throw new UsageError('give one JSON command (quote it), or none to read it from stdin');
  if (values.jsonl && positionals.length > 0) throw new UsageError('--jsonl reads commands from stdin; do not also give one as an argument');

  const services = openMemoryHome(home);
  reportSettingsProblems(services.registry, (text) => io.stderr.write(text));
  try {
    const session = await sessionFromFlags(services, values);
    const options: ExecuteOptions = { mode, actor, ...(agent ? { agent } : {}) };
    if (agent) new AgentsSeen(services.home).seen(session.workspaceId, agent);
    return await runTool(services.service, session, options, values.jsonl === true, positionals, io);
  } finally {
    await services.close();
  }
}

async function runTool(
  service: MemoryService,
  session: MemorySession,
  options: ExecuteOptions,
  jsonl: boolean,
  positionals: string[],
  io: CliIo,
): Promise<number> {
  if (jsonl) return runJsonl(service, session, options, io);

  let text: string;
  if (positionals.length === 1) text = positionals[0]!;
  else {
    if (io.stdin.isTTY) throw new UsageError('give the command as a JSON argument, or pipe it on stdin');
    text = await readAll(io.stdin);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the command is not valid JSON: ${(err as Error).message}`);
  }
  const result = await service.execute(input, session, options);
  io.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
  return result.ok ? 0 : 1;
}

async function runJsonl(service: MemoryService, session: MemorySession, options: ExecuteOptions, io: CliIo): Promise<number> {
  const lines = readline.createInterface({ input: io.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const started = performance.now();
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch (err) {
      io.stdout.write(`${JSON.stringify({ ok: false, output: errorText(`The line is not valid JSON: ${(err as Error).message}`) })}\n`);
      continue;
    }
    const result = await service.execute(input, session, options);
    const ms = Math.round((performance.now() - started) * 100) / 100;
    io.stdout.write(`${JSON.stringify({ ok: result.ok, output: result.output, ms })}\n`);
  }
  return 0;
}
