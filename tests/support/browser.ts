/**
 * Real Chromium for end-to-end tests, driven by playwright-core (Debian's chromium; `make test`
 * installs it). A missing browser fails the suite with the reason; it never skips.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: run \`make test\` (it installs it) or \`apt-get install chromium\`.`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
