/**
 * What the sync suites share: a bare repository over file:// standing for the remote a person
 * owns, and "machines" (homes in one sandbox, as on a laptop and a desktop) that write memory as an
 * agent does and sync with that remote. Each test gets a new sandbox and remote; every machine it
 * opened is closed after it, before the sandbox goes.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { openHome, type HomeServices } from '../../src/main/host/home-services';
import { syncServices } from '../../src/main/sync/sync-control';
import { runSync } from '../../src/main/sync/sync-run';
import { makeSandbox, type Sandbox } from './sandbox';

/** An empty bare repository at `at` (branch main); returns `at`. */
export function bareRepository(at: string): string {
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', at]);
  return at;
}

export interface SyncMachines {
  /** This test's sandbox. */
  readonly sb: Sandbox;
  /** This test's remote: the file:// URL of a bare repository in the sandbox. */
  readonly remote: string;
  /** The home `name` in the sandbox, opened (and closed after the test). */
  machine(name: string): HomeServices;
  /** A memory command run as an agent in `workspaceId` (null: no workspace); it must succeed. Its output. */
  write(m: HomeServices, command: Record<string, unknown>, workspaceId?: string | null): Promise<string>;
  /** One sync of `m` with `to` (this test's remote unless told). */
  sync(m: HomeServices, to?: string): ReturnType<typeof runSync>;
}

/** Registers the per-test setup and teardown in the calling suite; the fields are read inside a test. */
export function syncMachines(): SyncMachines {
  let sb: Sandbox | null = null;
  let remote = '';
  let opened: HomeServices[] = [];
  beforeEach(async () => {
    sb = await makeSandbox();
    remote = `file://${bareRepository(path.join(sb.dir, 'memory-remote.git'))}`;
  });
  afterEach(async () => {
    await Promise.all(opened.map((s) => s.close()));
    opened = [];
    await sb?.cleanup();
  });
  return {
    get sb() {
      return sb!;
    },
    get remote() {
      return remote;
    },
    machine(name) {
      const services = openHome(path.join(sb!.dir, name));
      opened.push(services);
      return services;
    },
    async write(m, command, workspaceId = null) {
      const result = await m.service.execute(command, await m.registry.session(workspaceId), { mode: 'exec', actor: 'agent' });
      expect(result.ok, result.output).toBe(true);
      return result.output;
    },
    sync: async (m, to = remote) => runSync(await syncServices(m), to),
  };
}
