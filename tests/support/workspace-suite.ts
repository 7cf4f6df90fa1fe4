// The start every browser suite on one workspace shares: a sandbox (seeded), `cairn serve` on its
// home with its checkout added as the workspace "widgets", and Chromium. endSuite ends it.
import { type Browser, endSuite, launchBrowser } from './browser';
import { makeSandbox, requireBuiltCli, type Sandbox } from './sandbox';
import { rpc, serve, type Served } from './serve';

/**
 * Starts the suite's parts, `seed` run on the sandbox before the server starts. A part that fails
 * to start ends the ones made before it, then throws.
 */
export async function openWorkspaceSuite(seed?: (sb: Sandbox) => Promise<unknown> | unknown): Promise<{ sb: Sandbox; served: Served; browser: Browser }> {
  await requireBuiltCli();
  const sb = await makeSandbox();
  let served: Served | undefined;
  try {
    await seed?.(sb);
    served = await serve(sb.home);
    await rpc(served, 'workspaces/add', { name: 'widgets', path: sb.checkout });
    return { sb, served, browser: await launchBrowser() };
  } catch (err) {
    await endSuite({ browsers: [], served, sb });
    throw err;
  }
}
