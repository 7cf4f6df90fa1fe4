// The start every browser suite on one workspace shares: a sandbox (seeded), `cairn serve` on its
// home with its checkout added as the workspace "widgets", and Chromium. endSuite ends it.
import { type Browser, endSuite, launchBrowser } from './browser';
import { makeSandbox, requireBuiltCli, type Sandbox } from './sandbox';
import { rpc, serve, type Served, type ServeOptions } from './serve';

/**
 * Starts the suite's parts, `seed` run on the sandbox before the server starts, and the server
 * started with what `serveWith` gives once the seed has run (an environment, a port). A part that
 * fails to start ends the ones made before it, then throws. `workspaceId` is the id of "widgets".
 */
export async function openWorkspaceSuite(
  seed?: (sb: Sandbox) => Promise<unknown> | unknown,
  serveWith?: () => ServeOptions,
): Promise<{ sb: Sandbox; served: Served; browser: Browser; workspaceId: string }> {
  await requireBuiltCli();
  const sb = await makeSandbox();
  let served: Served | undefined;
  try {
    await seed?.(sb);
    served = await serve(sb.home, serveWith?.());
    const { id } = (await rpc(served, 'workspaces/add', { name: 'widgets', path: sb.checkout })) as { id: string };
    return { sb, served, browser: await launchBrowser(), workspaceId: id };
  } catch (err) {
    await endSuite({ browsers: [], served, sb });
    throw err;
  }
}
