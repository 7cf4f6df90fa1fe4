/**
 * Test sandboxes on the real filesystem: a temp dir holding a Cairn home and a git checkout, the
 * session an agent working there would get, and a MemoryService to run commands with.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Actor, Mode } from '../../src/common/memory/constants';
import { localRuntime } from '../../src/main/host/memory-home';
import { MemoryService, type MemorySession, type ToolResult } from '../../src/main/memory/memory-service';
import type { Runtime } from '../../src/main/runtime/runtime';
import { resolveLocalSession } from '../../src/main/workspaces/session';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const CAIRN_BIN = path.join(REPO_ROOT, 'bin', 'cairn');
export const BUILT_CLI = path.join(REPO_ROOT, 'out', 'main', 'cli.js');

export interface Sandbox {
  /** The temp dir holding everything. */
  readonly dir: string;
  readonly home: string;
  /** A git checkout (with an origin remote) whose project scope is `<checkout>/.cairn/memory`. */
  readonly checkout: string;
  readonly session: MemorySession;
  readonly service: MemoryService;
  /** Host paths of the three scope roots. */
  readonly roots: { global: string; project: string; workspace: string };
  run(input: unknown, options?: { mode?: Mode; actor?: Actor }): Promise<ToolResult>;
  cleanup(): Promise<void>;
}

export async function makeCheckout(dir: string, origin = 'git@example.com:acme/widgets.git'): Promise<string> {
  const checkout = path.join(dir, 'checkout');
  await fs.mkdir(path.join(checkout, '.git'), { recursive: true });
  await fs.writeFile(path.join(checkout, '.git', 'config'), `[remote "origin"]\n\turl = ${origin}\n`);
  return checkout;
}

export interface SandboxOptions {
  readonly git?: boolean;
  /**
   * The Runtime every available scope is reached through (default: the local disk). The SSH
   * suites pass an SshRuntime to a loopback sshd, so the same roots are reached over SSH.
   */
  readonly runtime?: Runtime;
}

export async function makeSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'cairn-test-')));
  const home = path.join(dir, 'home');
  const checkout = options.git === false ? path.join(dir, 'plain') : await makeCheckout(dir);
  await fs.mkdir(checkout, { recursive: true });
  // The process's one LocalRuntime, as every host uses (its mutex orders this process's writes).
  const local = await resolveLocalSession({ home, cwd: checkout }, localRuntime());
  const runtime = options.runtime;
  const session: MemorySession = runtime
    ? {
        ...local,
        scopes: Object.fromEntries(
          Object.entries(local.scopes).map(([scope, b]) => [scope, b.available ? { ...b, runtime } : b]),
        ) as unknown as MemorySession['scopes'],
      }
    : local;
  const service = new MemoryService();
  const roots = {
    global: path.join(home, 'memory', 'global'),
    project: path.join(checkout, '.cairn', 'memory'),
    workspace: path.join(home, 'workspaces', session.workspaceId!, 'memory'),
  };
  return {
    dir,
    home,
    checkout,
    session,
    service,
    roots,
    run: (input, o = {}) => service.execute(input, session, { mode: o.mode ?? 'exec', actor: o.actor ?? 'agent' }),
    // A request the UI left in flight when its test ended may still write into the home while it
    // is removed (ENOTEMPTY): rm tries again, as it does for such races.
    cleanup: () => fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 }),
  };
}

/** Fails with a clear message when the CLI has not been built (tests run after `make build`). */
export async function requireBuiltCli(): Promise<void> {
  try {
    await fs.access(BUILT_CLI);
  } catch {
    throw new Error(`The CLI is not built (${BUILT_CLI} is missing): run \`make build\` first, or use \`make test\`.`);
  }
}
