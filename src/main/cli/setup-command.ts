/**
 * `cairn setup claude|codex|cursor`: prints (--print) or merges into the agent's own files the
 * configuration that makes it use Cairn (src/main/setup). With --http --print: the configuration
 * that reaches Cairn's MCP endpoint by URL instead (src/main/setup/http-setup.ts). With --remove:
 * Cairn's entries taken out again (src/main/setup/remove.ts). What a file held before a change is
 * kept in Cairn's home (--home, $CAIRN_HOME, else ~/.cairn), under backups/. Exit 0 done (or
 * nothing to do), 1 a file could not be read, parsed or written (nothing written then), 2 usage error.
 */
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateMcpToken, mcpTokenFile } from '../mcp/mcp-token';
import { SetupError } from '../setup/config-file';
import { renderHttpSetup } from '../setup/http-setup';
import { resolveLauncher } from '../setup/launcher';
import { AGENTS, applyPlan, planSetup, projectRoot, renderOutcomes, renderPlan, type Agent } from '../setup/setup';
import { resolveHome } from '../workspaces/home-dir';
import { runningServer } from '../host/server-info';
import type { CliIo } from './tool-command';
import { SETUP_HELP, UsageError } from './usage';

export async function setupCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      cwd: { type: 'string' },
      home: { type: 'string' },
      print: { type: 'boolean' },
      http: { type: 'boolean' },
      remove: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout.write(SETUP_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`name one agent: cairn setup ${AGENTS.join('|')}`);
  const agent = positionals[0]!;
  if (!(AGENTS as readonly string[]).includes(agent)) throw new UsageError(`unknown agent ${JSON.stringify(agent)}; choose one of ${AGENTS.join(', ')}`);
  if (values.home === '') throw new UsageError('--home needs a directory');
  if (values.cwd === '') throw new UsageError('--cwd needs a directory');

  const chosenHome = values.home ?? (process.env.CAIRN_HOME || undefined);
  if (values.remove) {
    if (values.print || values.http) throw new UsageError('--remove takes Cairn out of the files; it does not go with --print or --http');
    // Cairn's entries are found whatever launcher and home they name (setup/remove.ts).
    try {
      const { applyRemove, planRemove, renderRemoval } = await import('../setup/remove');
      const plan = await planRemove(agent as Agent, { cwd: values.cwd ?? process.cwd() });
      io.stdout.write(renderRemoval(plan, await applyRemove(plan, resolveHome(chosenHome ? path.resolve(chosenHome) : undefined))));
      return 0;
    } catch (err) {
      if (!(err instanceof SetupError)) throw err;
      io.stderr.write(`cairn setup: ${err.message}\n`);
      return 1;
    }
  }
  if (values.http) {
    if (!values.print) throw new UsageError('--http only prints (add --print): a URL configuration needs the MCP token, which you put in the environment yourself');
    try {
      const home = resolveHome(chosenHome ? path.resolve(chosenHome) : undefined);
      loadOrCreateMcpToken(home); // so the printed `cat` works before the server's first start
      const running = runningServer(home);
      io.stdout.write(renderHttpSetup(agent as Agent, { root: await projectRoot(values.cwd ?? process.cwd()), runningUrl: running?.mcpUrl ?? null, tokenFile: mcpTokenFile(home) }));
      return 0;
    } catch (err) {
      if (!(err instanceof SetupError)) throw err;
      io.stderr.write(`cairn setup: ${err.message}\n`);
      return 1;
    }
  }
  try {
    const plan = await planSetup(agent as Agent, {
      launcher: resolveLauncher(),
      home: chosenHome ? path.resolve(chosenHome) : undefined,
      cwd: values.cwd ?? process.cwd(),
    });
    if (values.print) {
      io.stdout.write(renderPlan(plan));
      return 0;
    }
    io.stdout.write(renderOutcomes(plan, await applyPlan(plan, resolveHome(chosenHome ? path.resolve(chosenHome) : undefined))));
    return 0;
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    io.stderr.write(`cairn setup: ${err.message}\n`);
    return 1;
  }
}
