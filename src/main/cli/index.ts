/**
 * Entry point of the `cairn` CLI (bin/cairn runs the built copy). Dispatches to a command and maps
 * usage errors to exit status 2 with a message on stderr.
 *
 * Each command's module is loaded when that command runs: agents' hooks run `cairn context` on
 * every prompt, and it must not wait for the MCP SDK, the web server or ssh2 to load (loading
 * everything took about 0.7 s before any work).
 */
import { closeAllConnections } from '../runtime/ssh/ssh-error';
import type { CliIo } from './tool-command';
import { MAIN_HELP, UsageError } from './usage';

/** `--home DIR` may come before the command; it is passed on to the command. */
export function splitGlobal(argv: string[]): { command: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (command === undefined && arg === '--home') {
      rest.push(arg, argv[++i] ?? '');
      continue;
    }
    if (command === undefined && arg.startsWith('--home=')) {
      rest.push(arg);
      continue;
    }
    if (command === undefined && !arg.startsWith('-')) command = arg;
    else rest.push(arg);
  }
  return { command, rest };
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const { command, rest } = splitGlobal(argv);
  try {
    switch (command) {
      case undefined:
        if (rest.includes('--help') || rest.includes('-h')) {
          io.stdout.write(MAIN_HELP);
          return 0;
        }
        io.stderr.write(MAIN_HELP);
        return 2;
      case 'help':
        io.stdout.write(MAIN_HELP);
        return 0;
      case 'tool':
        return await (await import('./tool-command')).toolCommand(rest, io);
      case 'serve':
        return await (await import('./serve-command')).serveCommand(rest, io);
      case 'mcp':
        return await (await import('./mcp-command')).mcpCommand(rest, io);
      case 'context':
        return await (await import('./context-command')).contextCommand(rest, io);
      case 'pin':
        return await (await import('./memory-commands')).pinCommand(rest, io, true);
      case 'unpin':
        return await (await import('./memory-commands')).pinCommand(rest, io, false);
      case 'stats':
        return await (await import('./memory-commands')).statsCommand(rest, io);
      case 'history':
        return await (await import('./history-command')).historyCommand(rest, io);
      case 'harvest':
        // The hook Claude Code runs before a compaction and at a session's end: kept light.
        if (rest.includes('--hook')) return await (await import('./harvest-hook')).harvestHook(rest, io);
        return await (await import('./harvest-command')).harvestCommand(rest, io);
      case 'inbox':
        return await (await import('./inbox-command')).inboxCommand(rest, io);
      case 'undo':
        return await (await import('./history-command')).undoCommand(rest, io);
      case 'restore':
        return await (await import('./history-command')).restoreCommand(rest, io);
      case 'consolidate':
      case 'sweep': // the command's older name, still accepted
        return await (await import('./consolidate-command')).consolidateCommand(rest, io);
      case 'setup':
        return await (await import('./setup-command')).setupCommand(rest, io);
      case 'import':
        return await (await import('./import-command')).importCommand(rest, io);
      case 'export':
        return await (await import('./export-command')).exportCommand(rest, io);
      case 'workspace':
        return await (await import('./workspace-command')).workspaceCommand(rest, io);
      case 'sync':
        return await (await import('./sync-command')).syncCommand(rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; run \`cairn --help\``);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`cairn: ${(err as Error).message}\n`);
      return 2;
    }
    io.stderr.write(`cairn: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  } finally {
    // SSH connections (keepalive timers) would otherwise hold the process open after its work.
    closeAllConnections();
  }
}
