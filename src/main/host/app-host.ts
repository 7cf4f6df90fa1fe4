/**
 * The long-lived host the app (src/main/electron) and `cairn serve` run: a home's services with a
 * change feed (./home-services.ts), the oRPC router's context over them, and the loopback web
 * server with Cairn's MCP endpoint given to it as the /mcp route. This is where api/ and mcp/ meet;
 * neither imports the other.
 *
 *   const host = openAppHost(home);                       // services + router context
 *   const web = await startWebHost(host, { port, host: '127.0.0.1', staticDir });
 *   ...
 *   await web.close(); await host.close();               // MCP sessions and server, then services
 */
import type { RouterContext } from '../api/router';
import { createRouterContext } from '../api/router';
import { startWebServer, type WebServer } from '../api/web-server';
import { MCP_HTTP_PATH } from '../../common/api/transport';
import { createMcpHttpEndpoint, type McpHttpEndpoint } from '../mcp/http-endpoint';
import { loadOrCreateMcpToken } from '../mcp/mcp-token';
import { extractorFor } from '../harvest/extractors';
import { codexSessionFiles, sessionFilesIn, transcriptRoots } from '../harvest/session-files';
import { SyncControl } from '../sync/sync-control';
import { resolveHome } from '../workspaces/home-dir';
import { CODEX_PICKUP_DAYS, HarvestHost, type HarvestHostOptions } from './harvest-host';
import { openHome, type LiveHomeServices, type OpenHomeOptions } from './home-services';

/**
 * How long the host keeps watching a workspace's roots after its last page stops looking: a reload
 * or a workspace opened again within this time starts at once instead of rescanning its roots.
 */
const WATCH_LINGER_MS = 10 * 60_000;

/** A home's services with a feed, and the router's context over them. */
export type AppHost = LiveHomeServices & RouterContext & { readonly harvest: HarvestHost; readonly sync: SyncControl };

export interface AppHostOptions extends Omit<OpenHomeOptions, 'feed'> {
  /** The harvest's clock, timer and where it finds the agents' sessions (tests give their own). */
  readonly harvest?: Partial<HarvestHostOptions>;
  /** The sync schedule's timers (tests give their own clock). */
  readonly sync?: ConstructorParameters<typeof SyncControl>[1];
}

/** Opens `home` for a long-lived host (the feed lingers: WATCH_LINGER_MS). */
export function openAppHost(home: string, options: AppHostOptions = {}): AppHost {
  const { harvest: harvestOptions, sync: syncOptions, ...homeOptions } = options;
  const services = openHome(home, { ...homeOptions, feed: { lingerMs: WATCH_LINGER_MS } });
  const harvest = new HarvestHost(services, {
    extractor: () => extractorFor(services.registry.settings()),
    sessionsIn: (dir) => sessionFilesIn(dir),
    codexSessions: () => codexSessionFiles(transcriptRoots().codexHome, Date.now(), CODEX_PICKUP_DAYS),
    ...harvestOptions,
  });
  // While the host runs, synced memory syncs a while after it changes and on a schedule.
  const sync = new SyncControl(services, syncOptions ?? {});
  sync.follow(services.changes);
  // Setup lines name the home only when it is not the one Cairn finds by default.
  const context = createRouterContext({ ...services, harvest, sync, setupHome: home !== resolveHome() ? home : undefined });
  return {
    ...context,
    ...services,
    harvest,
    sync,
    close: async () => {
      await sync.close();
      await harvest.close();
      await services.close();
    },
  };
}

export interface WebHostOptions {
  readonly port: number;
  readonly host: string;
  /** The built renderer, or null to serve no UI. */
  readonly staticDir: string | null;
  /** The token of the API (default: a new random one; the app and `cairn serve` pass <home>/web-token). */
  readonly token?: string;
  /** The MCP endpoint at /mcp: its token (default: <home>/mcp-token, made on first use) and limits. */
  readonly mcp?: { readonly token?: string; readonly maxSessions?: number; readonly idleMs?: number; readonly now?: () => number };
}

export interface WebHost extends WebServer {
  /** The MCP endpoint's live sessions. */
  readonly endpoint: McpHttpEndpoint;
}

/**
 * Starts the web server of `host`, with MCP at /mcp. close() ends the MCP sessions, then the
 * server; the host's services stay open (the caller closes them after).
 */
export async function startWebHost(host: AppHost, options: WebHostOptions): Promise<WebHost> {
  const endpoint = createMcpHttpEndpoint({
    service: host.service,
    builder: host.builder,
    registry: host.registry,
    changes: host.changes,
    consolidations: host.consolidations,
    ...(options.mcp?.maxSessions !== undefined ? { maxSessions: options.mcp.maxSessions } : {}),
    ...(options.mcp?.idleMs !== undefined ? { idleMs: options.mcp.idleMs } : {}),
    ...(options.mcp?.now !== undefined ? { now: options.mcp.now } : {}),
  });
  let server: WebServer;
  try {
    const token = options.mcp?.token ?? loadOrCreateMcpToken(host.home);
    server = await startWebServer({
      context: host,
      port: options.port,
      host: options.host,
      staticDir: options.staticDir,
      ...(options.token !== undefined ? { token: options.token } : {}),
      mcp: { path: MCP_HTTP_PATH, token, handle: (req, res, url) => endpoint.handle(req, res, url) },
    });
  } catch (err) {
    await endpoint.close(); // its idle sweep would otherwise outlive a server that never listened
    throw err;
  }
  return {
    ...server,
    endpoint,
    close: async () => {
      await endpoint.close();
      await server.close();
    },
  };
}
