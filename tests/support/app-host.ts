/**
 * An app host as the integration suites drive it: the host opened on a sandbox's home (real
 * services, real watchers), the router called in process as the UI calls it, and the sandbox's
 * checkout added as a workspace the way the UI adds one. Whoever opens a host closes it before its
 * sandbox goes, so no watcher or write is left running in a removed folder.
 */
import { createRouterClient, type RouterClient } from '@orpc/server';
import { router, type AppRouter } from '../../src/main/api/router';
import { openAppHost, type AppHost, type AppHostOptions } from '../../src/main/host/app-host';
import { makeSandbox, type Sandbox } from './sandbox';

export interface HostOnSandbox {
  readonly host: AppHost;
  /** The router over `host`, called in process. */
  readonly client: RouterClient<AppRouter>;
  /** The id of the workspace added for the sandbox's checkout (named Widgets). */
  readonly ws: string;
}

export interface TestAppHost extends HostOnSandbox {
  readonly sb: Sandbox;
  /** Closes the host, then removes the sandbox. */
  close(): Promise<void>;
}

/**
 * A host opened on `sb`'s home with the checkout added as a workspace; the caller closes the host
 * (for a suite that prepares the sandbox first, or opens a second host on the same home).
 */
export async function openHostOn(sb: Sandbox, options: AppHostOptions = {}): Promise<HostOnSandbox> {
  const host = openAppHost(sb.home, options);
  try {
    const client = createRouterClient(router, { context: host });
    const ws = (await client.workspaces.add({ name: 'Widgets', path: sb.checkout })).id;
    return { host, client, ws };
  } catch (err) {
    await host.close();
    throw err;
  }
}

/** A new sandbox and a host on it with its checkout added as a workspace; close() disposes of both. */
export async function openTestAppHost(): Promise<TestAppHost> {
  const sb = await makeSandbox();
  try {
    const opened = await openHostOn(sb);
    return {
      sb,
      ...opened,
      close: async () => {
        await opened.host.close();
        await sb.cleanup();
      },
    };
  } catch (err) {
    await sb.cleanup();
    throw err;
  }
}
