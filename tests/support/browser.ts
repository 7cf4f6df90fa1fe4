/**
 * Real Chromium for end-to-end tests, driven by playwright-core (Debian's chromium; `make test`
 * installs it). A missing browser fails the suite with the reason; it never skips. Also the end of
 * a browser suite: its browsers, its `cairn serve` and its sandbox, in that order.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { stopProcess } from './cli';
import type { Sandbox } from './sandbox';
import type { Served } from './serve';

export const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`make test\` (it installs it) or \`apt-get install chromium\`.`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // Well within a suite's hook timeout: a start that fails ends what it made (the server, the
    // sandbox), and a hung one would leave them running.
    timeout: 20_000,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Ends what a browser suite started, whichever parts it got to (a failed beforeAll leaves some
 * undefined): the browsers, then the server, then the sandbox, never removed under a running server.
 */
export async function endSuite(parts: { readonly browsers: ReadonlyArray<Browser | undefined>; readonly served: Served | undefined; readonly sb: Sandbox | undefined }): Promise<void> {
  for (const browser of parts.browsers) await browser?.close();
  if (parts.served) await stopProcess(parts.served.server);
  await parts.sb?.cleanup();
}
